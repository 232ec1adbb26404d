// The workflow an output image carries: the `prompt` (exactly what ran) and `workflow` (the editor's
// graph) text chunks of a PNG (tEXt, zTXt, iTXt), or the same from a WebP's EXIF, where the server
// writes "prompt:{json}" and "workflow:{json}" as ASCII tags of the first IFD.
// The bytes come from anywhere (a dropped file, a download), so every length is checked against the
// data before use and every failure names the chunk; nothing here throws anything but
// EmbeddedWorkflowError.
import { inflateSync } from 'node:zlib';
import { isJsonObject, parseJsonExact, type JsonObject } from '@shared/json';

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

/** A compressed text chunk may not inflate beyond this: a workflow is kilobytes, a zip bomb is not. */
const MAX_INFLATED_TEXT_BYTES = 64 * 1024 * 1024;
const WANTED_KEYS = new Set(['prompt', 'workflow']);

function ascii(bytes: Uint8Array, start: number, end: number): string {
  return String.fromCharCode(...bytes.subarray(start, end));
}

/** 'png' or 'webp' by magic bytes, else null (then the bytes are not an image this reader knows). */
export function imageFormatOf(bytes: Uint8Array): EmbeddedImageFormat | null {
  if (bytes.length >= 8 && bytes[0] === 0x89 && ascii(bytes, 1, 4) === 'PNG') return 'png';
  if (bytes.length >= 12 && ascii(bytes, 0, 4) === 'RIFF' && ascii(bytes, 8, 12) === 'WEBP') return 'webp';
  return null;
}

/** Throws EmbeddedWorkflowError; an image with neither chunk returns prompt and workflow null. */
export function readEmbeddedWorkflow(bytes: Uint8Array): EmbeddedWorkflow {
  const format = imageFormatOf(bytes);
  if (format === null) {
    if (bytes.length >= 4 && ascii(bytes, 0, 4) === 'RIFF') throw new EmbeddedWorkflowError('The file is a RIFF container but not a WebP image.');
    throw new EmbeddedWorkflowError('The file is neither a PNG nor a WebP image.');
  }
  const texts = format === 'png' ? pngTexts(bytes) : webpTexts(bytes);
  return {
    format,
    prompt: jsonChunk(texts, 'prompt', format),
    workflow: jsonChunk(texts, 'workflow', format),
  };
}

