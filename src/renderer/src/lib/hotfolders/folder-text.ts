// What a hot folder's status and its drained batch say in words. Pure data, tested without a DOM.
import type { HotFolderCountersView, HotFolderView } from '@shared/ipc/hot-folders-contract';

export const COUNTER_NAMES = ['waiting', 'running', 'done', 'failed', 'duplicates'] as const satisfies readonly (keyof HotFolderCountersView)[];

/** "Paused: <what to do>" for the account, "Paused" by the user, null while it runs. */
export function pauseText(status: HotFolderView['status']): string | null {
  if (!status.paused) return null;
  if (status.pauseKind !== 'user' && status.pauseReason) return `Paused: ${status.pauseReason}`;
  return status.pauseKind === 'user' ? 'Paused by you' : 'Paused';
}

/** The in-app notice (and system notification) when a batch drains: "Hot folder X: 3 done, 0 failed". */
export function drainedText(name: string, counters: HotFolderCountersView): string {
  const duplicates = counters.duplicates > 0 ? `, ${counters.duplicates} duplicate${counters.duplicates === 1 ? '' : 's'}` : '';
  return `Hot folder ${name}: ${counters.done} done, ${counters.failed} failed${duplicates}`;
}

/**
 * The question before a folder is removed: what stays, and what happens to its work under way
 * (its jobs finish on the server and the library takes their outputs; waiting files are not sent).
 */
export function removeQuestion(name: string, counters: HotFolderCountersView): string {
  const files = (n: number): string => `${n} file${n === 1 ? '' : 's'}`;
  const parts = [`Remove the hot folder "${name}"? Its files and outputs stay on disk.`];
  if (counters.running > 0)
    parts.push(
      `${files(counters.running)} ${counters.running === 1 ? 'is' : 'are'} being processed: ${counters.running === 1 ? 'its job finishes' : 'their jobs finish'} on the server and the outputs go to the library.`,
    );
  if (counters.waiting > 0) parts.push(`${files(counters.waiting)} waiting will not be sent.`);
  return parts.join(' ');
}
