// The library grid's virtualization maths: fixed-size tiles in as many columns as fit, and which
// rows (plus an overscan margin) are in the DOM for a scroll position. Pure numbers, so it is
// tested without a DOM and the component stays a thin view over it.

export interface GridGeometry {
  /** Tile width and height in CSS pixels (tiles are square thumbnails plus a caption line). */
  tileWidth: number;
  tileHeight: number;
  /** Space between tiles, both ways. */
  gap: number;
}

export interface GridLayout {
  columns: number;
  rows: number;
  /** Distance from one row's top to the next one's. */
  rowStride: number;
  /** Height of the whole grid: what the spacer is sized to, so the scrollbar reflects `total`. */
  height: number;
}

export interface RowWindow {
  /** First and last row (inclusive) to render; last < first when there is nothing to render. */
  firstRow: number;
  lastRow: number;
}

export function layoutGrid(geometry: GridGeometry, width: number, total: number): GridLayout {
  const stride = geometry.tileWidth + geometry.gap;
  // At least one column even when the container is narrower than a tile (it scrolls sideways).
  const columns = Math.max(1, Math.floor((Math.max(0, width) + geometry.gap) / stride));
  const rows = Math.ceil(Math.max(0, total) / columns);
  const rowStride = geometry.tileHeight + geometry.gap;
  return { columns, rows, rowStride, height: rows === 0 ? 0 : rows * rowStride - geometry.gap };
}

/** Rows intersecting [scrollTop, scrollTop + viewportHeight), widened by `overscan` rows each way. */
export function visibleRows(layout: GridLayout, scrollTop: number, viewportHeight: number, overscan: number): RowWindow {
  if (layout.rows === 0 || viewportHeight <= 0) return { firstRow: 0, lastRow: -1 };
  const top = Math.max(0, scrollTop);
  const first = Math.floor(top / layout.rowStride);
  const last = Math.floor((top + viewportHeight - 1) / layout.rowStride);
  return {
    firstRow: Math.min(layout.rows - 1, Math.max(0, first - overscan)),
    lastRow: Math.min(layout.rows - 1, last + overscan),
  };
}

/** The item indexes the rows cover (end exclusive), clipped to `total`. */
export function indexRange(window: RowWindow, columns: number, total: number): { start: number; end: number } {
  if (window.lastRow < window.firstRow) return { start: 0, end: 0 };
  return { start: Math.min(total, window.firstRow * columns), end: Math.min(total, (window.lastRow + 1) * columns) };
}

/** Where the viewport must scroll to show a row whole (unchanged when it already is). */
export function scrollToReveal(layout: GridLayout, row: number, scrollTop: number, viewportHeight: number, rowHeight: number): number {
  const top = row * layout.rowStride;
  const bottom = top + rowHeight;
  if (top < scrollTop) return top;
  if (bottom > scrollTop + viewportHeight) return Math.max(0, bottom - viewportHeight);
  return scrollTop;
}

export type GridKey = 'ArrowLeft' | 'ArrowRight' | 'ArrowUp' | 'ArrowDown' | 'Home' | 'End' | 'PageUp' | 'PageDown';

export function isGridKey(key: string): key is GridKey {
  return ['ArrowLeft', 'ArrowRight', 'ArrowUp', 'ArrowDown', 'Home', 'End', 'PageUp', 'PageDown'].includes(key);
}

/**
 * The selection after a navigation key. `current` null (nothing selected yet) selects the first
 * item on any key. Up/Down keep the column; Down on the last, partial row stops at the last item.
 */
export function moveSelection(current: number | null, key: GridKey, columns: number, total: number, rowsPerPage: number): number | null {
  if (total <= 0) return null;
  if (current === null) return 0;
  const last = total - 1;
  const page = Math.max(1, rowsPerPage) * columns;
  const clamp = (i: number): number => Math.max(0, Math.min(last, i));
  switch (key) {
    case 'ArrowLeft':
      return clamp(current - 1);
    case 'ArrowRight':
      return clamp(current + 1);
    case 'ArrowUp':
      return current - columns >= 0 ? current - columns : current;
    case 'ArrowDown':
      return current + columns <= last ? current + columns : Math.floor(current / columns) < Math.floor(last / columns) ? last : current;
    case 'PageUp':
      return clamp(current - page);
    case 'PageDown':
      return clamp(current + page);
    case 'Home':
      return 0;
    case 'End':
      return last;
  }
}
