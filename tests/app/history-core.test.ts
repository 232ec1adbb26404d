// history.list against a real local-flavour demo server: the app's own journal (paged, newest first,
// workflows exact, origin "this window") and the server's /api/history (jobs of another client
// included, origin "another client"), and output.fetch of a job only the server's history knows.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CallInput, CallName, CallResult, Envelope, EventPayload } from '../../src/shared/ipc/contract';
import { parseJsonExact } from '../../src/shared/json';
import type { AppCore } from '../../src/main/app/core';
import type { AppEvent } from '../../src/main/app/event-hub';
import { DemoService } from '../../src/main/demo';
import { demoCoreInTemp, failure, ok, type DemoCore } from '../support/demo-core';

const MAX_SEED = '18446744073709551615';

function workflowText(prompt: string): string {
  // Text on purpose: the seed is 2^64-1, which a JavaScript number cannot hold.
  return `{"3": {"class_type": "DemoSampler", "inputs": {"prompt": ${JSON.stringify(prompt)}, "seed": ${MAX_SEED}, "steps": 2, "width": 64, "height": 64,
    "cfg": 7, "sampler_name": "euler", "delay_ms": 10, "fail_at_step": 0}},
    "9": {"class_type": "SaveImage", "inputs": {"images": ["3", 0], "filename_prefix": "History"}}}`;
}

