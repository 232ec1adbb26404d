// How a job that did not succeed is told in words, for the CLI's run and the hot folders' file
// rows alike: cancelled, or failed with where (node and class) and what the server said.
import type { JobSnapshot } from './types';

/**
 * "The job ID failed in node 3 (KSampler): RuntimeError: …". `explain`: a second line with the
 * plain-language explanation of the error (the CLI prints it; a file row keeps to one line).
 */
export function describeJobFailure(snapshot: JobSnapshot, options: { explain?: boolean } = {}): string {
  if (snapshot.phase === 'cancelled') return `The job ${snapshot.promptId} was cancelled.`;
  const error = snapshot.error;
  if (!error) return `The job ${snapshot.promptId} failed (${snapshot.rawStatus}).`;
  const where = error.nodeId ? ` in node ${error.nodeId}${error.nodeType ? ` (${error.nodeType})` : ''}` : '';
  const type = error.exceptionType ? `${error.exceptionType}: ` : '';
  const text = `The job ${snapshot.promptId} failed${where}: ${type}${error.message.trim()}`;
  return options.explain ? `${text}\n${error.explanation}` : text;
}
