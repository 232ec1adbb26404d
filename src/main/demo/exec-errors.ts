// How a node's failure is reported in `execution_error`: exception type (Python class names
// locally, the specification's categories on the cloud where one fits), message, a Python-style
// traceback (array of lines) and the failing node's inputs as the real server formats them.
import { NodeExecutionError, type NodeValue } from './node-api';
import type { DemoFlavour } from './types';

const CLOUD_CATEGORIES = new Set([
  'ValidationError',
  'ModelDownloadError',
  'ImageDownloadError',
  'OOMError',
  'PanicError',
  'ServiceError',
  'WebSocketError',
  'DispatcherError',
  'InsufficientFundsError',
  'InactiveSubscriptionError',
]);

function cloudCategory(pythonType: string): string {
  if (CLOUD_CATEGORIES.has(pythonType)) return pythonType;
  if (/out ?of ?memory|oom/i.test(pythonType)) return 'OOMError';
  if (/^(ValueError|ValidationError|TypeError)$/.test(pythonType)) return 'ValidationError';
  return pythonType;
}

export interface ReportedError {
  exceptionType: string;
  exceptionMessage: string;
  traceback: string[];
}

/** Python-style frames ("  File "...", line N, in fn\n") from a JavaScript stack. */
function pythonTraceback(error: unknown): string[] {
  const stack = error instanceof Error && typeof error.stack === 'string' ? error.stack : '';
  const frames: string[] = [];
  for (const line of stack.split('\n').slice(1)) {
    const m = /^\s*at (?:(.+?) \()?(.+?):(\d+):\d+\)?$/.exec(line);
    if (!m) continue;
    const file = m[2]!.replace(/^file:\/\//, '');
    if (file.startsWith('node:')) continue;
    frames.push(`  File "${file}", line ${m[3]}, in ${m[1] ?? '<module>'}\n`);
    if (frames.length >= 8) break;
  }
  // Python lists the innermost frame last.
  return frames.reverse();
}

export function reportError(error: unknown, flavour: DemoFlavour): ReportedError {
  const pythonType = error instanceof NodeExecutionError ? error.exceptionType : 'Exception';
  const message = error instanceof Error ? error.message : String(error);
  return {
    exceptionType: flavour === 'cloud' ? cloudCategory(pythonType) : pythonType,
    // The local server appends a newline to the message (it formats "{}\n").
    exceptionMessage: flavour === 'local' ? `${message}\n` : message,
    traceback: pythonTraceback(error),
  };
}

/** The real server's format_value: plain values as they are, anything else as text. */
function formatValue(value: NodeValue | undefined): unknown {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'object') return value;
  if ('data' in value && 'width' in value && 'height' in value) {
    const kind = value.data instanceof Float32Array ? 'Mask' : 'Image';
    return `<${kind} ${String(value.width)}x${String(value.height)}>`;
  }
  return `<${String((value as { kind?: unknown }).kind ?? 'object')}>`;
}

/** current_inputs: every input as a one-element list, as the real server sends it. */
export function formatCurrentInputs(inputs: Record<string, NodeValue>): Record<string, unknown[]> {
  const out: Record<string, unknown[]> = {};
  for (const [name, value] of Object.entries(inputs)) out[name] = [formatValue(value)];
  return out;
}
