// history.list against real demo servers. The app's own journal (paged, newest first, workflows
// exact, origin "this window"), and the server's own jobs on both server kinds (one path: the job
// list, GET /api/jobs on the cloud, /api/queue + /api/history locally): jobs of another client
// included (origin "other"), 64-bit seeds exact, times, errors, a job still running, paging, and
// output.fetch of a job only the server knows.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventPayload, HistoryEntryView } from '@shared/ipc/contract';
import { parseJsonExact } from '@shared/json';
import type { AppCore } from '@main/app/core';
import type { AppEvent } from '@main/app/event-hub';
import { DemoService } from '../../src/main/demo';
import { demosOfBothFlavours } from '../support/both-flavours';
import { demoCoreInTemp, failure, ok, type DemoCore } from '../support/demo-core';

const MAX_SEED = '18446744073709551615';
type Flavour = 'cloud' | 'local';

const services = demosOfBothFlavours(0.05);

function workflowText(prompt: string, options: { steps?: number; delayMs?: number; failAtStep?: number } = {}): string {
  // Text on purpose: the seed is 2^64-1, which a JavaScript number cannot hold.
  return `{"3": {"class_type": "DemoSampler", "inputs": {"prompt": ${JSON.stringify(prompt)}, "seed": ${MAX_SEED}, "steps": ${options.steps ?? 2}, "width": 64, "height": 64,
    "cfg": 7, "sampler_name": "euler", "delay_ms": ${options.delayMs ?? 10}, "fail_at_step": ${options.failAtStep ?? 0}}},
    "9": {"class_type": "SaveImage", "inputs": {"images": ["3", 0], "filename_prefix": "History"}}}`;
}

function seedOf(entry: HistoryEntryView | undefined): unknown {
  const workflow = parseJsonExact(entry?.workflowJson ?? 'null') as { '3': { inputs: { seed: unknown } } } | null;
  return workflow?.['3'].inputs.seed;
}

/** A core on `service` (a profile of its kind, with its key on the cloud), started. */
async function coreOn(service: DemoService, flavour: Flavour): Promise<DemoCore> {
  const demo = demoCoreInTemp(`flowdeck-history-${flavour}-`);
  await demo.core.start();
  await ok(demo.core, 'profiles.save', { name: flavour, kind: flavour, baseUrl: service.url, select: true });
  if (service.apiKey) await ok(demo.core, 'key.save', { key: service.apiKey });
  return demo;
}

