import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Mask, RgbaImage } from '@main/demo/node-api';
import { createDemoInpaintNode } from '@main/demo/nodes/demo-inpaint';
import { createImageBlurNode } from '@main/demo/nodes/image-blur';
import { createImageInvertNode } from '@main/demo/nodes/image-invert';
import { reflectIndex } from '@main/demo/nodes/image-ops';
import { createMaskToImageNode } from '@main/demo/nodes/mask-to-image';
import { createFakeContext, makeImage, type FakeContext } from './fake-context';

let ctx: FakeContext;
beforeEach(async () => {
  ctx = await createFakeContext();
});
afterEach(async () => {
  await ctx.cleanup();
});

const px = (image: RgbaImage, x: number, y: number) => Array.from(image.data.subarray((y * image.width + x) * 4, (y * image.width + x) * 4 + 4));

function maskOf(width: number, height: number, value: (x: number, y: number) => number): Mask {
  const data = new Float32Array(width * height);
  for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) data[y * width + x] = value(x, y);
  return { width, height, data };
}

describe('ImageInvert', () => {
  it('inverts every colour channel exactly and keeps alpha', async () => {
    const image = makeImage(3, 1, (x) => [[0, 255, 17][x]!, [128, 1, 200][x]!, [255, 0, 99][x]!]);
    const { outputs } = await createImageInvertNode().run(ctx, { image });
    const out = outputs[0] as RgbaImage;
    expect(Array.from(out.data)).toEqual([255, 127, 0, 255, 0, 254, 255, 255, 238, 55, 156, 255]);
    expect(Array.from(image.data.subarray(0, 4))).toEqual([0, 128, 255, 255]); // input untouched
  });

  it('says what it expected when the input is not an IMAGE', async () => {
    await expect(createImageInvertNode().run(ctx, { image: 'example.png' })).rejects.toMatchObject({
      exceptionType: 'ValueError',
      message: expect.stringContaining('ImageInvert input "image" must be an IMAGE'),
    });
  });
});

describe('ImageBlur', () => {
  it('leaves a flat image exactly as it is', async () => {
    const image = makeImage(9, 7, () => [200, 37, 90]);
    const { outputs } = await createImageBlurNode().run(ctx, { image, blur_radius: 5, sigma: 3 });
    expect(Array.from((outputs[0] as RgbaImage).data)).toEqual(Array.from(image.data));
  });

  it('smooths an edge: values in between, monotonic, symmetric around the edge', async () => {
    const image = makeImage(20, 3, (x) => (x < 10 ? [0, 0, 0] : [255, 255, 255]));
    const { outputs } = await createImageBlurNode().run(ctx, { image, blur_radius: 4, sigma: 2 });
    const out = outputs[0] as RgbaImage;
    const row = Array.from({ length: 20 }, (_, x) => px(out, x, 1)[0]!);
    expect(row[0]).toBe(0);
    expect(row[19]).toBe(255);
    expect(row[9]).toBeGreaterThan(0);
    expect(row[9]).toBeLessThan(128);
    expect(row[10]).toBeGreaterThan(128);
    expect(row[10]).toBeLessThan(255);
    for (let x = 1; x < 20; x++) expect(row[x]!).toBeGreaterThanOrEqual(row[x - 1]!);
    expect(row[9]! + row[10]!).toBe(255);
  });

  it('reflects at the borders for any overshoot', () => {
    expect([-2, -1, 0, 4, 5, 6, 9].map((i) => reflectIndex(i, 5))).toEqual([2, 1, 0, 4, 3, 2, 1]);
    expect(reflectIndex(-7, 1)).toBe(0);
  });

  it('rejects a radius outside 1..31', async () => {
    await expect(createImageBlurNode().run(ctx, { image: makeImage(2, 2, () => [0, 0, 0]), blur_radius: 32, sigma: 1 })).rejects.toThrow(/from 1 to 31/);
  });
});

describe('MaskToImage', () => {
  it('is white where masked, black elsewhere, grey in between', async () => {
    const mask = maskOf(3, 1, (x) => [1, 0, 0.5][x]!);
    const { outputs } = await createMaskToImageNode().run(ctx, { mask });
    const out = outputs[0] as RgbaImage;
    expect(px(out, 0, 0)).toEqual([255, 255, 255, 255]);
    expect(px(out, 1, 0)).toEqual([0, 0, 0, 255]);
    expect(px(out, 2, 0)).toEqual([128, 128, 128, 255]);
  });
});

describe('DemoInpaint', () => {
  const image = makeImage(32, 32, (x, y) => [x * 8, y * 8, 100]);
  const inSquare = (x: number, y: number) => x >= 8 && x < 20 && y >= 10 && y < 22;
  const mask = maskOf(32, 32, (x, y) => (inSquare(x, y) ? 1 : 0));

  for (const fill of ['noise', 'solid', 'blur']) {
    it(`fill=${fill} changes only masked pixels`, async () => {
      const { outputs } = await createDemoInpaintNode().run(ctx, { image, mask, seed: 5, fill });
      const out = outputs[0] as RgbaImage;
      let changedInside = 0;
      for (let y = 0; y < 32; y++) {
        for (let x = 0; x < 32; x++) {
          if (inSquare(x, y)) {
            if (px(out, x, y).join() !== px(image, x, y).join()) changedInside++;
          } else {
            expect(px(out, x, y)).toEqual(px(image, x, y));
          }
        }
      }
      expect(changedInside).toBeGreaterThan(100); // of 144 masked pixels
    });
  }

  it('blends by the mask value (a half mask gives the midpoint of image and fill)', async () => {
    const flat = makeImage(4, 4, () => [200, 200, 200]);
    const half = maskOf(4, 4, (x) => (x === 0 ? 0.5 : 0));
    // solid fill = mean colour of unmasked pixels = 200, so the blend keeps 200.
    const solid = (await createDemoInpaintNode().run(ctx, { image: flat, mask: half, seed: 0, fill: 'solid' })).outputs[0] as RgbaImage;
    expect(px(solid, 0, 0)).toEqual([200, 200, 200, 255]);
    const noisy = (await createDemoInpaintNode().run(ctx, { image: flat, mask: half, seed: 0, fill: 'noise' })).outputs[0] as RgbaImage;
    // with noise in [0,255), a half blend stays within [100, 228)
    for (const v of px(noisy, 0, 0).slice(0, 3)) expect(v >= 100 && v < 228).toBe(true);
  });

  it('is deterministic for a seed and differs between seeds', async () => {
    const run = async (seed: number | bigint) =>
      Array.from(((await createDemoInpaintNode().run(ctx, { image, mask, seed, fill: 'noise' })).outputs[0] as RgbaImage).data);
    expect(await run(3)).toEqual(await run(3));
    expect(await run(3)).not.toEqual(await run(4));
    expect(await run(18446744073709551615n)).not.toEqual(await run(3));
  });

  it('resamples a mask of another size to the image', async () => {
    const small = maskOf(16, 16, (x) => (x < 8 ? 1 : 0)); // left half masked
    const { outputs } = await createDemoInpaintNode().run(ctx, { image, mask: small, seed: 1, fill: 'solid' });
    const out = outputs[0] as RgbaImage;
    expect(px(out, 31, 5)).toEqual(px(image, 31, 5));
    expect(px(out, 0, 5)).not.toEqual(px(image, 0, 5));
  });

  it('rejects a fill that is not in the list', async () => {
    await expect(createDemoInpaintNode().run(ctx, { image, mask, seed: 1, fill: 'magic' })).rejects.toThrow(/one of noise, solid, blur/);
  });
});
