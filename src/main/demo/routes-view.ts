// GET /view. Local (as the real server, traces/view.json): 200 with the file streamed from disk,
// `..` or an absolute name 400, a subfolder outside its folder 403, an unknown type 400, a missing
// file 404, all errors with empty bodies; `preview=jpeg;Q` and `channel=rgb|a` re-encode images.
// Cloud: 302 to a signed URL on the storage listener (files are flat: subfolder is ignored).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { basename, join } from 'node:path';
import { readFile } from 'node:fs/promises';
import jpeg from 'jpeg-js';
import { PNG } from 'pngjs';
import type { DemoCore, RequestInfo } from './core';
import { contentTypeFor, isFileArea, type FileArea } from './files';
import { sendCloudError, sendEmpty, sendServerError } from './http-util';
import { decodeImage, encodePng } from '@main/images/mask-compose';
import { regularFileSize, sendFile } from './send-file';

/** "name.png [input]" names its folder itself, as the real server accepts. */
function annotated(filename: string): { name: string; area: FileArea | null } {
  const m = /^(.*) \[(input|output|temp)\]$/.exec(filename);
  return m ? { name: m[1]!, area: m[2] as FileArea } : { name: filename, area: null };
}

export async function getView(req: IncomingMessage, res: ServerResponse, core: DemoCore, info: RequestInfo): Promise<void> {
  core.stats.viewRequests += 1;
  if (core.flavour === 'cloud') return cloudView(res, core, info);
  const q = info.url.searchParams;
  const raw = q.get('filename');
  if (raw === null) return sendEmpty(res, 404);
  const { name, area: annotatedArea } = annotated(raw);
  if (!name) return sendEmpty(res, 400);
  if (name.startsWith('/') || name.includes('..')) return sendEmpty(res, 400);
  const type = annotatedArea ?? q.get('type') ?? 'output';
  if (!isFileArea(type)) return sendEmpty(res, 400);
  let dir = core.files.dirFor(type);
  const subfolder = q.get('subfolder');
  if (subfolder !== null) {
    const full = core.files.resolveSubfolder(dir, subfolder);
    if (full === null) return sendEmpty(res, 403);
    dir = full;
  }
  const filename = basename(name);
  const path = join(dir, filename);
  const size = await regularFileSize(path);
  if (size === null) return sendEmpty(res, 404);
  // Node refuses header text beyond Latin-1; send the UTF-8 bytes, as aiohttp does.
  const disposition = { 'Content-Disposition': Buffer.from(`filename="${filename}"`, 'utf8').toString('latin1') };

  const preview = q.get('preview');
  const channel = q.get('channel') ?? 'rgba';
  if (preview !== null || channel === 'rgb' || channel === 'a') {
    let body: Buffer;
    let contentType: string;
    try {
      ({ body, contentType } = await reencode(path, preview, channel));
    } catch {
      return sendServerError(res, 'local');
    }
    res.writeHead(200, { ...disposition, 'Content-Type': contentType, 'Content-Length': String(body.length) });
    res.end(body);
    return;
  }
  await sendFile(req, res, path, size, { ...disposition, 'Content-Type': contentTypeFor(filename) });
}

/** Preview and channel variants of an image (webp previews are answered as JPEG: no encoder here). */
async function reencode(path: string, preview: string | null, channel: string): Promise<{ body: Buffer; contentType: string }> {
  const image = decodeImage(await readFile(path));
  if (preview !== null) {
    const parts = preview.split(';');
    const last = parts[parts.length - 1] ?? '';
    const quality = /^\d+$/.test(last) ? Math.min(100, Number(last)) : 90;
    return { body: jpeg.encode({ ...image, data: Buffer.from(image.data) }, quality).data, contentType: 'image/jpeg' };
  }
  const png = new PNG({ width: image.width, height: image.height });
  for (let i = 0; i < image.data.length; i += 4) {
    if (channel === 'rgb') {
      png.data[i] = image.data[i]!;
      png.data[i + 1] = image.data[i + 1]!;
      png.data[i + 2] = image.data[i + 2]!;
      png.data[i + 3] = 255;
    } else {
      png.data[i] = 0;
      png.data[i + 1] = 0;
      png.data[i + 2] = 0;
      png.data[i + 3] = image.data[i + 3]!;
    }
  }
  const body =
    channel === 'rgb' ? PNG.sync.write(png, { colorType: 2 }) : encodePng({ width: image.width, height: image.height, data: new Uint8Array(png.data) });
  return { body, contentType: 'image/png' };
}

async function cloudView(res: ServerResponse, core: DemoCore, info: RequestInfo): Promise<void> {
  const q = info.url.searchParams;
  const filename = q.get('filename');
  if (!filename) return sendCloudError(res, 400, 'invalid_request', 'The filename parameter is required.');
  const type = q.get('type') ?? 'output';
  if (!isFileArea(type)) return sendCloudError(res, 400, 'invalid_request', 'type must be output, temp or input.');
  const path = core.files.pathOf(filename, '', type);
  if (path === null) return sendCloudError(res, 400, 'invalid_request', 'Invalid file name.');
  if ((await regularFileSize(path)) === null) return sendCloudError(res, 404, 'not_found', 'No such file.');
  res.writeHead(302, { Location: core.storageUrl() + core.signer.sign({ area: type, filename }), 'Content-Length': '0' });
  res.end();
}
