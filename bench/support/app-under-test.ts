// The app under measurement for bench/app-cost.ts and bench/long-day.ts: the core (with the
// harness server) in its own process (core-child.ts), and what the page is instrumented with before
// its scripts run: a tally of what the harness socket delivers per event kind, the wake-ups of
// every page timer and animation frame by where it was scheduled, and the intervals still live.
import { spawn } from 'node:child_process';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createInterface, type Interface } from 'node:readline';
import type { Browser, Page } from '@playwright/test';
import { newBenchPage } from './browser';

const ROOT = resolve(import.meta.dirname, '../..');
const TSX_LOADER = pathToFileURL(join(ROOT, 'node_modules/tsx/dist/loader.mjs')).href;

export interface WireTally {
  messages: number;
  bytes: number;
}
export interface PageCounters {
  /** Core -> page, per event kind ("call result" for answers). */
  wire: Record<string, WireTally>;
  /** Page -> core, per call name and message kind ("call NAME", "note NAME"). */
  sent: Record<string, WireTally>;
  wakeups: Record<string, number>;
  /** setInterval timers created and not cleared. */
  liveIntervals: number;
}

/** Runs in the page before its scripts: counts what the harness socket delivers, and timer wake-ups. */
export function instrumentPage(): void {
  const counters: PageCounters = { wire: {}, sent: {}, wakeups: {}, liveIntervals: 0 };
  (window as unknown as { __benchCounters: PageCounters }).__benchCounters = counters;
  const tally = (name: string, bytes: number, into: Record<string, WireTally> = counters.wire): void => {
    const t = (into[name] ??= { messages: 0, bytes: 0 });
    t.messages += 1;
    t.bytes += bytes;
  };
  const Native = window.WebSocket;
  class CountingSocket extends Native {
    constructor(url: string | URL, protocols?: string | string[]) {
      super(url, protocols);
      this.addEventListener('message', (event: MessageEvent) => {
        const text = typeof event.data === 'string' ? event.data : '';
        const head = text.slice(0, 80);
        const name = /"name":"([^"]+)"/.exec(head)?.[1] ?? (/"kind":"result"/.test(head) ? 'call result' : 'other');
        tally(name, text.length);
      });
    }
    override send(data: string | ArrayBufferLike | Blob | ArrayBufferView): void {
      const text = typeof data === 'string' ? data : '';
      const head = text.slice(0, 80);
      const kind = /"kind":"([^"]+)"/.exec(head)?.[1] ?? 'other';
      tally(`${kind} ${/"name":"([^"]+)"/.exec(head)?.[1] ?? '?'}`, text.length, counters.sent);
      super.send(data);
    }
  }
  window.WebSocket = CountingSocket as typeof WebSocket;
  // Where each wake-up was scheduled from: the first app frame of the stack (file:line).
  const origin = (): string => {
    const lines = (new Error().stack ?? '').split('\n').slice(3);
    const app = lines.find((l) => /assets\/|\.js/.test(l) && !/__bench/.test(l)) ?? lines[0] ?? '?';
    return app
      .replace(/^\s*at\s+/, '')
      .replace(/https?:\/\/[^/]+/, '')
      .slice(0, 120);
  };
  const wake = (kind: string, where: string): void => {
    const key = `${kind} ${where}`;
    counters.wakeups[key] = (counters.wakeups[key] ?? 0) + 1;
  };
  const nativeInterval = window.setInterval.bind(window);
  const nativeTimeout = window.setTimeout.bind(window);
  // requestAnimationFrame through a structural type: the benchmarks are type-checked without the DOM's frame types.
  const frames = window as unknown as { requestAnimationFrame(fn: (t: number) => void): number };
  const nativeRaf = frames.requestAnimationFrame.bind(window);
  const nativeClearInterval = window.clearInterval.bind(window);
  const intervals = new Set<unknown>();
  window.clearInterval = ((id?: ReturnType<typeof setInterval>) => {
    if (id !== undefined && intervals.delete(id)) counters.liveIntervals -= 1;
    nativeClearInterval(id);
  }) as typeof window.clearInterval;
  window.setInterval = ((fn: () => void, ms?: number, ...rest: unknown[]) => {
    const where = origin();
    counters.liveIntervals += 1;
    const id = nativeInterval(() => {
      wake(`setInterval(${ms ?? 0})`, where);
      fn(...(rest as []));
    }, ms);
    intervals.add(id);
    return id;
  }) as typeof window.setInterval;
  window.setTimeout = ((fn: () => void, ms?: number, ...rest: unknown[]) => {
    const where = origin();
    return nativeTimeout(() => {
      wake(`setTimeout(${ms ?? 0})`, where);
      if (typeof fn === 'function') fn(...(rest as []));
    }, ms);
  }) as typeof window.setTimeout;
  frames.requestAnimationFrame = (fn: (t: number) => void) => {
    const where = origin();
    return nativeRaf((t) => {
      wake('requestAnimationFrame', where);
      fn(t);
    });
  };
}

