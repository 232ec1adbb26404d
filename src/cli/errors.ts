// Exit codes of the CLI and how failures map to them. Every message says what happened and what to do.
import { ServiceError } from '@main/service/errors';
import { SecretStoreUnavailableError } from '@main/config/secrets';
import { WorkflowEditError } from '@main/workflow/edit';
import { StoreError } from '@main/store/store';

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

export function exitCodeFor(error: unknown): ExitCodeValue {
  if (error instanceof UsageError || error instanceof WorkflowEditError) return ExitCode.usage;
  if (error instanceof MissingKeyError) return ExitCode.auth;
  if (error instanceof JobFailedError) return ExitCode.jobFailed;
  if (error instanceof SecretStoreUnavailableError) return ExitCode.auth;
  if (error instanceof StoreError) return ExitCode.store;
  if (error instanceof ServiceError) {
    switch (error.kind) {
      case 'unauthorized':
        return ExitCode.auth;
      case 'insufficient_credits':
      case 'subscription_inactive':
        return ExitCode.account;
      case 'invalid_workflow':
        return ExitCode.jobFailed;
      default:
        return ExitCode.server;
    }
  }
  return ExitCode.server;
}

export function messageFor(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}
