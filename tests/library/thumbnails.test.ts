// Library thumbnails through sharp (thumbnails.ts): every format the library shows as a picture
// (PNG and JPEG from independent encoders, WebP, a GIF's first frame) becomes a JPEG that fits the
// size asked, never upscaled, transparency on white; what is not one of those formats, is damaged,
// or says it is too large to decode gets no thumbnail. The upload's data-URL thumbnail keeps alpha.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import jpeg from 'jpeg-js';
import { PNG } from 'pngjs';
import sharp from 'sharp';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { thumbnailDataUrl } from '@main/app/thumbnail';
import { encodePng } from '@main/demo/nodes/image-codec';
import { buildScene, renderScene } from '@main/demo/nodes/procedural';
import { Library } from '@main/library/library';
import { writeThumbnail } from '@main/library/thumbnails';
import { Store } from '@main/store/store';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'flowdeck-thumbs-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

function png(width: number, height: number, rgba: [number, number, number, number]): Buffer {
  const image = new PNG({ width, height });
  for (let i = 0; i < width * height; i += 1) image.data.set(rgba, i * 4);
  return PNG.sync.write(image);
}

/** Writes `bytes` as a library file, thumbnails it at `size`, and decodes the JPEG (jpeg-js). */
async function thumbnailOf(bytes: Buffer, size: number): Promise<{ width: number; height: number; pixel: number[] } | null> {
  const source = join(dir, 'source');
  await writeFile(source, bytes);
  const made = await writeThumbnail(source, join(dir, '.thumbnails', `x-${size}.jpg`), size);
  if (!made) return null;
  const decoded = jpeg.decode(await readFile(made.path), { useTArray: true, formatAsRGBA: true });
  expect({ width: decoded.width, height: decoded.height }).toEqual({ width: made.width, height: made.height });
  return { width: made.width, height: made.height, pixel: [...decoded.data.subarray(0, 3)] };
}

function near(pixel: number[], rgb: number[]): boolean {
  return pixel.every((v, i) => Math.abs(v - rgb[i]!) <= 6);
}

describe('writeThumbnail', () => {
  it('fits PNG and JPEG inside the size asked, keeps the aspect, never upscales, and puts transparency on white', async () => {
    expect(await thumbnailOf(png(300, 150, [200, 30, 30, 255]), 64)).toMatchObject({ width: 64, height: 32 });
    expect(near((await thumbnailOf(png(300, 150, [200, 30, 30, 255]), 64))!.pixel, [200, 30, 30])).toBe(true);
    expect(await thumbnailOf(png(150, 301, [0, 0, 0, 255]), 100)).toMatchObject({ width: 50, height: 100 });
    expect(await thumbnailOf(png(40, 20, [0, 0, 0, 255]), 256)).toMatchObject({ width: 40, height: 20 });
    // Fully transparent black: white, not black.
    expect(near((await thumbnailOf(png(64, 64, [0, 0, 0, 0]), 32))!.pixel, [255, 255, 255])).toBe(true);
    const photo = Buffer.from(jpeg.encode({ width: 120, height: 90, data: Buffer.alloc(120 * 90 * 4, 90) }, 90).data);
    expect(await thumbnailOf(photo, 60)).toMatchObject({ width: 60, height: 45 });
  });

  it("makes WebP and a GIF's first frame into JPEG thumbnails", async () => {
    const webp = await sharp({ create: { width: 200, height: 100, channels: 3, background: { r: 20, g: 160, b: 40 } } })
      .webp()
      .toBuffer();
    const webpThumb = await thumbnailOf(webp, 50);
    expect(webpThumb).toMatchObject({ width: 50, height: 25 });
    expect(near(webpThumb!.pixel, [20, 160, 40])).toBe(true);
    // Two frames of 40x30: blue, then yellow. The thumbnail is the first.
    const frames = Buffer.alloc(40 * 60 * 3);
    for (let i = 0; i < 40 * 60; i += 1) frames.set(i < 40 * 30 ? [0, 0, 255] : [255, 255, 0], i * 3);
    const gif = await sharp(frames, { raw: { width: 40, height: 60, channels: 3, pageHeight: 30 } })
      .gif()
      .toBuffer();
    expect((await sharp(gif).metadata()).pages).toBe(2);
    const gifThumb = await thumbnailOf(gif, 20);
    expect(gifThumb).toMatchObject({ width: 20, height: 15 });
    expect(near(gifThumb!.pixel, [0, 0, 255])).toBe(true);
  });

  it('makes none of other formats, damaged files or images too large to decode', async () => {
    const svg = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="10" height="10"/></svg>');
    expect(await thumbnailOf(svg, 64)).toBeNull();
    const tiff = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#888' } })
      .tiff()
      .toBuffer();
    expect(await thumbnailOf(tiff, 64)).toBeNull();
    // A PNG cut off halfway through its pixels.
    const whole = png(200, 200, [1, 2, 3, 255]);
    const noisy = await sharp({ create: { width: 200, height: 200, channels: 3, background: '#000', noise: { type: 'gaussian', mean: 128, sigma: 50 } } })
      .png()
      .toBuffer();
    expect(await thumbnailOf(whole, 64)).not.toBeNull();
    expect(await thumbnailOf(noisy.subarray(0, noisy.length >> 1), 64)).toBeNull();
    // A header that says 10,000 x 10,000 (100 Mpx, over the 64 Mpx limit): not decoded.
    const huge = Buffer.from(whole);
    huge.writeUInt32BE(10_000, 16);
    huge.writeUInt32BE(10_000, 20);
    expect(await thumbnailOf(huge, 64)).toBeNull();
    expect(await thumbnailOf(Buffer.from('not an image at all'), 64)).toBeNull();
  });
});

