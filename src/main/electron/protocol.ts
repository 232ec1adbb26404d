// The app's own files are served from a privileged custom scheme, app://flowdeck/, instead of
// file://: responses carry the strict CSP as a header (file:// responses have no headers), and
// every path is checked to stay inside the built renderer folder.
import { protocol, session } from 'electron';
import { readFile } from 'node:fs/promises';
import { contentSecurityPolicy, securityHeaders, staticContentType } from '@main/app/csp';
import { resolveStaticFile } from '@main/app/static-files';
import { LIBRARY_MEDIA_SCHEME } from '@shared/library-media';

export const APP_SCHEME = 'app';
export const APP_HOST = 'flowdeck';
export const APP_ORIGIN = `${APP_SCHEME}://${APP_HOST}`;

/** The CSP of the app's pages: library media come from their own scheme (media-protocol.ts). */
function appCsp(connectSrc?: string): string {
  return contentSecurityPolicy({ mediaSrc: `${LIBRARY_MEDIA_SCHEME}:`, ...(connectSrc ? { connectSrc } : {}) });
}

/**
 * Must run before the app is ready, and only once: Electron keeps the schemes of the last call,
 * so the app's scheme and the library media scheme are registered together. `stream` lets video
 * and audio elements read a response as it arrives (and seek with Range requests).
 */
export function registerAppScheme(): void {
  protocol.registerSchemesAsPrivileged([
    { scheme: APP_SCHEME, privileges: { standard: true, secure: true, supportFetchAPI: true, corsEnabled: true, stream: true, codeCache: true } },
    { scheme: LIBRARY_MEDIA_SCHEME, privileges: { standard: true, secure: true, supportFetchAPI: true, stream: true } },
  ]);
}

/**
 * `electron-vite dev` serves the renderer over http from its dev server: give those responses the
 * same CSP, with connect-src opened only to the dev server (its hot-reload socket).
 */
export function applyDevServerCsp(devUrl: string): void {
  const origin = new URL(devUrl);
  const csp = appCsp(`${origin.origin} ws://${origin.host}`);
  session.defaultSession.webRequest.onHeadersReceived((details, callback) => {
    if (!details.url.startsWith(origin.origin)) return callback({});
    callback({ responseHeaders: { ...details.responseHeaders, 'Content-Security-Policy': [csp] } });
  });
}

export function isAppUrl(url: string): boolean {
  try {
    const parsed = new URL(url);
    return parsed.protocol === `${APP_SCHEME}:` && parsed.host === APP_HOST;
  } catch {
    return false;
  }
}

/** Serves `rendererDir` under app://flowdeck/ (call once the app is ready). */
export function serveRenderer(rendererDir: string): void {
  const csp = appCsp();
  protocol.handle(APP_SCHEME, async (request) => {
    const url = new URL(request.url);
    if (url.host !== APP_HOST || request.method !== 'GET') return new Response('Not found', { status: 404 });
    const file = resolveStaticFile(rendererDir, url.pathname);
    if (!file) return new Response('Not found', { status: 404 });
    const body = await readFile(file);
    return new Response(new Uint8Array(body), { status: 200, headers: { 'Content-Type': staticContentType(file), ...securityHeaders(csp) } });
  });
}
