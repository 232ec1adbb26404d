// Sends a request with a body over node:http(s) and answers with a standard Response.
// Uploads go this way rather than through fetch: Node 20's fetch buffers a streamed request body
// (a 512 MiB upload peaked at ~630 MB RSS and ran at half the speed), while http.request honours
// back-pressure (measured ~117 MB RSS, about curl's speed). JSON bodies (a workflow's submit) too:
// fetch spent ~1.4 ms of CPU per small POST where node:http spends ~0.65 (400 at 8 at once, a
// fresh process, as a batch sends them), and their answers are small, so nothing is lost by not
// asking for compressed answers as fetch does (GETs, such as a large object_info, keep fetch).
import http from 'node:http';
import https from 'node:https';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { readNodeBodyCapped } from './body-read';
import { ServiceError } from './errors';

const NULL_BODY_STATUS = new Set([101, 204, 205, 304]);

/** A request with a body: a stream (an upload, sent as it is read) or a text (JSON, sent whole with its length). */
export async function sendStreamed(
  url: URL,
  init: { method: string; headers: Headers; body: AsyncIterable<Uint8Array> | string; signal: AbortSignal },
): Promise<Response> {
  const transport = url.protocol === 'https:' ? https : http;
  const headers: Record<string, string> = {};
  init.headers.forEach((value, key) => {
    headers[key] = value;
  });
  if (typeof init.body === 'string') headers['content-length'] = String(Buffer.byteLength(init.body));
  const request = transport.request(url, { method: init.method, headers, signal: init.signal });
  const answered = new Promise<http.IncomingMessage>((resolve, reject) => {
    request.once('response', resolve);
    request.once('error', reject);
  });
  const sent = { failure: null as { error: unknown } | null };
  if (typeof init.body === 'string') {
    // An error after the first (a reset once the answer came) has no one left to tell.
    request.on('error', () => {});
    request.end(init.body);
  } else {
    // A server may answer (e.g. 400, 413) before reading the whole body; its answer is what counts,
    // and a send broken by that early answer is not an error of its own. A send that fails with no
    // answer at all rejects `answered` through the request's 'error' event; when the body itself
    // failed (a file that shrank), that error is the one told, not the hang-up it causes.
    pipeline(Readable.from(failuresNoted(init.body, sent)), request).catch(() => {});
  }
  const response = await answered.catch((error: unknown) => {
    throw sent.failure ? sent.failure.error : error;
  });
  // The answer's body stays a Node stream (nodeBodyOf), which the caller reads capped: a web
  // stream made of it (Readable.toWeb) cost more than the rest of the send.
  const status = response.statusCode ?? 0;
  const answer = new Response(null, { status, statusText: response.statusMessage ?? '', headers: toHeaders(response) });
  if (NULL_BODY_STATUS.has(status)) response.resume();
  else nodeBodies.set(answer, response);
  return answer;
}

/** The body's chunks; an error of its own is noted before the request is torn down by it. */
async function* failuresNoted(body: AsyncIterable<Uint8Array>, noted: { failure: { error: unknown } | null }): AsyncGenerator<Uint8Array> {
  try {
    yield* body;
  } catch (error) {
    noted.failure = { error };
    throw error;
  }
}

/**
 * Downloads hand the body of a successful GET to a file as a Node stream: converting it to a web
 * stream and back (what fetch's Response forces) measured ~30 % slower. A 2xx Response made by
 * getStreamed, and every answer to sendStreamed, has a null web body and its Node body registered
 * below; getStreamed's error answers carry their text as usual.
 */
const nodeBodies = new WeakMap<Response, Readable>();

export function nodeBodyOf(response: Response): Readable | null {
  return nodeBodies.get(response) ?? null;
}

/** Releases a response's body, whichever kind it has. */
export function discardBody(response: Response): void {
  const node = nodeBodies.get(response);
  if (node) node.destroy();
  else void response.body?.cancel().catch(() => {});
}

function toHeaders(message: http.IncomingMessage): Headers {
  const headers = new Headers();
  for (const [key, value] of Object.entries(message.headers)) {
    if (Array.isArray(value)) for (const v of value) headers.append(key, v);
    else if (value !== undefined) headers.set(key, value);
  }
  return headers;
}

/**
 * GET over node:http(s). `followRedirects` > 0 follows that many redirects, each as a new request
 * with NO headers (only for storage URLs, which carry nothing secret); 0 returns a redirect as is.
 */
export async function getStreamed(
  url: URL,
  init: { headers: Headers; signal: AbortSignal; followRedirects: number; errorBodyBytes: number },
): Promise<Response> {
  let target = url;
  let headers = init.headers;
  for (let hop = 0; ; hop += 1) {
    const transport = target.protocol === 'https:' ? https : http;
    const plain: Record<string, string> = {};
    headers.forEach((value, key) => {
      plain[key] = value;
    });
    const message = await new Promise<http.IncomingMessage>((resolve, reject) => {
      const request = transport.get(target, { headers: plain, signal: init.signal }, resolve);
      request.once('error', reject);
    });
    const status = message.statusCode ?? 0;
    const location = message.headers.location;
    if (status >= 300 && status < 400 && location && hop < init.followRedirects) {
      message.destroy();
      target = new URL(location, target);
      assertHttpScheme(target, url);
      headers = new Headers();
      continue;
    }
    if (status >= 200 && status < 300) {
      const response = new Response(null, { status, statusText: message.statusMessage ?? '', headers: toHeaders(message) });
      nodeBodies.set(response, message);
      return response;
    }
    // An error body only lends its reason: the start is kept, the rest is not read.
    const bytes = await readNodeBodyCapped(message, init.errorBodyBytes, url.pathname, 'truncate');
    const body = NULL_BODY_STATUS.has(status) ? null : bytes;
    return new Response(body, { status, statusText: message.statusMessage ?? '', headers: toHeaders(message) });
  }
}

/**
 * A redirect may only lead to http(s): a `file:` or `ftp:` Location is refused at once, naming the
 * scheme (it is not a network failure, so it is not retried).
 */
export function assertHttpScheme(target: URL, from: URL): void {
  if (target.protocol === 'http:' || target.protocol === 'https:') return;
  throw new ServiceError('protocol', `${from.origin} redirected to a ${target.protocol} URL; only http: and https: redirects are followed.`, {
    retryable: false,
  });
}