export interface CoreChild {
  pid: number;
  url: string;
  demoPid: number;
  stats(): Promise<CoreStats>;
  stop(): Promise<void>;
}
export interface CoreStats {
  rss: number;
  heapUsed: number;
  handles: Record<string, number>;
  events: Record<string, { count: number }>;
}

/** Starts core-child.ts; `profileDir`: run it under node --cpu-prof, the profile written there at exit. */
export async function startCore(dataDir: string, profileDir?: string): Promise<CoreChild> {
  const prof = profileDir ? ['--cpu-prof', '--cpu-prof-dir', profileDir] : [];
  const child = spawn(process.execPath, [...prof, '--expose-gc', '--import', TSX_LOADER, join(ROOT, 'bench/support/core-child.ts'), dataDir], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const lines: Interface = createInterface({ input: child.stdout! });
  const nextLine = (): Promise<string> =>
    new Promise((resolveLine, reject) => {
      lines.once('line', resolveLine);
      child.once('exit', (code) => reject(new Error(`core-child exited (${code})`)));
    });
  const first = JSON.parse(await nextLine()) as { url: string; demoPid: number };
  return {
    pid: child.pid!,
    ...first,
    stats: async () => {
      const answer = nextLine();
      child.stdin!.write('stats\n');
      return JSON.parse(await answer) as CoreStats;
    },
    stop: () =>
      new Promise((done) => {
        if (child.exitCode !== null) return done();
        child.once('exit', () => done());
        child.kill('SIGTERM');
      }),
  };
}

/** liveFrames: preview frames the page still holds open (ImageBitmaps; object URLs in builds before the canvas preview). */
export type PageReading = PageCounters & { painted: number; received: number; unpainted: number; liveFrames: number };

/** The page's tallies and its preview store's counts, copied out. */
export function counters(page: Page): Promise<PageReading> {
  return page.evaluate(() => {
    const c = (window as unknown as { __benchCounters: PageCounters }).__benchCounters;
    const s = (
      window as unknown as { __flowdeckPreviewStats: { painted: number; received: number; unpainted: number; liveBitmaps?: number; liveObjectUrls?: number } }
    ).__flowdeckPreviewStats;
    return {
      wire: JSON.parse(JSON.stringify(c.wire)),
      sent: JSON.parse(JSON.stringify(c.sent)),
      wakeups: JSON.parse(JSON.stringify(c.wakeups)),
      liveIntervals: c.liveIntervals,
      painted: s.painted,
      received: s.received,
      unpainted: s.unpainted,
      liveFrames: s.liveBitmaps ?? s.liveObjectUrls ?? 0,
    };
  });
}

/** A page on the core's harness, instrumented before its scripts run, once it shows "connected". */
export async function openInstrumentedPage(browser: Browser, core: CoreChild): Promise<Page> {
  const page = await newBenchPage(browser);
  await page.addInitScript(instrumentPage);
  await page.goto(core.url);
  await page.getByRole('status', { name: 'Connection' }).filter({ hasText: 'connected' }).waitFor({ timeout: 30_000 });
  return page;
}
