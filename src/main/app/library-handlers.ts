// The outputs library's contract calls (library.*), over the Library of src/main/library.
import { constants as fsConstants } from 'node:fs';
import { open } from 'node:fs/promises';
import type { CallHandlers } from '@shared/ipc/contract';
import type { libraryCalls, LibraryFilterView } from '@shared/ipc/library-contract';
import type { Library, LibraryItem, ListFilter } from '../library';
import type { DesktopActions } from './desktop';
import { AppFailure } from './errors';
import { chooseLibraryFolder, libraryDirFromEnvironment, nextLibraryDir, type LibraryFolderContext } from './library-folder';
import { libraryDetailView, libraryItemView } from './library-views';
import { describeError } from '@shared/describe-error';

export type LibraryCallName = keyof typeof libraryCalls;

export interface LibraryHandlerContext {
  /** The open library; throws while the app is starting. */
  library(): Library;
  desktop: DesktopActions | null;
  /** Base of the media URLs the renderer builds (library-media.ts). */
  mediaBase: string;
  /** The name of a server profile, when it still exists (labels of the server filter). */
  profileName(profileId: string): string | null;
  /** Where the library folder setting lives (library.setFolder). */
  folder: LibraryFolderContext;
}

/** The grid asks for a screenful and a margin; the contract allows up to 10,000. */
export const DEFAULT_LIST_LIMIT = 200;
/** library.bytes carries the file over IPC (and as base64 over the harness socket). */
export const MAX_BYTES = 100 * 1024 * 1024;

// O_NOFOLLOW: the real path was just resolved; a link put in its place since is not followed.
const READ_FLAGS = fsConstants.O_RDONLY | (fsConstants.O_NOFOLLOW ?? 0);

function listFilter(input: LibraryFilterView): ListFilter {
  return {
    type: input.type,
    since: input.since,
    until: input.until,
    workflow: input.workflow,
    server: input.server,
  };
}

function megabytes(bytes: number): string {
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

export function createLibraryHandlers(ctx: LibraryHandlerContext): Pick<CallHandlers, LibraryCallName> {
  const itemOrFail = async (id: number): Promise<LibraryItem> => {
    const item = await ctx.library().get(id);
    if (!item) throw new AppFailure('not_found', `There is no library item ${id}; it may have been deleted.`);
    return item;
  };

  /** The real path of an item's file in the library folder, or a failure saying why there is none. */
  const fileOf = async (id: number): Promise<{ item: LibraryItem; path: string }> => {
    const item = await itemOrFail(id);
    if (item.status !== 'done') {
      const why =
        item.status === 'failed'
          ? `its download failed${item.error ? `: ${item.error}` : ''}`
          : `it is still ${item.status === 'pending' ? 'waiting to download' : 'downloading'}`;
      throw new AppFailure('invalid_input', `${item.file.filename} is not in the library yet: ${why}.`);
    }
    const found = await ctx.library().file(id);
    if (!found) throw new AppFailure('not_found', `There is no library item ${id}; it may have been deleted.`);
    if (!found.file.ok) {
      throw found.file.reason === 'missing'
        ? new AppFailure('not_found', `${item.file.filename} is no longer in the library folder (it was moved or deleted outside Flowdeck).`)
        : new AppFailure('invalid_input', `${item.file.filename} is recorded at a place outside the library folder, so Flowdeck will not open it.`);
    }
    return { item: found.item, path: found.file.path };
  };

  return {
    'library.info': async () => ({
      libraryDir: ctx.library().root,
      mediaBase: ctx.mediaBase,
      canReveal: ctx.desktop !== null,
      nextLibraryDir: nextLibraryDir(ctx.folder),
      fromEnvironment: libraryDirFromEnvironment(ctx.folder),
    }),

    'library.setFolder': async ({ path }) => chooseLibraryFolder(ctx.folder, ctx.library().root, path),

    'library.list': async (input) => {
      const request = input ?? {};
      const library = ctx.library();
      const filter = listFilter(request);
      const page = { ...filter, limit: request.limit ?? DEFAULT_LIST_LIMIT, offset: request.offset ?? 0 };
      const query = request.query?.trim() ?? '';
      const [items, total] =
        query === ''
          ? await Promise.all([library.list(page), library.count(filter)])
          : await Promise.all([library.search(query, page), library.searchCount(query, filter)]);
      return { items: items.map(libraryItemView), total };
    },

    'library.facets': async () => {
      const library = ctx.library();
      const [workflows, servers] = await Promise.all([library.workflows(), library.servers()]);
      return {
        workflows,
        servers: servers.map((s) => ({
          server: s.server,
          label: (s.profileId !== null ? ctx.profileName(s.profileId) : null) ?? s.baseUrl,
          count: s.count,
        })),
      };
    },

    'library.get': async ({ id }) => {
      const item = await itemOrFail(id);
      const workflow = await ctx.library().workflow(id);
      return libraryDetailView(item, workflow);
    },

    'library.delete': async ({ ids }) => {
      const library = ctx.library();
      let removed = 0;
      let keptShared = 0;
      const failed: { id: number; message: string }[] = [];
      // One after another: the library serialises file moves anyway, and a failure stays per id.
      for (const id of new Set(ids)) {
        try {
          const result = await library.delete(id);
          if (result.removed && result.sharedBy) keptShared += 1;
          if (result.removed) removed += 1;
          else failed.push({ id, message: `There is no library item ${id}; it may have been deleted already.` });
        } catch (error) {
          failed.push({ id, message: `Could not delete library item ${id}: ${describeError(error)}` });
        }
      }
      return { removed, failed, keptShared };
    },

    'library.retry': async ({ id }) => {
      const item = await ctx.library().retry(id);
      if (!item) throw new AppFailure('not_found', `There is no library item ${id}; it may have been deleted.`);
      return libraryItemView(item);
    },

    'library.bytes': async ({ id }) => {
      const { item, path } = await fileOf(id);
      const handle = await open(path, READ_FLAGS);
      try {
        const { size } = await handle.stat();
        if (size > MAX_BYTES) {
          throw new AppFailure(
            'invalid_input',
            `${item.file.filename} is ${megabytes(size)}; at most ${megabytes(MAX_BYTES)} can be opened here. Use "Open" to view it in another app.`,
          );
        }
        const bytes = await handle.readFile();
        return { mime: item.mime ?? 'application/octet-stream', bytes: new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength) };
      } finally {
        await handle.close();
      }
    },

    'library.reveal': async ({ id, action }) => {
      const { path } = await fileOf(id);
      if (!ctx.desktop) throw new AppFailure('invalid_input', `Opening files needs the desktop app; the file is at ${path}`);
      try {
        if (action === 'open') await ctx.desktop.openPath(path);
        else await ctx.desktop.showInFolder(path);
      } catch (error) {
        throw new AppFailure('invalid_input', `${action === 'open' ? 'Could not open' : 'Could not show'} ${path}: ${describeError(error)}`);
      }
      return null;
    },
  };
}
