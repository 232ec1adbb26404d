// The cloud as documented today, against both demo flavours: the job list (GET /api/jobs locally
// read from /api/history + /api/queue in the same shape), /api/features and the capabilities
// built from it, what cancel and interrupt stop, and upload limits checked before uploading.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DemoService } from '../../src/main/demo';
import { capabilitiesFor, uploadedInputValue } from '@main/service/capabilities';
import { uploadLimitProblem, CLOUD_UPLOAD_LIMITS } from '@main/images/upload-limits';
import { ServiceClient } from '@main/service/client';
import { ServiceError } from '@main/service/errors';
import type { ServerKind } from '@main/service/types';
import { pairFor, samplerWorkflow, type Pair } from './support/demo-jobs';

/** A PNG signature and IHDR claiming `width` x `height` (enough for a header check). */
function pngHeader(width: number, height: number): Buffer {
  const head = Buffer.alloc(33);
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]).copy(head, 0);
  head.writeUInt32BE(13, 8);
  head.write('IHDR', 12, 'latin1');
  head.writeUInt32BE(width, 16);
  head.writeUInt32BE(height, 20);
  head[24] = 8;
  head[25] = 6;
  return head;
}

async function statusOf(pair: Pair, id: string): Promise<string> {
  return (await pair.client.getJob(id)).status;
}

async function waitForStatus(pair: Pair, id: string, status: string): Promise<void> {
  for (let i = 0; i < 500; i += 1) {
    if ((await statusOf(pair, id)) === status) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`job ${id} never reached ${status} (last: ${await statusOf(pair, id)})`);
}

