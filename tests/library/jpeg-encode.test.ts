// The thumbnails' JPEG encoder (jpeg-encode.ts): what it writes decodes with an independent
// decoder (jpeg-js) to the same size and as close to the source (PSNR) as jpeg-js's own encoder
// gets, at any size including ones that are not multiples of 8, and about as small.
import jpeg from 'jpeg-js';
import { describe, expect, it } from 'vitest';
import { buildScene, renderScene } from '@main/demo/nodes/procedural';
import { encodeJpeg } from '@main/library/jpeg-encode';

function psnr(a: Uint8Array, b: Uint8Array): number {
  let sum = 0;
  let n = 0;
  for (let i = 0; i < a.length; i += 4) {
    for (let c = 0; c < 3; c += 1) {
      const d = a[i + c]! - b[i + c]!;
      sum += d * d;
      n += 1;
    }
  }
  return sum === 0 ? Infinity : 10 * Math.log10((255 * 255) / (sum / n));
}

function decode(bytes: Uint8Array): { width: number; height: number; data: Uint8Array } {
  return jpeg.decode(bytes, { useTArray: true, formatAsRGBA: true });
}

describe('encodeJpeg', () => {
  it('writes a JPEG that decodes close to the picture, at any size', () => {
    for (const [width, height] of [
      [256, 192],
      [17, 9],
      [1, 1],
      [8, 8],
      [100, 3],
    ] as const) {
      const image = renderScene(buildScene('a lighthouse at dusk', 7n, 7), width, height, 0.02);
      const bytes = encodeJpeg(image, 82);
      expect([bytes[0], bytes[1], bytes[bytes.length - 2], bytes[bytes.length - 1]]).toEqual([0xff, 0xd8, 0xff, 0xd9]);
      const decoded = decode(bytes);
      expect([decoded.width, decoded.height]).toEqual([width, height]);
      // As close to the picture as jpeg-js's own encoder gets at the same quality.
      const theirs = decode(jpeg.encode({ width, height, data: Buffer.from(image.data) }, 82).data);
      const ours = psnr(image.data, decoded.data);
      expect(ours, `${width}x${height}`).toBeGreaterThan(27);
      expect(ours, `${width}x${height}`).toBeGreaterThan(psnr(image.data, theirs.data) - 0.5);
    }
  });

  it('keeps flat colours, extremes and hard edges (no overflow in the coefficients)', () => {
    const width = 64;
    const height = 40;
    const data = new Uint8Array(width * height * 4);
    for (let y = 0; y < height; y += 1) {
      for (let x = 0; x < width; x += 1) {
        const o = (y * width + x) * 4;
        const on = (x >> 3) % 2 === (y >> 3) % 2 ? 255 : 0;
        data.set(x < 32 ? [on, on, on, 255] : [255, 0, y < 20 ? 0 : 255, 255], o);
      }
    }
    const decoded = decode(encodeJpeg({ width, height, data }, 95));
    expect(psnr(data, decoded.data)).toBeGreaterThan(25);
    // A corner pixel of each colour stays that colour.
    expect([...decoded.data.subarray(0, 3)].every((v) => v > 235)).toBe(true);
    const red = (5 * width + 50) * 4;
    expect(decoded.data[red]).toBeGreaterThan(235);
    expect(decoded.data[red + 1]).toBeLessThan(25);
  });

  it('is about as small as jpeg-js at the same quality, and smaller at a lower one', () => {
    const image = renderScene(buildScene('a misty forest', 3n, 7), 256, 256, 0.02);
    const ours = encodeJpeg(image, 82).length;
    const theirs = jpeg.encode({ width: 256, height: 256, data: Buffer.from(image.data) }, 82).data.length;
    expect(ours / theirs).toBeGreaterThan(0.8);
    expect(ours / theirs).toBeLessThan(1.25);
    expect(encodeJpeg(image, 30).length).toBeLessThan(ours);
    expect(() => encodeJpeg({ width: 0, height: 4, data: new Uint8Array(0) }, 80)).toThrow(RangeError);
  });
});
