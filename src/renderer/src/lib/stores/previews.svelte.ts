// Live previews: the latest frame of each job as a decoded ImageBitmap, drawn on a canvas by each
// LivePreview that shows the job (the Result stage and the job's card draw the same bitmap). No
// object URL and no <img>: measured in bench/preview-display.ts, decoding with createImageBitmap
// and drawing on a canvas costs this Chromium about a third less than blob URLs in an <img> at 10
// frames/s (issue 25). The job.preview listener's promise settles once the frame is decoded (or
// dropped), which releases main's next frame for that job (latest-wins back-pressure, see
// src/shared/ipc/bridge.ts), so the next frame travels while this one is drawn.
// Latest wins: a frame still decoding when a newer one of its job arrives is dropped and closed;
// a shown bitmap is closed as soon as a newer one replaces it, and when its job is forgotten. A
// frame counts as painted one animation frame after a canvas first drew it. A frame going on screen
// tells the PaintSync, which applies the changes it holds (progress, the clock) in the same task, so
// the step and its numbers make one frame.
import { SvelteMap } from 'svelte/reactivity';
import type { PreviewView } from '@shared/ipc/contract';
import { PaintSync } from './paint-sync';

const MAX_PAINT_RECORDS = 20_000;

export interface PaintRecord {
  promptId: string;
  seq: number;
  /** Epoch milliseconds (performance.timeOrigin + performance.now()). */
  paintedAt: number;
}

/** Read by bench/preview-pipeline.ts and bench/app-cost.ts through the page; plain numbers, no reactivity. */
export interface PreviewStats {
  received: number;
  painted: number;
  /** Frames never shown: replaced before a canvas drew them, undecodable, or nobody watching. */
  unpainted: number;
  /** Decoded bitmaps not closed yet (one per job on screen at most). */
  liveBitmaps: number;
  paints: PaintRecord[];
}

/** What the store needs of an ImageBitmap (declared structurally: the Node tests have no DOM library). */
export interface PreviewBitmap {
  readonly width: number;
  readonly height: number;
  close(): void;
}

/** Decodes a frame's bytes; null when they are not a picture. */
export type BitmapDecoder = (frame: PreviewView) => Promise<PreviewBitmap | null>;

const page = globalThis as unknown as {
  createImageBitmap(blob: Blob): Promise<PreviewBitmap>;
  requestAnimationFrame(callback: () => void): number;
};

// createImageBitmap of a Blob decodes off the main thread, straight to RGB. WebCodecs' ImageDecoder
// (no Blob registered with the browser process) was measured against it in the app and came out
// even (bench/app-cost.ts 10 + 20/s, in turns: 19.4 vs 19.5% of a core): its YUV frame must be
// converted on the main thread (about 1 ms a frame), which eats what the Blob's IPC costs.
export const decodeBitmap: BitmapDecoder = (frame) =>
  page.createImageBitmap(new Blob([frame.bytes as Uint8Array<ArrayBuffer>], { type: frame.mime })).then(
    (bitmap) => bitmap,
    () => null,
  );

/** A decoded frame on screen (or about to be). */
export interface ShownFrame {
  readonly bitmap: PreviewBitmap;
  readonly seq: number;
}

function epochNow(): number {
  return performance.timeOrigin + performance.now();
}

export class PreviewStore {
  /** promptId -> the latest decoded frame (what the job's canvases draw). */
  readonly frames = new SvelteMap<string, ShownFrame>();
  readonly stats: PreviewStats = { received: 0, painted: 0, unpainted: 0, liveBitmaps: 0, paints: [] };
  readonly #viewers = new Map<string, number>();
  readonly #decode: BitmapDecoder;
  readonly #sync: PaintSync;
  /** Per job, the newest frame received: a decode that finishes behind it is dropped. */
  readonly #newest = new Map<string, number>();
  /** Per job, the latest frame that came while nobody watched, kept undecoded for when someone does (reactive: has()). */
  readonly #unwatched = new SvelteMap<string, PreviewView>();
  /** Frames drawn by a canvas (counted once). */
  readonly #drawn = new WeakSet<ShownFrame>();
  #arrivals = 0;

