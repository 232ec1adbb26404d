// Every failure leaves the core as the contract's error shape {code, message, details?}: never a
// thrown Error with a stack, never the API key. Typed failures (service, keychain, validation)
// keep their meaning; anything else becomes `internal` with a plain message.
import { ZodError } from 'zod';
import type { IpcError, IpcErrorCode, RejectionDetails } from '@shared/ipc/contract';
import { SecretStoreUnavailableError } from '@main/config/secrets';
import { ServiceError, WorkflowRejectedError, type ServiceErrorKind } from '@main/service/errors';

/** A failure the core raises on purpose, already in contract terms. */
export class AppFailure extends Error {
  readonly code: IpcErrorCode;
  readonly details: unknown;

  constructor(code: IpcErrorCode, message: string, details?: unknown) {
    super(message);
    this.name = 'AppFailure';
    this.code = code;
    this.details = details;
  }
}

const SERVICE_CODES: Record<ServiceErrorKind, IpcErrorCode> = {
  invalid_workflow: 'invalid_workflow',
  unauthorized: 'unauthorized',
  insufficient_credits: 'insufficient_credits',
  subscription_inactive: 'subscription_inactive',
  not_found: 'not_found',
  forbidden: 'server',
  server: 'server',
  network: 'network',
  protocol: 'server',
  too_large: 'server',
  cancelled: 'network',
};

function rejectionDetails(error: WorkflowRejectedError): RejectionDetails {
  return {
    errorType: error.errorType,
    nodeErrors: error.nodeErrors.map((e) => ({
      nodeId: e.nodeId,
      classType: e.classType,
      inputName: e.inputName,
      message: [e.message, e.details].filter((s) => s && s !== e.inputName).join(': ') || e.type,
    })),
  };
}

export function zodIssues(error: ZodError): { path: string; message: string }[] {
  return error.issues.map((issue) => ({ path: issue.path.map(String).join('.') || '(input)', message: issue.message }));
}

/**
 * Converts anything thrown into the contract's error, with every known secret removed from the
 * message and details (`redact` knows the keys held in memory).
 */
export function toIpcError(error: unknown, redact: (text: string) => string): IpcError {
  let result: IpcError;
  if (error instanceof AppFailure) {
    result = error.details === undefined ? { code: error.code, message: error.message } : { code: error.code, message: error.message, details: error.details };
  } else if (error instanceof WorkflowRejectedError) {
    result = { code: 'invalid_workflow', message: error.message, details: rejectionDetails(error) };
  } else if (error instanceof ServiceError) {
    result = { code: SERVICE_CODES[error.kind], message: error.message };
  } else if (error instanceof SecretStoreUnavailableError) {
    result = { code: 'keychain_unavailable', message: error.message, details: { canUseSessionOnly: true } };
  } else if (error instanceof ZodError) {
    result = {
      code: 'invalid_input',
      message: `The request was not valid: ${zodIssues(error)
        .map((i) => `${i.path}: ${i.message}`)
        .join('; ')}`,
      details: { issues: zodIssues(error) },
    };
  } else {
    const text = error instanceof Error ? error.message : String(error);
    result = { code: 'internal', message: `Something went wrong inside the app: ${text}` };
  }
  return scrub(result, redact);
}

/** Removes secrets from the message and from every string inside details. */
function scrub(error: IpcError, redact: (text: string) => string): IpcError {
  const out: IpcError = { code: error.code, message: redact(error.message) };
  if (error.details !== undefined) out.details = scrubValue(error.details, redact);
  return out;
}

function scrubValue(value: unknown, redact: (text: string) => string): unknown {
  if (typeof value === 'string') return redact(value);
  if (Array.isArray(value)) return value.map((v) => scrubValue(v, redact));
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, scrubValue(v, redact)]));
  }
  return value;
}
