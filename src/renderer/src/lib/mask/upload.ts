// Saving a painted mask to the server (PROTOCOL.md, "Uploads"): the original goes up first with
// /api/upload/image unless it is already there, then the mask with /api/upload/mask naming that
// original in `original_ref` (type always sent: local servers assume `output` without it). The
// server stores the original's colours with the mask's alpha as a new file, whose name (with
// `subfolder/` in front on local servers, which main computes as `inputValue`) goes into the
// workflow's image input. Written against a port so it runs under Node with the real app core.
import type { UploadView } from '@shared/ipc/contract';

/** A file on the server, as upload.image / upload.mask answer it (and as original_ref names it). */
export interface ServerImageRef {
  name: string;
  subfolder: string;
  type: string;
}

export interface MaskUploadPort {
  uploadImage(name: string, bytes: Uint8Array): Promise<UploadView>;
  uploadMask(original: ServerImageRef, maskPng: Uint8Array): Promise<UploadView>;
}

/** The image being masked. */
export interface MaskSource {
  /** File name to upload it under (a base name). */
  name: string;
  bytes: Uint8Array;
  mime: string;
  /** Where the image already is on the server, so it is not uploaded again; null when it is not. */
  serverRef: ServerImageRef | null;
  /** The name people know it by, when the server's is not (a content hash on the cloud). */
  displayName?: string;
}

export interface MaskSaveResult {
  /** The image the mask was applied to, on the server. */
  original: ServerImageRef;
  /** Whether the original was uploaded by this save (false: it was already there). */
  originalUploaded: boolean;
  /** The server's answer for the masked image. */
  masked: UploadView;
  /** What to put into the workflow's image input. */
  inputValue: string;
}

export class MaskSaveError extends Error {
  /** Which upload failed: the original image or the mask. */
  readonly step: 'original' | 'mask';

  constructor(step: 'original' | 'mask', message: string, cause: unknown) {
    super(message, { cause });
    this.name = 'MaskSaveError';
    this.step = step;
  }
}

function reason(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** A name the upload call accepts: a base name without path separators, never empty. */
export function uploadName(name: string, fallback = 'image.png'): string {
  const base = name.split(/[\\/]/).pop()?.replace(/\0/g, '').trim() ?? '';
  return (base === '' || base === '.' || base === '..' ? fallback : base).slice(-255);
}

/** Uploads the original when needed, then the mask; errors say which step failed and why. */
export async function saveMaskedImage(port: MaskUploadPort, source: MaskSource, maskPng: Uint8Array): Promise<MaskSaveResult> {
  let original = source.serverRef;
  let originalUploaded = false;
  if (!original) {
    try {
      const answer = await port.uploadImage(uploadName(source.name), source.bytes);
      original = { name: answer.name, subfolder: answer.subfolder, type: answer.type };
      originalUploaded = true;
    } catch (error) {
      throw new MaskSaveError('original', `The original image could not be uploaded, so the mask was not sent: ${reason(error)}`, error);
    }
  }
  let masked: UploadView;
  try {
    masked = await port.uploadMask(original, maskPng);
  } catch (error) {
    throw new MaskSaveError('mask', `The mask could not be uploaded: ${reason(error)}`, error);
  }
  // The server names the masked copy after the mask ("mask.png", a hash): it is shown after the image.
  return { original, originalUploaded, masked: { ...masked, originalName: maskedName(source.displayName ?? source.name) }, inputValue: masked.inputValue };
}

/** "cat.png" -> "cat.png (masked)"; a masked copy masked again stays "cat.png (masked)". */
export function maskedName(original: string): string {
  return original.endsWith(' (masked)') ? original : `${original} (masked)`;
}

/**
 * The server file an image input names: `sub/dir/name.png` is `name.png` in subfolder `sub/dir`
 * (either slash), and an annotated `name.png [output]` names another area, as the server reads it.
 */
export function refFromInputValue(value: string): ServerImageRef {
  let text = value.trim();
  let type = 'input';
  const annotated = /^(.*) \[(input|output|temp)\]$/.exec(text);
  if (annotated) {
    text = annotated[1]!;
    type = annotated[2]!;
  }
  const normalised = text.replace(/\\/g, '/');
  const cut = normalised.lastIndexOf('/');
  return cut < 0 ? { name: normalised, subfolder: '', type } : { name: normalised.slice(cut + 1), subfolder: normalised.slice(0, cut), type };
}

/** "input/clipspace/mask.png": where a file is on the server, for people. */
export function placeOf(ref: ServerImageRef): string {
  return [ref.type, ref.subfolder, ref.name].filter((part) => part !== '').join('/');
}

/** What a save did, one line per fact, for the painter's status. */
export function describeSave(result: MaskSaveResult): string[] {
  return [
    result.originalUploaded ? `Uploaded the original as ${placeOf(result.original)}.` : `The original was already on the server: ${placeOf(result.original)}.`,
    `Uploaded the mask; the server saved the masked image as ${placeOf(result.masked)}.`,
    `The image input now reads "${result.inputValue}".`,
  ];
}
