// The hot folders' contract calls (hotFolders.*, dialog.pickFolder) as the core registers them
// before its start: each is answered by the host once the store is open.
import type { CallHandlers } from '@shared/ipc/contract';
import { AppFailure } from './errors';
import type { HotFolderCallName, HotFoldersHost } from './hot-folders-host';

/** The hot folders' handlers, answered by the host once the store is open (the core's start()). */
export function hotFolderHandlers(host: () => HotFoldersHost | null): Pick<CallHandlers, HotFolderCallName> {
  const forward =
    <N extends HotFolderCallName>(name: N) =>
    (input: Parameters<CallHandlers[N]>[0]): ReturnType<CallHandlers[N]> => {
      const open = host();
      if (!open) throw new AppFailure('internal', 'The app is still starting; try again in a moment.');
      const handler = open.handlers()[name] as (input: unknown) => ReturnType<CallHandlers[N]>;
      return handler(input);
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
