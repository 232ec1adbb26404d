// Uploads (traces/uploads.json): local naming rules (same bytes keep the name, other bytes get
// "name (1).ext" unless overwrite), subfolders and their escapes, the mask route keeping the
// original's RGB with the mask's alpha; the cloud's flat content-addressed names and refusals.
import { createHash } from 'node:crypto';
import jpeg from 'jpeg-js';
import { describe, expect, it } from 'vitest';
import type { DemoService } from '../../src/main/demo';
import type { RgbaImage } from '@main/demo/node-api';
import { api, readTrace, startDemo, uploadFile, uploadPng } from './helpers';
import { decodePngImage, encodePngImage, solidImage } from './trace-nodes';

const uploadsTrace = readTrace<Record<string, { status: number; headers: Record<string, string>; json?: unknown }>>('uploads.json');

/** A mask whose left half is transparent (masked) and right half opaque, with RGB that must be ignored. */
function halfMask(width: number, height: number): RgbaImage {
  const img = solidImage(width, height, [0, 0, 255, 255]);
  for (let y = 0; y < height; y++) for (let x = 0; x < width / 2; x++) img.data[(y * width + x) * 4 + 3] = 0;
  return img;
}

async function download(svc: DemoService, filename: string, subfolder: string, type: string): Promise<Response> {
  const res = await api(svc, `/api/view?filename=${encodeURIComponent(filename)}&subfolder=${encodeURIComponent(subfolder)}&type=${type}`);
  if (res.status !== 302) return res;
  return fetch(res.headers.get('location')!);
}

