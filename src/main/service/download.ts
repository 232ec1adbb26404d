// Downloads one output file. GET /api/view goes to the service with the key and without following
// redirects; a 302 (cloud) names a signed storage URL that is fetched as a new request carrying no
// key, a 200 (local server) is the file itself. Bytes stream to a temporary name in the
// destination folder, are fsynced, and only a complete file is renamed to its final, sanitised
// name, so a crash or failure never leaves a truncated file under a real name.
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { finished, Readable } from 'node:stream';
import type { ReadableStream as NodeWebReadableStream } from 'node:stream/web';
import { messageForStatus, ServiceError } from './errors';
import { safeBaseName } from './filenames';
import type { HttpTransport } from './http';
import { assertHttpScheme, discardBody, nodeBodyOf } from './stream-request';
import { readWebBodyCapped, tooLarge } from './body-read';
import { formatBytes } from './limits';
import type { DownloadOptions, DownloadResult, StreamDigest } from './ports';
import { partialPathFor, publishFile, syncDirectory } from '@main/files/publish';
import { BlockWriter } from '@main/files/block-writer';
import type { FileRef } from './types';

export interface DownloadRequestOptions extends DownloadOptions {
  /** Largest file accepted (bytes); default the transport's limits.outputBytes. */
  maxBytes?: number;
  /** Abort when fewer than this many bytes a second arrive over `throughputWindowMs`; default from limits. */
  minBytesPerSecond?: number;
  throughputWindowMs?: number;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const PROGRESS_INTERVAL_MS = 100;
class BodyFailure extends Error {}

/** A body that broke a limit (size cap, throughput floor): fetching it again cannot help, so no retry. */
class LimitFailure extends Error {
  constructor(readonly failure: ServiceError) {
    super(failure.message);
  }
}

function parseLength(value: string | null): number | null {
  if (value === null || !/^\d+$/.test(value)) return null;
  const n = Number(value);
  return Number.isSafeInteger(n) ? n : null;
}

function isFsError(error: unknown): error is NodeJS.ErrnoException {
  return typeof error === 'object' && error !== null && 'syscall' in error;
}

/** What streamToTemp wrote: the temp file, the tee copies, the byte count and (if asked) the digest. */
interface Streamed {
  tempPath: string;
  copies: readonly string[];
  bytes: number;
  digest?: StreamDigest;
}

/**
 * Feeds `source`'s chunks to `take` in order; while `take` answers a promise (its blocks are all
 * being written) the stream is paused. Resolves at the end of the stream, rejects on its error, a
 * premature close, a failed `take` or `signal`. One listener per chunk: no stream stages between
 * the socket and the file writes.
 */
function consume(source: Readable, signal: AbortSignal, take: (chunk: Buffer) => Promise<void> | null): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    let done = false;
    let ended = false;
    let backlog: Promise<void> | null = null;
    const finish = (error?: unknown): void => {
      if (done) return;
      done = true;
      signal.removeEventListener('abort', onAbort);
      source.removeListener('data', onData);
      if (error === undefined) return resolve();
      source.destroy();
      reject(error);
    };
    const onAbort = (): void => finish(signal.reason ?? new Error('aborted'));
    const watch = (pending: Promise<void>): void => {
      pending.then(() => {
        if (backlog !== pending) return;
        backlog = null;
        if (ended) finish();
        else source.resume();
      }, finish);
    };
    const onData = (chunk: Buffer): void => {
      if (done) return;
      // A paused stream emits no more chunks; should one come anyway, it waits its turn.
      if (backlog) {
        backlog = backlog.then(() => take(chunk) ?? undefined);
        watch(backlog);
        return;
      }
      let wait: Promise<void> | null;
      try {
        wait = take(chunk);
      } catch (error) {
        return finish(error);
      }
      if (!wait) return;
      source.pause();
      backlog = wait;
      watch(wait);
    };
    source.on('data', onData);
    // finished() also sees a body that ended or broke before these listeners were attached.
    const stopWatching = finished(source, { writable: false }, (error) => {
      stopWatching();
      if (error) return finish(error);
      ended = true;
      if (!backlog) finish();
    });
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * Streams `response`'s body to a temp file in `dir` (and to every `alsoWriteTo` path), hashing it
 * on the way when asked; fsyncs each file once. Returns the paths, byte count and digest.
 */
async function streamToTemp(
  response: Response,
  dir: string,
  name: string,
  options: DownloadRequestOptions & Required<Pick<DownloadRequestOptions, 'maxBytes' | 'minBytesPerSecond' | 'throughputWindowMs'>>,
): Promise<Streamed> {
  const nodeBody = nodeBodyOf(response);
  if (!nodeBody && !response.body) throw new ServiceError('protocol', `The server sent no body for ${name}.`, { status: response.status });
  const total = parseLength(response.headers.get('content-length'));
  const what = `the output file ${name}`;
  if (total !== null && total > options.maxBytes) {
    discardBody(response);
    throw tooLarge(options.maxBytes, what);
  }
  const tempPath = partialPathFor(path.join(dir, name));
  const copies = [...(options.alsoWriteTo ?? [])];
  const headBytes = options.digest?.headBytes ?? 0;
  const headParts: Buffer[] = [];
  let headLength = 0;
  let received = 0;
  let lastProgress = 0;
  // Minimum-throughput watchdog: every window must bring its share of bytes, so a stall and a
  // 20 B/s drip end alike, in one window, instead of holding the run (and a socket) open forever.
  const windowMs = options.throughputWindowMs;
  const floor = (options.minBytesPerSecond * windowMs) / 1000;
  let windowStart = Date.now();
  let windowBytes = 0;
  const limit = new AbortController();
  const watchdog = setInterval(
    () => {
      if (Date.now() - windowStart < windowMs) return;
      if (windowBytes < floor) {
        limit.abort(
          new LimitFailure(
            new ServiceError(
              'network',
              `The download of ${name} was slower than ${formatBytes(options.minBytesPerSecond)}/s for ${Math.round(windowMs / 1000)} s (${received} bytes so far); stopped it.`,
              { retryable: false },
            ),
          ),
        );
      }
      windowStart = Date.now();
      windowBytes = 0;
    },
    Math.max(50, Math.min(1000, windowMs / 4)),
  );
  const signal = options.signal ? AbortSignal.any([options.signal, limit.signal]) : limit.signal;
  let writer: BlockWriter | null = null;
  try {
    try {
      // Fresh files ('wx'), never ones that are already there. The folder is made only when it is
      // missing: one call fewer per file in the usual case (hot folders download many in a row).
      const create = (): Promise<BlockWriter> => BlockWriter.create([tempPath, ...copies], total, { digest: options.digest !== undefined });
      writer = await create().catch(async (error: unknown) => {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT' || (error as NodeJS.ErrnoException).path !== tempPath) throw error;
        await fs.mkdir(dir, { recursive: true });
        return create();
      });
    } catch (error) {
      throw isFsError(error) ? new Error(`Could not write ${error.path ?? tempPath}: ${error.code ?? error.message}`, { cause: error }) : error;
    }
    const sink = writer;
    const take = (chunk: Buffer): Promise<void> | null => {
      received += chunk.length;
      windowBytes += chunk.length;
      if (received > options.maxBytes) {
        limit.abort(new LimitFailure(tooLarge(options.maxBytes, what)));
        return null;
      }
      // The file's identity (its sha256) is taken by the writer, on the one pass over the bytes:
      // no read-back. Its first bytes (the kind of file) are kept here.
      if (headLength < headBytes) {
        const part = Buffer.from(chunk.subarray(0, headBytes - headLength));
        headParts.push(part);
        headLength += part.length;
      }
      if (options.onProgress) {
        const now = Date.now();
        if (now - lastProgress >= PROGRESS_INTERVAL_MS) {
          lastProgress = now;
          options.onProgress(received, total);
        }
      }
      return sink.write(chunk);
    };
    let ended: { bytes: number; sha256: string | null };
    const source = nodeBody ?? Readable.fromWeb(response.body as unknown as NodeWebReadableStream<Uint8Array>);
    try {
      await consume(source, signal, take);
      if (total !== null && received !== total) throw new BodyFailure(`The download of ${name} ended after ${received} of ${total} bytes.`);
      // Each file is fsynced once, on the descriptor that wrote it: the bytes are on disk before any rename or link.
      ended = await sink.end();
    } catch (error) {
      if (error instanceof BodyFailure) throw error;
      if (options.signal?.aborted) throw new ServiceError('cancelled', `Cancelled: downloading ${name}.`, { cause: error, retryable: false });
      if (limit.signal.aborted) throw (limit.signal.reason as LimitFailure).failure;
      if (isFsError(error)) throw new Error(`Could not write ${error.path ?? tempPath}: ${error.code ?? error.message}`, { cause: error });
      throw new BodyFailure(`The download of ${name} stopped after ${received} bytes: the connection broke.`, { cause: error });
    }
    options.onProgress?.(received, total);
    const digest = ended.sha256 !== null ? { sha256: ended.sha256, size: received, head: Buffer.concat(headParts) } : undefined;
    return { tempPath, copies, bytes: received, ...(digest ? { digest } : {}) };
  } catch (error) {
    await writer?.close();
    await Promise.all([tempPath, ...copies].map((file) => fs.rm(file, { force: true }).catch(() => {})));
    throw error;
  } finally {
    clearInterval(watchdog);
    await writer?.close();
  }
}

/**
 * GET /api/view for `ref`, following a 302 by hand to the signed URL (with no key), asking
 * /api/view again once if the signed URL turns out expired (403, or 400 saying "expired").
 * Returns the response whose body is the file.
 */
async function openFile(
  transport: HttpTransport,
  ref: FileRef,
  what: string,
  signal: AbortSignal | undefined,
): Promise<{ response: Response; redirected: boolean }> {
  const query = { filename: ref.filename, subfolder: ref.subfolder, type: ref.type };
  for (let fresh = 0; ; fresh += 1) {
    const view = await transport.open({ method: 'GET', path: '/api/view', query, what, ...(signal ? { signal } : {}) });
    if (view.status >= 200 && view.status <= 299) return { response: view, redirected: false };
    if (!REDIRECTS.has(view.status)) {
      const text = await readWebBodyCapped(view, transport.limits.errorBodyBytes, what, 'truncate').catch(() => '');
      throw await transport.errorFor({ status: view.status, headers: view.headers, text }, what);
    }
    discardBody(view);
    const location = view.headers.get('location');
    if (!location) throw new ServiceError('protocol', `The server redirected ${what} without saying where (no Location header).`, { status: view.status });
    const signedTarget = new URL(location, transport.url('/api/view'));
    assertHttpScheme(signedTarget, transport.url('/api/view'));
    const signedUrl = signedTarget.toString();
    const storage = await transport.openExternal(signedUrl, what, signal);
    if (storage.status >= 200 && storage.status <= 299) return { response: storage, redirected: true };
    const text = await readWebBodyCapped(storage, transport.limits.errorBodyBytes, what, 'truncate').catch(() => '');
    const expired = storage.status === 403 || (storage.status === 400 && /expired/i.test(text));
    if (expired && fresh === 0) continue; // the signed URL lapsed: one fresh one from /api/view
    if (expired) {
      throw new ServiceError(
        'forbidden',
        `The storage host refused the signed URL for ${what} twice (HTTP ${storage.status}); the link may have expired. Try again later.`,
        {
          status: storage.status,
          retryable: false,
        },
      );
    }
    const { kind, message } = messageForStatus(storage.status, `${what} (from the storage host)`);
    throw new ServiceError(kind, message, { status: storage.status });
  }
}

/** Opens the response whose body is the file (the v2 client's opener follows an asset's link instead of /api/view). */
export type FileOpener = (what: string, signal: AbortSignal | undefined) => Promise<{ response: Response; redirected: boolean }>;

/** Downloads `ref` into `destDir`; see the module comment. `open`: where the bytes come from (default /api/view). */
export async function downloadOutput(
  transport: HttpTransport,
  ref: FileRef,
  destDir: string,
  options: DownloadRequestOptions = {},
  open?: FileOpener,
): Promise<DownloadResult> {
  const dir = path.resolve(destDir);
  const name = safeBaseName(options.destName ?? ref.filename, safeBaseName(ref.filename, 'output'));
  // safeBaseName allows no separators, so this holds; checked anyway because it is the guarantee.
  if (path.dirname(path.join(dir, name)) !== dir) throw new Error(`Refusing to write outside ${dir}.`);
  const what = `the output file ${name}`;
  const limits = {
    maxBytes: options.maxBytes ?? transport.limits.outputBytes,
    minBytesPerSecond: options.minBytesPerSecond ?? transport.limits.minBytesPerSecond,
    throughputWindowMs: options.throughputWindowMs ?? transport.limits.throughputWindowMs,
  };

  // GET is idempotent: a body that breaks midway is fetched once more from the start.
  for (let attempt = 0; ; attempt += 1) {
    const { response, redirected } = open ? await open(what, options.signal) : await openFile(transport, ref, what, options.signal);
    let written: Streamed;
    try {
      written = await streamToTemp(response, dir, name, { ...options, ...limits });
    } catch (error) {
      if (error instanceof BodyFailure) {
        if (attempt === 0 && !options.signal?.aborted) continue;
        throw new ServiceError('network', error.message, { cause: error });
      }
      throw error;
    }
    try {
      const finalPath = await publishFile(written.tempPath, dir, name, { replace: options.overwrite ?? false });
      if (!options.staging) await syncDirectory(dir);
      const result: DownloadResult = { path: finalPath, bytes: written.bytes, contentType: response.headers.get('content-type'), redirected };
      return written.digest ? { ...result, digest: written.digest } : result;
    } catch (error) {
      await Promise.all([written.tempPath, ...written.copies].map((file) => fs.rm(file, { force: true }).catch(() => {})));
      throw error;
    }
  }
}