  constructor(decode: BitmapDecoder = decodeBitmap, sync: PaintSync = new PaintSync()) {
    this.#decode = decode;
    this.#sync = sync;
  }

  /** Whether a job has a frame to show (decoded, or waiting for a viewer). */
  has(promptId: string): boolean {
    return this.frames.has(promptId) || this.#unwatched.has(promptId);
  }

  /** The job.preview listener: resolves when the frame is decoded and on its way to the screen (or dropped). */
  async accept(frame: PreviewView): Promise<void> {
    this.stats.received += 1;
    const arrival = ++this.#arrivals;
    this.#newest.set(frame.promptId, arrival);
    if ((this.#viewers.get(frame.promptId) ?? 0) === 0) {
      // Nobody sees this job: keep only its latest frame, undecoded, for when it is shown again.
      if (this.#unwatched.has(frame.promptId)) this.stats.unpainted += 1;
      this.#unwatched.set(frame.promptId, frame);
      return;
    }
    await this.#decodeAndShow(frame, arrival);
  }

  /** A LivePreview mounts for a job; returns its unmount. */
  watch(promptId: string): () => void {
    this.#viewers.set(promptId, (this.#viewers.get(promptId) ?? 0) + 1);
    const waiting = this.#unwatched.get(promptId);
    if (waiting) {
      this.#unwatched.delete(promptId);
      void this.#decodeAndShow(waiting, this.#newest.get(promptId) ?? 0);
    }
    return () => {
      const left = (this.#viewers.get(promptId) ?? 1) - 1;
      if (left > 0) this.#viewers.set(promptId, left);
      else this.#viewers.delete(promptId);
    };
  }

  /** A canvas drew `frame`: one animation frame later it is on screen. */
  drawn(promptId: string, frame: ShownFrame): void {
    if (this.#drawn.has(frame)) return;
    this.#drawn.add(frame);
    page.requestAnimationFrame(() => this.#recordPaint(promptId, frame.seq));
  }

  /** Drops a job's preview (its job ended or its card went away); a frame of it still decoding is dropped when done. */
  forget(promptId: string): void {
    this.#newest.delete(promptId);
    if (this.#unwatched.delete(promptId)) this.stats.unpainted += 1;
    const shown = this.frames.get(promptId);
    if (shown) this.#close(shown);
    this.frames.delete(promptId);
  }

  async #decodeAndShow(frame: PreviewView, arrival: number): Promise<void> {
    const bitmap = await this.#decode(frame);
    if (bitmap) this.stats.liveBitmaps += 1;
    // Latest wins: a newer frame of the job arrived meanwhile, or the job was forgotten.
    if (!bitmap || this.#newest.get(frame.promptId) !== arrival) {
      if (bitmap) this.#closeBitmap(bitmap);
      this.stats.unpainted += 1;
      return;
    }
    const previous = this.frames.get(frame.promptId);
    this.#sync.frame();
    this.frames.set(frame.promptId, { bitmap, seq: frame.seq });
    if (previous) this.#close(previous);
  }

  /** Closes a shown frame's bitmap (a canvas that drew it keeps its pixels). */
  #close(frame: ShownFrame): void {
    if (!this.#drawn.has(frame)) this.stats.unpainted += 1;
    this.#closeBitmap(frame.bitmap);
  }

  #closeBitmap(bitmap: PreviewBitmap): void {
    bitmap.close();
    this.stats.liveBitmaps -= 1;
  }

  #recordPaint(promptId: string, seq: number): void {
    this.stats.painted += 1;
    const paints = this.stats.paints;
    if (paints.length >= MAX_PAINT_RECORDS) paints.splice(0, paints.length - MAX_PAINT_RECORDS + 1);
    paints.push({ promptId, seq, paintedAt: epochNow() });
  }
}