describe('history.list', () => {
  let service: DemoService;
  let demo: DemoCore;
  let core: AppCore;
  let events: AppEvent[];

  async function call<N extends CallName>(name: N, input?: CallInput<N>): Promise<Envelope<CallResult<N>>> {
    return (await core.invoke(name, input)) as Envelope<CallResult<N>>;
  }
  async function ended(promptId: string): Promise<void> {
    const deadline = Date.now() + 15_000;
    while (Date.now() < deadline) {
      const done = events.some((e) => e.name === 'job.update' && (e.payload as EventPayload<'job.update'>).promptId === promptId && (e.payload as EventPayload<'job.update'>).phase === 'succeeded');
      if (done) return;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`job ${promptId} did not succeed within 15 s`);
  }

  beforeAll(async () => {
    service = new DemoService({ flavour: 'local', host: '127.0.0.1', port: 0, timeScale: 0.05 });
    await service.start();
    demo = demoCoreInTemp('flowdeck-history-');
    ({ core, events } = demo);
    await core.start();
    await ok(core, 'profiles.save', { name: 'Local', kind: 'local', baseUrl: service.url, select: true });
  });

  afterAll(async () => {
    await demo?.close();
    await service?.stop();
  });

  it('lists the app journal newest first, paged, with the workflow exact and the origin', async () => {
    const first = (await ok(core, 'run.submit', { workflowJson: workflowText('first'), label: 'first.json' })).promptIds[0]!;
    await ended(first);
    const second = (await ok(core, 'run.submit', { workflowJson: workflowText('second'), label: 'second.json' })).promptIds[0]!;
    await ended(second);

    const page1 = await ok(core, 'history.list', { source: 'app', offset: 0, limit: 1 });
    expect(page1.entries.map((e) => e.promptId)).toEqual([second]);
    expect(page1.hasMore).toBe(true);
    const page2 = await ok(core, 'history.list', { source: 'app', offset: 1, limit: 1 });
    expect(page2.entries.map((e) => e.promptId)).toEqual([first]);
    expect(page2.hasMore).toBe(false);
    const entry = page2.entries[0]!;
    expect(entry).toMatchObject({ label: 'first.json', phase: 'succeeded', origin: 'window' });
    expect(entry.outputs.length).toBeGreaterThan(0);
    expect(entry.workflowJson).toContain(`"seed":${MAX_SEED}`);
    const workflow = parseJsonExact(entry.workflowJson!) as { '3': { inputs: { seed: unknown } } };
    expect(workflow['3'].inputs.seed).toBe(BigInt(MAX_SEED));
    // The live jobs carry their origin too.
    const { jobs } = await ok(core, 'jobs.list');
    expect(jobs.find((j) => j.promptId === first)?.origin).toBe('window');
  });

  it("lists the server's history, another client's jobs included, and fetches their outputs", async () => {
    // Another client submits straight to the server.
    const response = await fetch(`${service.url}/api/prompt`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: `{"prompt": ${workflowText('from elsewhere')}, "client_id": "someone-else"}`,
    });
    expect(response.status).toBe(200);
    const { prompt_id: other } = (await response.json()) as { prompt_id: string };
    const deadline = Date.now() + 15_000;
    let page = await ok(core, 'history.list', { source: 'server', offset: 0, limit: 10 });
    while (!page.entries.some((e) => e.promptId === other) && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 100));
      page = await ok(core, 'history.list', { source: 'server', offset: 0, limit: 10 });
    }
    expect(page.entries).toHaveLength(3);
    expect(page.entries[0]!.promptId).toBe(other);
    const elsewhere = page.entries[0]!;
    expect(elsewhere).toMatchObject({ origin: 'other', phase: 'succeeded', label: 'workflow' });
    expect(elsewhere.workflowJson).toContain(`"seed":${MAX_SEED}`);
    expect(elsewhere.submittedAt).toEqual(expect.any(Number));
    expect(page.entries.slice(1).map((e) => [e.label, e.origin])).toEqual([
      ['second.json', 'window'],
      ['first.json', 'window'],
    ]);
    // Paging.
    const second = await ok(core, 'history.list', { source: 'server', offset: 2, limit: 2 });
    expect(second.entries.map((e) => e.label)).toEqual(['first.json']);
    expect(second.hasMore).toBe(false);

    // The other client's output is fetched because the server's history names it; nothing else is.
    const file = elsewhere.outputs[0]!;
    const fetched = await ok(core, 'output.fetch', { promptId: other, file: { filename: file.filename, subfolder: file.subfolder, type: file.type } });
    expect(fetched.bytes.byteLength).toBeGreaterThan(0);
    expect((await failure(core, 'output.fetch', { promptId: other, file: { filename: 'not-made-by-it.png', subfolder: '', type: 'output' } })).code).toBe('not_found');
  });

  it("lists the cloud's jobs from GET /api/jobs with each job's workflow exact and its outputs (demo, cloud flavour)", async () => {
    await ok(core, 'profiles.select', { id: (await ok(core, 'profiles.list')).profiles.find((p) => p.kind === 'demo')!.id });
    const deadline = Date.now() + 15_000;
    let submitted = await call('run.submit', { workflowJson: workflowText('on the cloud'), label: 'cloud.json' });
    while (!submitted.ok && Date.now() < deadline) {
      // The demo service is still starting.
      await new Promise((r) => setTimeout(r, 100));
      submitted = await call('run.submit', { workflowJson: workflowText('on the cloud'), label: 'cloud.json' });
    }
    if (!submitted.ok) throw new Error(`run.submit failed: ${submitted.error.message}`);
    const promptId = submitted.value.promptIds[0]!;
    await ended(promptId);
    const page = await ok(core, 'history.list', { source: 'server', offset: 0, limit: 10 });
    expect(page.note).toBeNull();
    const entry = page.entries.find((e) => e.promptId === promptId);
    expect(entry).toMatchObject({ label: 'cloud.json', origin: 'window', phase: 'succeeded' });
    expect(entry!.outputs.length).toBeGreaterThan(0);
    const workflow = parseJsonExact(entry!.workflowJson!) as { '3': { inputs: { seed: unknown } } };
    expect(workflow['3'].inputs.seed).toBe(BigInt(MAX_SEED));
    // The app's own history does not depend on the server.
    expect((await ok(core, 'history.list', { source: 'app', offset: 0, limit: 10 })).entries).toHaveLength(3);
  });
});
