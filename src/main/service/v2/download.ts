// Opens a v2 output's bytes through the link the server gave (never a URL built here): the key
// goes only to the surface's own origin, a link elsewhere (signed storage) is fetched with none,
// a 302 from the content route is followed the same way, and a link that has expired (or a
// refusal from the storage host) is replaced once by a fresh one from GET /api/v2/assets/{id}.
import { messageForStatus, ServiceError } from '../errors';
import type { FileOpener } from '../download';
import { jsonOf, type HttpTransport } from '../http';
import { readWebBodyCapped } from '../body-read';
import { assertHttpScheme, discardBody } from '../stream-request';
import { v2ErrorFor } from './errors';
import { assetSchema } from './wire';

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
/** A link this close to its expiry is not used: a fresh one is asked for instead. */
const EXPIRY_MARGIN_MS = 30_000;

export interface KnownLink {
  url: string;
  expiresAt: number | null;
}

async function freshLink(http: HttpTransport, assetId: string, secret: string | null, signal: AbortSignal | undefined): Promise<string> {
  const what = 'a fresh link to the output';
  const answer = await http.request({ method: 'GET', path: `/api/v2/assets/${encodeURIComponent(assetId)}`, what, ...(signal ? { signal } : {}) });
  if (answer.status < 200 || answer.status > 299) throw v2ErrorFor(answer, what, secret);
  const asset = assetSchema.safeParse(jsonOf(answer));
  if (!asset.success || !asset.data.url)
    throw new ServiceError('protocol', 'The server sent an asset without a link to its bytes.', { status: answer.status, retryable: false });
  return asset.data.url;
}

/** GET of `link`: through the transport (with the key) on the surface's own origin, else with no key. */
async function openLink(http: HttpTransport, link: URL, what: string, signal: AbortSignal | undefined): Promise<Response> {
  const own = http.url('/');
  if (link.origin !== own.origin) return http.openExternal(link.toString(), what, signal);
  return http.open({ method: 'GET', path: link.pathname, query: Object.fromEntries(link.searchParams), what, ...(signal ? { signal } : {}) });
}

export function assetOpener(http: HttpTransport, assetId: string, known: KnownLink | null, secret: () => Promise<string | null>): FileOpener {
  return async (what, signal) => {
    const usable = known && (known.expiresAt === null || known.expiresAt - Date.now() > EXPIRY_MARGIN_MS) ? known.url : null;
    let url = usable ?? (await freshLink(http, assetId, await secret(), signal));
    for (let fresh = usable ? 0 : 1; ; fresh += 1) {
      const base = http.url('/');
      const link = new URL(url, base);
      assertHttpScheme(link, base);
      let response = await openLink(http, link, what, signal);
      let redirected = false;
      if (REDIRECTS.has(response.status)) {
        discardBody(response);
        const location = response.headers.get('location');
        if (!location) throw new ServiceError('protocol', `The server redirected ${what} without saying where.`, { status: response.status });
        const target = new URL(location, link);
        assertHttpScheme(target, link);
        response = await http.openExternal(target.toString(), what, signal);
        redirected = true;
      }
      if (response.status >= 200 && response.status <= 299) return { response, redirected };
      const text = await readWebBodyCapped(response, http.limits.errorBodyBytes, what, 'truncate').catch(() => '');
      const expired = response.status === 403 || response.status === 404 || (response.status === 400 && /expired/i.test(text));
      if (expired && fresh === 0) {
        url = await freshLink(http, assetId, await secret(), signal);
        continue;
      }
      if (link.origin === base.origin && !redirected) throw v2ErrorFor({ status: response.status, headers: response.headers, text }, what, await secret());
      const { kind, message } = messageForStatus(response.status, `${what} (from the storage host)`);
      throw new ServiceError(kind, message, { status: response.status });
    }
  };
}
