// What a hot folder's status and its drained batch say in words. Pure data, tested without a DOM.
import type { HotFolderCountersView, HotFolderView } from '../../../../shared/ipc/hot-folders-contract';

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