describe.each(['cloud', 'local'] as ServerKind[])('the documented cloud API against the %s demo', (kind) => {
  let demo: DemoService;
  let pair: Pair;
  let dir: string;

  beforeAll(async () => {
    demo = new DemoService({ flavour: kind, timeScale: 0.05 });
    await demo.start();
    pair = pairFor(kind, demo.url, demo.apiKey);
    dir = await mkdtemp(path.join(tmpdir(), `flowdeck-cloudapi-${kind}-`));
  });

  afterAll(async () => {
    await demo.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('features refine the capabilities of the kind', async () => {
    const before = pair.client.capabilities;
    expect(before.discovered).toBe(false);
    const caps = await pair.client.discover();
    expect(caps.discovered).toBe(true);
    expect(caps.previewMetadata).toBe(true);
    if (kind === 'cloud') {
      expect(caps).toMatchObject({
        interrupt: 'all-running',
        jobList: 'jobs-endpoint',
        jobStatus: 'status-endpoint',
        uploadReference: 'name',
        maxConcurrentJobs: 1,
        clientPromptId: false,
      });
      expect(caps.uploadLimits).toEqual(CLOUD_UPLOAD_LIMITS);
    } else {
      expect(caps).toMatchObject({
        interrupt: 'one-prompt',
        jobList: 'history',
        jobStatus: 'queue-and-history',
        uploadReference: 'subfolder/name',
        maxConcurrentJobs: null,
        clientPromptId: true,
      });
      expect(caps.uploadLimits.maxBytes).toBe(100 * 1024 * 1024);
    }
  });

  it('lists jobs in one shape: filtered, sorted, paged; one job with its workflow and outputs', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 3; i += 1) {
      const { promptId } = await pair.client.submit(samplerWorkflow({ steps: 1, delayMs: 1, seed: 100 + i, prefix: `list${i}` }), { clientId: 'lister' });
      ids.push(promptId);
    }
    for (const id of ids) await waitForStatus(pair, id, 'completed');

    const page = await pair.client.listJobs({ status: ['completed'], limit: 2 });
    expect(page.pagination).toMatchObject({ offset: 0, limit: 2, hasMore: true });
    expect(page.pagination.total).toBeGreaterThanOrEqual(3);
    expect(page.jobs).toHaveLength(2);
    // Newest first by default.
    expect(page.jobs.map((j) => j.id)).toEqual([ids[2], ids[1]]);
    for (const job of page.jobs) {
      expect(job.status).toBe('completed');
      expect(job.outputsCount).toBe(1);
      expect(job.preview?.filename).toMatch(/^list\d/);
      expect(job.startedAt).toEqual(expect.any(Number));
      expect(job.endedAt).toBeGreaterThanOrEqual(job.startedAt ?? Infinity);
    }
    const next = await pair.client.listJobs({ status: ['completed'], limit: 2, offset: 2, sortOrder: 'desc' });
    expect(next.jobs[0]?.id).toBe(ids[0]);
    const oldestFirst = await pair.client.listJobs({ sortOrder: 'asc', limit: 1000 });
    expect(oldestFirst.jobs.map((j) => j.id).filter((id) => ids.includes(id))).toEqual(ids);
    expect((await pair.client.listJobs({ status: ['failed'] })).jobs).toEqual([]);

    const detail = await pair.client.getJob(ids[0]!);
    expect(detail).toMatchObject({ id: ids[0], status: 'completed', outputsCount: 1 });
    expect(detail.workflow?.['3']).toMatchObject({ class_type: 'DemoSampler' });
    expect(detail.outputs.map((o) => o.filename)).toEqual([detail.preview?.filename]);

    const missing = await pair.client.getJob('00000000-0000-4000-8000-000000000000').catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(ServiceError);
    expect((missing as ServiceError).kind).toBe('not_found');
  });

  it('a failed job lists as failed with its error', async () => {
    const { promptId } = await pair.client.submit(samplerWorkflow({ steps: 2, delayMs: 1, failAtStep: 1 }), { clientId: 'lister' });
    await waitForStatus(pair, promptId, 'failed');
    const [job] = (await pair.client.listJobs({ status: ['failed'], limit: 1 })).jobs;
    expect(job?.id).toBe(promptId);
    expect(job?.errorMessage).toMatch(/fail/i);
  });

  it('cancel removes a waiting job; stopJob stops the running one (alone, so no one else is hit)', async () => {
    const long = await pair.client.submit(samplerWorkflow({ steps: 200, delayMs: 1000 }), { clientId: 'stopper' });
    const waiting = await pair.client.submit(samplerWorkflow({ steps: 1, delayMs: 1, seed: 7 }), { clientId: 'stopper' });
    await waitForStatus(pair, long.promptId, 'in_progress');
    expect(await statusOf(pair, waiting.promptId)).toBe('pending');

    // Deleting from the queue never touches a running job: on the cloud it comes back still running.
    const result = await pair.client.cancel([waiting.promptId, long.promptId]);
    if (kind === 'cloud') expect(await statusOf(pair, waiting.promptId)).toBe('cancelled');
    // A local server forgets a deleted job: no queue entry, no history.
    else expect(await pair.client.getJob(waiting.promptId).catch((e: ServiceError) => e.kind)).toBe('not_found');
    if (kind === 'cloud') {
      expect(result.stillRunning).toEqual([long.promptId]);
      expect(await statusOf(pair, long.promptId)).toBe('in_progress');
      expect(await pair.client.stopJob(long.promptId)).toEqual({ kind: 'stopped', stoppedRunning: 1 });
    } else {
      // Locally the running id was interrupted by its prompt_id.
      expect(result.stillRunning).toEqual([]);
    }
    await waitForStatus(pair, long.promptId, 'cancelled');
  });

  it('interrupt: the cloud stops every running job of the account; locally only the named prompt', async () => {
    const running = await pair.client.submit(samplerWorkflow({ steps: 200, delayMs: 1000, seed: 11 }), { clientId: 'int' });
    await waitForStatus(pair, running.promptId, 'in_progress');
    // An id that is not the running one: locally nothing stops; the cloud has no per-job interrupt.
    await pair.client.interrupt('00000000-0000-4000-8000-000000000001');
    if (kind === 'local') {
      expect(await statusOf(pair, running.promptId)).toBe('in_progress');
      await pair.client.interrupt(running.promptId);
    }
    await waitForStatus(pair, running.promptId, 'cancelled');
  });

  it('upload limits are checked before a byte is sent, with a clear message', async () => {
    const huge = path.join(dir, 'wide.png');
    await writeFile(huge, pngHeader(20000, 10));
    const posts = (): number => pair.logs.filter((l) => l.startsWith('POST /api/upload/image')).length;
    const before = posts();
    const outcome = await pair.client.uploadImage(huge).catch((e: unknown) => e);
    if (kind === 'cloud') {
      expect(outcome).toBeInstanceOf(ServiceError);
      expect((outcome as Error).message).toBe('wide.png is 20000x10 pixels; the server accepts at most 16384 pixels per side. Scale it down first.');
      expect(posts()).toBe(before);
    } else {
      // No pixel limit locally: the header passes the check and reaches the server.
      expect(posts()).toBe(before + 1);
    }
  });
});

