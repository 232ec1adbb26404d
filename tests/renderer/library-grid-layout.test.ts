import { describe, expect, it } from 'vitest';
import {
  gridLead,
  indexRange,
  layoutGrid,
  MAX_SCROLL_HEIGHT,
  moveSelection,
  scrollMap,
  scrollToReveal,
  scrollTopFor,
  visibleRows,
} from '../../src/renderer/src/lib/library/grid-layout';

const GEOMETRY = { tileWidth: 100, tileHeight: 120, gap: 10 };

describe('library grid layout', () => {
  it('fits as many fixed-size columns as the width allows, at least one', () => {
    expect(layoutGrid(GEOMETRY, 1000, 50).columns).toBe(9); // 9*100 + 8*10 = 980
    expect(layoutGrid(GEOMETRY, 1089, 50).columns).toBe(9);
    expect(layoutGrid(GEOMETRY, 1090, 50).columns).toBe(10); // 10*100 + 9*10 = 1090
    expect(layoutGrid(GEOMETRY, 40, 50).columns).toBe(1);
    expect(layoutGrid(GEOMETRY, 0, 50).columns).toBe(1);
  });

  it('sizes the spacer by the total, not by what is loaded', () => {
    const layout = layoutGrid(GEOMETRY, 1000, 10_000);
    expect(layout.rows).toBe(Math.ceil(10_000 / 9));
    expect(layout.rowStride).toBe(130);
    expect(layout.height).toBe(layout.rows * 130 - 10);
    expect(layoutGrid(GEOMETRY, 1000, 0)).toMatchObject({ rows: 0, height: 0 });
  });

  it('renders only the rows in view plus the overscan, clipped to the grid', () => {
    const layout = layoutGrid(GEOMETRY, 1000, 10_000); // 1112 rows
    expect(visibleRows(layout, 0, 600, 2)).toEqual({ firstRow: 0, lastRow: 6 }); // rows 0..4 visible
    expect(visibleRows(layout, 1300, 600, 2)).toEqual({ firstRow: 8, lastRow: 16 }); // rows 10..14
    expect(visibleRows(layout, 1299, 600, 0)).toEqual({ firstRow: 9, lastRow: 14 });
    const bottom = layout.height - 600;
    expect(visibleRows(layout, bottom, 600, 2).lastRow).toBe(layout.rows - 1);
    expect(visibleRows(layout, -50, 600, 0).firstRow).toBe(0);
    expect(visibleRows(layoutGrid(GEOMETRY, 1000, 0), 0, 600, 2)).toEqual({ firstRow: 0, lastRow: -1 });
    expect(visibleRows(layout, 0, 0, 2)).toEqual({ firstRow: 0, lastRow: -1 });
  });

  it('turns rows into item indexes, the last row partial', () => {
    expect(indexRange({ firstRow: 2, lastRow: 4 }, 9, 10_000)).toEqual({ start: 18, end: 45 });
    expect(indexRange({ firstRow: 0, lastRow: 2 }, 9, 20)).toEqual({ start: 0, end: 20 });
    expect(indexRange({ firstRow: 0, lastRow: -1 }, 9, 20)).toEqual({ start: 0, end: 0 });
  });

  it('scrolls just enough to show a row whole', () => {
    const layout = layoutGrid(GEOMETRY, 1000, 10_000);
    expect(scrollToReveal(layout, 3, 0, 600, 120)).toBe(0); // rows 0..4 fit
    expect(scrollToReveal(layout, 5, 0, 600, 120)).toBe(5 * 130 + 120 - 600);
    expect(scrollToReveal(layout, 2, 1000, 600, 120)).toBe(260);
  });
});

