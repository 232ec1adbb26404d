// A local server's job list (client.listJobs over /api/queue + /api/history): each job's detail
// comes with the page (the history entry holds the workflow and outputs, so the History view asks
// nothing per job), the history is read only as deep as a newest-first page needs, and a list cut
// at MAX_LOCAL_HISTORY_DEPTH says so. Against the local demo, every request the client sends recorded.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DemoService } from '../../src/main/demo';
import { ServiceClient } from '@main/service/client';
import { localHistoryDepth, localJobPage, MAX_LOCAL_HISTORY_DEPTH } from '@main/service/job-list';
import type { Workflow } from '@main/service/types';
import { parseJsonExact } from '@shared/json';

const MAX_SEED = '18446744073709551615';

/** A finished entry of a local /api/history, created at `createdAt`. */
function historyEntry(id: string, createdAt: number): unknown {
  return {
    prompt: [createdAt, id, { '1': { class_type: 'DemoSampler', inputs: { n: createdAt } } }, { create_time: createdAt }, ['9']],
    outputs: { '9': { images: [{ filename: `${id}.png`, subfolder: '', type: 'output' }] } },
    status: {
      status_str: 'success',
      completed: true,
      messages: [
        ['execution_start', { timestamp: createdAt }],
        ['execution_success', { timestamp: createdAt + 1 }],
      ],
    },
  };
}

function historyOf(count: number): Record<string, unknown> {
  return Object.fromEntries(Array.from({ length: count }, (_, i) => [`job-${i}`, historyEntry(`job-${i}`, 1000 + i)]));
}

describe('localHistoryDepth and localJobPage', () => {
  it('reads as deep as a newest-first page reaches, plus one; any other query up to the cap', () => {
    expect(localHistoryDepth({ offset: 0, limit: 20 })).toBe(21);
    expect(localHistoryDepth({ offset: 40, limit: 20, sortBy: 'create_time', sortOrder: 'desc' })).toBe(61);
    expect(localHistoryDepth({ offset: 990, limit: 20 })).toBe(MAX_LOCAL_HISTORY_DEPTH);
    expect(localHistoryDepth({ status: ['completed'], limit: 20 })).toBe(MAX_LOCAL_HISTORY_DEPTH);
    expect(localHistoryDepth({ sortOrder: 'asc', limit: 20 })).toBe(MAX_LOCAL_HISTORY_DEPTH);
    expect(localHistoryDepth({ sortBy: 'execution_time', limit: 20 })).toBe(MAX_LOCAL_HISTORY_DEPTH);
  });

  it('gives each job of the page its detail, in the same order, queued jobs first', () => {
    const page = localJobPage(historyOf(3), { running: [{ promptId: 'live', number: 9 }], pending: [] }, { offset: 0, limit: 3 }, null, 4);
    expect(page.jobs.map((j) => j.id)).toEqual(['live', 'job-2', 'job-1']);
    expect(page.details?.map((j) => j.id)).toEqual(['live', 'job-2', 'job-1']);
    expect(page.details?.[0]).toMatchObject({ status: 'in_progress', workflow: null, outputs: [] });
    expect(page.details?.[1]).toMatchObject({ status: 'completed', createdAt: 1002, endedAt: 1003, workflow: { '1': { inputs: { n: 1002 } } } });
    expect(page.details?.[1]?.outputs.map((o) => o.filename)).toEqual(['job-2.png']);
    // The summaries stay summaries.
    expect(page.jobs[1]).not.toHaveProperty('workflow');
    expect(page.pagination).toEqual({ offset: 0, limit: 3, total: 4, hasMore: true });
    expect(page.depthLimit).toBeUndefined();
  });

  it('says when the history was cut at the cap, not when a shallower read was all the page needed', () => {
    const full = historyOf(MAX_LOCAL_HISTORY_DEPTH);
    const none = { running: [], pending: [] };
    const last = localJobPage(full, none, { offset: 980, limit: 20 }, null, MAX_LOCAL_HISTORY_DEPTH);
    expect(last.jobs).toHaveLength(20);
    expect(last.pagination.hasMore).toBe(false);
    expect(last.depthLimit).toBe(MAX_LOCAL_HISTORY_DEPTH);
    expect(localJobPage(historyOf(21), none, { offset: 0, limit: 20 }, null, 21).depthLimit).toBeUndefined();
    expect(localJobPage(historyOf(999), none, { offset: 980, limit: 20 }, null, MAX_LOCAL_HISTORY_DEPTH).depthLimit).toBeUndefined();
  });
});

describe('listJobs on the local demo', () => {
  const service = new DemoService({ flavour: 'local', timeScale: 0.05 });
  const requests: string[] = [];
  let client: ServiceClient;
  const ids: string[] = [];

  beforeAll(async () => {
    await service.start();
    const recording: typeof fetch = (input, init) => {
      const url = new URL(input instanceof Request ? input.url : String(input));
      requests.push(`${url.pathname}${url.search}`);
      return fetch(input, init);
    };
    client = new ServiceClient({ kind: 'local', baseUrl: service.url }, { apiKey: () => null, fetch: recording });
    for (let i = 0; i < 3; i += 1) {
      // Text on purpose: the seed is 2^64-1, which a JavaScript number cannot hold.
      const workflow = parseJsonExact(
        `{"3": {"class_type": "DemoSampler", "inputs": {"prompt": "n${i}", "seed": ${MAX_SEED}, "steps": 1, "width": 32, "height": 32, "cfg": 7, "sampler_name": "euler", "delay_ms": 1}},
          "9": {"class_type": "SaveImage", "inputs": {"images": ["3", 0], "filename_prefix": "local-list"}}}`,
      ) as Workflow;
      ids.push((await client.submit(workflow, { clientId: 'lister' })).promptId);
    }
    const deadline = Date.now() + 15_000;
    while ((await client.listJobs({ status: ['completed'] })).jobs.length < 3) {
      if (Date.now() > deadline) throw new Error('the three jobs did not complete within 15 s');
      await new Promise((r) => setTimeout(r, 50));
    }
  });
  afterAll(async () => {
    await service.stop();
  });

  it('answers a newest-first page with two requests, the history read two deep, each job with its exact workflow', async () => {
    requests.length = 0;
    const page = await client.listJobs({ offset: 0, limit: 1, sortBy: 'create_time', sortOrder: 'desc' });
    expect(requests).toEqual(['/api/queue', '/api/history?max_items=2']);
    expect(page.jobs.map((j) => j.id)).toEqual([ids[2]]);
    expect(page.pagination.hasMore).toBe(true);
    const detail = page.details?.[0];
    expect(detail?.id).toBe(ids[2]);
    expect((detail?.workflow?.['3'] as { inputs: { seed: unknown } } | undefined)?.inputs.seed).toBe(BigInt(MAX_SEED));
    expect(detail?.outputs).toHaveLength(1);
    // The same as getJob says of it.
    expect(await client.getJob(ids[2]!)).toEqual(detail);
  });

  it('reads the history up to the cap for any other order', async () => {
    requests.length = 0;
    const page = await client.listJobs({ sortOrder: 'asc', limit: 2 });
    expect(requests).toEqual(['/api/queue', `/api/history?max_items=${MAX_LOCAL_HISTORY_DEPTH}`]);
    expect(page.jobs.map((j) => j.id)).toEqual(ids.slice(0, 2));
    expect(page.depthLimit).toBeUndefined();
  });
});
