// The brush, defined once so that the model, the tests' reference images and the docs agree.
//
// A stroke's SHAPE value at a pixel depends only on the distance d from the pixel's centre to the
// stroke's centre line and on the radius R = size / 2 (times pen pressure):
//   f(d) = clamp((R + 0.5 - d) / W, 0, 1),   W = max(1, R * (1 - hardness))
// so a hard brush is full up to R - 0.5 and empty from R + 0.5 (a one-pixel anti-aliased edge), and a
// soft one fades linearly over W pixels ending at R + 0.5. Stored as S = round(255 * f).
// Within one stroke shapes combine by MAXIMUM (crossing the stroke's own path does not darken it);
// the stroke is then applied to the mask with its opacity o (coverage c, 255 = fully masked):
//   brush:  c' = c + round((255 - c) * S * o / 255)
//   eraser: c' = c - round(c * S * o / 255)
import type { BrushSettings, Tool } from './types';
import { BRUSH_SIZE_MAX, BRUSH_SIZE_MIN } from './types';

export function clampBrushSize(size: number): number {
  if (!Number.isFinite(size)) return BRUSH_SIZE_MIN;
  return Math.min(BRUSH_SIZE_MAX, Math.max(BRUSH_SIZE_MIN, Math.round(size)));
}

export function normaliseBrush(brush: BrushSettings): BrushSettings {
  const unit = (v: number, fallback: number): number => (Number.isFinite(v) ? Math.min(1, Math.max(0, v)) : fallback);
  return { size: clampBrushSize(brush.size), hardness: unit(brush.hardness, 1), opacity: unit(brush.opacity, 1) };
}

/** The farthest distance at which a brush of this radius still leaves a mark. */
export function brushReach(radius: number): number {
  return radius + 0.5;
}

/** Radius for a brush size and pen pressure (pressure 0..1 scales it; never below half a pixel). */
export function radiusFor(size: number, pressure: number | undefined): number {
  const p = pressure === undefined || !Number.isFinite(pressure) || pressure <= 0 ? 1 : Math.min(1, pressure);
  return Math.max(0.5, (size / 2) * p);
}

/**
 * The table c' = table[(c << 8) | S] for one stroke's tool and opacity: 64 KiB, built per stroke,
 * so the per-pixel work is one lookup and the rounding is the documented one.
 */
export function compositeTable(tool: Tool, opacity: number): Uint8Array {
  const table = new Uint8Array(256 * 256);
  for (let c = 0; c < 256; c += 1) {
    const row = c << 8;
    for (let s = 0; s < 256; s += 1) {
      const amount = (s * opacity) / 255;
      table[row | s] = tool === 'brush' ? c + Math.round((255 - c) * amount) : c - Math.round(c * amount);
    }
  }
  return table;
}
