// Shared pieces of the hot-folder tests: small real images, the invert workflow, and a hot-folder
// service wired to a real demo service over real sockets (ServiceClient, EventsSocket, JobTracker).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PNG } from 'pngjs';
import { type DemoService } from '../../src/main/demo';
import { Store } from '@main/store/store';
import { JobTracker } from '@main/jobs/tracker';
import { ServiceClient } from '@main/service/client';
import { EventsSocket } from '@main/service/events-socket';
import type { ServerProfile, Workflow } from '@main/service/types';
import { HotFolderService, trackerFollower, type FinishedOutput, type HotFolderEvent, type HotFolderInput, type OutputSink } from '../../src/main/watch';
import { discoveredEntry, type EntryRecord } from '@main/watch/journal';

/** A PNG whose pixels depend on `seed`, so different seeds give different content. */
export function makePng(seed: number, width = 8, height = 6): Buffer {
  const png = new PNG({ width, height });
  for (let i = 0; i < width * height; i += 1) {
    png.data[i * 4] = (seed * 37 + i) & 255;
    png.data[i * 4 + 1] = (seed * 91 + i * 3) & 255;
    png.data[i * 4 + 2] = (seed * 13) & 255;
    png.data[i * 4 + 3] = 255;
  }
  return PNG.sync.write(png);
}

/** A mask PNG: transparent (masked) on the left half, opaque elsewhere. */
export function makeMask(width = 8, height = 6): Buffer {
  const png = new PNG({ width, height });
  for (let y = 0; y < height; y += 1) {
    for (let x = 0; x < width; x += 1) {
      const i = (y * width + x) * 4;
      png.data[i + 3] = x < width / 2 ? 0 : 255;
    }
  }
  return PNG.sync.write(png);
}

export function invertWorkflow(extra: Record<string, unknown> = {}): Workflow {
  return {
    '1': { class_type: 'LoadImage', inputs: { image: 'example.png' } },
    '2': { class_type: 'ImageInvert', inputs: { image: ['1', 0] } },
    '3': { class_type: 'SaveImage', inputs: { images: ['2', 0], filename_prefix: 'watch/test' } },
    ...(extra as Workflow),
  };
}

export interface Harness {
  demo: DemoService;
  hot: HotFolderService;
  store: Store;
  tracker: JobTracker;
  events: HotFolderEvent[];
  sunk: FinishedOutput[];
  work: string;
  inDir: string;
  outDir: string;
  close(): Promise<void>;
}

export class CollectingSink implements OutputSink {
  readonly outputs: FinishedOutput[] = [];
  async add(output: FinishedOutput): Promise<void> {
    this.outputs.push(output);
  }
}

/** A temp folder with in/ and out/, a store file in it, and a hot-folder service on `demo`. */
export async function openHarness(
  demo: DemoService,
  options: { storePath?: string; work?: string; clientOptions?: { retries?: number }; apiKey?: () => string | null } = {},
): Promise<Harness> {
  const work = options.work ?? mkdtempSync(join(tmpdir(), 'flowdeck-watch-'));
  const inDir = join(work, 'in');
  const outDir = join(work, 'out');
  const profile: ServerProfile = { kind: demo.flavour, baseUrl: demo.url };
  const apiKey = options.apiKey ?? ((): string | null => demo.apiKey);
  const api = new ServiceClient(profile, { apiKey, retry: { baseMs: 20, maxMs: 80, retries: options.clientOptions?.retries ?? 3 } });
  const socket = new EventsSocket(profile, { apiKey, backoff: { minMs: 50, maxMs: 200 } });
  const store = await Store.open(options.storePath ?? join(work, 'flowdeck.sqlite'));
  const tracker = new JobTracker({ api, events: socket, pollIntervalMs: 100, staleAfterMs: 300 });
  socket.start();
  const sink = new CollectingSink();
  const hot = new HotFolderService({ store, api, clientId: socket.clientId, follower: trackerFollower(tracker), sink });
  const events: HotFolderEvent[] = [];
  hot.on((event) => events.push(event));
  await hot.start();
  return {
    demo,
    hot,
    store,
    tracker,
    events,
    sunk: sink.outputs,
    work,
    inDir,
    outDir,
    async close() {
      await hot.dispose();
      await tracker.dispose();
      await socket.dispose();
      await store.close();
      if (!options.work) rmSync(work, { recursive: true, force: true });
    },
  };
}

/** A folder configuration with test-friendly timings. */
export function folderInput(h: Pick<Harness, 'inDir' | 'outDir'>, overrides: Partial<HotFolderInput> = {}): HotFolderInput {
  return {
    inputDir: h.inDir,
    outputDir: h.outDir,
    workflow: invertWorkflow(),
    workflowName: 'invert.json',
    bind: '1.image',
    settleMs: 150,
    rescanMs: 0,
    concurrency: 2,
    retry: { maxAttempts: 4, baseDelayMs: 50, maxDelayMs: 200 },
    pauseRecheckMs: 60_000,
    ...overrides,
  };
}

/** Waits until `predicate` holds, polling; fails with `what` after `timeoutMs`. */
export async function until(predicate: () => boolean | Promise<boolean>, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await predicate())) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

export function totalSubmissions(demo: DemoService): number {
  return [...demo.stats.submissions.values()].reduce((a, b) => a + b, 0);
}

/**
 * A hot-folder journal entry for an input file whose sha256 is `sha256`, as the folder writes one
 * when it sends the file: state 'submitting' under `promptId` on the local server at `baseUrl`.
 */
export function unconfirmedEntry(fields: {
  folderId: string;
  sha256: string;
  path: string;
  relPath: string;
  promptId: string;
  baseUrl: string;
  uploadedAs: string;
  at: number;
}): EntryRecord {
  const file = {
    folderId: fields.folderId,
    contentKey: fields.sha256,
    imageSha256: fields.sha256,
    maskSha256: null,
    path: fields.path,
    relPath: fields.relPath,
    maskPath: null,
  };
  return {
    ...discoveredEntry(file, fields.at),
    state: 'submitting',
    promptId: fields.promptId,
    serverKind: 'local',
    baseUrl: fields.baseUrl,
    uploadedAs: fields.uploadedAs,
  };
}
