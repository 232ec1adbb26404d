// POST /upload/image and /upload/mask (multipart, streamed to disk).
// Local (traces/uploads.json): real subfolders (one escaping its folder: 400), same name + same
// bytes keeps the name, other bytes become `name (1).ext` unless overwrite=true, no file: 400,
// all errors with empty bodies. The mask route keeps the original's RGB and the mask's alpha; a
// missing or unsafe original saves nothing yet still answers 200, as the real server does.
// Cloud: flat content-addressed names (first 16 hex of sha256 + extension), subfolder answered
// "", non-images and oversized files refused with 400 {code, message}.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createHash } from 'node:crypto';
import { mkdir, readFile } from 'node:fs/promises';
import { dirname, extname, join, normalize, resolve } from 'node:path';
import type { DemoCore } from './core';
import { isFileArea, isInside, type FileArea } from './files';
import { sendCloudError, sendEmpty, sendJson, sendServerError, sendText } from './http-util';
import { cloudSizeProblem, sniffImage } from '@main/images/image-sniff';
import { composeMask, decodeImage, encodePng, ImageDecodeError } from '@main/images/mask-compose';
import { discard, receiveMultipart, type ReceivedFile } from './multipart';
import { regularFileSize } from './send-file';
import { chooseLocalName, moveInto, writeBytes } from './upload-store';

type Kind = 'image' | 'mask';

export function postUploadImage(req: IncomingMessage, res: ServerResponse, core: DemoCore): Promise<void> {
  return upload(req, res, core, 'image');
}

export function postUploadMask(req: IncomingMessage, res: ServerResponse, core: DemoCore): Promise<void> {
  return upload(req, res, core, 'mask');
}

async function upload(req: IncomingMessage, res: ServerResponse, core: DemoCore, kind: Kind): Promise<void> {
  const received = await receiveMultipart(req, { fileField: 'image', tmpDir: core.files.incoming, maxFileBytes: core.maxUploadBytes });
  if (received.kind === 'too_large') {
    if (core.flavour === 'local') return sendText(res, 413, '413: Request Entity Too Large');
    return sendCloudError(res, 400, 'file_too_large', `The file is larger than the ${Math.round(core.maxUploadBytes / 1e6)} MB upload limit.`);
  }
  if (received.kind === 'bad_request') {
    if (core.flavour === 'local') return sendEmpty(res, 400);
    return sendCloudError(res, 400, 'invalid_request', 'Send the upload as multipart/form-data with the file in the "image" field.');
  }
  const { fields, file } = received;
  try {
    if (core.flavour === 'local') await core.runExclusive(() => localUpload(res, core, kind, fields, file));
    else await cloudUpload(res, core, kind, fields, file);
  } finally {
    await discard(file); // a no-op when the file was moved into place
  }
}

async function localUpload(res: ServerResponse, core: DemoCore, kind: Kind, fields: Record<string, string>, file: ReceivedFile | null): Promise<void> {
  if (!file || !file.filename) return sendEmpty(res, 400);
  const type = fields.type ?? 'input';
  // Any other type fails inside the real server (500).
  if (!isFileArea(type)) return sendServerError(res, 'local');
  const uploadDir = core.files.dirFor(type);
  const subfolder = fields.subfolder ?? '';
  const folder = resolve(uploadDir, normalize(subfolder || '.'));
  const target = resolve(folder, file.filename);
  if (!isInside(uploadDir, target)) return sendEmpty(res, 400);
  // A name with directories in it cannot be written on the real server either.
  if (dirname(target) !== folder) return sendServerError(res, 'local');
  await mkdir(folder, { recursive: true });

  let filename = file.filename;
  let duplicate = false;
  const overwrite = fields.overwrite === 'true' || fields.overwrite === '1';
  if (!overwrite) ({ filename, duplicate } = await chooseLocalName(folder, file.filename, file.sha256));

  if (!duplicate) {
    if (kind === 'image') {
      await moveInto(file.tmpPath, join(folder, filename));
    } else {
      const composed = await composeLocalMask(core, fields.original_ref, file);
      if (composed === 'crash') return sendServerError(res, 'local');
      if (composed !== null) await writeBytes(join(folder, filename), composed);
    }
  }
  core.stats.uploads += 1;
  sendJson(res, 'local', 200, { name: filename, subfolder, type });
}

