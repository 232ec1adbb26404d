// The image cut into 64x64 tiles (smaller at the right and bottom edges). Undo patches and the
// per-stroke buffers are kept per tile, so memory follows what a stroke touched, not the image size
// nor a stroke's bounding box (a long diagonal stroke touches few tiles but a huge box).
import type { Rect } from './types';

export const TILE_SIZE = 64;

export class TileGrid {
  readonly width: number;
  readonly height: number;
  readonly cols: number;
  readonly rows: number;

  constructor(width: number, height: number) {
    this.width = width;
    this.height = height;
    this.cols = Math.ceil(width / TILE_SIZE);
    this.rows = Math.ceil(height / TILE_SIZE);
  }

  get count(): number {
    return this.cols * this.rows;
  }

  rect(index: number): Rect {
    const tx = index % this.cols;
    const ty = (index - tx) / this.cols;
    const x = tx * TILE_SIZE;
    const y = ty * TILE_SIZE;
    return { x, y, width: Math.min(TILE_SIZE, this.width - x), height: Math.min(TILE_SIZE, this.height - y) };
  }

  /** A copy of the tile's pixels (row by row, tile width per row). */
  read(plane: Uint8Array, index: number): Uint8Array {
    const { x, y, width, height } = this.rect(index);
    const out = new Uint8Array(width * height);
    for (let row = 0; row < height; row += 1) {
      const start = (y + row) * this.width + x;
      out.set(plane.subarray(start, start + width), row * width);
    }
    return out;
  }

  /** Exchanges the tile's pixels with `data` (so applying the same swap twice restores both). */
  swap(plane: Uint8Array, index: number, data: Uint8Array): void {
    const { x, y, width, height } = this.rect(index);
    for (let row = 0; row < height; row += 1) {
      const start = (y + row) * this.width + x;
      const off = row * width;
      for (let i = 0; i < width; i += 1) {
        const kept = plane[start + i]!;
        plane[start + i] = data[off + i]!;
        data[off + i] = kept;
      }
    }
  }

  /** Whether the tile's pixels equal `data`. */
  equals(plane: Uint8Array, index: number, data: Uint8Array): boolean {
    const { x, y, width, height } = this.rect(index);
    for (let row = 0; row < height; row += 1) {
      const start = (y + row) * this.width + x;
      const off = row * width;
      for (let i = 0; i < width; i += 1) if (plane[start + i] !== data[off + i]) return false;
    }
    return true;
  }

  /** Whether any pixel of the tile is non-zero. */
  hasAny(plane: Uint8Array, index: number): boolean {
    const { x, y, width, height } = this.rect(index);
    for (let row = 0; row < height; row += 1) {
      const start = (y + row) * this.width + x;
      for (let i = start; i < start + width; i += 1) if (plane[i] !== 0) return true;
    }
    return false;
  }
}

/** The smallest rectangle holding both (either may be null). */
export function unionRect(a: Rect | null, b: Rect | null): Rect | null {
  if (!a) return b;
  if (!b) return a;
  const x = Math.min(a.x, b.x);
  const y = Math.min(a.y, b.y);
  return { x, y, width: Math.max(a.x + a.width, b.x + b.width) - x, height: Math.max(a.y + a.height, b.y + b.height) - y };
}
