// The exported mask PNG checked pixel by pixel against reference images computed here from first
// principles: the distance from each pixel's centre to the stroke, put through the brush profile
// the painter documents (brush.ts), not through the model's code. The PNG is read back with pngjs,
// a decoder independent of the encoder used for the export.
import { PNG } from 'pngjs';
import { describe, expect, it } from 'vitest';
import { MaskModel } from '../../src/renderer/src/lib/mask/model';
import { exportMaskPng, exportMaskPngAsync } from '../../src/renderer/src/lib/mask/png';
import type { BrushSettings } from '../../src/renderer/src/lib/mask/types';

interface Pt {
  x: number;
  y: number;
}

/** Distance from point p to the segment a-b, by projecting (independent of the model's loop). */
function distanceToSegment(p: Pt, a: Pt, b: Pt): number {
  const abx = b.x - a.x;
  const aby = b.y - a.y;
  const len2 = abx * abx + aby * aby;
  if (len2 === 0) return Math.hypot(p.x - a.x, p.y - a.y);
  const t = Math.max(0, Math.min(1, ((p.x - a.x) * abx + (p.y - a.y) * aby) / len2));
  return Math.hypot(p.x - (a.x + t * abx), p.y - (a.y + t * aby));
}

/** The documented profile: full to R + 0.5 - W, nothing from R + 0.5, linear between; W = max(1, R(1 - hardness)). */
function profile(d: number, size: number, hardness: number): number {
  const r = size / 2;
  const w = Math.max(1, r * (1 - hardness));
  return Math.min(1, Math.max(0, (r + 0.5 - d) / w));
}

/** Coverage (0..255) a single stroke along `path` leaves on an empty mask. */
function strokeCoverage(width: number, height: number, path: Pt[], brush: BrushSettings): Float64Array {
  const out = new Float64Array(width * height);
  for (let y = 0; y < height; y += 1) {
    for (let x = 0; x < width; x += 1) {
      const centre = { x: x + 0.5, y: y + 0.5 };
      let d = Infinity;
      for (let i = 0; i < path.length; i += 1) d = Math.min(d, distanceToSegment(centre, path[i]!, path[Math.min(i + 1, path.length - 1)]!));
      out[y * width + x] = Math.round(255 * profile(d, brush.size, brush.hardness)) * brush.opacity;
    }
  }
  return out;
}

function readAlpha(png: Uint8Array): { width: number; height: number; alpha: Uint8Array; rgbMax: number } {
  const decoded = PNG.sync.read(Buffer.from(png));
  const alpha = new Uint8Array(decoded.width * decoded.height);
  let rgbMax = 0;
  for (let i = 0; i < alpha.length; i += 1) {
    alpha[i] = decoded.data[i * 4 + 3]!;
    rgbMax = Math.max(rgbMax, decoded.data[i * 4]!, decoded.data[i * 4 + 1]!, decoded.data[i * 4 + 2]!);
  }
  return { width: decoded.width, height: decoded.height, alpha, rgbMax };
}

/**
 * Both exports of the model (the synchronous one and the painter's sliced, natively deflated one),
 * read back; they must hold the same pixels.
 */
async function exported(model: MaskModel): Promise<ReturnType<typeof readAlpha>> {
  const sync = readAlpha(exportMaskPng(model));
  const sliced = readAlpha(await exportMaskPngAsync(model));
  expect([sliced.width, sliced.height, sliced.rgbMax]).toEqual([sync.width, sync.height, sync.rgbMax]);
  expect(Buffer.from(sliced.alpha).equals(Buffer.from(sync.alpha))).toBe(true);
  return sync;
}

/**
 * Compares alpha to the reference pixel by pixel: exact where the reference is exactly 0 or 255,
 * within one level where it is fractional (the only room left is the rounding of a product).
 */
function expectAlpha(actual: Uint8Array, expected: Float64Array, width: number): void {
  const wrong: string[] = [];
  for (let i = 0; i < expected.length; i += 1) {
    const want = expected[i]!;
    const got = actual[i]!;
    const exact = want === 0 || want === 255;
    if (exact ? got !== want : Math.abs(got - want) > 1) wrong.push(`(${i % width},${Math.floor(i / width)}) alpha ${got}, expected ${want.toFixed(2)}`);
  }
  expect(wrong.slice(0, 10), `${wrong.length} pixel(s) differ`).toEqual([]);
}

const W = 100;
const H = 70;

