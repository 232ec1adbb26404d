// Live previews: the latest frame of each job as an object URL. A frame counts as painted once the
// visible <img> has loaded it and a frame has been drawn; only then is the previous URL revoked
// and the event listener's promise settled, which is what releases main's next frame for that job
// (latest-wins back-pressure, see src/shared/ipc/bridge.ts). Nothing queues up behind a slow paint.
import { SvelteMap } from 'svelte/reactivity';
import type { PreviewView } from '../../../../shared/ipc/contract';

/** How long a frame may wait for its <img> before the pipeline moves on anyway. */
const PAINT_TIMEOUT_MS = 2000;
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
  /** Frames accepted but never shown: superseded, undecodable, or their card went away. */
  unpainted: number;
  liveObjectUrls: number;
  paints: PaintRecord[];
}

interface Pending {
  url: string;
  resolve: (painted: boolean) => void;
}

export function epochNow(): number {
  return performance.timeOrigin + performance.now();
}

export class PreviewStore {
  /** promptId -> object URL of the latest frame accepted for display. */
  readonly urls = new SvelteMap<string, string>();
  readonly stats: PreviewStats = { received: 0, painted: 0, unpainted: 0, liveObjectUrls: 0, paints: [] };
  readonly #viewers = new Map<string, number>();
  readonly #pending = new Map<string, Pending>();

  /** The job.preview listener: resolves when the frame is painted (or skipped). */
  accept(frame: PreviewView): Promise<void> {
    this.stats.received += 1;
    const url = URL.createObjectURL(new Blob([frame.bytes as Uint8Array<ArrayBuffer>], { type: frame.mime }));
    this.stats.liveObjectUrls += 1;
    const previous = this.urls.get(frame.promptId);
    this.urls.set(frame.promptId, url);
    const painted = (this.#viewers.get(frame.promptId) ?? 0) > 0 ? this.#waitForPaint(frame.promptId, url) : Promise.resolve(false);
    return painted.then((ok) => {
      if (previous) this.#revoke(previous);
      if (ok) this.#recordPaint(frame);
      else this.stats.unpainted += 1;
    });
  }

  /** A LivePreview mounts for a job; returns its unmount. */
  watch(promptId: string): () => void {
    this.#viewers.set(promptId, (this.#viewers.get(promptId) ?? 0) + 1);
    return () => {
      const left = (this.#viewers.get(promptId) ?? 1) - 1;
      if (left > 0) this.#viewers.set(promptId, left);
      else this.#viewers.delete(promptId);
      this.#settle(promptId, null, false);
    };
  }

  /** The visible <img> finished loading `url` (ok) or failed to decode it. */
  loaded(promptId: string, url: string, ok: boolean): void {
    if (!ok) {
      this.#settle(promptId, url, false);
      return;
    }
    // One animation frame later the image is on screen.
    requestAnimationFrame(() => this.#settle(promptId, url, true));
  }

  /** Drops a job's preview (its card went away). */
  forget(promptId: string): void {
    this.#settle(promptId, null, false);
    const url = this.urls.get(promptId);
    if (url) this.#revoke(url);
    this.urls.delete(promptId);
  }

  #waitForPaint(promptId: string, url: string): Promise<boolean> {
    // A frame still waiting is superseded (a transport without back-pressure could do this).
    this.#settle(promptId, null, false);
    return new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => this.#settle(promptId, url, false), PAINT_TIMEOUT_MS);
      this.#pending.set(promptId, {
        url,
        resolve: (ok) => {
          clearTimeout(timer);
          resolve(ok);
        },
      });
    });
  }

  /** Settles the pending frame of a job when it is `url` (or any frame when url is null). */
  #settle(promptId: string, url: string | null, ok: boolean): void {
    const pending = this.#pending.get(promptId);
    if (!pending || (url !== null && pending.url !== url)) return;
    this.#pending.delete(promptId);
    pending.resolve(ok);
  }

  #revoke(url: string): void {
    URL.revokeObjectURL(url);
    this.stats.liveObjectUrls -= 1;
  }

  #recordPaint(frame: PreviewView): void {
    this.stats.painted += 1;
    const paints = this.stats.paints;
    if (paints.length >= MAX_PAINT_RECORDS) paints.splice(0, paints.length - MAX_PAINT_RECORDS + 1);
    paints.push({ promptId: frame.promptId, seq: frame.seq, paintedAt: epochNow() });
  }
}