describe('local uploads', () => {
  it('names files like the real server: same bytes keep the name, other bytes get (1), overwrite replaces', async () => {
    const svc = await startDemo({ flavour: 'local' });
    const red = encodePngImage(solidImage(4, 4, [255, 0, 0, 255]));
    const green = encodePngImage(solidImage(4, 4, [0, 255, 0, 255]));
    const first = await uploadFile(svc, red, 'sample.png');
    expect(first.status).toBe(200);
    expect(first.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(await first.json()).toEqual(uploadsTrace.upload_image_same_content_no_overwrite!.json);
    expect(await (await uploadFile(svc, red, 'sample.png')).json()).toEqual({ name: 'sample.png', subfolder: '', type: 'input' });
    expect(await (await uploadFile(svc, green, 'sample.png')).json()).toEqual(uploadsTrace.upload_image_diff_content_no_overwrite!.json);
    expect(await (await uploadFile(svc, green, 'sample.png')).json()).toEqual({ name: 'sample (1).png', subfolder: '', type: 'input' });
    const blue = encodePngImage(solidImage(4, 4, [0, 0, 255, 255]));
    expect(await (await uploadFile(svc, blue, 'sample.png')).json()).toEqual({ name: 'sample (2).png', subfolder: '', type: 'input' });
    expect(await (await uploadFile(svc, blue, 'sample.png', { overwrite: 'true' })).json()).toEqual(uploadsTrace.upload_image_overwrite_true!.json);
    const stored = Buffer.from(await (await download(svc, 'sample.png', '', 'input')).arrayBuffer());
    expect(stored.equals(Buffer.from(blue))).toBe(true);
    expect(svc.stats.uploads).toBe(6);
  });

  it('keeps real subfolders and temp uploads; refuses an escaping subfolder or name and a missing file with an empty 400', async () => {
    const svc = await startDemo({ flavour: 'local' });
    const png = encodePngImage(solidImage(2, 2, [1, 2, 3, 255]));
    expect(await (await uploadFile(svc, png, 'sub_test.png', { subfolder: 'sample_sub' })).json()).toEqual(uploadsTrace.upload_image_subfolder!.json);
    expect((await download(svc, 'sub_test.png', 'sample_sub', 'input')).status).toBe(200);
    expect(await (await uploadFile(svc, png, 'tmp_test.png', { type: 'temp' })).json()).toEqual(uploadsTrace.upload_image_type_temp!.json);
    for (const res of [
      await uploadFile(svc, png, 'x.png', { subfolder: '../escape' }),
      await uploadFile(svc, png, '../evil.png'),
      await api(svc, '/upload/image', {
        method: 'POST',
        body: (() => {
          const f = new FormData();
          f.append('type', 'input');
          return f;
        })(),
      }),
    ]) {
      expect(res.status).toBe(400);
      expect(res.headers.get('content-type')).toBe('application/octet-stream');
      expect((await res.arrayBuffer()).byteLength).toBe(0);
    }
  });

  it('refuses an upload over the limit with 413, without keeping it', async () => {
    const svc = await startDemo({ flavour: 'local', maxUploadBytes: 1000 });
    const res = await uploadFile(svc, new Uint8Array(5000), 'big.png');
    expect(res.status).toBe(413);
    expect((await download(svc, 'big.png', '', 'input')).status).toBe(404);
  });

  it("mask: stores the original's RGB with the mask's alpha under the mask's name (traces/uploads.json)", async () => {
    const svc = await startDemo({ flavour: 'local' });
    await uploadPng(svc, 'sample.png', solidImage(32, 24, [200, 30, 30, 255]));
    const fields = {
      type: 'input',
      subfolder: 'clipspace',
      original_ref: JSON.stringify({ filename: 'sample.png', subfolder: '', type: 'input' }),
      overwrite: 'true',
    };
    const res = await uploadFile(svc, encodePngImage(halfMask(32, 24)), 'clipspace-mask-1.png', fields, '/upload/mask');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual(uploadsTrace.upload_mask!.json);
    const stored = decodePngImage(new Uint8Array(await (await download(svc, 'clipspace-mask-1.png', 'clipspace', 'input')).arrayBuffer()));
    expect([stored.width, stored.height]).toEqual([32, 24]);
    const px = (x: number, y: number): number[] => [...stored.data.subarray((y * 32 + x) * 4, (y * 32 + x) * 4 + 4)];
    expect(px(0, 0)).toEqual([200, 30, 30, 0]);
    expect(px(31, 0)).toEqual([200, 30, 30, 255]);

    // A smaller mask is scaled to the original (nearest); a JPEG original works too.
    const jpegBytes = jpeg.encode({ width: 32, height: 24, data: Buffer.from(solidImage(32, 24, [10, 200, 10, 255]).data) }, 95).data;
    await uploadFile(svc, jpegBytes, 'photo.jpg');
    const small = await uploadFile(
      svc,
      encodePngImage(halfMask(8, 6)),
      'm2.png',
      { original_ref: JSON.stringify({ filename: 'photo.jpg', subfolder: '', type: 'input' }) },
      '/upload/mask',
    );
    expect(await small.json()).toEqual({ name: 'm2.png', subfolder: '', type: 'input' });
    const scaled = decodePngImage(new Uint8Array(await (await download(svc, 'm2.png', '', 'input')).arrayBuffer()));
    expect(scaled.data[3]).toBe(0);
    expect(scaled.data[(0 * 32 + 31) * 4 + 3]).toBe(255);
    expect(Math.abs(scaled.data[(0 * 32 + 31) * 4 + 1]! - 200)).toBeLessThan(8);
  });

  it('mask: answers 200 but saves nothing when the original is missing or named with ..', async () => {
    const svc = await startDemo({ flavour: 'local' });
    const mask = encodePngImage(halfMask(4, 4));
    for (const [name, ref] of [
      ['clipspace-mask-2.png', { filename: 'nope.png', subfolder: '', type: 'input' }],
      ['clipspace-mask-3.png', { filename: '../sample.png', subfolder: '', type: 'input' }],
    ] as const) {
      const res = await uploadFile(svc, mask, name, { type: 'input', original_ref: JSON.stringify(ref) }, '/upload/mask');
      expect(res.status).toBe(200);
      expect(((await res.json()) as { name: string }).name).toBe(name);
      expect((await download(svc, name, '', 'input')).status).toBe(404);
    }
    // A reference that is not JSON fails inside the real server: 500.
    expect((await uploadFile(svc, mask, 'm.png', { original_ref: '{bad' }, '/upload/mask')).status).toBe(500);
  });
});

describe('cloud uploads', () => {
  it('stores flat, content-addressed names; subfolder is ignored and answered ""', async () => {
    const svc = await startDemo({ flavour: 'cloud' });
    const png = encodePngImage(solidImage(4, 4, [9, 9, 9, 255]));
    const expected = `${createHash('sha256').update(png).digest('hex').slice(0, 16)}.png`;
    const res = await uploadFile(svc, png, 'Holiday Photo.PNG', { subfolder: 'trips/2026', overwrite: 'false' });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ name: expected, subfolder: '', type: 'input' });
    expect(await (await uploadFile(svc, png, 'other-name.png')).json()).toEqual({ name: expected, subfolder: '', type: 'input' });
    expect((await download(svc, expected, '', 'input')).status).toBe(200);
  });

  it('refuses non-images, oversized files and missing files with 400 {code, message}', async () => {
    const svc = await startDemo({ flavour: 'cloud', maxUploadBytes: 2000 });
    const text = await uploadFile(svc, new TextEncoder().encode('hello, not an image'), 'notes.png');
    expect(text.status).toBe(400);
    expect(await text.json()).toEqual({ code: 'invalid_image', message: expect.any(String) });
    const big = await uploadFile(svc, new Uint8Array(5000), 'big.png');
    expect(big.status).toBe(400);
    expect(await big.json()).toEqual({ code: 'file_too_large', message: expect.any(String) });
    const form = new FormData();
    form.append('type', 'input');
    const none = await api(svc, '/api/upload/image', { method: 'POST', body: form });
    expect(none.status).toBe(400);
    expect(svc.stats.uploads).toBe(0);
  });

  it('mask: composes into a content-addressed PNG; a missing original is a 400', async () => {
    const svc = await startDemo({ flavour: 'cloud' });
    const original = await uploadPng(svc, 'photo.png', solidImage(8, 8, [50, 60, 70, 255]));
    const res = await uploadFile(
      svc,
      encodePngImage(halfMask(8, 8)),
      'mask.png',
      { type: 'input', subfolder: 'clipspace', original_ref: JSON.stringify({ filename: original, subfolder: '', type: 'input' }) },
      '/api/upload/mask',
    );
    expect(res.status).toBe(200);
    const body = (await res.json()) as { name: string; subfolder: string; type: string };
    expect(body.name).toMatch(/^[0-9a-f]{16}\.png$/);
    expect(body.subfolder).toBe('');
    const stored = decodePngImage(new Uint8Array(await (await download(svc, body.name, '', 'input')).arrayBuffer()));
    expect([...stored.data.subarray(0, 4)]).toEqual([50, 60, 70, 0]);
    expect([...stored.data.subarray(7 * 4, 8 * 4)]).toEqual([50, 60, 70, 255]);

    const missing = await uploadFile(
      svc,
      encodePngImage(halfMask(8, 8)),
      'mask.png',
      { original_ref: JSON.stringify({ filename: 'nope.png', subfolder: '', type: 'input' }) },
      '/api/upload/mask',
    );
    expect(missing.status).toBe(400);
    expect(await missing.json()).toEqual({ code: 'original_not_found', message: expect.any(String) });
  });
});
