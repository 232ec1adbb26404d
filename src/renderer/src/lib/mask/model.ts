// The mask being painted: one coverage byte per image pixel (0 = kept, 255 = fully masked), at the
// image's exact size, with strokes, straight lines, invert, clear and undo/redo by step. Pure
// TypeScript (no DOM): the painter draws from it, the export reads it, the tests run it under Node.
//
// A stroke keeps two small buffers per tile it touches: the tile's coverage before the stroke
// (which becomes the undo patch) and the stroke's own shape values (combined by maximum, see
// brush.ts). Every pixel is recomputed from its before-value and the stroke's shape, so a stroke
// never compounds with itself, however many pointer events cross the same pixel.
import { brushReach, compositeTable, normaliseBrush, radiusFor } from './brush';
import { History, type HistoryEntry, type HistoryLimits, type TilePatch } from './history';
import { TILE_SIZE, TileGrid, unionRect } from './tiles';
import type { BrushSettings, Rect, StrokePoint, Tool } from './types';

interface StrokeVertex {
  x: number;
  y: number;
  radius: number;
}

interface ActiveStroke {
  tool: Tool;
  hardness: number;
  size: number;
  table: Uint8Array;
  /** Tile index -> the tile's coverage before this stroke. */
  before: Map<number, Uint8Array>;
  /** Tile index -> this stroke's shape values (0..255). */
  shape: Map<number, Uint8Array>;
  last: StrokeVertex;
  lastPoint: StrokePoint;
  /** A sample too close to `last` to be worth a segment yet (drawn when the stroke moves on or ends). */
  pending: StrokeVertex | null;
}

export interface MaskModelOptions {
  /** Initial coverage (copied), e.g. restored from an uploaded image's alpha. */
  coverage?: Uint8Array;
  history?: Partial<HistoryLimits>;
}

/** Half the diagonal of a tile: a tile whose centre is farther than reach + this is untouched. */
const TILE_HALF_DIAGONAL = (TILE_SIZE * Math.SQRT2) / 2;

export class MaskModel {
  readonly width: number;
  readonly height: number;
  readonly coverage: Uint8Array;
  readonly #grid: TileGrid;
  readonly #history: History;
  #stroke: ActiveStroke | null = null;
  #dirty: Rect | null = null;
  #lastPoint: StrokePoint | null = null;
  /** Bumped on every change, so views can tell cheaply whether anything happened. */
  #revision = 0;

  constructor(width: number, height: number, options: MaskModelOptions = {}) {
    if (!Number.isInteger(width) || !Number.isInteger(height) || width < 1 || height < 1) {
      throw new RangeError(`A mask needs a positive integer size, not ${width}x${height}.`);
    }
    this.width = width;
    this.height = height;
    this.coverage = new Uint8Array(width * height);
    if (options.coverage) {
      if (options.coverage.length !== width * height)
        throw new RangeError(`The initial coverage holds ${options.coverage.length} pixels, not ${width * height}.`);
      this.coverage.set(options.coverage);
    }
    this.#grid = new TileGrid(width, height);
    this.#history = new History(options.history);
    this.#dirty = { x: 0, y: 0, width, height };
  }

  get revision(): number {
    return this.#revision;
  }

  get canUndo(): boolean {
    return this.#stroke === null && this.#history.canUndo;
  }

  get canRedo(): boolean {
    return this.#stroke === null && this.#history.canRedo;
  }

  get undoDepth(): number {
    return this.#history.undoDepth;
  }

  get redoDepth(): number {
    return this.#history.redoDepth;
  }

  /** Bytes kept for undo/redo. */
  get historyBytes(): number {
    return this.#history.bytes;
  }

  get stroking(): boolean {
    return this.#stroke !== null;
  }

  /** Where the last stroke ended (the start of a Shift+click line), or null before any stroke. */
  get lastPoint(): StrokePoint | null {
    return this.#lastPoint;
  }

  /** The region changed since the last call (for repainting), or null. */
  takeDirty(): Rect | null {
    const dirty = this.#dirty;
    this.#dirty = null;
    return dirty;
  }

  /** Marks the whole mask for repainting (the overlay's colour changed, a view was recreated). */
  invalidate(): void {
    this.#markDirty({ x: 0, y: 0, width: this.width, height: this.height });
  }

  /** Pixels with any coverage. */
  countMasked(): number {
    let count = 0;
    for (let i = 0; i < this.coverage.length; i += 1) if (this.coverage[i] !== 0) count += 1;
    return count;
  }

  // ---- strokes --------------------------------------------------------------------------------

