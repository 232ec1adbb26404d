import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { NodeExecutionError, type Mask, type RgbaImage } from '@main/demo/node-api';
import { encodeJpeg, encodePng } from '@main/demo/nodes/image-codec';
import { createLoadImageNode, splitInputName } from '@main/demo/nodes/load-image';
import { createFakeContext, makeImage, type FakeContext } from './fake-context';

let ctx: FakeContext;
beforeEach(async () => {
  ctx = await createFakeContext();
});
afterEach(async () => {
  await ctx.cleanup();
});

describe('LoadImage', () => {
  it('outputs the colours as IMAGE (alpha dropped) and MASK = 1 - alpha: alpha 0 is masked (1.0)', async () => {
    const alphas = [0, 255, 128, 51];
    const rgba = makeImage(4, 1, (x) => [10 * x, 20 * x, 30 * x, alphas[x]]);
    await ctx.addInput('photo.png', encodePng(rgba, { alpha: true }));
    const { outputs } = await createLoadImageNode().run(ctx, { image: 'photo.png' });
    const image = outputs[0] as RgbaImage;
    const mask = outputs[1] as Mask;
    expect(Array.from(image.data)).toEqual([0, 0, 0, 255, 10, 20, 30, 255, 20, 40, 60, 255, 30, 60, 90, 255]);
    expect(mask.width).toBe(4);
    expect(mask.data[0]).toBe(1);
    expect(mask.data[1]).toBe(0);
    expect(mask.data[2]).toBeCloseTo(1 - 128 / 255, 6);
    expect(mask.data[3]).toBeCloseTo(0.8, 6);
  });

  it('gives an all-zero mask for an image without alpha (RGB PNG, JPEG)', async () => {
    await ctx.addInput('rgb.png', encodePng(makeImage(6, 5, () => [1, 2, 3])));
    await ctx.addInput('photo.jpg', encodeJpeg(makeImage(8, 8, () => [90, 90, 90])));
    for (const name of ['rgb.png', 'photo.jpg']) {
      const { outputs } = await createLoadImageNode().run(ctx, { image: name });
      const mask = outputs[1] as Mask;
      expect(mask.data.length).toBe((outputs[0] as RgbaImage).width * (outputs[0] as RgbaImage).height);
      expect(mask.data.every((v) => v === 0)).toBe(true);
    }
  });

  it('reads names that carry a subfolder', async () => {
    await ctx.addInput('sub/deep/x.png', encodePng(makeImage(3, 2, () => [5, 5, 5])));
    const { outputs } = await createLoadImageNode().run(ctx, { image: 'sub/deep/x.png' });
    expect((outputs[0] as RgbaImage).width).toBe(3);
    expect(splitInputName('a\\b\\c.png')).toEqual({ filename: 'c.png', subfolder: 'a/b' });
    expect(splitInputName('c.png')).toEqual({ filename: 'c.png', subfolder: '' });
  });

  it('fails with a clear NodeExecutionError for a file that is not an image', async () => {
    await ctx.addInput('notes.png', new TextEncoder().encode('just some text, not a picture'));
    const run = createLoadImageNode().run(ctx, { image: 'notes.png' });
    await expect(run).rejects.toBeInstanceOf(NodeExecutionError);
    await expect(createLoadImageNode().run(ctx, { image: 'notes.png' })).rejects.toMatchObject({
      exceptionType: 'UnidentifiedImageError',
      message: expect.stringMatching(/cannot identify image file "notes.png".*neither PNG .* nor JPEG/),
    });
  });

  it('fails clearly when the file cannot be read', async () => {
    await expect(createLoadImageNode().run(ctx, { image: 'gone.png' })).rejects.toMatchObject({
      exceptionType: 'FileNotFoundError',
      message: expect.stringContaining('"gone.png"'),
    });
  });

  it('validates like the real server: "Invalid image file: NAME" for a missing file', () => {
    const node = createLoadImageNode();
    const files = { inputExists: (name: string) => name === 'there.png' || name === 'sub/there.png' };
    expect(node.validate?.({ image: 'there.png' }, files)).toBeNull();
    expect(node.validate?.({ image: 'sub/there.png' }, files)).toBeNull();
    expect(node.validate?.({ image: 'does_not_exist.png' }, files)).toBe('Invalid image file: does_not_exist.png');
    expect(node.validate?.({ image: 42 }, files)).toBe('Invalid image file: 42');
  });

  it('lists the input files in its definition, read each time it is served', () => {
    const files = ['b.png'];
    const node = createLoadImageNode(() => files);
    const input = (node.definition.input as { required: { image: unknown } }).required.image;
    expect(input).toEqual([['b.png'], { image_upload: true }]);
    files.push('a.png');
    expect((node.definition.input as { required: { image: unknown } }).required.image).toEqual([['a.png', 'b.png'], { image_upload: true }]);
    expect(node.definition.output).toEqual(['IMAGE', 'MASK']);
  });
});
