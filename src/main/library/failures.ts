// Why a download attempt failed, in plain words, and whether trying again later can help.
// Messages come from the service layer (which never puts the API key in them) or from fixed text.
import { ServiceError } from '@main/service/errors';
import { SourceUnavailableError } from './types';

export type FailureClass =
  /** Try again after a backoff (network, server, expired link, full disk, ...). */
  | 'retry'
  /** Trying again cannot help (the server no longer has the file). */
  | 'give_up'
  /** No client for the server here and now: wait for resumePending(), count no attempt. */
  | 'unavailable'
  /** Stopped on purpose (dispose, delete): count no attempt. */
  | 'cancelled';

export interface Failure {
  kind: FailureClass;
  reason: string;
}

const DISK_FULL = new Set(['ENOSPC', 'EDQUOT']);
const NOT_WRITABLE = new Set(['EACCES', 'EPERM', 'EROFS']);

/** The first errno-style code in an error's cause chain (download.ts wraps fs errors). */
function errnoCode(error: unknown): string | null {
  let current: unknown = error;
  for (let depth = 0; depth < 6 && current; depth += 1) {
    if (typeof current === 'object' && current !== null) {
      const code = (current as { code?: unknown }).code;
      if (typeof code === 'string' && /^E[A-Z]+$/.test(code)) return code;
      current = (current as { cause?: unknown }).cause;
    } else break;
  }
  if (error instanceof Error) return /\b(ENOSPC|EDQUOT|EACCES|EPERM|EROFS)\b/.exec(error.message)?.[1] ?? null;
  return null;
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export function classifyFailure(error: unknown, aborted: boolean): Failure {
  if (aborted) return { kind: 'cancelled', reason: 'The download was stopped.' };
  if (error instanceof SourceUnavailableError) return { kind: 'unavailable', reason: error.message };
  const code = errnoCode(error);
  if (code && DISK_FULL.has(code)) {
    return { kind: 'retry', reason: `The disk holding the library is full (${code}). Free some space; the download is retried.` };
  }
  if (code && NOT_WRITABLE.has(code)) {
    return { kind: 'retry', reason: `The library folder cannot be written (${code}). Check its permissions, or choose another library folder.` };
  }
  if (error instanceof ServiceError) {
    switch (error.kind) {
      case 'cancelled':
        return { kind: 'cancelled', reason: 'The download was stopped.' };
      case 'not_found':
        return { kind: 'give_up', reason: `The server no longer has this file (HTTP 404); it may have been cleaned up. ${error.message}` };
      case 'forbidden':
        return { kind: 'retry', reason: `The download link was refused or has expired; a fresh one is asked for on the next attempt. ${error.message}` };
      case 'too_large':
        // The same file is as large on the next attempt (and a start-up resume must not fetch it again and again).
        return {
          kind: 'give_up',
          reason: `${error.message} The file is larger than this program accepts (FLOWDECK_MAX_OUTPUT_MB raises the limit); it was not downloaded.`,
        };
      case 'protocol':
        // An answer this client cannot use (a redirect to file:, no Location): the same answer comes back.
        return error.retryable ? { kind: 'retry', reason: error.message } : { kind: 'give_up', reason: error.message };
      default:
        return { kind: 'retry', reason: error.message };
    }
  }
  if (error instanceof Error && error.name === 'AbortError') return { kind: 'cancelled', reason: 'The download was stopped.' };
  return { kind: 'retry', reason: message(error) };
}
