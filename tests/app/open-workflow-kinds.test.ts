// workflow.open against the real app core on demo services: the three kinds of file (API JSON, UI
// JSON converted with the active server's definitions, a PNG/WebP carrying its workflow), the ways
// an image can be wrong, "Open workflow" on a library item, and the editor graph's round trip on a
// LOCAL server: run.submit sends it as extra_data.extra_pnginfo.workflow, the server writes it into
// the output PNG, and the reader finds it there again.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CallInput, CallName, CallResult, Envelope, JobSnapshotView, WorkflowParseView } from '@shared/ipc/contract';
import { parseJsonExact, stringifyJsonExact, type JsonObject } from '@shared/json';
import type { AppCore } from '@main/app/core';
import { DemoService } from '../../src/main/demo';
import { encodePng } from '@main/demo/nodes/image-codec';
import { readEmbeddedWorkflow } from '@main/workflow/embedded-workflow';
import { demoAppCore } from '../support/demo-core';

const UI_FILE = resolve(import.meta.dirname, '../fixtures/ui-demo-sampler.json');
const TEXT_TO_IMAGE = resolve(import.meta.dirname, '../../resources/workflows/text-to-image.json');

/** What the editor queues from tests/fixtures/ui-demo-sampler.json (the seed's "fixed" control is not sent). */
const UI_FILE_PROMPT = {
  '3': {
    class_type: 'DemoSampler',
    inputs: { prompt: 'a lighthouse from a UI file', seed: 42, steps: 2, width: 64, height: 64, cfg: 7, sampler_name: 'euler', delay_ms: 10, fail_at_step: 0 },
    _meta: { title: 'Demo Sampler' },
  },
  '9': { class_type: 'SaveImage', inputs: { filename_prefix: 'FromUi', images: ['3', 0] }, _meta: { title: 'Save Image' } },
};

function samplerPrompt(prefix: string): JsonObject {
  const prompt = parseJsonExact(readFileSync(TEXT_TO_IMAGE, 'utf8')) as Record<string, { inputs: JsonObject }>;
  Object.assign(prompt['3']!.inputs, { steps: 2, width: 64, height: 64, delay_ms: 10 });
  prompt['9']!.inputs.filename_prefix = prefix;
  return prompt as unknown as JsonObject;
}

/** A small PNG with the given text chunks, as the server writes them. */
function pngWith(text: Record<string, string>): Uint8Array {
  const data = new Uint8Array(4 * 4 * 4).fill(200);
  return encodePng({ width: 4, height: 4, data }, { text });
}

const UI_GRAPH = readFileSync(UI_FILE, 'utf8');

/** tests/fixtures/ui-demo-sampler.json with the values of a DemoSampler -> SaveImage prompt in its widgets (the seed control kept). */
function uiGraphShowing(prompt: JsonObject): JsonObject {
  const graph = parseJsonExact(UI_GRAPH) as { nodes: JsonObject[] };
  const sampler = (prompt['3'] as { inputs: JsonObject }).inputs;
  const save = (prompt['9'] as { inputs: JsonObject }).inputs;
  graph.nodes[0]!.widgets_values = [
    sampler.prompt!,
    sampler.seed!,
    'fixed',
    sampler.steps!,
    sampler.width!,
    sampler.height!,
    sampler.cfg!,
    sampler.sampler_name!,
    sampler.delay_ms!,
    sampler.fail_at_step!,
  ];
  graph.nodes[1]!.widgets_values = [save.filename_prefix!];
  return graph as unknown as JsonObject;
}

let core: AppCore;
let dataDir = '';
let local: DemoService;
const updates: JobSnapshotView[] = [];

async function call<N extends CallName>(name: N, input?: CallInput<N>): Promise<CallResult<N>> {
  const answer = (await core.invoke(name, input)) as Envelope<CallResult<N>>;
  if (!answer.ok) throw new Error(`${name} failed: ${answer.error.code} ${answer.error.message}`);
  return answer.value;
}

async function openBytes(name: string, bytes: Uint8Array): Promise<WorkflowParseView> {
  const opened = await call('workflow.open', { name, bytes });
  expect(opened).toMatchObject({ opened: true, name, path: null });
  return opened.parse!;
}

function promptOf(parse: WorkflowParseView): unknown {
  if (!('workflowJson' in parse)) throw new Error(`not runnable: ${JSON.stringify(parse)}`);
  return parseJsonExact(parse.workflowJson);
}