describe('library grid keyboard', () => {
  const columns = 4;
  const total = 10; // rows: 0-3, 4-7, 8-9
  it('selects the first item on any key when nothing is selected', () => {
    expect(moveSelection(null, 'ArrowDown', columns, total, 3)).toBe(0);
    expect(moveSelection(null, 'End', columns, 0, 3)).toBeNull();
  });
  it('moves by one sideways and by a row up and down, within bounds', () => {
    expect(moveSelection(5, 'ArrowLeft', columns, total, 3)).toBe(4);
    expect(moveSelection(0, 'ArrowLeft', columns, total, 3)).toBe(0);
    expect(moveSelection(9, 'ArrowRight', columns, total, 3)).toBe(9);
    expect(moveSelection(5, 'ArrowUp', columns, total, 3)).toBe(1);
    expect(moveSelection(1, 'ArrowUp', columns, total, 3)).toBe(1);
    expect(moveSelection(1, 'ArrowDown', columns, total, 3)).toBe(5);
  });
  it('Down onto a partial last row stops at the last item; Down on the last row stays', () => {
    expect(moveSelection(7, 'ArrowDown', columns, total, 3)).toBe(9);
    expect(moveSelection(5, 'ArrowDown', columns, total, 3)).toBe(9);
    expect(moveSelection(9, 'ArrowDown', columns, total, 3)).toBe(9);
    expect(moveSelection(8, 'ArrowDown', columns, total, 3)).toBe(8);
  });
  it('pages by whole screens and jumps to the ends', () => {
    expect(moveSelection(1, 'PageDown', columns, 100, 3)).toBe(13);
    expect(moveSelection(98, 'PageDown', columns, 100, 3)).toBe(99);
    expect(moveSelection(5, 'PageUp', columns, 100, 3)).toBe(0);
    expect(moveSelection(5, 'Home', columns, 100, 3)).toBe(0);
    expect(moveSelection(5, 'End', columns, 100, 3)).toBe(99);
  });
});

describe('library grid taller than the browser lays out', () => {
  const tall = layoutGrid({ tileWidth: 172, tileHeight: 194, gap: 8 }, 1100, 1_000_000); // 6 columns, 33.7M px
  const map = scrollMap(tall, 600);
  const scrollEnd = map.spacerHeight - 600;
  const gridEnd = tall.height - 600;

  it('scrolls a capped spacer only when the grid is taller than the cap', () => {
    const layout = layoutGrid(GEOMETRY, 1000, 1_000_000); // 111,112 rows of 130 px: 14.4M px
    expect(scrollMap(layout, 600)).toEqual({ spacerHeight: layout.height, scale: 1 });
    expect(gridLead(layout, scrollMap(layout, 600), 600, 0, 0, 5000)).toBe(0);
    expect(tall.height).toBeGreaterThan(33_554_431);
    expect(map.spacerHeight).toBe(MAX_SCROLL_HEIGHT);
  });

  it('reaches both ends of a million items, jumps in proportion, and moves pixel for pixel on small scrolls', () => {
    // The bottom of the scroll is the bottom of the grid: the last row is reached.
    const atBottom = gridLead(tall, map, 600, 0, 0, scrollEnd);
    expect(scrollEnd + atBottom).toBe(gridEnd);
    expect(visibleRows(tall, scrollEnd + atBottom, 600, 0).lastRow).toBe(tall.rows - 1);
    // A drag to the middle of the scrollbar shows the middle of the grid.
    const middle = gridLead(tall, map, 600, atBottom, scrollEnd, scrollEnd / 2);
    expect((scrollEnd / 2 + middle) / gridEnd).toBeCloseTo(0.5, 6);
    // A wheel step keeps the lead: the grid moves as far as the scroll (the rows stay put).
    expect(gridLead(tall, map, 600, middle, scrollEnd / 2, scrollEnd / 2 + 100)).toBe(middle);
    // Back at the top: the grid's top.
    expect(gridLead(tall, map, 600, middle, 300, 0)).toBe(0);
    // Small scrolls never take the grid past its ends.
    const nearTop = gridLead(tall, map, 600, middle, 150, 100);
    expect(100 + nearTop).toBeGreaterThanOrEqual(0);
    expect(100 + nearTop).toBeLessThanOrEqual(gridEnd);
  });

  it('reveals a row by a small scroll when it is near, by a proportional jump when it is far', () => {
    const lead = 1_000_000;
    expect(scrollTopFor(map, 600, lead, 2_000_000, 3_000_200)).toBe(2_000_200);
    const far = scrollTopFor(map, 600, lead, 2_000_000, gridEnd);
    expect(far).toBeCloseTo(scrollEnd, 3);
    expect(gridLead(tall, map, 600, lead, 2_000_000, far) + far).toBeCloseTo(gridEnd, 3);
  });
});