describe("the library's thumbnails", () => {
  it('are made for WebP and GIF items too, and not for BMP (no decoder: the type icon)', async () => {
    const store = await Store.open(join(dir, 'flowdeck.sqlite'));
    const library = await Library.open({ store, root: join(dir, 'library'), source: () => null });
    try {
      const colour = { width: 60, height: 30, channels: 3 as const, background: '#3a6' };
      const files: Record<string, Buffer> = {
        'a.webp': await sharp({ create: colour }).webp().toBuffer(),
        'b.gif': await sharp({ create: colour }).gif().toBuffer(),
        // A 2x1 24-bit BMP: header (14), BITMAPINFOHEADER (40), one row of 2 pixels padded to 8 bytes.
        'c.bmp': Buffer.concat([
          Buffer.from('424d3e000000000000003600000028000000020000000100000001001800000000000800000000000000000000000000000000000000', 'hex'),
          Buffer.alloc(8, 0x80),
        ]),
      };
      const sizes: Record<string, unknown> = {};
      for (const [name, bytes] of Object.entries(files)) {
        await writeFile(join(dir, name), bytes);
        const item = await library.importFile({
          path: join(dir, name),
          promptId: `p-${name}`,
          server: { profileId: 'local', kind: 'local', baseUrl: 'http://127.0.0.1:8188' },
          file: { node: '9', key: 'images', filename: name, subfolder: '', type: 'output' },
          workflow: null,
          workflowName: 'thumbnails',
          sourceFile: null,
        });
        expect(item.mediaKind).toBe('image');
        const thumb = await library.thumbnail(item.id, 20);
        sizes[name] = thumb && { mime: thumb.mime, width: thumb.width, height: thumb.height };
      }
      expect(sizes).toEqual({
        'a.webp': { mime: 'image/jpeg', width: 20, height: 10 },
        'b.gif': { mime: 'image/jpeg', width: 20, height: 10 },
        'c.bmp': null,
      });
    } finally {
      await library.dispose();
      await store.close();
    }
  });
});

/** RGB pixels of `image` (RGBA) averaged over 2x2 blocks: what a 2x smaller picture should look like. */
function halved(image: { width: number; height: number; data: Uint8Array }): Float64Array {
  const w = image.width >> 1;
  const h = image.height >> 1;
  const out = new Float64Array(w * h * 3);
  for (let y = 0; y < h; y += 1) {
    for (let x = 0; x < w; x += 1) {
      for (let c = 0; c < 3; c += 1) {
        let sum = 0;
        for (const [dx, dy] of [
          [0, 0],
          [1, 0],
          [0, 1],
          [1, 1],
        ] as const)
          sum += image.data[((2 * y + dy) * image.width + 2 * x + dx) * 4 + c]!;
        out[(y * w + x) * 3 + c] = sum / 4;
      }
    }
  }
  return out;
}

/** Peak signal-to-noise ratio (dB) of an RGBA picture against RGB reference pixels of the same size. */
function psnr(rgba: Uint8Array, reference: Float64Array): number {
  let squares = 0;
  for (let i = 0; i < reference.length / 3; i += 1) {
    for (let c = 0; c < 3; c += 1) squares += (rgba[i * 4 + c]! - reference[i * 3 + c]!) ** 2;
  }
  return 10 * Math.log10(255 ** 2 / (squares / reference.length));
}

