// The app's own files are served from a privileged custom scheme, app://flowdeck/, instead of
// file://: responses carry the strict CSP as a header (file:// responses have no headers), and
// every path is checked to stay inside the built renderer folder.
import { protocol } from 'electron';
import { readFile } from 'node:fs/promises';
import { contentSecurityPolicy, securityHeaders, staticContentType } from '../app/csp';
import { resolveStaticFile } from '../app/static-files';

export const APP_SCHEME = 'app';
export const APP_HOST = 'flowdeck';
export const APP_ORIGIN = `${APP_SCHEME}://${APP_HOST}`;

/** Must run before the app is ready. */
export function registerAppScheme(): void {
  protocol.registerSchemesAsPrivileged([
    { scheme: APP_SCHEME, privileges: { standard: true, secure: true, supportFetchAPI: true, stream: true, codeCache: true } },
  ]);
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
  const csp = contentSecurityPolicy();
  protocol.handle(APP_SCHEME, async (request) => {
    const url = new URL(request.url);
    if (url.host !== APP_HOST || request.method !== 'GET') return new Response('Not found', { status: 404 });
    const file = resolveStaticFile(rendererDir, url.pathname);
    if (!file) return new Response('Not found', { status: 404 });
    const body = await readFile(file);
    return new Response(new Uint8Array(body), { status: 200, headers: { 'Content-Type': staticContentType(file), ...securityHeaders(csp) } });
  });
}
