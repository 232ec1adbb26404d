import { describe, expect, it } from 'vitest';
import { PNG } from 'pngjs';
import * as jpeg from 'jpeg-js';
import { ImageDecodeError, decodeImage, decodeJpeg, decodePng, encodeJpeg, encodePng } from '@main/demo/nodes/image-codec';
import { crc32, readTextChunks } from '@main/demo/nodes/png-text';
import { makeImage } from './fake-context';

describe('image codecs', () => {
  it('round-trips RGBA through PNG and writes RGB by default', () => {
    const image = makeImage(5, 3, (x, y) => [x * 50, y * 100, 7, 255]);
    const bytes = encodePng(image);
    const png = PNG.sync.read(Buffer.from(bytes));
    expect(png.width).toBe(5);
    expect(png.height).toBe(3);
    expect((png as unknown as { colorType: number }).colorType).toBe(2);
    expect(Array.from(decodePng(bytes).data)).toEqual(Array.from(image.data));
  });

  it('keeps alpha when asked', () => {
    const image = makeImage(2, 2, (x) => [10, 20, 30, x === 0 ? 0 : 200]);
    const decoded = decodeImage(encodePng(image, { alpha: true }));
    expect(decoded.data[3]).toBe(0);
    expect(decoded.data[7]).toBe(200);
  });

  it('decodes a JPEG by its magic bytes, whatever it is called', () => {
    const image = makeImage(16, 16, () => [200, 40, 40]);
    const bytes = encodeJpeg(image, 95);
    expect(Array.from(bytes.subarray(0, 3))).toEqual([0xff, 0xd8, 0xff]);
    const decoded = decodeImage(bytes);
    expect(decoded.width).toBe(16);
    expect(Math.abs(decoded.data[0]! - 200)).toBeLessThan(8);
    expect(decoded.data[3]).toBe(255);
    // Also a JPEG made by jpeg-js directly.
    const other = jpeg.encode({ width: 4, height: 4, data: Buffer.alloc(64, 128) }, 90).data;
    expect(decodeJpeg(new Uint8Array(other)).height).toBe(4);
  });

  it('gives a clear error for bytes that are not an image', () => {
    expect(() => decodeImage(new TextEncoder().encode('hello, this is text'))).toThrow(ImageDecodeError);
    expect(() => decodeImage(new TextEncoder().encode('hello, this is text'))).toThrow(/neither PNG \(89 50 4E 47\) nor JPEG/);
    expect(() => decodeImage(new Uint8Array())).toThrow(/empty/);
    const webp = new Uint8Array([...Buffer.from('RIFF'), 0, 0, 0, 0, ...Buffer.from('WEBPVP8 ')]);
    expect(() => decodeImage(webp)).toThrow(/WebP/);
    expect(() => decodeImage(new Uint8Array(Buffer.from('GIF89a......')))).toThrow(/GIF/);
  });

  it('reports a damaged PNG as damaged', () => {
    const bytes = encodePng(makeImage(8, 8, () => [1, 2, 3]));
    const truncated = bytes.subarray(0, 40);
    expect(() => decodeImage(truncated)).toThrow(ImageDecodeError);
    expect(() => decodeImage(truncated)).toThrow(/Damaged PNG/);
  });

  it('refuses images above the pixel limit before decoding them', () => {
    const bytes = new Uint8Array(encodePng(makeImage(1, 1, () => [0, 0, 0])));
    const view = new DataView(bytes.buffer, bytes.byteOffset);
    view.setUint32(16, 20000);
    view.setUint32(20, 20000);
    expect(() => decodePng(bytes)).toThrow(/megapixel limit/);
  });

  it('adds tEXt and iTXt chunks that PNG readers accept (CRC checked)', () => {
    const workflow = '{"3":{"class_type":"DemoSampler","inputs":{"seed":18446744073709551615}}}';
    const bytes = encodePng(
      makeImage(3, 3, () => [9, 9, 9]),
      { text: { prompt: workflow, note: 'café ☕' } },
    );
    // pngjs verifies every chunk's CRC while reading.
    expect(PNG.sync.read(Buffer.from(bytes)).width).toBe(3);
    expect(readTextChunks(bytes)).toEqual({ prompt: workflow, note: 'café ☕' });
    expect(crc32(new TextEncoder().encode('IEND'))).toBe(0xae426082);
  });
});