describe("the library's thumbnail of an output", () => {
  it('is a 256 px JPEG that looks like the 512 px output (decoded from memory), and not like another output', async () => {
    const store = await Store.open(join(dir, 'flowdeck.sqlite'));
    const library = await Library.open({ store, root: join(dir, 'library'), source: () => null });
    try {
      const render = (prompt: string, seed: bigint): Uint8Array => renderScene(buildScene(prompt, seed, 7), 512, 512, 0.02).data;
      const scenes = { lighthouse: render('a lighthouse at dusk', 1n), forest: render('a forest in the snow', 2n) };
      const thumbs: Record<string, { width: number; height: number; data: Uint8Array }> = {};
      for (const [name, data] of Object.entries(scenes)) {
        await writeFile(join(dir, `${name}.png`), encodePng({ width: 512, height: 512, data }));
        const item = await library.importFile({
          path: join(dir, `${name}.png`),
          promptId: `p-${name}`,
          server: { profileId: 'local', kind: 'local', baseUrl: 'http://127.0.0.1:8188' },
          file: { node: '9', key: 'images', filename: `${name}.png`, subfolder: '', type: 'output' },
          workflow: null,
          workflowName: 'thumbnails',
          sourceFile: null,
        });
        const thumb = await library.thumbnail(item.id, 256);
        expect(thumb).toMatchObject({ mime: 'image/jpeg', width: 256, height: 256 });
        thumbs[name] = jpeg.decode(await readFile(thumb!.path), { useTArray: true, formatAsRGBA: true });
        expect({ width: thumbs[name].width, height: thumbs[name].height }).toEqual({ width: 256, height: 256 });
      }
      const expected = {
        lighthouse: halved({ width: 512, height: 512, data: scenes.lighthouse }),
        forest: halved({ width: 512, height: 512, data: scenes.forest }),
      };
      // Each thumbnail is close to its own output halved (lanczos, then JPEG at quality 82) and far from the other one.
      expect(psnr(thumbs['lighthouse']!.data, expected.lighthouse)).toBeGreaterThan(32);
      expect(psnr(thumbs['forest']!.data, expected.forest)).toBeGreaterThan(32);
      expect(psnr(thumbs['lighthouse']!.data, expected.forest)).toBeLessThan(20);
    } finally {
      await library.dispose();
      await store.close();
    }
  });

  it('of a source over 1 MiB is decoded from the file: left red, right blue', async () => {
    const width = 800;
    const pixels = Buffer.alloc(width * width * 3);
    for (let i = 0; i < width * width; i += 1) pixels.set(i % width < width / 2 ? [220, 20, 20] : [20, 20, 220], i * 3);
    // Stored without compression: 1.9 MB on disk.
    const big = await sharp(pixels, { raw: { width, height: width, channels: 3 } })
      .png({ compressionLevel: 0 })
      .toBuffer();
    expect(big.length).toBeGreaterThan(1024 * 1024);
    await writeFile(join(dir, 'big.png'), big);
    const made = await writeThumbnail(join(dir, 'big.png'), join(dir, 'big-256.jpg'), 256);
    expect(made).toMatchObject({ width: 256, height: 256 });
    const decoded = jpeg.decode(await readFile(made!.path), { useTArray: true, formatAsRGBA: true });
    const at = (x: number, y: number): number[] => [...decoded.data.subarray((y * 256 + x) * 4, (y * 256 + x) * 4 + 3)];
    expect(near(at(20, 128), [220, 20, 20])).toBe(true);
    expect(near(at(236, 128), [20, 20, 220])).toBe(true);
  });
});

describe('thumbnailDataUrl', () => {
  it('is a PNG that fits the edge and keeps transparency; null for what is not a picture', async () => {
    const url = await thumbnailDataUrl(png(400, 200, [10, 20, 30, 0]), 100);
    expect(url).toMatch(/^data:image\/png;base64,/);
    const small = PNG.sync.read(Buffer.from(url!.slice('data:image/png;base64,'.length), 'base64'));
    expect({ width: small.width, height: small.height, alpha: small.data[3] }).toEqual({ width: 100, height: 50, alpha: 0 });
    expect(await thumbnailDataUrl(new Uint8Array([1, 2, 3]))).toBeNull();
  });
});