/** The composed PNG, null when the original is missing or unsafe (nothing saved), 'crash' for a malformed reference. */
async function composeLocalMask(core: DemoCore, originalRef: string | undefined, mask: ReceivedFile): Promise<Buffer | null | 'crash'> {
  let ref: unknown;
  try {
    ref = JSON.parse(originalRef ?? '');
  } catch {
    return 'crash';
  }
  // json.loads then original_ref['filename']: anything but an object with a filename crashes.
  if (typeof ref !== 'object' || ref === null || Array.isArray(ref)) return 'crash';
  const r = ref as Record<string, unknown>;
  if (typeof r.filename !== 'string') return 'crash';
  const m = /^(.*) \[(input|output|temp)\]$/.exec(r.filename as string);
  const filename = m ? m[1]! : (r.filename as string);
  if (!filename || filename.startsWith('/') || filename.includes('..')) return null;
  const type = m ? m[2]! : typeof r.type === 'string' ? r.type : 'output';
  if (!isFileArea(type)) return null;
  let dir = core.files.dirFor(type);
  const sub = typeof r.subfolder === 'string' ? r.subfolder : '';
  if (sub !== '') {
    const full = core.files.resolveSubfolder(dir, sub);
    if (full === null) return null;
    dir = full;
  }
  const originalPath = join(dir, filename);
  if ((await regularFileSize(originalPath)) === null) return null;
  try {
    return await composeFiles(originalPath, mask.tmpPath);
  } catch (error) {
    if (error instanceof ImageDecodeError) return 'crash';
    throw error;
  }
}

async function composeFiles(originalPath: string, maskPath: string): Promise<Buffer> {
  const original = decodeImage(await readFile(originalPath));
  const mask = decodeImage(await readFile(maskPath));
  return encodePng(composeMask(original, mask));
}

async function cloudUpload(res: ServerResponse, core: DemoCore, kind: Kind, fields: Record<string, string>, file: ReceivedFile | null): Promise<void> {
  if (!file) return sendCloudError(res, 400, 'invalid_request', 'No file was sent in the "image" field.');
  const type = fields.type ?? 'input';
  if (type !== 'input' && type !== 'temp') return sendCloudError(res, 400, 'invalid_request', 'type must be input or temp.');
  const sniffed = sniffImage(file.head);
  if (!sniffed) return sendCloudError(res, 400, 'invalid_image', 'The uploaded file is not an image (PNG, JPEG, WebP, GIF, BMP or TIFF).');
  const sizeProblem = cloudSizeProblem(sniffed);
  if (sizeProblem) return sendCloudError(res, 400, 'image_too_large', sizeProblem);
  const dir = core.files.dirFor(type);

  if (kind === 'image') {
    const ext = (extname(file.filename) || `.${sniffed.format === 'jpeg' ? 'jpg' : sniffed.format}`).toLowerCase();
    const name = `${file.sha256.slice(0, 16)}${ext}`;
    if ((await regularFileSize(join(dir, name))) === null) await moveInto(file.tmpPath, join(dir, name));
    core.stats.uploads += 1;
    return sendJson(res, 'cloud', 200, { name, subfolder: '', type });
  }

  let ref: unknown;
  try {
    ref = JSON.parse(fields.original_ref ?? '');
  } catch {
    return sendCloudError(res, 400, 'invalid_request', 'original_ref must be a JSON object {filename, subfolder, type}.');
  }
  const r = typeof ref === 'object' && ref !== null ? (ref as Record<string, unknown>) : {};
  const refType = typeof r.type === 'string' ? r.type : 'input';
  const originalPath = typeof r.filename === 'string' && isFileArea(refType) ? core.files.pathOf(r.filename, '', refType as FileArea) : null;
  if (originalPath === null || (await regularFileSize(originalPath)) === null) {
    return sendCloudError(res, 400, 'original_not_found', 'The image named in original_ref was not found. Upload the original first.');
  }
  let png: Buffer;
  try {
    png = await composeFiles(originalPath, file.tmpPath);
  } catch (error) {
    if (error instanceof ImageDecodeError) return sendCloudError(res, 400, 'invalid_image', 'The mask or its original could not be read as PNG or JPEG.');
    throw error;
  }
  const name = `${createHash('sha256').update(png).digest('hex').slice(0, 16)}.png`;
  await writeBytes(join(dir, name), png);
  core.stats.uploads += 1;
  sendJson(res, 'cloud', 200, { name, subfolder: '', type });
}
