// Mask painter figures on a 4096x4096 mask (the pure model under Node, as the renderer runs it):
// time per stroke segment (one coalesced pointer sample) for small, medium and the largest brush,
// with the overlay pixels of the changed region computed as the painter does each frame; undo,
// redo, invert and clear; and the export to PNG: the painter's (sliced, native deflate, with the
// longest time the event loop is held), the synchronous one at two levels, and fast-png's encoder.
// Run: npx tsx bench/mask-painter.ts
import { performance } from 'node:perf_hooks';
import { MaskModel } from '../src/renderer/src/lib/mask/model';
import { paintOverlayRows } from '../src/renderer/src/lib/mask/overlay';
import { encode as fastPngEncode } from 'fast-png';
import { EXPORT_ZLIB_LEVEL, exportMaskPng, exportMaskPngAsync, maskRgba } from '../src/renderer/src/lib/mask/png';

const SIZE = 4096;
/** Pointer samples per stroke: a wavy stroke across the image, 3 px apart (a fast hand at 1 kHz sampling). */
const SAMPLES = 1500;
const STEP = 3;

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length - 1) * p))]!;
}

function fmt(ms: number): string {
  return ms < 1 ? `${(ms * 1000).toFixed(0)} µs` : `${ms.toFixed(2)} ms`;
}

function strokeBench(model: MaskModel, size: number, hardness: number, row: number): { segment: number[]; overlay: number[] } {
  const segment: number[] = [];
  const overlay: number[] = [];
  const band = new Uint8ClampedArray(SIZE * 256 * 4);
  const at = (i: number): { x: number; y: number } => ({ x: 200 + i * STEP * 0.9, y: row + Math.sin(i / 40) * 300 });
  model.beginStroke('brush', { size, hardness, opacity: 0.9 }, at(0));
  model.takeDirty();
  for (let i = 1; i < SAMPLES; i += 1) {
    const t0 = performance.now();
    model.strokeTo(at(i));
    const t1 = performance.now();
    const rect = model.takeDirty();
    if (rect) {
      for (let row0 = 0; row0 < rect.height; row0 += 256)
        paintOverlayRows(model.coverage, SIZE, rect, row0, Math.min(256, rect.height - row0), [255, 45, 85], band, SIZE);
    }
    const t2 = performance.now();
    segment.push(t1 - t0);
    overlay.push(t2 - t1);
  }
  model.endStroke();
  return { segment, overlay };
}

function report(label: string, samples: number[]): string {
  const sorted = [...samples].sort((a, b) => a - b);
  const total = samples.reduce((a, b) => a + b, 0);
  return `${label}: median ${fmt(percentile(sorted, 0.5))}, p95 ${fmt(percentile(sorted, 0.95))}, max ${fmt(sorted[sorted.length - 1]!)}, whole stroke ${total.toFixed(0)} ms for ${samples.length} samples`;
}

function timed<T>(work: () => T): { ms: number; value: T } {
  const t0 = performance.now();
  const value = work();
  return { ms: performance.now() - t0, value };
}

const model = new MaskModel(SIZE, SIZE);
console.log(`mask ${SIZE}x${SIZE}; strokes of ${SAMPLES} pointer samples ${STEP} px apart`);
// Warm up the JIT on a throw-away model.
strokeBench(new MaskModel(1024, 1024), 40, 0.8, 500);

let row = 600;
for (const [size, hardness] of [
  [20, 1],
  [100, 0.5],
  [250, 0],
] as const) {
  const { segment, overlay } = strokeBench(model, size, hardness, row);
  console.log(report(`brush ${size} px, hardness ${hardness}: model per segment`, segment));
  console.log(report(`  overlay pixels of the changed region per segment`, overlay));
  row += 1200;
}
console.log(`undo history kept: ${(model.historyBytes / 1024 / 1024).toFixed(1)} MiB for ${model.undoDepth} strokes`);

const undo = timed(() => model.undo());
const redo = timed(() => model.redo());
const invert = timed(() => model.invert());
const invertBack = timed(() => model.undo());
console.log(`undo of the 250 px stroke ${fmt(undo.ms)}, redo ${fmt(redo.ms)}, invert ${fmt(invert.ms)}, undo of invert ${fmt(invertBack.ms)}`);

const masked = timed(() => model.countMasked());
console.log(`masked pixels: ${masked.value} (${((100 * masked.value) / (SIZE * SIZE)).toFixed(1)} %), counted in ${fmt(masked.ms)}`);

// The painter's export: native deflate (CompressionStream) in ~1 MiB bands, the event loop free between them.
{
  await exportMaskPngAsync(new MaskModel(256, 256));
  let best = Infinity;
  let bytes = 0;
  let longestTurn = 0;
  for (let run = 0; run < 3; run += 1) {
    // How long the event loop is held at a time while the export runs (what the page would feel).
    let last = performance.now();
    let turn = 0;
    const ticker = setInterval(() => {
      const now = performance.now();
      turn = Math.max(turn, now - last);
      last = now;
    }, 1);
    const t0 = performance.now();
    const png = await exportMaskPngAsync(model);
    const ms = performance.now() - t0;
    clearInterval(ticker);
    if (ms < best) {
      best = ms;
      longestTurn = turn;
    }
    bytes = png.byteLength;
  }
  console.log(
    `export ${SIZE}x${SIZE} PNG, the painter's (sliced, native deflate): best of 3 ${best.toFixed(0)} ms, ${(bytes / 1024).toFixed(0)} KiB, longest event-loop turn ${longestTurn.toFixed(0)} ms`,
  );
}

for (const level of [EXPORT_ZLIB_LEVEL, 1]) {
  exportMaskPng(new MaskModel(256, 256), level);
  const runs = [0, 1, 2].map(() => timed(() => exportMaskPng(model, level)));
  const best = Math.min(...runs.map((r) => r.ms));
  const bytes = runs[0]!.value.byteLength;
  console.log(`export ${SIZE}x${SIZE} PNG, synchronous (fflate zlibSync) at level ${level}: best of 3 ${best.toFixed(0)} ms, ${(bytes / 1024).toFixed(0)} KiB`);
}

// For comparison: the same PNG through fast-png's encoder (the whole RGBA image first).
{
  const run = timed(() => {
    const rgba = maskRgba(model);
    return fastPngEncode({ width: SIZE, height: SIZE, data: rgba.data, channels: 4, depth: 8 }, { zlib: { level: EXPORT_ZLIB_LEVEL } });
  });
  console.log(`  for comparison, fast-png's encoder at level ${EXPORT_ZLIB_LEVEL}: ${run.ms.toFixed(0)} ms, ${(run.value.byteLength / 1024).toFixed(0)} KiB`);
}

const clear = timed(() => model.clear());
console.log(`clear ${fmt(clear.ms)} (history now ${(model.historyBytes / 1024 / 1024).toFixed(1)} MiB)`);
