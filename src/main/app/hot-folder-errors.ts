// The hot-folder service's errors in contract terms, for the host's calls: an unknown folder is
// not_found, a bad configuration invalid_input; anything else goes on as thrown.
import { HotFolderConfigError, HotFolderNotFoundError } from '../watch';
import { AppFailure } from './errors';

/** The service's errors in contract terms: unknown folder -> not_found, bad configuration -> invalid_input. */
export async function guard<T>(task: () => Promise<T>): Promise<T> {
  try {
    return await task();
  } catch (error) {
    throw translate(error);
  }
}

export function guardSync<T>(task: () => T): T {
  try {
    return task();
  } catch (error) {
    throw translate(error);
  }
}

function translate(error: unknown): unknown {
  if (error instanceof HotFolderNotFoundError) return new AppFailure('not_found', error.message);
  if (error instanceof HotFolderConfigError) return new AppFailure('invalid_input', error.message);
  return error;
}