describe('exported mask against reference images', () => {
  it('hard brush: alpha 0 within R - 0.5 of the stroke, 255 from R + 0.5, a one-pixel ramp between, across tile edges', async () => {
    const brush = { size: 21, hardness: 1, opacity: 1 };
    // Off the pixel grid on purpose (y = 30.3), and crossing the tile boundary at x = 64.
    const a = { x: 12.5, y: 30.3 };
    const b = { x: 80.5, y: 30.3 };
    const model = new MaskModel(W, H);
    model.beginStroke('brush', brush, a);
    model.strokeTo(b);
    expect(model.endStroke()).toBe(true);

    const out = await exported(model);
    expect([out.width, out.height]).toEqual([W, H]);
    expect(out.rgbMax).toBe(0);
    const cov = strokeCoverage(W, H, [a, b], brush);
    expectAlpha(
      out.alpha,
      cov.map((c) => 255 - c),
      W,
    );

    // The same facts read directly: centre line masked, 10 px away masked, 11.5 px away untouched.
    expect(out.alpha[30 * W + 40]).toBe(0);
    expect(out.alpha[20 * W + 40]).toBe(0); // centre y 20.5: 9.8 from the line
    expect(out.alpha[41 * W + 40]).toBe(255); // centre y 41.5: 11.2 from the line
    expect(out.alpha[41 * W + 40 - 2]).toBe(255);
    // A partial value on the anti-aliased edge: centre y 40.5 is 10.2 away -> f = 0.8 -> alpha 51.
    expect(out.alpha[40 * W + 40]).toBe(255 - Math.round(255 * 0.8));
    expect(out.alpha[5 * W + 5]).toBe(255);
  });

  it('soft brush: a single dab fades linearly from R + 0.5 - W to R + 0.5', async () => {
    const brush = { size: 40, hardness: 0.5, opacity: 1 };
    const at = { x: 50.5, y: 35.5 };
    const model = new MaskModel(W, H);
    model.beginStroke('brush', brush, at);
    model.endStroke();
    const out = await exported(model);
    expectAlpha(
      out.alpha,
      strokeCoverage(W, H, [at], brush).map((c) => 255 - c),
      W,
    );
    // R = 20, W = 10: full within 10.5, gone from 20.5, linear between.
    expect(out.alpha[35 * W + 50]).toBe(0);
    expect(out.alpha[35 * W + 60]).toBe(0); // 10 away
    expect(out.alpha[35 * W + 65]).toBe(255 - Math.round(255 * 0.55)); // 15 away
    expect(out.alpha[35 * W + 70]).toBe(255 - Math.round(255 * 0.05)); // 20 away
    expect(out.alpha[35 * W + 71]).toBe(255); // 21 away
  });

  it('eraser over paint: erased to 255 under the eraser, partial on its soft edge, paint kept elsewhere', async () => {
    const model = new MaskModel(W, H);
    // A 250 px dab masks the whole 100x70 image.
    model.beginStroke('brush', { size: 250, hardness: 1, opacity: 1 }, { x: 50, y: 35 });
    model.endStroke();
    expect(model.countMasked()).toBe(W * H);
    const eraser = { size: 30, hardness: 0.4, opacity: 1 };
    const path = [
      { x: 20, y: 10 },
      { x: 70, y: 60 },
      { x: 90, y: 20 },
    ];
    model.beginStroke('eraser', eraser, path[0]!);
    model.strokeTo(path[1]!);
    model.strokeTo(path[2]!);
    model.endStroke();
    const out = await exported(model);
    // Coverage 255 erased by S: 255 - S, so alpha = S.
    expectAlpha(out.alpha, strokeCoverage(W, H, path, eraser), W);
    expect(out.alpha[0]).toBe(0);
  });

  it('invert: painted becomes kept and kept becomes masked, partial values mirrored', async () => {
    const brush = { size: 16, hardness: 0.3, opacity: 1 };
    const path = [
      { x: 10, y: 60 },
      { x: 90, y: 8 },
    ];
    const model = new MaskModel(W, H);
    model.beginStroke('brush', brush, path[0]!);
    model.strokeTo(path[1]!);
    model.endStroke();
    model.invert();
    const out = await exported(model);
    // coverage 255 - S, so alpha = S.
    expectAlpha(out.alpha, strokeCoverage(W, H, path, brush), W);
    expect(out.alpha[0]).toBe(0);
  });

  it('opacity: one stroke reaches its opacity and does not compound over itself; a second stroke adds', async () => {
    const brush = { size: 12, hardness: 1, opacity: 0.5 };
    // Back and forth over the same line within one stroke.
    const path = [
      { x: 10, y: 20 },
      { x: 90, y: 20 },
      { x: 10, y: 20 },
      { x: 90, y: 20 },
    ];
    const model = new MaskModel(W, H);
    model.beginStroke('brush', brush, path[0]!);
    for (const p of path.slice(1)) model.strokeTo(p);
    model.endStroke();
    let out = await exported(model);
    const once = strokeCoverage(W, H, path, brush);
    expectAlpha(
      out.alpha,
      once.map((c) => 255 - c),
      W,
    );
    expect(out.alpha[20 * W + 50]).toBe(255 - 128); // round(255 * 0.5)

    // A second stroke over the first: c + (255 - c) * 0.5.
    model.beginStroke('brush', brush, path[0]!);
    model.strokeTo(path[1]!);
    model.endStroke();
    out = await exported(model);
    expectAlpha(
      out.alpha,
      once.map((c) => 255 - (c + ((255 - c) * c) / 255)),
      W,
    );
    expect(out.alpha[20 * W + 50]).toBe(255 - (128 + 64));
  });

  it('pen pressure scales the radius', async () => {
    const model = new MaskModel(W, H);
    model.beginStroke('brush', { size: 40, hardness: 1, opacity: 1 }, { x: 50, y: 35, pressure: 0.5 });
    model.endStroke();
    const out = await exported(model);
    expectAlpha(
      out.alpha,
      strokeCoverage(W, H, [{ x: 50, y: 35 }], { size: 20, hardness: 1, opacity: 1 }).map((c) => 255 - c),
      W,
    );
  });

  it('many coalesced points along a line paint exactly what one segment paints', async () => {
    const brush = { size: 25, hardness: 0.6, opacity: 0.8 };
    const one = new MaskModel(W, H);
    one.line('brush', brush, { x: 5, y: 5 }, { x: 95, y: 65 });
    const many = new MaskModel(W, H);
    many.beginStroke('brush', brush, { x: 5, y: 5 });
    for (let i = 1; i <= 180; i += 1) many.strokeTo({ x: 5 + (90 * i) / 180, y: 5 + (60 * i) / 180 });
    many.endStroke();
    expect(Buffer.from(many.coverage).equals(Buffer.from(one.coverage))).toBe(true);
    expect(one.countMasked()).toBeGreaterThan(1000);
  });

  it('a 1 px brush covers the pixel it passes over, and brush sizes are clamped to 1..250', async () => {
    const model = new MaskModel(8, 8);
    model.beginStroke('brush', { size: 1, hardness: 1, opacity: 1 }, { x: 3.5, y: 3.5 });
    model.endStroke();
    expect(model.coverage[3 * 8 + 3]).toBe(255);
    expect(model.countMasked()).toBe(1);
    const huge = new MaskModel(600, 10);
    huge.beginStroke('brush', { size: 10_000, hardness: 1, opacity: 1 }, { x: 0, y: 5.5 });
    huge.endStroke();
    // Clamped to 250 (R = 125): full to 124.5 from the centre, nothing from 125.5.
    expect(huge.coverage[5 * 600 + 124]).toBe(255);
    expect(huge.coverage[5 * 600 + 125]).toBe(0);
  });

  it('exports a 1x1 and an odd-sized mask at their exact size', async () => {
    for (const [w, h] of [
      [1, 1],
      [67, 129],
    ] as const) {
      const model = new MaskModel(w, h);
      const out = await exported(model);
      expect([out.width, out.height]).toEqual([w, h]);
      expect(out.alpha.every((a) => a === 255)).toBe(true);
    }
  });

  it('a mask larger than one encoding band: every row lands where it belongs; the sliced export saves a snapshot', async () => {
    const model = new MaskModel(1500, 900);
    model.line('brush', { size: 120, hardness: 0.3, opacity: 0.7 }, { x: 0, y: 0 }, { x: 1500, y: 900 });
    model.line('eraser', { size: 40, hardness: 1, opacity: 1 }, { x: 1500, y: 0 }, { x: 0, y: 900 });
    const out = await exported(model);
    expect([out.width, out.height]).toEqual([1500, 900]);
    let differs = 0;
    for (let i = 0; i < model.coverage.length; i += 1) if (out.alpha[i] !== 255 - model.coverage[i]!) differs += 1;
    expect(differs).toBe(0);

    const pending = exportMaskPngAsync(model);
    // Painting after the save started does not change what is saved.
    model.line('brush', { size: 250, hardness: 1, opacity: 1 }, { x: 750, y: 450 }, { x: 760, y: 450 });
    const saved = readAlpha(await pending);
    expect(Buffer.from(saved.alpha).equals(Buffer.from(out.alpha))).toBe(true);
  });

  it('every zlib level gives a valid PNG of the same pixels (a streaming deflater once produced invalid back-references here)', () => {
    const model = new MaskModel(W, H);
    model.beginStroke('brush', { size: 250, hardness: 1, opacity: 1 }, { x: 50, y: 35 });
    model.endStroke();
    model.beginStroke('eraser', { size: 30, hardness: 0.4, opacity: 1 }, { x: 20, y: 10 });
    model.strokeTo({ x: 70, y: 60 });
    model.strokeTo({ x: 90, y: 20 });
    model.endStroke();
    for (let level = 0; level <= 9; level += 1) {
      const out = readAlpha(exportMaskPng(model, level));
      expect(Buffer.from(out.alpha).equals(Buffer.from(model.coverage.map((c) => 255 - c))), `level ${level}`).toBe(true);
    }
  });
});
