// The Content-Security-Policy of the app's own pages, sent as a response header by the Electron
// protocol handler and by the browser harness. The renderer has no network: `connect-src` names
// nothing, except in the harness, where it must reach the harness's own WebSocket. Library media
// come from the page's own origin in the harness (/media) and from the library media scheme in
// Electron (`mediaSrc: 'flowdeck-media:'`), for images and for video and audio alike.
export function contentSecurityPolicy(options: { connectSrc?: string | null; mediaSrc?: string | null } = {}): string {
  const media = options.mediaSrc ? ` ${options.mediaSrc}` : '';
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    `img-src 'self' blob: data:${media}`,
    `media-src 'self' blob:${media}`,
    "font-src 'self'",
    `connect-src ${options.connectSrc ?? "'none'"}`,
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
    "object-src 'none'",
  ].join('; ');
}

/** Headers every app page and asset carries. */
export function securityHeaders(csp: string): Record<string, string> {
  return {
    'Content-Security-Policy': csp,
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
    'Cross-Origin-Opener-Policy': 'same-origin',
    'Cross-Origin-Resource-Policy': 'same-origin',
  };
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.webp': 'image/webp',
  '.ico': 'image/x-icon',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
  '.ttf': 'font/ttf',
  '.map': 'application/json',
  '.txt': 'text/plain; charset=utf-8',
};

export function staticContentType(path: string): string {
  const dot = path.lastIndexOf('.');
  return (dot >= 0 ? TYPES[path.slice(dot).toLowerCase()] : undefined) ?? 'application/octet-stream';
}