async function until<T>(what: string, read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not within 15 s`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function ended(events: AppEvent[], promptId: string, phase: 'succeeded' | 'failed' = 'succeeded'): Promise<void> {
  const phaseOf = (e: AppEvent): string | null =>
    e.name === 'job.update' && (e.payload as EventPayload<'job.update'>).promptId === promptId ? (e.payload as EventPayload<'job.update'>).phase : null;
  await until(
    `job ${promptId} ${phase}`,
    async () => events.some((e) => phaseOf(e) === phase),
    (done) => done,
  );
}

async function submit(core: AppCore, workflowJson: string, label: string): Promise<string> {
  // Right after the profile is chosen the connection may still be coming up.
  const answer = await until(
    'run.submit',
    () => core.invoke('run.submit', { workflowJson, label }),
    (a) => a.ok,
  );
  if (!answer.ok) throw new Error('unreachable');
  return (answer.value as { promptIds: string[] }).promptIds[0]!;
}

/** Another client (a script, the editor's web page) sends straight to the server; on the cloud with the same account's key. */
async function submitElsewhere(service: DemoService, workflowJson: string): Promise<string> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (service.apiKey) headers['x-api-key'] = service.apiKey;
  const response = await fetch(`${service.url}/api/prompt`, { method: 'POST', headers, body: `{"prompt": ${workflowJson}, "client_id": "someone-else"}` });
  expect(response.status).toBe(200);
  return ((await response.json()) as { prompt_id: string }).prompt_id;
}

describe("history.list of the app's journal", () => {
  // A server of its own: the server lists below count every job theirs holds.
  const service = new DemoService({ flavour: 'local', timeScale: 0.05 });
  let demo: DemoCore;

  beforeAll(async () => {
    await service.start();
    demo = await coreOn(service, 'local');
  });
  afterAll(async () => {
    await demo?.close();
    await service.stop();
  });

  it('lists the app journal newest first, paged, with the workflow exact and the origin', async () => {
    const { core, events } = demo;
    const first = await submit(core, workflowText('first'), 'first.json');
    await ended(events, first);
    const second = await submit(core, workflowText('second'), 'second.json');
    await ended(events, second);

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
    expect(seedOf(entry)).toBe(BigInt(MAX_SEED));
    // The live jobs carry their origin too.
    const { jobs } = await ok(core, 'jobs.list');
    expect(jobs.find((j) => j.promptId === first)?.origin).toBe('window');
  });
});

describe.each(['cloud', 'local'] as Flavour[])("history.list of the server's jobs (%s demo)", (flavour) => {
  let demo: DemoCore;
  // Newest first once the first test has run: [other, failed, second, first].
  const ids: { first: string; second: string; failed: string; other: string } = { first: '', second: '', failed: '', other: '' };

  beforeAll(async () => {
    demo = await coreOn(services[flavour], flavour);
  });
  afterAll(async () => {
    await demo?.close();
  });

  it("lists this app's jobs and another client's, newest first, workflows exact, with times, outputs and errors", async () => {
    const { core, events } = demo;
    const service = services[flavour];
    ids.first = await submit(core, workflowText('first'), 'first.json');
    await ended(events, ids.first);
    ids.second = await submit(core, workflowText('second'), 'second.json');
    await ended(events, ids.second);
    ids.failed = await submit(core, workflowText('breaks', { failAtStep: 1 }), 'breaks.json');
    await ended(events, ids.failed, 'failed');
    ids.other = await submitElsewhere(service, workflowText('from elsewhere'));

    const page = await until(
      "the other client's job, ended",
      () => ok(core, 'history.list', { source: 'server', offset: 0, limit: 10 }),
      (p) => p.entries.some((e) => e.promptId === ids.other && e.phase === 'succeeded'),
    );
    expect(page.note).toBeNull();
    expect(page.hasMore).toBe(false);
    expect(page.entries.map((e) => [e.promptId, e.label, e.origin, e.phase])).toEqual([
      [ids.other, 'workflow', 'other', 'succeeded'],
      [ids.failed, 'breaks.json', 'window', 'failed'],
      [ids.second, 'second.json', 'window', 'succeeded'],
      [ids.first, 'first.json', 'window', 'succeeded'],
    ]);
    const [elsewhere, failed] = page.entries;
    // The workflow as the server holds it, every digit of the seed kept (the other client's job is
    // not in the journal: this is the server's copy).
    expect(elsewhere!.workflowJson).toContain(`"seed":${MAX_SEED}`);
    expect(seedOf(elsewhere)).toBe(BigInt(MAX_SEED));
    expect(JSON.parse(elsewhere!.workflowJson!.replace(MAX_SEED, '0'))['3'].inputs.prompt).toBe('from elsewhere');
    for (const entry of page.entries) {
      expect(entry.submittedAt).toEqual(expect.any(Number));
      expect(entry.finishedAt).toBeGreaterThanOrEqual(entry.submittedAt!);
      expect(seedOf(entry)).toBe(BigInt(MAX_SEED));
    }
    expect(elsewhere!.outputs.length).toBeGreaterThan(0);
    expect(elsewhere!.errorMessage).toBeNull();
    expect(failed!.errorMessage).toMatch(/fail/i);
    expect(failed!.outputs).toEqual([]);
  });

  it('pages through the list', async () => {
    const { core } = demo;
    const first = await ok(core, 'history.list', { source: 'server', offset: 0, limit: 2 });
    expect(first.entries.map((e) => e.promptId)).toEqual([ids.other, ids.failed]);
    expect(first.hasMore).toBe(true);
    const second = await ok(core, 'history.list', { source: 'server', offset: 2, limit: 2 });
    expect(second.entries.map((e) => e.promptId)).toEqual([ids.second, ids.first]);
    expect(second.hasMore).toBe(false);
    const beyond = await ok(core, 'history.list', { source: 'server', offset: 4, limit: 2 });
    expect(beyond).toMatchObject({ entries: [], hasMore: false, note: null });
  });

  it("fetches another client's output, named by the server's list, and nothing it did not make", async () => {
    const { core } = demo;
    const page = await ok(core, 'history.list', { source: 'server', offset: 0, limit: 1 });
    const file = page.entries[0]!.outputs[0]!;
    const fetched = await ok(core, 'output.fetch', { promptId: ids.other, file: { filename: file.filename, subfolder: file.subfolder, type: file.type } });
    expect(fetched.bytes.byteLength).toBeGreaterThan(0);
    expect((await failure(core, 'output.fetch', { promptId: ids.other, file: { filename: 'not-made-by-it.png', subfolder: '', type: 'output' } })).code).toBe(
      'not_found',
    );
  });

  it('lists a job still running, with the workflow this app sent', async () => {
    const { core, events } = demo;
    const slow = await submit(core, workflowText('slow', { steps: 20, delayMs: 1000 }), 'slow.json');
    const page = await until(
      'the slow job in the list',
      () => ok(core, 'history.list', { source: 'server', offset: 0, limit: 10 }),
      (p) => p.entries[0]?.promptId === slow,
    );
    const entry = page.entries[0]!;
    expect(['pending', 'running']).toContain(entry.phase);
    expect(entry).toMatchObject({ label: 'slow.json', origin: 'window', finishedAt: null });
    expect(seedOf(entry)).toBe(BigInt(MAX_SEED));
    expect(page.entries).toHaveLength(5);
    await ended(events, slow);
  });

  it("lists another client's job still waiting or running, with the workflow the server holds", async () => {
    const { core } = demo;
    // Two slow jobs: on a local server the second waits in the queue behind the first.
    const running = await submitElsewhere(services[flavour], workflowText('elsewhere, slow', { steps: 20, delayMs: 300 }));
    const waiting = await submitElsewhere(services[flavour], workflowText('elsewhere, waiting', { steps: 20, delayMs: 300 }));
    const page = await until(
      "the other client's jobs in the list",
      () => ok(core, 'history.list', { source: 'server', offset: 0, limit: 10 }),
      (p) => p.entries[0]?.promptId === waiting && p.entries[1]?.promptId === running,
    );
    for (const [entry, prompt] of [
      [page.entries[0], 'elsewhere, waiting'],
      [page.entries[1], 'elsewhere, slow'],
    ] as const) {
      expect(['pending', 'running']).toContain(entry!.phase);
      expect(entry).toMatchObject({ origin: 'other', finishedAt: null });
      // The server's copy of the workflow, every digit of the seed kept.
      expect(seedOf(entry)).toBe(BigInt(MAX_SEED));
      expect(JSON.parse(entry!.workflowJson!.replace(MAX_SEED, '0'))['3'].inputs.prompt).toBe(prompt);
    }
    // Not left running for the next file's services: the waiting one deleted, the running one stopped.
    const headers = { 'content-type': 'application/json', ...(services[flavour].apiKey ? { 'x-api-key': services[flavour].apiKey } : {}) };
    await fetch(`${services[flavour].url}/api/queue`, { method: 'POST', headers, body: JSON.stringify({ delete: [waiting] }) });
    await fetch(`${services[flavour].url}/api/interrupt`, { method: 'POST', headers, body: '{}' });
  });
});
