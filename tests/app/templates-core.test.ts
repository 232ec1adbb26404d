// "New from template" through the real app core on demo services: templates.list shows the active
// server's gallery, templates.thumbnail answers a data: URL of the picture (never the key, never
// another host), templates.open answers as workflow.open (a UI template converted with the
// server's definitions) and what it opens runs to an output; a server without templates says so.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CallInput, CallName, CallResult, Envelope, JobSnapshotView } from '@shared/ipc/contract';
import { parseJsonExact } from '@shared/json';
import type { AppCore } from '@main/app/core';
import { DemoService } from '../../src/main/demo';
import { demoAppCore } from '../support/demo-core';

let core: AppCore;
let dataDir = '';
let bare: DemoService;
const updates: JobSnapshotView[] = [];

async function answer<N extends CallName>(name: N, input?: CallInput<N>): Promise<Envelope<CallResult<N>>> {
  return (await core.invoke(name, input)) as Envelope<CallResult<N>>;
}

async function call<N extends CallName>(name: N, input?: CallInput<N>): Promise<CallResult<N>> {
  const result = await answer(name, input);
  if (!result.ok) throw new Error(`${name} failed: ${result.error.code} ${result.error.message}`);
  return result.value;
}

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'flowdeck-templates-'));
  core = demoAppCore(dataDir);
  core.onEvent((event) => {
    if (event.name === 'job.update') updates.push(event.payload as JobSnapshotView);
  });
  await core.start();
  await call('renderer.ready');
  bare = new DemoService({ flavour: 'local', templates: false });
  await bare.start();
}, 30_000);

afterAll(async () => {
  await core?.dispose();
  await bare?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('templates on the built-in demo (the active server)', () => {
  it('lists the gallery with thumbnails as data: URLs', async () => {
    const listing = await call('templates.list');
    expect(listing.available).toBe(true);
    expect(listing.note).toBeNull();
    expect(listing.templates.map((t) => t.title)).toEqual(['Text to image', 'Video and audio', 'Image to image', 'Inpaint a masked area', 'Invert colours']);
    const first = listing.templates[0]!;
    const { dataUrl } = await call('templates.thumbnail', { path: first.thumbnail! });
    expect(dataUrl).toMatch(/^data:image\/jpeg;base64,\/9j\//);
  });

  it('refuses a thumbnail path that is not one the listing gives out', async () => {
    const refused = await answer('templates.thumbnail', { path: '/api/view?filename=secret.png' });
    expect(refused).toMatchObject({ ok: false, error: { code: 'not_found' } });
  });

  it('opens a template as a converted UI workflow, and it runs', async () => {
    const opened = await call('templates.open', { source: 'default', name: 'text_to_image' });
    expect(opened).toMatchObject({ opened: true, name: 'text_to_image.json', path: null, parse: { format: 'ui', nodeCount: 2, unknownClasses: [] } });
    const parse = opened.parse!;
    if (parse.format !== 'ui') throw new Error('not a UI workflow');
    const prompt = parseJsonExact(parse.workflowJson) as Record<string, { class_type: string; inputs: Record<string, unknown> }>;
    expect(prompt['3']).toMatchObject({ class_type: 'DemoSampler', inputs: { prompt: 'a lighthouse at dusk, oil painting', steps: 8 } });
    // Small and quick, as a user would change it in the form.
    Object.assign(prompt['3']!.inputs, { width: 64, height: 64, steps: 2, delay_ms: 0 });
    const { promptIds } = await call('run.submit', { workflowJson: JSON.stringify(prompt), label: 'from a template', uiWorkflowJson: parse.uiWorkflowJson! });
    const deadline = Date.now() + 20_000;
    let ended: JobSnapshotView | undefined;
    while (!ended && Date.now() < deadline) {
      ended = updates.find((j) => j.promptId === promptIds[0] && ['succeeded', 'failed', 'cancelled'].includes(j.phase));
      if (!ended) await new Promise((r) => setTimeout(r, 50));
    }
    expect(ended?.phase).toBe('succeeded');
    expect(ended?.outputs.some((o) => o.filename.endsWith('.png'))).toBe(true);
  }, 30_000);

  it('says a template the server does not have is not found', async () => {
    expect(await answer('templates.open', { source: 'default', name: 'no_such_template' })).toMatchObject({ ok: false, error: { code: 'not_found' } });
  });
});

describe('a server without templates', () => {
  it('answers available: false, so the page can say so', async () => {
    const saved = await call('profiles.save', { name: 'Bare local', kind: 'local', baseUrl: bare.url });
    await call('profiles.select', { id: saved.id });
    const listing = await call('templates.list');
    expect(listing).toEqual({ available: false, templates: [], note: null });
  });
});