function jsonChunk(texts: Map<string, string>, key: string, format: EmbeddedImageFormat): JsonObject | null {
  const text = texts.get(key);
  if (text === undefined) return null;
  const where = format === 'png' ? `The PNG's "${key}" text chunk` : `The WebP's "${key}" EXIF entry`;
  let value: unknown;
  try {
    value = parseJsonExact(text);
  } catch (error) {
    throw new EmbeddedWorkflowError(`${where} is not JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (!isJsonObject(value)) throw new EmbeddedWorkflowError(`${where} is JSON but not an object.`);
  return value;
}

const utf8Strict = new TextDecoder('utf-8', { fatal: true });
const latin1 = new TextDecoder('latin1');

/** tEXt is Latin-1 by the standard, but some writers put UTF-8 there: take UTF-8 when it decodes. */
function decodeLooseText(bytes: Uint8Array): string {
  try {
    return utf8Strict.decode(bytes);
  } catch {
    return latin1.decode(bytes);
  }
}

function inflateText(data: Uint8Array, chunk: string, key: string): Uint8Array {
  try {
    return inflateSync(data, { maxOutputLength: MAX_INFLATED_TEXT_BYTES });
  } catch (error) {
    const detail =
      (error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE'
        ? `inflates beyond ${MAX_INFLATED_TEXT_BYTES / 1024 / 1024} MiB`
        : 'is not valid zlib data';
    throw new EmbeddedWorkflowError(`The PNG's "${key}" ${chunk} chunk ${detail}.`);
  }
}

function pngTexts(bytes: Uint8Array): Map<string, string> {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const texts = new Map<string, string>();
  let offset = 8;
  while (offset < bytes.length) {
    if (offset + 8 > bytes.length) throw new EmbeddedWorkflowError(`The PNG is truncated: a chunk header at byte ${offset} is cut off.`);
    const length = view.getUint32(offset);
    const type = ascii(bytes, offset + 4, offset + 8);
    const dataStart = offset + 8;
    const dataEnd = dataStart + length;
    if (dataEnd + 4 > bytes.length)
      throw new EmbeddedWorkflowError(`The PNG is truncated: its ${type} chunk at byte ${offset} claims ${length} bytes that are not there.`);
    if (type === 'tEXt' || type === 'zTXt' || type === 'iTXt') {
      const entry = pngTextChunk(type, bytes.subarray(dataStart, dataEnd));
      // The first chunk of a key wins, as in the editor's reader.
      if (entry && !texts.has(entry.key)) texts.set(entry.key, entry.text);
    }
    if (type === 'IEND') break;
    offset = dataEnd + 4;
  }
  return texts;
}

function pngTextChunk(type: string, data: Uint8Array): { key: string; text: string } | null {
  const keyEnd = data.indexOf(0);
  if (keyEnd < 0) return null; // a text chunk without a keyword carries nothing we can name
  const key = latin1.decode(data.subarray(0, keyEnd));
  if (!WANTED_KEYS.has(key)) return null;
  if (type === 'tEXt') return { key, text: decodeLooseText(data.subarray(keyEnd + 1)) };
  if (type === 'zTXt') {
    if (keyEnd + 2 > data.length) throw new EmbeddedWorkflowError(`The PNG's "${key}" zTXt chunk is truncated.`);
    return { key, text: decodeLooseText(inflateText(data.subarray(keyEnd + 2), 'zTXt', key)) };
  }
  // iTXt: keyword \0 compressed-flag method language \0 translated-keyword \0 text (UTF-8)
  const flagAt = keyEnd + 1;
  if (flagAt + 2 > data.length) throw new EmbeddedWorkflowError(`The PNG's "${key}" iTXt chunk is truncated.`);
  const compressed = data[flagAt] === 1;
  const languageEnd = data.indexOf(0, flagAt + 2);
  const translatedEnd = languageEnd < 0 ? -1 : data.indexOf(0, languageEnd + 1);
  if (translatedEnd < 0) throw new EmbeddedWorkflowError(`The PNG's "${key}" iTXt chunk is truncated.`);
  const body = data.subarray(translatedEnd + 1);
  const raw = compressed ? inflateText(body, 'iTXt', key) : body;
  try {
    return { key, text: utf8Strict.decode(raw) };
  } catch {
    throw new EmbeddedWorkflowError(`The PNG's "${key}" iTXt chunk is not UTF-8 text.`);
  }
}

function webpTexts(bytes: Uint8Array): Map<string, string> {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const riffEnd = Math.min(bytes.length, 8 + view.getUint32(4, true));
  const texts = new Map<string, string>();
  let offset = 12;
  while (offset + 8 <= riffEnd) {
    const type = ascii(bytes, offset, offset + 4);
    const length = view.getUint32(offset + 4, true);
    const dataStart = offset + 8;
    const dataEnd = dataStart + length;
    if (dataEnd > bytes.length)
      throw new EmbeddedWorkflowError(`The WebP is truncated: its ${type.trim()} chunk at byte ${offset} claims ${length} bytes that are not there.`);
    if (type === 'EXIF') {
      for (const [key, text] of exifTexts(bytes.subarray(dataStart, dataEnd))) {
        if (!texts.has(key)) texts.set(key, text);
      }
    }
    offset = dataEnd + (length % 2); // chunks are padded to an even size
  }
  return texts;
}

/** "key:value" ASCII entries of the first IFD of a TIFF-structured EXIF block. */
function exifTexts(exif: Uint8Array): Map<string, string> {
  const texts = new Map<string, string>();
  // Some writers keep the JPEG APP1 prefix "Exif\0\0" inside the WebP chunk.
  const tiff = ascii(exif, 0, 6) === 'Exif\0\0' ? exif.subarray(6) : exif;
  if (tiff.length < 8) throw new EmbeddedWorkflowError("The WebP's EXIF chunk is truncated.");
  const order = ascii(tiff, 0, 2);
  if (order !== 'II' && order !== 'MM') throw new EmbeddedWorkflowError("The WebP's EXIF chunk is not TIFF-structured.");
  const little = order === 'II';
  const view = new DataView(tiff.buffer, tiff.byteOffset, tiff.byteLength);
  const ifd = view.getUint32(4, little);
  if (ifd + 2 > tiff.length) throw new EmbeddedWorkflowError("The WebP's EXIF chunk is truncated: its first directory is not there.");
  const count = view.getUint16(ifd, little);
  for (let i = 0; i < count; i += 1) {
    const entry = ifd + 2 + i * 12;
    if (entry + 12 > tiff.length) throw new EmbeddedWorkflowError("The WebP's EXIF chunk is truncated inside its first directory.");
    const fieldType = view.getUint16(entry + 2, little);
    const length = view.getUint32(entry + 4, little);
    if (fieldType !== 2 && fieldType !== 7) continue; // ASCII or UNDEFINED hold text
    const start = length <= 4 ? entry + 8 : view.getUint32(entry + 8, little);
    if (start + length > tiff.length) throw new EmbeddedWorkflowError("The WebP's EXIF chunk is truncated: an entry points past its end.");
    let end = start + length;
    while (end > start && tiff[end - 1] === 0) end -= 1;
    const text = decodeLooseText(tiff.subarray(start, end));
    const colon = text.indexOf(':');
    if (colon <= 0) continue;
    const key = text.slice(0, colon).toLowerCase();
    if (WANTED_KEYS.has(key) && !texts.has(key)) texts.set(key, text.slice(colon + 1));
  }
  return texts;
}
