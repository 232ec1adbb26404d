// Turning coverage into the coloured overlay's pixels, one rectangle at a time (only what a
// stroke changed is redrawn), written into a reusable RGBA buffer with its own row stride.
import type { Rect } from './types';

export type Rgb = readonly [number, number, number];

/** "#rrggbb" (or "#rgb") to RGB; anything else falls back to `fallback`. */
export function parseHexColour(text: string, fallback: Rgb = [255, 0, 80]): Rgb {
  const long = /^#([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i.exec(text.trim());
  if (long) return [parseInt(long[1]!, 16), parseInt(long[2]!, 16), parseInt(long[3]!, 16)];
  const short = /^#([0-9a-f])([0-9a-f])([0-9a-f])$/i.exec(text.trim());
  if (short) return [parseInt(short[1]! + short[1]!, 16), parseInt(short[2]! + short[2]!, 16), parseInt(short[3]! + short[3]!, 16)];
  return fallback;
}

/**
 * Writes rows [row0, row0 + rows) of `rect` as RGBA (the colour, alpha = coverage) into `out`,
 * starting at `out`'s first pixel, `stride` pixels per row. The overlay's own opacity is applied by
 * the canvas (CSS), so changing it redraws nothing.
 */
export function paintOverlayRows(
  coverage: Uint8Array,
  imageWidth: number,
  rect: Rect,
  row0: number,
  rows: number,
  colour: Rgb,
  out: Uint8ClampedArray | Uint8Array,
  stride: number,
): void {
  const [r, g, b] = colour;
  for (let row = 0; row < rows; row += 1) {
    const src = (rect.y + row0 + row) * imageWidth + rect.x;
    let o = row * stride * 4;
    for (let i = 0; i < rect.width; i += 1) {
      out[o] = r;
      out[o + 1] = g;
      out[o + 2] = b;
      out[o + 3] = coverage[src + i]!;
      o += 4;
    }
  }
}
