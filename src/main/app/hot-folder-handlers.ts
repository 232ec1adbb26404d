// The hot folders' contract calls (hotFolders.*, dialog.pickFolder) as the core registers them
// before its start: each is answered by the host once the store is open.
import type { CallHandlers } from '@shared/ipc/contract';
import { AppFailure } from './errors';
import type { HotFolderCallName, HotFoldersHost } from './hot-folders-host';

/** The hot folders' handlers, answered by the host once the store is open (the core's start()). */
/**
 * `started`: settles once the folders of the active session have started (they wait for the
 * first screen, first-screen.ts), so that no call sees them stopped only because it came early.
 */
export function hotFolderHandlers(
  host: () => HotFoldersHost | null,
  started: () => Promise<void> = async () => undefined,
): Pick<CallHandlers, HotFolderCallName> {
  const forward =
    <N extends HotFolderCallName>(name: N) =>
    (input: Parameters<CallHandlers[N]>[0]): ReturnType<CallHandlers[N]> => {
      const answer = async (): Promise<unknown> => {
        if (name !== 'dialog.pickFolder') await started();
        const open = host();
        if (!open) throw new AppFailure('internal', 'The app is still starting; try again in a moment.');
        return (open.handlers()[name] as (input: unknown) => Promise<unknown>)(input);
      };
      return answer() as ReturnType<CallHandlers[N]>;
    };
  return {
    'hotFolders.list': forward('hotFolders.list'),
    'hotFolders.save': forward('hotFolders.save'),
    'hotFolders.remove': forward('hotFolders.remove'),
    'hotFolders.pause': forward('hotFolders.pause'),
    'hotFolders.resume': forward('hotFolders.resume'),
    'hotFolders.retryFailed': forward('hotFolders.retryFailed'),
    'hotFolders.files': forward('hotFolders.files'),
    'hotFolders.openOutput': forward('hotFolders.openOutput'),
    'dialog.pickFolder': forward('dialog.pickFolder'),
  };
}
