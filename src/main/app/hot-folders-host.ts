// Hosts the hot folders in the app: one HotFolderService on the active profile's connection,
// rebuilt when the profile changes; their contract calls (hotFolders.*, dialog.pickFolder) and
// events; outputs into the library.
import type { CallHandlers, EventName, EventPayload } from '../../shared/ipc/contract';
import type { hotFolderCalls } from '../../shared/ipc/hot-folders-contract';
import type { Store } from '../jobs/store';
import type { Library } from '../library';
import type { FileDialogs, LogLevel } from './core';
import type { DesktopActions } from './desktop';
import { AppFailure } from './errors';
import type { ProfileSession } from './session';

export type HotFolderCallName = keyof typeof hotFolderCalls;

export interface HotFoldersHostDeps {
  store: Store;
  library: () => Library | null;
  emit: <E extends EventName>(name: E, payload: EventPayload<E>) => void;
  log: (level: LogLevel, message: string) => void;
  now: () => number;
  dialogs: FileDialogs | null;
  desktop: DesktopActions | null;
}

export class HotFoldersHost {
  constructor(private readonly deps: HotFoldersHostDeps) {}

  /** Starts the saved folders on this session's connection. */
  async attach(_session: ProfileSession): Promise<void> {}

  /** Stops the folders before their session goes (uploads under way finish). */
  async detach(): Promise<void> {}

  /** Whether a job was submitted by a hot folder (its outputs reach the library through the folder). */
  owns(_promptId: string): boolean {
    return false;
  }

  handlers(): Pick<CallHandlers, HotFolderCallName> {
    const todo = async (): Promise<never> => {
      throw new AppFailure('internal', 'Hot folders are being built.');
    };
    void this.deps;
    return {
      'hotFolders.list': todo,
      'hotFolders.save': todo,
      'hotFolders.remove': todo,
      'hotFolders.pause': todo,
      'hotFolders.resume': todo,
      'hotFolders.retryFailed': todo,
      'hotFolders.files': todo,
      'hotFolders.openOutput': todo,
      'dialog.pickFolder': todo,
    };
  }

  async dispose(): Promise<void> {}
}
