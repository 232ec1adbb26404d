// How a command's failure reaches the user: which exit code an error means, and the one line on
// stderr (the API key redacted), plus a JSON object for --json when the command failed before its
// own --json reporting began. Loaded by index.ts only when a command fails, so that the error
// classes of every layer are not evaluated at each start.
import { describeError } from '@shared/describe-error';
import { ServiceError, redactSecret } from '@main/service/errors';
import { SecretStoreUnavailableError } from '@main/config/secrets';
import { WorkflowEditError } from '@main/workflow/edit';
import { StoreError } from '@main/store/store';
import { ExitCode, JobFailedError, MissingKeyError, UsageError, type ExitCodeValue } from './errors';

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

/** Writes the failure to stderr (and stdout for --json when the store failed) and returns its exit code. */
export function reportFailure(error: unknown, argv: readonly string[], env: NodeJS.ProcessEnv): ExitCodeValue {
  const message = redactSecret(describeError(error), env.FLOWDECK_API_KEY);
  process.stderr.write(`flowdeck: ${message}\n`);
  const code = exitCodeFor(error);
  // Failures before a command's own --json reporting begins (the store) still give a JSON object.
  if (error instanceof StoreError && argv.includes('--json')) process.stdout.write(`${JSON.stringify({ status: 'error', error: message, exit_code: code })}\n`);
  return code;
}
