// Issue 22, Comfy API v2: 100 input images that share one mask image, spread over a pool of 3
// servers, through the single pipeline (uploads, submitJob, the tracker) on v1 (three local
// demo servers) and on v2 (three v2-only demo deployments), side by side in one run. Counts the
// uploads and bytes each server received: on v1 every job sends the shared mask again (once per
// job); on v2 it crosses once per server (hash, HEAD by-hash, upload only on a miss). Also the
// wall time of each run.
//   npx tsx bench/v2-shared-mask.ts [images]
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DemoService } from '../src/main/demo';
import { JobStore } from '@main/jobs/job-store';
import { Store } from '@main/store/store';
import { submitJob } from '@main/jobs/submit-job';
import { JobTracker } from '@main/jobs/tracker';
import { connectService } from '@main/service/v2/connect';
import type { Workflow } from '@main/service/types';
import { distinctPng } from './support/images';

const IMAGES = Math.max(3, Number(process.argv[2] ?? 100));
const SERVERS = 3;
const MASK_SIZE = 256;

function workflow(image: string, mask: string): Workflow {
  return {
    '1': { class_type: 'LoadImage', inputs: { image } },
    '4': { class_type: 'LoadImage', inputs: { image: mask } },
    '2': { class_type: 'DemoInpaint', inputs: { image: ['1', 0], mask: ['4', 1], seed: 7, fill: 'solid' } },
    '3': { class_type: 'SaveImage', inputs: { images: ['2', 0], filename_prefix: 'bench-v2' } },
  };
}

async function runPool(contract: 'v1' | 'v2', images: string[], mask: string) {
  const servers = await Promise.all(
    Array.from({ length: SERVERS }, async () => {
      const svc = new DemoService({ flavour: 'local', timeScale: 0.01, ...(contract === 'v2' ? { v2: 'only' as const } : {}) });
      await svc.start();
      return svc;
    }),
  );
  const store = await Store.open(':memory:');
  const jobs = await JobStore.open(store);
  const members = await Promise.all(
    servers.map(async (svc) => {
      const { api, events } = await connectService({ kind: 'local', baseUrl: svc.url }, { apiKey: () => null });
      const tracker = new JobTracker({ api, events, jobs, pollIntervalMs: 200 });
      events.start();
      return { svc, api, events, tracker, sentBytes: 0, uploads: 0 };
    }),
  );
  const started = performance.now();
  let next = 0;
  // One job at a time per server, the pool's round robin by free server.
  await Promise.all(
    members.map(async (m) => {
      for (let i = next++; i < images.length; i = next++) {
        const image = await m.api.uploadImage(images[i]!);
        const shared = await m.api.uploadImage(mask);
        const submitted = await submitJob(
          { api: m.api, jobs, clientId: m.events.clientId },
          { workflow: workflow(image.name, shared.name), workflowName: 'bench', origin: 'cli' },
        );
        const end = await m.tracker.track(submitted.promptId).waitForEnd({ timeoutMs: 60_000 });
        if (end.phase !== 'succeeded') throw new Error(`job ${submitted.promptId} ended ${end.phase}`);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const imageBytes = statSync(images[0]!).size;
  const maskBytes = statSync(mask).size;
  const perServer = members.map((m) =>
    contract === 'v2'
      ? { uploads: m.svc.v2!.stats.assetUploads, bytes: m.svc.v2!.stats.assetUploadBytes }
      : // v1: every upload carries its file; the demo counts uploads (an image and the mask per job).
        { uploads: m.svc.stats.uploads, bytes: (m.svc.stats.uploads / 2) * (imageBytes + maskBytes) },
  );
  for (const m of members) {
    await m.tracker.dispose();
    await m.events.dispose();
  }
  await store.close();
  await Promise.all(servers.map((s) => s.stop()));
  return { seconds, perServer };
}

const dir = mkdtempSync(join(tmpdir(), 'flowdeck-bench-v2-'));
try {
  const images = Array.from({ length: IMAGES }, (_, i) => {
    const path = join(dir, `img-${i}.png`);
    writeFileSync(path, distinctPng(i, 64));
    return path;
  });
  const mask = join(dir, 'shared-mask.png');
  writeFileSync(mask, distinctPng(9999, MASK_SIZE));
  console.log(`${IMAGES} images (${statSync(images[0]!).size} B each) sharing one mask (${statSync(mask).size} B), ${SERVERS} servers`);
  for (const contract of ['v1', 'v2'] as const) {
    const result = await runPool(contract, images, mask);
    const uploads = result.perServer.map((s) => s.uploads);
    const bytes = result.perServer.reduce((a, s) => a + s.bytes, 0);
    const maskCrossings = contract === 'v2' ? uploads.reduce((a, n) => a + n, 0) - IMAGES : uploads.reduce((a, n) => a + n, 0) / 2;
    console.log(
      `${contract}: ${result.seconds.toFixed(2)} s, uploads per server ${uploads.join('/')}, mask sent ${maskCrossings} times, ` +
        `${(bytes / 1024).toFixed(0)} KiB received in all`,
    );
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