async function ended(promptId: string): Promise<JobSnapshotView> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const hit = updates.find((j) => j.promptId === promptId && ['succeeded', 'failed', 'cancelled'].includes(j.phase));
    if (hit) return hit;
    if (Date.now() > deadline) throw new Error(`job ${promptId} did not end within 20 s`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Runs a parse view's workflow as the Run view does (with its editor graph) and returns the first output's bytes. */
async function runAndFetch(parse: WorkflowParseView): Promise<Uint8Array> {
  if (!('workflowJson' in parse)) throw new Error('not runnable');
  const { promptIds } = await call('run.submit', {
    workflowJson: parse.workflowJson,
    label: 'open-kinds',
    ...(parse.uiWorkflowJson ? { uiWorkflowJson: parse.uiWorkflowJson } : {}),
  });
  const job = await ended(promptIds[0]!);
  expect(job.phase).toBe('succeeded');
  const output = job.outputs.find((o) => o.filename.endsWith('.png'))!;
  const fetched = await call('output.fetch', { promptId: job.promptId, file: { filename: output.filename, subfolder: output.subfolder, type: output.type } });
  return fetched.bytes;
}

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'flowdeck-open-kinds-'));
  core = demoAppCore(dataDir);
  core.onEvent((event) => {
    if (event.name === 'job.update') updates.push(event.payload as JobSnapshotView);
  });
  await core.start();
  await call('renderer.ready');
  // The built-in demo (cloud flavour) is active; its definitions mark classes and convert UI files.
  await call('nodes.definitions');
  local = new DemoService({ flavour: 'local', port: 0, timeScale: 0.05 });
  await local.start();
}, 30_000);

