// The pipeline's upload step, for `flowdeck run` (--upload, --mask) and hot folders alike: an
// image goes to the server's input folder, and with a mask the mask follows it through
// /api/upload/mask naming the image as its original (the mask file prepared first: its alpha is
// the mask, see images/mask-file.ts); on a server without a mask upload (Comfy API v2) the mask
// is composed into the image here and only that is sent. Answers the value a workflow input
// takes to name the result, in the server's own way of referencing an upload
// (capabilities.uploadReference).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { composeMaskFile } from '@main/images/mask-compose';
import { prepareMaskPng } from '@main/images/mask-file';
import { uploadedInputValue } from '@main/service/capabilities';
import type { ServiceApi } from '@main/service/ports';

export interface InputUpload {
  image: string;
  /** Name on the server; default the file's own. */
  imageName?: string;
  mask?: { path: string; name: string } | null;
}

export interface UploadedInput {
  /** What the workflow input is set to. */
  value: string;
  /** The mask was drawn white = masked and converted to alpha. */
  maskConverted: boolean;
}

/**
 * Uploads the image (and its mask); a mask file that is not a usable PNG throws MaskFileError
 * before anything is sent. A server without a mask upload (Comfy API v2) gets only the image with
 * its mask composed in here: the original alone would never be used.
 */
export async function uploadInput(api: ServiceApi, upload: InputUpload): Promise<UploadedInput> {
  const imageOptions = { type: 'input' as const, ...(upload.imageName ? { filename: upload.imageName } : {}) };
  if (!upload.mask) return { value: uploadedInputValue(api.capabilities, await api.uploadImage(upload.image, imageOptions)), maskConverted: false };
  const work = await mkdtemp(join(tmpdir(), 'flowdeck-mask-'));
  try {
    const prepared = await prepareMaskPng(upload.mask.path, join(work, 'mask.png'));
    if (!api.capabilities.maskUpload) {
      const composed = join(work, 'composed.png');
      await composeMaskFile(upload.image, prepared.path, composed);
      const uploaded = await api.uploadImage(composed, { type: 'input', filename: upload.mask.name });
      return { value: uploadedInputValue(api.capabilities, uploaded), maskConverted: prepared.converted };
    }
    const uploaded = await api.uploadImage(upload.image, imageOptions);
    const masked = await api.uploadMask(prepared.path, {
      originalRef: { filename: uploaded.name, subfolder: uploaded.subfolder, type: uploaded.type || 'input' },
      filename: upload.mask.name,
    });
    return { value: uploadedInputValue(api.capabilities, masked), maskConverted: prepared.converted };
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}
