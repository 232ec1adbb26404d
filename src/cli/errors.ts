// Exit codes of the CLI and its own errors. Every message says what happened and what to do.
// No imports: every command loads this, and how any error maps to an exit code is failure.ts's,
// loaded only when a command fails.

export const ExitCode = {
  ok: 0,
  jobFailed: 1, // the job failed, was cancelled, was rejected by the server, or timed out
  usage: 2, // usage error or unreadable input file
  auth: 3, // key missing or rejected (401)
  account: 4, // credits or subscription (402, 429)
  server: 5, // server or network failure
  store: 6, // the local data store cannot be used (damaged and could not be moved aside, or cannot be opened)
} as const;
export type ExitCodeValue = (typeof ExitCode)[keyof typeof ExitCode];

/** A mistake in how the command was called, or an input file that cannot be read. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/** The key is missing (no environment variable, nothing in the keychain). */
export class MissingKeyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MissingKeyError';
  }
}

/** A job ended without success; the message says how. */
export class JobFailedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'JobFailedError';
  }
}