afterAll(async () => {
  await core?.dispose();
  await local?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('workflow.open: the three kinds', () => {
  it('opens an API-format JSON as format "api", with no editor graph', async () => {
    const parse = await openBytes('t2i.json', readFileSync(TEXT_TO_IMAGE));
    expect(parse).toMatchObject({ format: 'api', nodeCount: 2, unknownClasses: [], uiWorkflowJson: null, warnings: [] });
    expect(promptOf(parse)).toEqual(parseJsonExact(readFileSync(TEXT_TO_IMAGE, 'utf8')));
  });

  it('converts a UI-format JSON with the active server definitions and keeps the graph', async () => {
    const parse = await openBytes('ui.json', readFileSync(UI_FILE));
    expect(parse).toMatchObject({ format: 'ui', nodeCount: 2, unknownClasses: [] });
    expect(promptOf(parse)).toEqual(UI_FILE_PROMPT);
    if (parse.format !== 'ui') throw new Error('not ui');
    expect(parseJsonExact(parse.uiWorkflowJson!)).toEqual(parseJsonExact(UI_GRAPH));
  });

  it('lists the classes a UI workflow needs and the server lacks, plainly', async () => {
    const graph = { nodes: [{ id: 1, type: 'NoSuchCustomNode', mode: 0, inputs: [], outputs: [], widgets_values: [7, 'x'] }], links: [], version: 0.4 };
    const parse = await openBytes('custom.json', new TextEncoder().encode(JSON.stringify(graph)));
    expect(parse.format).toBe('conversion_failed');
    if (parse.format !== 'conversion_failed') return;
    expect(parse.missingClasses).toEqual(['NoSuchCustomNode']);
    expect(parse.message).toContain('NoSuchCustomNode');
  });

  it('says what a UI workflow with nothing to run holds, instead of a bare "no nodes"', async () => {
    const graph = {
      nodes: [
        { id: 1, type: 'Note', mode: 0, inputs: [], outputs: [], widgets_values: ['read me'] },
        { id: 2, type: 'SaveImage', mode: 2, inputs: [], outputs: [], widgets_values: ['x'] },
      ],
      links: [],
      version: 0.4,
    };
    const parse = await openBytes('notes.json', new TextEncoder().encode(JSON.stringify(graph)));
    expect(parse).toEqual({
      format: 'conversion_failed',
      message:
        'The converted workflow cannot run: Nothing in this workflow runs on the server: it holds 1 note (Note 1), which the editor never sends; 1 muted node (SaveImage 2), which the server never runs.',
      missingClasses: [],
      nodeId: null,
    });
  });

  it('opens a PNG by its prompt chunk (what ran) and keeps its workflow chunk as the editor graph', async () => {
    const prompt = samplerPrompt('FromPng');
    const parse = await openBytes('output.png', pngWith({ prompt: stringifyJsonExact(prompt), workflow: UI_GRAPH }));
    expect(parse).toMatchObject({ format: 'image', nodeCount: 2, unknownClasses: [] });
    expect(promptOf(parse)).toEqual(prompt);
    if (parse.format !== 'image') throw new Error('not image');
    expect(parseJsonExact(parse.uiWorkflowJson!)).toEqual(parseJsonExact(UI_GRAPH));
  });

  it('says plainly that an image without chunks carries no workflow', async () => {
    const parse = await openBytes('plain.png', pngWith({}));
    expect(parse).toEqual({ format: 'not_a_workflow', message: expect.stringContaining('This image carries no workflow') });
  });

  it('names the problem of a truncated PNG, a non-JSON chunk, a fake WebP and a JPEG', async () => {
    const full = pngWith({ prompt: stringifyJsonExact(samplerPrompt('Cut')) });
    expect(await openBytes('cut.png', full.subarray(0, 60))).toEqual({ format: 'not_a_workflow', message: expect.stringMatching(/truncated/) });
    expect(await openBytes('bad.png', pngWith({ prompt: '{not json' }))).toEqual({
      format: 'not_a_workflow',
      message: expect.stringMatching(/"prompt".*not JSON/),
    });
    // A WebP header whose first chunk claims 100 bytes that are not there.
    const fakeWebp = new Uint8Array([...new TextEncoder().encode('RIFF'), 200, 0, 0, 0, ...new TextEncoder().encode('WEBPVP8X'), 100, 0, 0, 0, 1, 2, 3]);
    expect(await openBytes('fake.webp', fakeWebp)).toEqual({ format: 'not_a_workflow', message: expect.stringMatching(/WebP/) });
    const riffWave = new Uint8Array([...new TextEncoder().encode('RIFF'), 4, 0, 0, 0, ...new TextEncoder().encode('WAVE')]);
    expect(await openBytes('sound.webp', riffWave)).toEqual({ format: 'not_a_workflow', message: expect.stringContaining('not a WebP') });
    expect(await openBytes('photo.png', new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 0, 16]))).toEqual({
      format: 'not_a_workflow',
      message: expect.stringContaining('JPEG'),
    });
  });

  it('opens an image by path, and refuses a file over the size cap', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'flowdeck-open-kinds-files-'));
    try {
      const path = join(dir, 'made.png');
      const { writeFileSync, truncateSync } = await import('node:fs');
      writeFileSync(path, pngWith({ prompt: stringifyJsonExact(samplerPrompt('ByPath')) }));
      expect((await call('workflow.open', { path })).parse).toMatchObject({ format: 'image', nodeCount: 2 });
      const huge = join(dir, 'huge.png');
      writeFileSync(huge, '');
      truncateSync(huge, 50 * 1024 * 1024 + 1);
      const answer = (await core.invoke('workflow.open', { path: huge })) as Envelope<unknown>;
      expect(answer).toMatchObject({ ok: false, error: { code: 'invalid_input', message: expect.stringContaining('larger than 50 MB') } });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('the editor graph on the cloud', () => {
  it('is not sent: the output of an image-opened workflow carries only its prompt', async () => {
    const parse = await openBytes('earlier-output.png', pngWith({ prompt: stringifyJsonExact(samplerPrompt('CloudRun')), workflow: UI_GRAPH }));
    expect(parse).toMatchObject({ format: 'image' });
    const output = readEmbeddedWorkflow(await runAndFetch(parse));
    expect(output.prompt).not.toBeNull();
    expect(output.workflow).toBeNull();
  }, 30_000);
});

/** The library item of a job's output, once it is downloaded. */
async function libraryItemOf(promptId: string): Promise<number> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const { items } = await call('library.list', { limit: 10_000 });
    const item = items.find((i) => i.promptId === promptId && i.status === 'done');
    if (item) return item.id;
    if (Date.now() > deadline) throw new Error(`no library item for ${promptId}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('the editor graph on a local server', () => {
  let localId = '';

  beforeAll(async () => {
    const profile = await call('profiles.save', { name: 'Local demo', kind: 'local', baseUrl: local.url, select: true });
    localId = profile.id;
    await call('nodes.definitions', { profileId: localId });
  }, 30_000);

  it('goes out as extra_pnginfo.workflow and comes back in the output PNG (image opened by its chunks)', async () => {
    const prompt = samplerPrompt('RoundTrip');
    const parse = await openBytes('earlier-output.png', pngWith({ prompt: stringifyJsonExact(prompt), workflow: UI_GRAPH }));
    const output = readEmbeddedWorkflow(await runAndFetch(parse));
    expect(output.format).toBe('png');
    expect(output.prompt).toEqual(prompt);
    // The image's prompt is what ran, so the graph that comes back shows its values, not the graph chunk's.
    expect(output.workflow).toEqual(uiGraphShowing(prompt));
    // And that output opens again as an image with the same graph.
    const again = await openBytes('round-trip.png', pngWith({ prompt: stringifyJsonExact(output.prompt), workflow: stringifyJsonExact(output.workflow) }));
    expect(again).toMatchObject({ format: 'image', uiWorkflowJson: stringifyJsonExact(output.workflow) });
  }, 30_000);

  it('"Open workflow" on a library item opens what its image carries, with the editor graph', async () => {
    const prompt = samplerPrompt('LibraryOpen');
    const parse = await openBytes('earlier-output.png', pngWith({ prompt: stringifyJsonExact(prompt), workflow: UI_GRAPH }));
    if (!('workflowJson' in parse)) throw new Error('not runnable');
    const { promptIds } = await call('run.submit', { workflowJson: parse.workflowJson, label: 'library-open', uiWorkflowJson: parse.uiWorkflowJson! });
    await ended(promptIds[0]!);
    const opened = await call('workflow.open', { libraryId: await libraryItemOf(promptIds[0]!) });
    expect(opened).toMatchObject({ opened: true, name: 'library-open', path: null, parse: { format: 'image', nodeCount: 2 } });
    expect(promptOf(opened.parse!)).toEqual(prompt);
    if (opened.parse?.format !== 'image') throw new Error('not image');
    expect(parseJsonExact(opened.parse.uiWorkflowJson!)).toEqual(uiGraphShowing(prompt));
    const missing = (await core.invoke('workflow.open', { libraryId: 999_999 })) as Envelope<unknown>;
    expect(missing).toMatchObject({ ok: false, error: { code: 'not_found' } });
  }, 30_000);

  it('an API workflow sends no editor graph: the output carries only its prompt', async () => {
    const parse = await openBytes('t2i.json', new TextEncoder().encode(stringifyJsonExact(samplerPrompt('ApiOnly'))));
    const output = readEmbeddedWorkflow(await runAndFetch(parse));
    expect(output.prompt).not.toBeNull();
    expect(output.workflow).toBeNull();
  }, 30_000);

  it('a UI file runs converted, and its output opens in the editor', async () => {
    const parse = await openBytes('ui.json', readFileSync(UI_FILE));
    const output = readEmbeddedWorkflow(await runAndFetch(parse));
    expect(output.prompt).toEqual(UI_FILE_PROMPT);
    expect(output.workflow).toEqual(parseJsonExact(UI_GRAPH));
  }, 30_000);

  it('a UI file whose seed and prompt were edited in the form: the graph in the output PNG carries the edited values', async () => {
    const parse = await openBytes('ui.json', readFileSync(UI_FILE));
    if (parse.format !== 'ui') throw new Error('not ui');
    // What the Run form sends after editing: the converted workflow with two values changed.
    const edited = parseJsonExact(parse.workflowJson) as Record<string, { inputs: JsonObject }>;
    edited['3']!.inputs.seed = 18446744073709551615n;
    edited['3']!.inputs.prompt = 'a lighthouse edited in the form';
    const ran = { ...parse, workflowJson: stringifyJsonExact(edited) };
    const output = readEmbeddedWorkflow(await runAndFetch(ran));
    expect(output.prompt).toEqual(edited);
    const sampler = (output.workflow!.nodes as JsonObject[]).find((n) => n.id === 3)!;
    expect(sampler.widgets_values).toEqual(['a lighthouse edited in the form', 18446744073709551615n, 'fixed', 2, 64, 64, 7, 'euler', 10, 0]);
    expect(output.workflow).toEqual(uiGraphShowing(edited as unknown as JsonObject));
    // "Open in editor" / "Open workflow" on that output shows the same values.
    const again = await openBytes('edited-output.png', pngWith({ prompt: stringifyJsonExact(output.prompt), workflow: stringifyJsonExact(output.workflow) }));
    if (again.format !== 'image') throw new Error('not image');
    expect(parseJsonExact(again.uiWorkflowJson!)).toEqual(output.workflow);
  }, 30_000);
});
