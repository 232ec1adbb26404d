// Turns an execution error's `exception_type` into a sentence a person can act on. The cloud sends
// one of a few categories; a local server sends the Python exception class name, sometimes dotted
// (`torch.OutOfMemoryError`, `torch.cuda.OutOfMemoryError`), so lookups also try the last segment.
import type { JobErrorInfo } from './types';

const EXPLANATIONS: Readonly<Record<string, string>> = {
  // Cloud categories (PROTOCOL.md)
  ValidationError: 'The workflow or one of its inputs is invalid. Check the node named below and its inputs, then run it again.',
  ModelDownloadError: 'A model the workflow needs is not available or could not be downloaded. Check the model names in the workflow, or try again later.',
  ImageDownloadError: 'An input image could not be downloaded from its URL. Check that the URL is reachable, or upload the image instead.',
  OOMError: 'The GPU ran out of memory. Try a smaller image size, a shorter video, a smaller batch or fewer steps.',
  PanicError: 'The service failed unexpectedly while running the workflow. Run it again; if it keeps failing, report it to the service.',
  ServiceError: 'The service had an internal problem running the workflow. Run it again in a moment.',
  WebSocketError: 'The service lost its connection to the machine running the workflow. Run it again.',
  DispatcherError: 'The service could not hand the job to a machine. Run it again in a moment.',
  InsufficientFundsError: 'The account balance is too low for the partner nodes in this workflow. Add credits on the platform, then run it again.',
  InactiveSubscriptionError: 'The subscription is not active. Renew it on the platform; running again will not help until then.',

  // Local server (Python exception class names)
  ExecutionBlocked: 'A node blocked execution on purpose (for example a condition that was not met). See the message for the reason.',
  InterruptedError: 'The job was interrupted before it finished.',
  InterruptProcessingException: 'The job was interrupted before it finished.',
  OutOfMemoryError: 'The GPU ran out of memory. Try a smaller image size, a smaller batch or fewer steps, or close other programs that use the GPU.',
  MemoryError: 'The server ran out of memory. Try a smaller image size or batch, or free memory on the server.',
  RuntimeError: 'A node failed while running. The message below says why; often an input has the wrong size or type, or a model does not match.',
  ValueError: 'A node received a value it cannot use. Check the inputs of the node named below.',
  TypeError: 'A node received an input of the wrong type. Check the links and inputs of the node named below.',
  KeyError: 'A node looked for something that does not exist (often a model, a setting or an input name). Check the node named below.',
  IndexError: 'A node tried to use an item that does not exist (for example a frame or batch index out of range). Check its inputs.',
  AttributeError: 'A node or custom extension hit a programming error. Update the custom node, or report it to its author.',
  AssertionError: 'A node found its inputs inconsistent (an internal check failed). Check the node named below and its inputs.',
  NotImplementedError: 'A node does not support this combination of inputs or models.',
  FileNotFoundError: 'A file the workflow needs is missing on the server (an input image or a model). Upload or install it, then run again.',
  PermissionError: 'The server was not allowed to read or write a file it needed. Check the permissions of its folders.',
  IsADirectoryError: 'A node was given a folder where it expected a file. Check the file names in the workflow.',
  OSError: 'The server could not read or write a file (disk full, missing file or a device error). See the message below.',
  ImportError: "A node needs a Python package that is not installed on the server. Install the custom node's requirements.",
  ModuleNotFoundError: "A node needs a Python package that is not installed on the server. Install the custom node's requirements.",
  ConnectionError: "A node could not reach a network service it needs. Check the server's network connection and try again.",
  TimeoutError: 'A node waited too long for something (often a network download). Try again.',
  UnicodeDecodeError: 'A node could not read a text or file encoding. Check the file it reads.',
  ZeroDivisionError: 'A node divided by zero: some input (a size, a count or a ratio) is zero. Check its inputs.',
  SafetensorError: 'A model file is damaged or not a valid safetensors file. Download the model again.',
  HeaderTooLarge: 'A model file is damaged or not a valid safetensors file. Download the model again.',
  AcceleratorError: 'The GPU reported an error while running the workflow. Run it again; if it keeps failing, restart the server.',
  CudaError: 'The GPU reported an error while running the workflow. Run it again; if it keeps failing, restart the server.',
  Exception: 'A node failed while running. See the message below.',
};

const GENERIC = 'The job failed on the server. The message below says what went wrong; check the node it names and run the workflow again.';

/** A plain-language explanation for an `exception_type`, with a generic fallback. */
export function explainError(exceptionType: string | null | undefined): string {
  if (!exceptionType) return GENERIC;
  const name = exceptionType.trim();
  const direct = EXPLANATIONS[name];
  if (direct) return direct;
  const last = name.split('.').pop() ?? name;
  const byLast = EXPLANATIONS[last];
  if (byLast) return byLast;
  // Names seen in the wild that share a meaning with an entry above.
  if (/out.?of.?memory|oom/i.test(last)) return EXPLANATIONS['OOMError']!;
  if (/cuda|accelerator/i.test(name)) return EXPLANATIONS['CudaError']!;
  if (/timeout/i.test(last)) return EXPLANATIONS['TimeoutError']!;
  if (/connection|http|request/i.test(name)) return EXPLANATIONS['ConnectionError']!;
  return GENERIC;
}

/** Builds the JobErrorInfo a snapshot carries from an execution error (event or history). */
export function toJobError(input: {
  exceptionType: string | null | undefined;
  message: string | null | undefined;
  nodeId?: string | null;
  nodeType?: string | null;
  traceback?: readonly string[] | null;
}): JobErrorInfo {
  const exceptionType = input.exceptionType?.trim() || null;
  const message = (input.message ?? '').trim();
  return {
    exceptionType,
    explanation: explainError(exceptionType),
    message: message || (exceptionType ? `${exceptionType} (the server gave no message)` : 'The server gave no message.'),
    nodeId: input.nodeId ?? null,
    nodeType: input.nodeType ?? null,
    traceback: [...(input.traceback ?? [])],
  };
}

/** A failure this client concludes itself (lost job, never submitted), not one the server reported. */
export function clientSideError(explanation: string, message: string): JobErrorInfo {
  return { exceptionType: null, explanation, message, nodeId: null, nodeType: null, traceback: [] };
}
