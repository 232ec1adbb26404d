// The service client's public API: import from here, not from the individual modules.
export { ServiceClient, PARTNER_KEY_FIELD, type ServiceClientOptions } from './client';
export { EventsSocket, type EventsSocketOptions, type SocketBackoffOptions } from './events-socket';
export { ServiceError, WorkflowRejectedError, messageForStatus, redactSecret, type ServiceErrorKind } from './errors';
export type * from './ports';
export type * from './types';
export { decodeBinaryFrame, isDroppedFrame, sniffImageMime, type DecodedFrame, type DroppedFrame, type DropReason } from './frames';
export { parseServerMessage, parseServerMessageObject, MessageDecoder, type MessageParseResult } from './messages';
export { classifyStatusWord, isTerminalPhase, KNOWN_STATUS_WORDS } from './status-words';
export { collectNodeOutputs, collectHistoryOutputs } from './outputs';
export { safeBaseName } from './filenames';
export {
  parseNodeDefinitions,
  parseNodeDefinitionsReport,
  type NodeDefinition,
  type NodeDefinitions,
  type NodeDefinitionsReport,
  type InputSpec,
  type InputKind,
  type InputSection,
  type IntValue,
  type OutputSpec,
} from './object-info';
export { backoffDelay, sleep, DEFAULT_RETRY_POLICY, type BackoffPolicy, type RetryPolicy, type SleepFn } from './backoff';
export {
  capabilitiesFor,
  uploadedInputValue,
  uploadLimitProblem,
  CLOUD_UPLOAD_LIMITS,
  LOCAL_UPLOAD_LIMITS,
  type ServerCapabilities,
  type ServerFeatures,
  type UploadLimits,
} from './capabilities';
export { JOB_LIST_STATUSES, MAX_JOB_PAGE, type JobDetail, type JobListQuery, type JobListStatus, type JobPage, type JobSummary } from './job-list';