describe('cloud demo enforces the documented upload limits with 400', () => {
  it('refuses an image wider than 16384 px and one beyond 64 megapixels', async () => {
    const demo = new DemoService({ flavour: 'cloud' });
    await demo.start();
    try {
      for (const [w, h, code] of [
        [20000, 10, 'image_too_large'],
        [9000, 9000, 'image_too_large'],
      ] as const) {
        const form = new FormData();
        form.set('image', new Blob([new Uint8Array(pngHeader(w, h))], { type: 'image/png' }), 'big.png');
        const res = await fetch(`${demo.url}/api/upload/image`, { method: 'POST', body: form, headers: { 'X-API-Key': demo.apiKey ?? '' } });
        expect(res.status).toBe(400);
        expect(await res.json()).toMatchObject({ code });
      }
    } finally {
      await demo.stop();
    }
  });
});

describe('stopping one running cloud job while others run', () => {
  let server: Server;
  let url: string;
  const interrupts: string[] = [];
  const running = ['a0000000-0000-4000-8000-000000000001', 'a0000000-0000-4000-8000-000000000002', 'a0000000-0000-4000-8000-000000000003'];

  beforeAll(async () => {
    // The documented cloud: three jobs run; delete cancels pending only; interrupt stops them all.
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString('utf8')));
      req.on('end', () => {
        res.setHeader('Content-Type', 'application/json');
        if (req.url === '/api/queue' && req.method === 'GET')
          return res.end(JSON.stringify({ queue_running: running.map((id, i) => [i, id, {}, [], {}]), queue_pending: [] }));
        if (req.url === '/api/queue') return res.end(JSON.stringify({ deleted: [], cleared: false }));
        if (req.url === '/api/interrupt') {
          interrupts.push(body);
          return res.end('{}');
        }
        res.statusCode = 404;
        res.end('{"code":"not_found","message":"no"}');
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await new Promise((r) => server.close(r));
  });

  it('says it would stop all N and stops nothing until told to', async () => {
    const client = new ServiceClient({ kind: 'cloud', baseUrl: url }, { apiKey: () => 'k' });
    expect(await client.stopJob(running[1]!)).toEqual({ kind: 'would_stop_others', running: 3 });
    expect(interrupts).toEqual([]);
    expect(await client.stopJob(running[1]!, { stopOthers: true })).toEqual({ kind: 'stopped', stoppedRunning: 3 });
    expect(interrupts).toHaveLength(1);
  });

  it('a local server is interrupted with the prompt id, one job only', async () => {
    const client = new ServiceClient({ kind: 'local', baseUrl: url }, { apiKey: () => null });
    expect(await client.stopJob(running[2]!)).toEqual({ kind: 'stopped' });
    expect(JSON.parse(interrupts.at(-1) ?? '{}')).toEqual({ prompt_id: running[2] });
  });
});

describe('capabilities', () => {
  it('max_upload_size overrides the size limit; uploaded names follow the reference rule', () => {
    const cloud = capabilitiesFor('cloud', { supportsPreviewMetadata: false, maxUploadSize: 10_000_000, maxConcurrentJobs: 3 });
    expect(cloud.uploadLimits).toEqual({ ...CLOUD_UPLOAD_LIMITS, maxBytes: 10_000_000 });
    expect(cloud).toMatchObject({ previewMetadata: false, maxConcurrentJobs: 3, discovered: true });
    expect(uploadedInputValue(cloud, { name: 'a.png', subfolder: 'x', type: 'input' })).toBe('a.png');
    expect(uploadedInputValue(capabilitiesFor('local'), { name: 'a.png', subfolder: 'x', type: 'input' })).toBe('x/a.png');
    expect(uploadedInputValue(capabilitiesFor('local'), { name: 'a.png', subfolder: '', type: 'input' })).toBe('a.png');
  });

  it('names the limit that a file breaks', () => {
    const limits = CLOUD_UPLOAD_LIMITS;
    expect(uploadLimitProblem(limits, { name: 'a.png', bytes: 60_000_000, width: 10, height: 10 })).toBe(
      'a.png is 60.0 MB; the server accepts at most 50.0 MB per file. Use a smaller or more compressed file.',
    );
    expect(uploadLimitProblem(limits, { name: 'a.png', bytes: 1, width: 9000, height: 9000 })).toMatch(
      /^a\.png is 9000x9000 pixels \(77\.2 megapixels\); the server accepts at most 64\.0 megapixels/,
    );
    expect(uploadLimitProblem(limits, { name: 'a.png', bytes: 1, width: 16384, height: 4096 })).toBeNull();
    expect(uploadLimitProblem(limits, { name: 'a.webp', bytes: 1, width: null, height: null })).toBeNull();
  });
});