  /** Starts a stroke with a dab at `at`. An unfinished stroke is finished first. */
  beginStroke(tool: Tool, brush: BrushSettings, at: StrokePoint): void {
    if (this.#stroke) this.endStroke();
    const b = normaliseBrush(brush);
    const vertex = { x: at.x, y: at.y, radius: radiusFor(b.size, at.pressure) };
    this.#stroke = {
      tool,
      hardness: b.hardness,
      size: b.size,
      table: compositeTable(tool, b.opacity),
      before: new Map(),
      shape: new Map(),
      last: vertex,
      lastPoint: at,
      pending: null,
    };
    this.#segment(this.#stroke, vertex, vertex);
  }

  /**
   * Extends the stroke to `to` (a straight segment from the previous point). Samples closer than
   * 1/16 of the radius to the previous point are held back and drawn once the pointer moves on or
   * the stroke ends: a big brush fed by a fast pointer would otherwise redraw nearly the same disc
   * for every sample, while the shape differs by at most that distance.
   */
  strokeTo(to: StrokePoint): void {
    const stroke = this.#stroke;
    if (!stroke) return;
    const vertex = { x: to.x, y: to.y, radius: radiusFor(stroke.size, to.pressure) };
    stroke.lastPoint = to;
    const minStep = Math.max(0.75, Math.min(stroke.last.radius, vertex.radius) / 16);
    if (Math.hypot(vertex.x - stroke.last.x, vertex.y - stroke.last.y) < minStep) {
      stroke.pending = vertex;
      return;
    }
    this.#segment(stroke, stroke.last, vertex);
    stroke.last = vertex;
    stroke.pending = null;
  }

  /** Ends the stroke; records an undo step when it changed any pixel, and says whether it did. */
  endStroke(): boolean {
    const stroke = this.#stroke;
    if (!stroke) return false;
    if (stroke.pending) this.#segment(stroke, stroke.last, stroke.pending);
    this.#stroke = null;
    this.#lastPoint = {
      x: stroke.lastPoint.x,
      y: stroke.lastPoint.y,
      ...(stroke.lastPoint.pressure !== undefined ? { pressure: stroke.lastPoint.pressure } : {}),
    };
    const tiles: TilePatch[] = [];
    let bytes = 0;
    for (const [index, before] of stroke.before) {
      if (this.#grid.equals(this.coverage, index, before)) continue;
      tiles.push({ index, data: before });
      bytes += before.byteLength;
    }
    if (tiles.length === 0) return false;
    this.#history.push({ kind: 'patch', tiles, bytes });
    this.#revision += 1;
    return true;
  }

  /** Abandons the stroke, restoring what it covered. */
  cancelStroke(): void {
    const stroke = this.#stroke;
    if (!stroke) return;
    this.#stroke = null;
    for (const [index, before] of stroke.before) {
      this.#grid.swap(this.coverage, index, before);
      this.#markDirty(this.#grid.rect(index));
    }
    this.#revision += 1;
  }

  /** A straight line from `from` to `to` as one undo step (Shift+click). */
  line(tool: Tool, brush: BrushSettings, from: StrokePoint, to: StrokePoint): boolean {
    this.beginStroke(tool, brush, from);
    this.strokeTo(to);
    return this.endStroke();
  }

  // ---- whole-mask operations ---------------------------------------------------------------------

