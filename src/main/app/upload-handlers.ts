// upload.image and upload.mask: images from the native dialog, from a path (harness), from bytes
// the page read (drop, mask painter) or from the library, uploaded to the active server.
import { mkdirSync } from 'node:fs';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import type { CallHandlers, UploadView } from '@shared/ipc/contract';
import type { Library } from '../library';
import type { UploadResult } from '@main/service/types';
import { uploadedInputValue, type ServerCapabilities } from '@main/service/capabilities';
import type { FileDialogs } from './ports';
import { AppFailure } from './errors';
import type { ProfileSession } from './session';
import { thumbnailDataUrl } from './thumbnail';
import { checkUploadFile, LocalFileError, uploadNameProblem } from '@main/files/local-input';

export interface UploadHandlerContext {
  requireSession(): Promise<ProfileSession>;
  requireLibrary(): Library;
  dialogs: FileDialogs | null;
  /** Accept any path the renderer names (harness, tests). */
  allowAnyPath: boolean;
  /** Where page-supplied bytes are written for the moment of their upload. */
  uploadsDir: string;
}

const MAX_UPLOAD_BYTES = 100 * 1024 * 1024;

export async function uploadView(result: UploadResult, capabilities: ServerCapabilities, bytes: Uint8Array | null, originalName?: string): Promise<UploadView> {
  return {
    // Shown instead of the server's name, which may be a hash; the mask's upload has none of its own.
    ...(originalName === undefined ? {} : { originalName }),
    name: result.name,
    subfolder: result.subfolder,
    type: result.type,
    // Local servers keep real subfolders, and a workflow input names the file with it.
    inputValue: uploadedInputValue(capabilities, result),
    thumbnailDataUrl: bytes ? await thumbnailDataUrl(bytes) : null,
  };
}

/** A file to upload, read once for its thumbnail; a missing, empty, unreadable, oversized or non-regular file is named plainly. */
async function readUploadFile(path: string): Promise<Uint8Array> {
  let full: string;
  try {
    full = checkUploadFile(path, 'image');
  } catch (error) {
    if (error instanceof LocalFileError) throw new AppFailure(error.code === 'missing' ? 'not_found' : 'invalid_input', error.message);
    throw error;
  }
  if ((await stat(full)).size > MAX_UPLOAD_BYTES) throw new AppFailure('invalid_input', `${full} is larger than 100 MB.`);
  return new Uint8Array(await readFile(full));
}

export function createUploadHandlers(ctx: UploadHandlerContext): Pick<CallHandlers, 'upload.image' | 'upload.mask'> {
  /** Writes page-supplied bytes to a private temporary file, runs `use`, removes it. */
  const withTempFile = async <T>(name: string, bytes: Uint8Array, use: (path: string) => Promise<T>): Promise<T> => {
    // The name becomes a path below: one plain file name only (the contract checks it too).
    const problem = uploadNameProblem(name);
    if (problem) throw new AppFailure('invalid_input', problem);
    mkdirSync(ctx.uploadsDir, { recursive: true });
    const dir = await mkdtemp(join(ctx.uploadsDir, 'u-'));
    try {
      const path = join(dir, name);
      await writeFile(path, bytes);
      return await use(path);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  };

  return {
    'upload.image': async (input) => {
      const active = await ctx.requireSession();
      if (input === undefined) {
        if (!ctx.dialogs) throw new AppFailure('invalid_input', 'No file dialog here: give the image as a path or as bytes.');
        const picked = await ctx.dialogs.openImage();
        if (!picked) return null;
        const bytes = await readUploadFile(picked);
        return uploadView(await active.api.uploadImage(picked, { type: 'input' }), active.api.capabilities, bytes, basename(picked));
      }
      if ('libraryId' in input) {
        const item = await ctx.requireLibrary().get(input.libraryId);
        if (!item) throw new AppFailure('not_found', `There is no library item ${input.libraryId}.`);
        if (item.status !== 'done' || !item.path) throw new AppFailure('invalid_input', `${item.file.filename} is not in the library yet (${item.status}).`);
        if (item.mediaKind !== 'image') throw new AppFailure('invalid_input', `${item.file.filename} is not an image, so it cannot be an input image.`);
        const bytes = await readUploadFile(item.path);
        return uploadView(
          await active.api.uploadImage(item.path, { type: 'input', filename: item.file.filename }),
          active.api.capabilities,
          bytes,
          item.file.filename,
        );
      }
      if ('path' in input) {
        if (!ctx.allowAnyPath) throw new AppFailure('invalid_input', 'Images are chosen with the file dialog or dropped onto the window, not named by path.');
        const bytes = await readUploadFile(input.path);
        return uploadView(await active.api.uploadImage(resolve(input.path), { type: 'input' }), active.api.capabilities, bytes, basename(input.path));
      }
      const result = await withTempFile(input.name, input.bytes, (path) => active.api.uploadImage(path, { type: 'input', filename: input.name }));
      return uploadView(result, active.api.capabilities, input.bytes, input.name);
    },

    'upload.mask': async ({ original, maskPng, filename }) => {
      const active = await ctx.requireSession();
      const name = filename ?? 'mask.png';
      const result = await withTempFile(name, maskPng, (path) =>
        active.api.uploadMask(path, { originalRef: { filename: original.name, subfolder: original.subfolder, type: original.type }, filename: name }),
      );
      return uploadView(result, active.api.capabilities, maskPng);
    },
  };
}
