// Shapes shared by the mask model, its export and the painter. Coordinates are image pixels with
// pixel (i, j) covering [i, i+1) x [j, j+1): its centre is (i + 0.5, j + 0.5).

export type Tool = 'brush' | 'eraser';

export interface BrushSettings {
  /** Diameter in image pixels, BRUSH_SIZE_MIN..BRUSH_SIZE_MAX. */
  size: number;
  /** 0 (soft: the edge fades over the whole radius) .. 1 (hard: a one-pixel anti-aliased edge). */
  hardness: number;
  /** 0..1: how much of the way towards fully masked (brush) or unmasked (eraser) one stroke goes. */
  opacity: number;
}

export const BRUSH_SIZE_MIN = 1;
export const BRUSH_SIZE_MAX = 250;

export interface StrokePoint {
  x: number;
  y: number;
  /** Pen pressure 0..1 (scales the radius); absent or 1 for a mouse. */
  pressure?: number;
}

export interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** 8-bit RGBA pixels, row by row, no padding. */
export interface RgbaImage {
  width: number;
  height: number;
  data: Uint8Array;
}
