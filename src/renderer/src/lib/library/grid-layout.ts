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

/**
 * The tallest scroll area the grid makes, in CSS pixels. Chromium lays nothing out past
 * 33,554,431 px, and a library of a million outputs is taller than that (about 34 million px at
 * six columns): its last rows could not be scrolled to. A taller grid scrolls a spacer of this
 * height, with the grid ahead of the scroll position by a lead (see gridLead).
 */
export const MAX_SCROLL_HEIGHT = 15_000_000;

export interface ScrollMap {
  /** The height the scroller's spacer is given. */
  spacerHeight: number;
  /** Grid pixels per scrolled pixel over the whole range (1 below MAX_SCROLL_HEIGHT). */
  scale: number;
}

export function scrollMap(layout: GridLayout, viewportHeight: number): ScrollMap {
  if (layout.height <= MAX_SCROLL_HEIGHT) return { spacerHeight: layout.height, scale: 1 };
  const scrollRange = MAX_SCROLL_HEIGHT - viewportHeight;
  const gridRange = layout.height - viewportHeight;
  return { spacerHeight: MAX_SCROLL_HEIGHT, scale: scrollRange > 0 ? gridRange / scrollRange : 1 };
}

/**
 * How far the grid is ahead of the scroll position (grid top = scroll top + lead) after a scroll
 * from `from` to `to`. Small moves (wheel, fling, arrow keys) keep the lead: the grid moves with
 * the scroll pixel for pixel and the rows stay where they are in the spacer, so scrolling stays
 * the compositor's work. A jump further than a screen (the scrollbar dragged, Home, End) puts the
 * grid at the scroll's share of its height; the ends of the scroll are the ends of the grid.
 */
export function gridLead(layout: GridLayout, map: ScrollMap, viewportHeight: number, lead: number, from: number, to: number): number {
  if (map.scale === 1) return 0;
  const scrollEnd = map.spacerHeight - viewportHeight;
  const gridEnd = layout.height - viewportHeight;
  if (to <= 0) return 0;
  if (to >= scrollEnd) return gridEnd - scrollEnd;
  if (Math.abs(to - from) > viewportHeight) return to * (map.scale - 1);
  return Math.min(Math.max(lead, -to), gridEnd - to);
}

/** The scroll position that shows the grid from `gridTop`, keeping the lead when that is a small move. */
export function scrollTopFor(map: ScrollMap, viewportHeight: number, lead: number, scrollTop: number, gridTop: number): number {
  const kept = gridTop - lead;
  if (map.scale === 1 || Math.abs(kept - scrollTop) <= viewportHeight) return kept;
  return gridTop / map.scale;
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
