// The thumbnails' PNG decoder (png-decode.ts) against pngjs: the same pixels for every colour type
// it takes and every row filter, null (pngjs's turn) for what it does not take, and a refusal of a
// damaged file.
import { crc32 } from 'node:zlib';
import { PNG, type ColorType } from 'pngjs';
import { describe, expect, it } from 'vitest';
import { decodeSimplePng } from '@main/library/png-decode';
import { decodeForThumbnail } from '@main/library/thumbnails';

function picture(width: number, height: number): PNG {
  const png = new PNG({ width, height });
  for (let i = 0; i < width * height; i += 1) {
    const x = i % width;
    const y = Math.floor(i / width);
    png.data.set([(x * 37 + y * 11) & 255, (x * y) & 255, (255 - x * 3) & 255, (y * 50 + x) & 255], i * 4);
  }
  return png;
}

describe('decodeSimplePng', () => {
  it('gives the pixels pngjs gives, for grey, grey + alpha, RGB and RGBA, with every row filter', () => {
    const source = picture(37, 23);
    for (const colorType of [0, 2, 4, 6] as ColorType[]) {
      for (const filterType of [-1, 0, 1, 2, 3, 4]) {
        const bytes = PNG.sync.write(source, { colorType, inputHasAlpha: true, filterType });
        const ours = decodeSimplePng(bytes);
        const theirs = PNG.sync.read(bytes);
        expect(ours, `colour ${colorType} filter ${filterType}`).not.toBeNull();
        expect([ours!.width, ours!.height]).toEqual([37, 23]);
        expect(Buffer.from(ours!.data).equals(theirs.data), `colour ${colorType} filter ${filterType}`).toBe(true);
      }
    }
  });

  it('leaves 16-bit and interlaced files to pngjs, and refuses a damaged one', () => {
    const source = picture(9, 5);
    const deep = PNG.sync.write(source, { bitDepth: 16, colorType: 6, inputHasAlpha: true });
    expect(decodeSimplePng(deep)).toBeNull();
    expect(decodeForThumbnail(deep)).toMatchObject({ width: 9, height: 5 });
    const bytes = Buffer.from(PNG.sync.write(source));
    const damaged = Buffer.from(bytes);
    damaged[damaged.length - 20] = damaged[damaged.length - 20]! ^ 0xff; // inside the image data: its CRC no longer matches
    expect(() => decodeSimplePng(damaged)).toThrow(/CRC/);
    const interlaced = Buffer.from(bytes);
    interlaced[28] = 1; // IHDR's interlace byte (its CRC is checked first, so fix it up)
    interlaced.writeUInt32BE(crc32(interlaced.subarray(12, 29)), 29);
    expect(decodeSimplePng(interlaced)).toBeNull();
  });
});
