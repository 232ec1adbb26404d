// Plain words for the failure categories a job can end with (cloud exception types from the
// specification and PROTOCOL.md; a local server sends Python class names, explained generically).

const EXCEPTIONS: Record<string, string> = {
  ValidationError: 'The workflow or one of its inputs is invalid.',
  ModelDownloadError: 'A model the workflow needs is unavailable or could not be downloaded.',
  ImageDownloadError: 'An input image could not be downloaded from its address.',
  OOMError: 'The hardware ran out of memory. Try a smaller size or fewer images at once.',
  PanicError: 'The service failed unexpectedly while running the workflow. Try again later.',
  ServiceError: 'The service had an internal problem. Try again later.',
  WebSocketError: 'The service lost its connection while running the workflow. Try again.',
  DispatcherError: 'The service could not hand the job to a worker. Try again later.',
  InsufficientFundsError: 'The account balance is too low for a partner node. Add credits on the platform.',
  InactiveSubscriptionError: 'The subscription is not active. Renew it on the platform to run workflows.',
  InterruptedError: 'The job was interrupted.',
  ExecutionBlocked: 'A node blocked the execution of the workflow.',
};

export function explainException(exceptionType: string): string {
  return EXCEPTIONS[exceptionType] ?? `A node raised ${exceptionType || 'an error'} while the workflow ran.`;
}
