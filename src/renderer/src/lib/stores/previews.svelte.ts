// Live previews: the latest frame of each job as an object URL. Each frame is decoded off screen
// first; the job.preview listener's promise settles once it is decoded (or found undecodable),
// which releases main's next frame for that job (latest-wins back-pressure, see
// src/shared/ipc/bridge.ts), so the next frame travels while this one is painted. A frame counts
// as painted when the visible <img> has loaded it and a frame has been drawn; only then are the
// URLs before it revoked. Nothing queues: a frame replaced before it was shown is skipped.
import { SvelteMap } from 'svelte/reactivity';
import type { PreviewView } from '@shared/ipc/contract';

const MAX_PAINT_RECORDS = 20_000;

export interface PaintRecord {
  promptId: string;
  seq: number;
  /** Epoch milliseconds (performance.timeOrigin + performance.now()). */
  paintedAt: number;
}

/** Read by bench/preview-pipeline.ts through the page; plain numbers, no reactivity. */
export interface PreviewStats {
  received: number;
  painted: number;
  /** Frames never shown: replaced before the <img> loaded them, undecodable, or nobody watching. */
  unpainted: number;
  liveObjectUrls: number;
  paints: PaintRecord[];
}

/** Resolves true when the image at `url` decodes. */
export type ImageDecoder = (url: string) => Promise<boolean>;

// The page globals used here, declared structurally: this module is also type-checked with the
// Node tests, which have no DOM library.
const page = globalThis as unknown as {
  Image: new () => { src: string; decode(): Promise<void> };
  requestAnimationFrame(callback: () => void): number;
};

export const decodeImage: ImageDecoder = (url) => {
  const image = new page.Image();
  image.src = url;
  return image.decode().then(
    () => true,
    () => false,
  );
};

interface Shown {
  url: string;
  seq: number;
  painted: boolean;
}

function epochNow(): number {
  return performance.timeOrigin + performance.now();
}

export class PreviewStore {
  /** promptId -> object URL of the latest decoded frame (what the job's <img> shows). */
  readonly urls = new SvelteMap<string, string>();
  readonly stats: PreviewStats = { received: 0, painted: 0, unpainted: 0, liveObjectUrls: 0, paints: [] };
  readonly #viewers = new Map<string, number>();
  /** Per job, the URLs handed to the <img> and not revoked yet, oldest first. */
  readonly #shown = new Map<string, Shown[]>();
  readonly #decode: ImageDecoder;
  /** Per job, frames being decoded now, and whether the job was forgotten meanwhile (gone once none is). */
  readonly #decoding = new Map<string, { count: number; forgotten: boolean }>();

  constructor(decode: ImageDecoder = decodeImage) {
    this.#decode = decode;
  }

  /** The job.preview listener: resolves when the frame is decoded and on its way to the screen. */
  async accept(frame: PreviewView): Promise<void> {
    this.stats.received += 1;
    const url = URL.createObjectURL(new Blob([frame.bytes as Uint8Array<ArrayBuffer>], { type: frame.mime }));
    this.stats.liveObjectUrls += 1;
    if ((this.#viewers.get(frame.promptId) ?? 0) === 0) {
      // Nobody sees this job's card: keep only the latest frame for when it is shown again.
      this.#show(frame.promptId, url, frame.seq);
      this.#revokeBefore(frame.promptId, url);
      return;
    }
    const decoding = this.#decoding.get(frame.promptId) ?? { count: 0, forgotten: false };
    decoding.count += 1;
    this.#decoding.set(frame.promptId, decoding);
    const ok = await this.#decode(url);
    decoding.count -= 1;
    if (decoding.count === 0) this.#decoding.delete(frame.promptId);
    // The job ended (or its card went) while this frame decoded: showing it now would keep its URL
    // for good, since nothing forgets the job again.
    if (!ok || decoding.forgotten) {
      this.#revoke(url);
      this.stats.unpainted += 1;
      return;
    }
    this.#show(frame.promptId, url, frame.seq);
  }

  /** A LivePreview mounts for a job; returns its unmount. */
  watch(promptId: string): () => void {
    this.#viewers.set(promptId, (this.#viewers.get(promptId) ?? 0) + 1);
    return () => {
      const left = (this.#viewers.get(promptId) ?? 1) - 1;
      if (left > 0) this.#viewers.set(promptId, left);
      else this.#viewers.delete(promptId);
    };
  }

  /** The visible <img> finished loading `url` (ok) or failed to. */
  loaded(promptId: string, url: string, ok: boolean): void {
    if (!ok) return;
    // One animation frame later the image is on screen.
    page.requestAnimationFrame(() => {
      const entry = this.#shown.get(promptId)?.find((s) => s.url === url);
      if (!entry || entry.painted) return;
      entry.painted = true;
      this.#recordPaint(promptId, entry.seq);
      this.#revokeBefore(promptId, url);
    });
  }

  /** Drops a job's preview (its job ended or its card went away), and any frame of it still decoding. */
  forget(promptId: string): void {
    const decoding = this.#decoding.get(promptId);
    if (decoding) decoding.forgotten = true;
    for (const entry of this.#shown.get(promptId) ?? []) this.#drop(entry);
    this.#shown.delete(promptId);
    this.urls.delete(promptId);
  }

  #show(promptId: string, url: string, seq: number): void {
    let list = this.#shown.get(promptId);
    if (!list) {
      list = [];
      this.#shown.set(promptId, list);
    }
    list.push({ url, seq, painted: false });
    this.urls.set(promptId, url);
  }

  /** Revokes the URLs shown before `url`: the <img> no longer needs them. */
  #revokeBefore(promptId: string, url: string): void {
    const list = this.#shown.get(promptId);
    if (!list) return;
    const index = list.findIndex((s) => s.url === url);
    for (const entry of list.splice(0, Math.max(0, index))) this.#drop(entry);
  }

  #drop(entry: Shown): void {
    if (!entry.painted) this.stats.unpainted += 1;
    this.#revoke(entry.url);
  }

  #revoke(url: string): void {
    URL.revokeObjectURL(url);
    this.stats.liveObjectUrls -= 1;
  }

  #recordPaint(promptId: string, seq: number): void {
    this.stats.painted += 1;
    const paints = this.stats.paints;
    if (paints.length >= MAX_PAINT_RECORDS) paints.splice(0, paints.length - MAX_PAINT_RECORDS + 1);
    paints.push({ promptId, seq, paintedAt: epochNow() });
  }
}
