// The painter's pure controls: zoom and pan arithmetic, the keyboard map, brush size steps and the
// overlay's pixels.
import { describe, expect, it } from 'vitest';
import { paintOverlayRows, parseHexColour } from '../../src/renderer/src/lib/mask/overlay';
import { actionForKey, stepBrushSize, type KeyLike } from '../../src/renderer/src/lib/mask/shortcuts';
import { actualSize, fitViewport, panBy, toImage, wheelZoomFactor, zoomAround, ZOOM_MAX, ZOOM_MIN } from '../../src/renderer/src/lib/mask/viewport';

function key(k: string, mods: Partial<KeyLike> = {}): KeyLike {
  return { key: k, ctrlKey: false, metaKey: false, shiftKey: false, altKey: false, ...mods };
}

describe('viewport', () => {
  it('fits the whole image, centred, never enlarged beyond 100 %', () => {
    const big = fitViewport(4096, 2048, 1000, 600, 16);
    expect(big.zoom).toBeCloseTo(968 / 4096, 10);
    expect(big.panX + (4096 * big.zoom) / 2).toBeCloseTo(500, 6);
    expect(big.panY + (2048 * big.zoom) / 2).toBeCloseTo(300, 6);
    const small = fitViewport(256, 256, 1000, 600);
    expect(small).toEqual({ zoom: 1, panX: 372, panY: 172 });
  });

  it('zooming keeps the image point under the pointer in place, within the limits', () => {
    const start = { zoom: 0.5, panX: 40, panY: -20 };
    const under = toImage(start, 300, 200);
    const zoomed = zoomAround(start, 2, 300, 200);
    expect(toImage(zoomed, 300, 200).x).toBeCloseTo(under.x, 9);
    expect(toImage(zoomed, 300, 200).y).toBeCloseTo(under.y, 9);
    expect(zoomAround(start, 1000, 0, 0).zoom).toBe(ZOOM_MAX);
    expect(zoomAround(start, 0, 0, 0).zoom).toBe(ZOOM_MIN);
    const actual = actualSize(start, 800, 600);
    expect(actual.zoom).toBe(1);
    expect(toImage(actual, 400, 300)).toEqual(toImage(start, 400, 300));
  });

  it('wheel up zooms in, down zooms out, line and page modes scaled; pan moves by the drag', () => {
    expect(wheelZoomFactor(-100, 0)).toBeGreaterThan(1);
    expect(wheelZoomFactor(100, 0)).toBeLessThan(1);
    expect(wheelZoomFactor(3, 1)).toBeCloseTo(wheelZoomFactor(48, 0), 10);
    expect(wheelZoomFactor(100, 0) * wheelZoomFactor(-100, 0)).toBeCloseTo(1, 10);
    expect(panBy({ zoom: 2, panX: 1, panY: 2 }, 10, -5)).toEqual({ zoom: 2, panX: 11, panY: -3 });
  });
});

describe('keyboard', () => {
  it('maps the painter keys, with Ctrl or Cmd for undo and redo', () => {
    expect(actionForKey(key('z', { ctrlKey: true }))).toBe('undo');
    expect(actionForKey(key('z', { metaKey: true }))).toBe('undo');
    expect(actionForKey(key('Z', { ctrlKey: true, shiftKey: true }))).toBe('redo');
    expect(actionForKey(key('z', { metaKey: true, shiftKey: true }))).toBe('redo');
    expect(actionForKey(key('y', { ctrlKey: true }))).toBe('redo');
    expect(actionForKey(key('['))).toBe('size-down');
    expect(actionForKey(key(']'))).toBe('size-up');
    expect(actionForKey(key('b'))).toBe('brush');
    expect(actionForKey(key('e'))).toBe('eraser');
    expect(actionForKey(key('x'))).toBe('invert');
    expect(actionForKey(key('0'))).toBe('fit');
    expect(actionForKey(key('1'))).toBe('actual-size');
    expect(actionForKey(key('z'))).toBeNull();
    expect(actionForKey(key('z', { ctrlKey: true, altKey: true }))).toBeNull();
    expect(actionForKey(key('s', { ctrlKey: true }))).toBeNull();
  });

  it('[ and ] step finely for small brushes, coarsely for large, within 1..250', () => {
    expect(stepBrushSize(1, -1)).toBe(1);
    expect(stepBrushSize(1, 1)).toBe(2);
    expect(stepBrushSize(9, 1)).toBe(10);
    expect(stepBrushSize(10, 1)).toBe(15);
    expect(stepBrushSize(12, 1)).toBe(15);
    expect(stepBrushSize(12, -1)).toBe(10);
    expect(stepBrushSize(40, 1)).toBe(45);
    expect(stepBrushSize(50, 1)).toBe(60);
    expect(stepBrushSize(245, 1)).toBe(250);
    expect(stepBrushSize(250, 1)).toBe(250);
    let size = 250;
    for (let i = 0; i < 100; i += 1) size = stepBrushSize(size, -1);
    expect(size).toBe(1);
  });
});

describe('overlay', () => {
  it('writes the colour with alpha = coverage for the rows of a rectangle, at the given stride', () => {
    const width = 5;
    const coverage = new Uint8Array([0, 1, 2, 3, 4, 10, 11, 12, 13, 14, 20, 21, 22, 23, 24]);
    const out = new Uint8Array(8 * 2 * 4);
    paintOverlayRows(coverage, width, { x: 1, y: 1, width: 3, height: 2 }, 0, 2, [9, 8, 7], out, 8);
    expect([...out.subarray(0, 12)]).toEqual([9, 8, 7, 11, 9, 8, 7, 12, 9, 8, 7, 13]);
    expect([...out.subarray(32, 44)]).toEqual([9, 8, 7, 21, 9, 8, 7, 22, 9, 8, 7, 23]);
    expect(out[12]).toBe(0);
  });

  it('reads #rrggbb and #rgb, falling back otherwise', () => {
    expect(parseHexColour('#ff2d55')).toEqual([255, 45, 85]);
    expect(parseHexColour('#0f8')).toEqual([0, 255, 136]);
    expect(parseHexColour('red', [1, 2, 3])).toEqual([1, 2, 3]);
  });
});
