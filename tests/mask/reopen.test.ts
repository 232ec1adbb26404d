// Re-opening: a masked image as the server stores it (the original's colours, the mask's alpha)
// gives back the very mask that was painted, and the original's colours; PNGs of every colour type
// and depth are read the same way.
import { encode as fastPngEncode } from 'fast-png';
import { PNG } from 'pngjs';
import { describe, expect, it } from 'vitest';
import { composeMask, decodeImage, encodePng } from '@main/images/mask-compose';
import { MaskModel } from '../../src/renderer/src/lib/mask/model';
import {
  coverageFromAlpha,
  coverageFromMaskImage,
  decodePngRgba,
  exportMaskPng,
  hasTransparentPixel,
  makeOpaque,
  pngHasAlpha,
  pngSize,
} from '../../src/renderer/src/lib/mask/png';

/** An opaque RGB test picture (distinct colours everywhere) as pngjs writes it. */
function originalPng(width: number, height: number): Buffer {
  const png = new PNG({ width, height, colorType: 2, inputHasAlpha: false });
  for (let y = 0; y < height; y += 1) {
    for (let x = 0; x < width; x += 1) {
      const i = (y * width + x) * 4;
      png.data[i] = (x * 7) & 0xff;
      png.data[i + 1] = (y * 11) & 0xff;
      png.data[i + 2] = (x * y) & 0xff;
      png.data[i + 3] = 255;
    }
  }
  return PNG.sync.write(png, { colorType: 2 });
}

describe('re-opening a masked image', () => {
  it('restores the painted mask exactly from the alpha the server stored, with the original colours', () => {
    const width = 90;
    const height = 60;
    const model = new MaskModel(width, height);
    model.line('brush', { size: 24, hardness: 0.4, opacity: 0.85 }, { x: 5, y: 5 }, { x: 85, y: 55 });
    model.line('eraser', { size: 10, hardness: 1, opacity: 0.5 }, { x: 80, y: 5 }, { x: 10, y: 55 });
    const original = originalPng(width, height);
    expect(pngHasAlpha(original)).toBe(false);

    // What /api/upload/mask stores (the demo service composes like the real server).
    const stored = encodePng(composeMask(decodeImage(original), decodeImage(Buffer.from(exportMaskPng(model)))));
    expect(pngHasAlpha(stored)).toBe(true);

    const reopened = decodePngRgba(new Uint8Array(stored));
    expect(reopened.hasAlpha).toBe(true);
    expect(hasTransparentPixel(reopened)).toBe(true);
    const restored = new MaskModel(reopened.width, reopened.height, { coverage: coverageFromAlpha(reopened) });
    expect(Buffer.from(restored.coverage).equals(Buffer.from(model.coverage))).toBe(true);
    // The restored mask is editable, and the restoring itself is not an undo step.
    expect(restored.canUndo).toBe(false);
    restored.line('brush', { size: 5, hardness: 1, opacity: 1 }, { x: 45, y: 2 }, { x: 45, y: 58 });
    expect(restored.undo()).toBe(true);
    expect(Buffer.from(restored.coverage).equals(Buffer.from(model.coverage))).toBe(true);

    // The colours under the mask are the original's, even where alpha is 0.
    const colours = PNG.sync.read(original).data;
    const shown = makeOpaque(reopened);
    expect(Buffer.from(shown.data).equals(colours)).toBe(true);
  });

  it('an existing mask file: transparency means masked; without transparency white means masked; other sizes are scaled', () => {
    // RGBA mask 4x2, left half transparent.
    const rgba = new PNG({ width: 4, height: 2 });
    for (let i = 0; i < 8; i += 1) rgba.data.set([255, 255, 255, i % 4 < 2 ? 0 : 255], i * 4);
    const fromAlpha = coverageFromMaskImage(decodePngRgba(new Uint8Array(PNG.sync.write(rgba))), 8, 4);
    expect([...fromAlpha.subarray(0, 8)]).toEqual([255, 255, 255, 255, 0, 0, 0, 0]);

    // Opaque grey mask: white (masked) left, black right, grey in the middle.
    const grey = new PNG({ width: 3, height: 1, colorType: 0, inputHasAlpha: false });
    grey.data.set([255, 255, 255, 255, 128, 128, 128, 255, 0, 0, 0, 255]);
    const fromLuma = coverageFromMaskImage(decodePngRgba(new Uint8Array(PNG.sync.write(grey, { colorType: 0 }))), 3, 1);
    expect([...fromLuma]).toEqual([255, 128, 0]);
  });

  it('reads every PNG colour type and depth as 8-bit RGBA', () => {
    // 16-bit RGBA: the high byte of each sample.
    const deepBytes = fastPngEncode({
      width: 2,
      height: 1,
      channels: 4,
      depth: 16,
      data: new Uint16Array([10, 20, 30, 0, 200, 100, 50, 255].map((v) => v * 256 + 7)),
    });
    const d = decodePngRgba(deepBytes);
    expect([...d.data]).toEqual([10, 20, 30, 0, 200, 100, 50, 255]);
    expect(pngSize(deepBytes)).toEqual({ width: 2, height: 1 });

    // Grey + alpha (pngjs).
    const ga = new PNG({ width: 2, height: 1 });
    ga.data.set([90, 90, 90, 30, 200, 200, 200, 255]);
    const gaBytes = PNG.sync.write(ga, { colorType: 4 });
    expect(pngHasAlpha(new Uint8Array(gaBytes))).toBe(true);
    expect([...decodePngRgba(new Uint8Array(gaBytes)).data]).toEqual([90, 90, 90, 30, 200, 200, 200, 255]);

    // 1-bit grey, 10 pixels wide (rows padded to bytes).
    const bits = fastPngEncode({ width: 10, height: 2, channels: 1, depth: 1, data: new Uint8Array([0b10100000, 0b01000000, 0b11111111, 0b11000000]) });
    const b = decodePngRgba(bits);
    const firstRow = Array.from({ length: 10 }, (_, x) => b.data[x * 4]);
    expect(firstRow).toEqual([255, 0, 255, 0, 0, 0, 0, 0, 0, 255]);
    expect(Array.from({ length: 10 }, (_, x) => b.data[40 + x * 4])).toEqual(Array(10).fill(255));
    expect(b.hasAlpha).toBe(false);

    // Palette with transparency.
    const paletted = fastPngEncode({
      width: 3,
      height: 1,
      channels: 1,
      depth: 8,
      data: new Uint8Array([0, 1, 2]),
      palette: [
        [255, 0, 0, 0],
        [0, 255, 0, 128],
        [0, 0, 255, 255],
      ],
    });
    expect(pngHasAlpha(paletted)).toBe(true);
    const p = decodePngRgba(paletted);
    expect([...p.data]).toEqual([255, 0, 0, 0, 0, 255, 0, 128, 0, 0, 255, 255]);
    expect([...coverageFromAlpha(p)]).toEqual([255, 127, 0]);
  });
});
