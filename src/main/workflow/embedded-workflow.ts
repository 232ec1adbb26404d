// The workflow an output image carries: the `prompt` (exactly what ran) and `workflow` (the editor's
// graph) text chunks of a PNG (tEXt, zTXt, iTXt), or the same from a WebP's EXIF.
// INTERFACE STUB: the real reader lands on main shortly; the signature is fixed.
import type { JsonObject } from '../../shared/json';

export type EmbeddedImageFormat = 'png' | 'webp';

export interface EmbeddedWorkflow {
  format: EmbeddedImageFormat;
  /** The API prompt that ran, or null when the image carries none. */
  prompt: JsonObject | null;
  /** The UI graph, or null when the image carries none. */
  workflow: JsonObject | null;
}

/** Not an image of a known kind, truncated, or a chunk that is not JSON; the message names the chunk. */
export class EmbeddedWorkflowError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'EmbeddedWorkflowError';
  }
}

/** 'png' or 'webp' by magic bytes, else null (then the bytes are not an image this reader knows). */
export function imageFormatOf(bytes: Uint8Array): EmbeddedImageFormat | null {
  if (bytes.length >= 8 && bytes[0] === 0x89 && bytes[1] === 0x50 && bytes[2] === 0x4e && bytes[3] === 0x47) return 'png';
  if (bytes.length >= 12 && String.fromCharCode(...bytes.subarray(0, 4)) === 'RIFF' && String.fromCharCode(...bytes.subarray(8, 12)) === 'WEBP') return 'webp';
  return null;
}

/** Throws EmbeddedWorkflowError; an image with neither chunk returns prompt and workflow null. */
export function readEmbeddedWorkflow(bytes: Uint8Array): EmbeddedWorkflow {
  const format = imageFormatOf(bytes);
  if (format === null) throw new EmbeddedWorkflowError('The file is neither a PNG nor a WebP image.');
  throw new EmbeddedWorkflowError('Reading embedded workflows is not implemented yet.');
}
