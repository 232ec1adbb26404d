import { describe, expect, it } from 'vitest';
import { indexRange, layoutGrid, moveSelection, scrollToReveal, visibleRows } from '../../src/renderer/src/lib/library/grid-layout';

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