  /** Masked becomes kept and kept becomes masked (partial values mirror: c -> 255 - c). */
  invert(): void {
    if (this.#stroke) this.endStroke();
    this.#invertPixels();
    this.#history.push({ kind: 'invert' });
    this.#revision += 1;
  }

  /** Unmasks everything; returns false (and records nothing) when nothing was masked. */
  clear(): boolean {
    if (this.#stroke) this.endStroke();
    const tiles: TilePatch[] = [];
    let bytes = 0;
    for (let index = 0; index < this.#grid.count; index += 1) {
      if (!this.#grid.hasAny(this.coverage, index)) continue;
      const data = new Uint8Array(this.#grid.rect(index).width * this.#grid.rect(index).height);
      // Swapping with zeros both saves the tile and clears it.
      this.#grid.swap(this.coverage, index, data);
      tiles.push({ index, data });
      bytes += data.byteLength;
      this.#markDirty(this.#grid.rect(index));
    }
    if (tiles.length === 0) return false;
    this.#history.push({ kind: 'patch', tiles, bytes });
    this.#revision += 1;
    return true;
  }

  undo(): boolean {
    if (this.#stroke) this.endStroke();
    const entry = this.#history.takeUndo();
    if (!entry) return false;
    this.#apply(entry);
    return true;
  }

  redo(): boolean {
    if (this.#stroke) return false;
    const entry = this.#history.takeRedo();
    if (!entry) return false;
    this.#apply(entry);
    return true;
  }

  // ---- internals ---------------------------------------------------------------------------------

  #apply(entry: HistoryEntry): void {
    if (entry.kind === 'invert') {
      this.#invertPixels();
    } else {
      for (const tile of entry.tiles) {
        this.#grid.swap(this.coverage, tile.index, tile.data);
        this.#markDirty(this.#grid.rect(tile.index));
      }
    }
    this.#revision += 1;
  }

  #invertPixels(): void {
    const c = this.coverage;
    for (let i = 0; i < c.length; i += 1) c[i] = 255 - c[i]!;
    this.#markDirty({ x: 0, y: 0, width: this.width, height: this.height });
  }

  #markDirty(rect: Rect): void {
    this.#dirty = unionRect(this.#dirty, rect);
  }

  /** Rasterises the capsule from a to b (radius interpolated along it) into the stroke. */
  #segment(stroke: ActiveStroke, a: StrokeVertex, b: StrokeVertex): void {
    const reach = brushReach(Math.max(a.radius, b.radius));
    const x0 = Math.max(0, Math.floor(Math.min(a.x, b.x) - reach));
    const y0 = Math.max(0, Math.floor(Math.min(a.y, b.y) - reach));
    const x1 = Math.min(this.width - 1, Math.ceil(Math.max(a.x, b.x) + reach));
    const y1 = Math.min(this.height - 1, Math.ceil(Math.max(a.y, b.y) + reach));
    if (x0 > x1 || y0 > y1) return;

    const dx = b.x - a.x;
    const dy = b.y - a.y;
    const len2 = dx * dx + dy * dy;
    const inv = len2 > 0 ? 1 / len2 : 0;
    const softness = 1 - stroke.hardness;
    const cols = this.#grid.cols;
    let changed = false;

    for (let ty = y0 >> 6; ty <= y1 >> 6; ty += 1) {
      for (let tx = x0 >> 6; tx <= x1 >> 6; tx += 1) {
        // Skip tiles the capsule cannot reach (a long diagonal segment has a large, mostly empty box).
        const cx = tx * TILE_SIZE + TILE_SIZE / 2;
        const cy = ty * TILE_SIZE + TILE_SIZE / 2;
        let t = ((cx - a.x) * dx + (cy - a.y) * dy) * inv;
        t = t < 0 ? 0 : t > 1 ? 1 : t;
        const ex = cx - (a.x + t * dx);
        const ey = cy - (a.y + t * dy);
        const limit = reach + TILE_HALF_DIAGONAL;
        if (ex * ex + ey * ey > limit * limit) continue;
        if (this.#rasterTile(stroke, ty * cols + tx, a, dx, dy, inv, b.radius - a.radius, softness, x0, y0, x1, y1)) changed = true;
      }
    }
    if (!changed) return;
    this.#markDirty({ x: x0, y: y0, width: x1 - x0 + 1, height: y1 - y0 + 1 });
    this.#revision += 1;
  }

  #rasterTile(
    stroke: ActiveStroke,
    index: number,
    a: StrokeVertex,
    dx: number,
    dy: number,
    inv: number,
    dr: number,
    softness: number,
    bx0: number,
    by0: number,
    bx1: number,
    by1: number,
  ): boolean {
    const rect = this.#grid.rect(index);
    const tw = rect.width;
    let before = stroke.before.get(index);
    let shape = stroke.shape.get(index);
    if (!before || !shape) {
      before = this.#grid.read(this.coverage, index);
      shape = new Uint8Array(before.length);
      stroke.before.set(index, before);
      stroke.shape.set(index, shape);
    }
    const table = stroke.table;
    const cov = this.coverage;
    const width = this.width;
    const xs = Math.max(rect.x, bx0);
    const xe = Math.min(rect.x + tw - 1, bx1);
    const ys = Math.max(rect.y, by0);
    const ye = Math.min(rect.y + rect.height - 1, by1);
    let changed = false;
    for (let y = ys; y <= ye; y += 1) {
      const py = y + 0.5 - a.y;
      const rowLocal = (y - rect.y) * tw - rect.x;
      const rowGlobal = y * width;
      for (let x = xs; x <= xe; x += 1) {
        const px = x + 0.5 - a.x;
        let t = (px * dx + py * dy) * inv;
        t = t < 0 ? 0 : t > 1 ? 1 : t;
        const ex = px - t * dx;
        const ey = py - t * dy;
        const d2 = ex * ex + ey * ey;
        const radius = a.radius + t * dr;
        const outer = radius + 0.5;
        if (d2 >= outer * outer) continue;
        const edge = radius * softness;
        const f = (outer - Math.sqrt(d2)) / (edge > 1 ? edge : 1);
        const s = f >= 1 ? 255 : Math.round(255 * f);
        const li = rowLocal + x;
        if (s <= shape[li]!) continue;
        shape[li] = s;
        cov[rowGlobal + x] = table[(before[li]! << 8) | s]!;
        changed = true;
      }
    }
    return changed;
  }
}
