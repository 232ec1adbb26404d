// Undo and redo over every kind of step, with the memory they keep bounded.
import { describe, expect, it } from 'vitest';
import { MaskModel } from '../../src/renderer/src/lib/mask/model';
import { TILE_SIZE } from '../../src/renderer/src/lib/mask/tiles';

const HARD = { size: 20, hardness: 1, opacity: 1 };

function snapshot(model: MaskModel): Buffer {
  return Buffer.from(model.coverage);
}

describe('undo and redo', () => {
  it('undoes and redoes stroke by stroke, each stroke one step however many points it had', () => {
    const model = new MaskModel(300, 200);
    const states = [snapshot(model)];
    model.beginStroke('brush', HARD, { x: 20, y: 20 });
    for (let x = 21; x < 250; x += 3) model.strokeTo({ x, y: 20 + (x % 40) });
    model.endStroke();
    states.push(snapshot(model));
    model.line('brush', { size: 60, hardness: 0.2, opacity: 0.7 }, { x: 10, y: 190 }, { x: 290, y: 5 });
    states.push(snapshot(model));
    model.beginStroke('eraser', { size: 35, hardness: 0.5, opacity: 1 }, { x: 150, y: 100 });
    model.strokeTo({ x: 160, y: 40 });
    model.endStroke();
    states.push(snapshot(model));
    expect(new Set(states.map((s) => s.toString('base64'))).size).toBe(4);
    expect(model.undoDepth).toBe(3);

    for (let i = 3; i > 0; i -= 1) {
      expect(model.undo()).toBe(true);
      expect(snapshot(model).equals(states[i - 1]!)).toBe(true);
    }
    expect(model.undo()).toBe(false);
    expect(model.canUndo).toBe(false);
    for (let i = 1; i <= 3; i += 1) {
      expect(model.redo()).toBe(true);
      expect(snapshot(model).equals(states[i]!)).toBe(true);
    }
    expect(model.redo()).toBe(false);
  });

  it('a new stroke after undo drops what could be redone', () => {
    const model = new MaskModel(100, 100);
    model.line('brush', HARD, { x: 10, y: 10 }, { x: 90, y: 10 });
    model.line('brush', HARD, { x: 10, y: 50 }, { x: 90, y: 50 });
    model.undo();
    expect(model.canRedo).toBe(true);
    model.line('brush', HARD, { x: 10, y: 90 }, { x: 90, y: 90 });
    expect(model.canRedo).toBe(false);
    expect(model.coverage[50 * 100 + 50]).toBe(0);
    expect(model.coverage[90 * 100 + 50]).toBe(255);
  });

  it('invert and clear are steps too; clearing an empty mask records nothing', () => {
    const model = new MaskModel(130, 70);
    expect(model.clear()).toBe(false);
    expect(model.canUndo).toBe(false);
    model.line('brush', { size: 30, hardness: 0.5, opacity: 0.6 }, { x: 5, y: 5 }, { x: 125, y: 65 });
    const painted = snapshot(model);
    model.invert();
    const inverted = snapshot(model);
    expect(inverted.every((v, i) => v === 255 - painted[i]!)).toBe(true);
    expect(model.clear()).toBe(true);
    expect(model.countMasked()).toBe(0);
    model.undo();
    expect(snapshot(model).equals(inverted)).toBe(true);
    model.undo();
    expect(snapshot(model).equals(painted)).toBe(true);
    model.redo();
    model.redo();
    expect(model.countMasked()).toBe(0);
  });

  it('a stroke that changes nothing (eraser on an empty mask) is not a step', () => {
    const model = new MaskModel(50, 50);
    model.beginStroke('eraser', HARD, { x: 25, y: 25 });
    model.strokeTo({ x: 40, y: 40 });
    expect(model.endStroke()).toBe(false);
    expect(model.canUndo).toBe(false);
  });

  it('undo during a stroke finishes the stroke first, then undoes it; cancel restores it', () => {
    const model = new MaskModel(80, 80);
    model.beginStroke('brush', HARD, { x: 10, y: 10 });
    model.strokeTo({ x: 70, y: 70 });
    expect(model.canUndo).toBe(false); // not while stroking
    expect(model.undo()).toBe(true);
    expect(model.countMasked()).toBe(0);
    expect(model.redo()).toBe(true);
    const before = snapshot(model);
    model.beginStroke('brush', HARD, { x: 70, y: 10 });
    model.strokeTo({ x: 10, y: 70 });
    model.cancelStroke();
    expect(snapshot(model).equals(before)).toBe(true);
    expect(model.undoDepth).toBe(1);
  });

  it('keeps only the tiles a stroke changed', () => {
    const model = new MaskModel(1024, 1024);
    // A short dab inside one tile.
    model.beginStroke('brush', { size: 10, hardness: 1, opacity: 1 }, { x: 32, y: 32 });
    model.endStroke();
    expect(model.historyBytes).toBe(TILE_SIZE * TILE_SIZE);
    // A long diagonal line touches about one tile row per tile column, not the whole 1024x1024 box.
    model.line('brush', { size: 4, hardness: 1, opacity: 1 }, { x: 0, y: 0 }, { x: 1024, y: 1024 });
    const tiles = (model.historyBytes - TILE_SIZE * TILE_SIZE) / (TILE_SIZE * TILE_SIZE);
    expect(tiles).toBeGreaterThanOrEqual(16);
    expect(tiles).toBeLessThanOrEqual(16 * 3);
  });

  it('bounded memory: old steps are forgotten beyond the byte budget and the step cap', () => {
    const tileBytes = TILE_SIZE * TILE_SIZE;
    const model = new MaskModel(640, 640, { history: { budgetBytes: 10 * tileBytes, maxEntries: 1000 } });
    // 30 dabs, each in its own tile: 30 tiles' worth of patches against a budget of 10.
    for (let i = 0; i < 30; i += 1) {
      model.beginStroke('brush', { size: 8, hardness: 1, opacity: 1 }, { x: (i % 10) * 64 + 32, y: Math.floor(i / 10) * 64 + 32 });
      model.endStroke();
      expect(model.historyBytes).toBeLessThanOrEqual(10 * tileBytes);
    }
    expect(model.undoDepth).toBe(10);
    let undone = 0;
    while (model.undo()) undone += 1;
    expect(undone).toBe(10);
    // The 20 oldest dabs can no longer be undone; the 10 newest were.
    expect(model.coverage[32 * 640 + 32]).toBe(255);
    expect(model.coverage[(2 * 64 + 32) * 640 + 9 * 64 + 32]).toBe(0);

    const capped = new MaskModel(64, 64, { history: { maxEntries: 5 } });
    for (let i = 0; i < 12; i += 1) capped.invert();
    expect(capped.undoDepth).toBe(5);
    expect(capped.historyBytes).toBe(0);
  });

  it('the newest step is kept even when it alone exceeds the budget', () => {
    const model = new MaskModel(256, 256, { history: { budgetBytes: 100 } });
    model.line('brush', { size: 250, hardness: 1, opacity: 1 }, { x: 0, y: 0 }, { x: 256, y: 256 });
    expect(model.canUndo).toBe(true);
    model.undo();
    expect(model.countMasked()).toBe(0);
  });

  it('reports the changed region for repainting', () => {
    const model = new MaskModel(500, 400);
    expect(model.takeDirty()).toEqual({ x: 0, y: 0, width: 500, height: 400 });
    expect(model.takeDirty()).toBeNull();
    model.beginStroke('brush', { size: 20, hardness: 1, opacity: 1 }, { x: 100, y: 100 });
    const dirty = model.takeDirty()!;
    expect(dirty.x).toBeLessThanOrEqual(89);
    expect(dirty.x + dirty.width).toBeGreaterThanOrEqual(111);
    expect(dirty.width).toBeLessThan(30);
    model.endStroke();
    model.undo();
    const undone = model.takeDirty()!;
    expect(undone.x).toBeLessThanOrEqual(89);
    expect(undone.width).toBeLessThanOrEqual(128);
  });
});
