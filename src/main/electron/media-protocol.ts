// Serves library media to the window over the privileged flowdeck-media:// scheme (registered
// with the app's scheme in protocol.ts): flowdeck-media://library/file/<id> and /thumb/<id>,
// answered by the app core's media server (only finished files from inside the library folder).
// Bodies stream from disk to the page: a Node stream turned into a web stream, so a video can be
// gigabytes and a seek (Range request) cancels the rest of the previous read.
import { protocol } from 'electron';
import { Readable } from 'node:stream';
import type { AppCore } from '@main/app/ports';
import { ELECTRON_MEDIA_BASE, LIBRARY_MEDIA_SCHEME } from '@shared/library-media';

const MEDIA_HOST = new URL(ELECTRON_MEDIA_BASE).host;

/** Call once the app is ready (protocol.handle needs it) and the core exists. */
export function serveLibraryMediaScheme(core: Pick<AppCore, 'serveMedia'>): void {
  protocol.handle(LIBRARY_MEDIA_SCHEME, async (request) => {
    const url = new URL(request.url);
    if (url.host !== MEDIA_HOST) return new Response('Not found', { status: 404, headers: { 'Content-Type': 'text/plain; charset=utf-8' } });
    let answer;
    try {
      answer = await core.serveMedia({ pathname: url.pathname, method: request.method, range: request.headers.get('range') });
    } catch {
      // The core logs nothing here, and the page only needs to know it failed (it shows an icon).
      return new Response('The file could not be read.', { status: 500, headers: { 'Content-Type': 'text/plain; charset=utf-8' } });
    }
    // Node's web stream type and the DOM's ReadableStream are the same object at run time but
    // distinct declarations for TypeScript.
    const body = answer.body ? (Readable.toWeb(answer.body) as unknown as ReadableStream<Uint8Array>) : null;
    return new Response(body, { status: answer.status, headers: answer.headers });
  });
}
