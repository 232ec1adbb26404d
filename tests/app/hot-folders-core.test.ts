// Hot folders through the app core, against the built-in demo service (real HTTP + WebSocket, real
// files): a folder saved with hotFolders.save runs every image dropped into it, its rows and
// counters reach the renderer as events, each output is written with its sidecar and enters the
// library exactly once (downloaded once: the app does not record the folder's jobs itself), with
// the input file as its source. Then pause/resume, retryFailed, restart, remove, and the calls'
// errors.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { EventName, EventPayload } from '@shared/ipc/contract';
import type { HotFileView, HotFolderView } from '@shared/ipc/hot-folders-contract';
import { createConnectFactory } from '@main/app/connect';
import type { AppCore, AppCoreDeps } from '@main/app/core';
import type { DesktopActions } from '@main/app/desktop';
import type { ConnectFactory } from '@main/app/session';
import { Store } from '@main/store/store';
import { Library, type LibraryItem } from '../../src/main/library';
import { withTextChunks } from '@main/demo/nodes/png-text';
import { graph, node } from '../workflow/ui-fixtures';
import { invertWorkflow, makePng, until } from '../watch/helpers';
import { demoAppCore, failure } from '../support/demo-core';

const WORKFLOW_JSON = JSON.stringify(invertWorkflow());

let work = '';
let dataDir = '';
let inDir = '';
let outDir = '';
const cores: AppCore[] = [];

interface Recorded {
  events: { name: EventName; payload: unknown }[];
  notes: { title: string; body: string }[];
  opened: string[];
  downloads: number;
}

beforeEach(() => {
  work = mkdtempSync(join(tmpdir(), 'flowdeck-hot-core-'));
  dataDir = join(work, 'data');
  inDir = join(work, 'in');
  outDir = join(work, 'out');
  mkdirSync(inDir, { recursive: true });
});

afterEach(async () => {
  for (const core of cores.splice(0)) await core.dispose();
  rmSync(work, { recursive: true, force: true });
});

/** A core on the demo service; counts the downloads made through its connections. */
async function openCore(overrides: Partial<AppCoreDeps> = {}): Promise<{ core: AppCore; rec: Recorded }> {
  const rec: Recorded = { events: [], notes: [], opened: [], downloads: 0 };
  const base = createConnectFactory();
  const connect: ConnectFactory = (server, apiKey) => {
    const made = base(server, apiKey);
    const download = made.api.download.bind(made.api);
    made.api.download = (...args) => {
      rec.downloads += 1;
      return download(...args);
    };
    return made;
  };
  const desktop: DesktopActions = {
    openPath: async (path) => {
      rec.opened.push(path);
    },
    showInFolder: async () => undefined,
    notify: (title, body) => rec.notes.push({ title, body }),
  };
  const core = demoAppCore(dataDir, { connect, desktop, ...overrides });
  cores.push(core);
  core.onEvent((event) => rec.events.push({ name: event.name, payload: event.payload }));
  await core.start();
  await core.invoke('renderer.ready', undefined);
  return { core, rec };
}

async function call<T = unknown>(core: AppCore, name: string, input?: unknown): Promise<T> {
  const result = await core.invoke(name, input);
  if (!result.ok) throw new Error(`${name} failed: ${result.error.code}: ${result.error.message}`);
  return result.value as T;
}

function payloads<E extends EventName>(rec: Recorded, name: E): EventPayload<E>[] {
  return rec.events.filter((e) => e.name === name).map((e) => e.payload as EventPayload<E>);
}

/** The latest hotFolders.file event of each file. */
function latestRows(rec: Recorded): Map<string, HotFileView> {
  const rows = new Map<string, HotFileView>();
  for (const row of payloads(rec, 'hotFolders.file')) rows.set(row.path, row);
  return rows;
}

async function saveFolder(core: AppCore, extra: Record<string, unknown> = {}): Promise<HotFolderView> {
  return call<HotFolderView>(core, 'hotFolders.save', {
    inputDir: inDir,
    outputDir: outDir,
    workflowJson: WORKFLOW_JSON,
    workflowName: 'invert.json',
    bind: '1.image',
    settleMs: 150,
    ...extra,
  });
}

async function libraryItems(): Promise<LibraryItem[]> {
  const store = await Store.open(join(dataDir, 'flowdeck.sqlite'));
  const library = await Library.open({ store, root: join(dataDir, 'library'), source: () => null });
  try {
    return await library.list();
  } finally {
    await library.dispose();
    await store.close();
  }
}

describe('hot folders in the app core', () => {
  it('runs dropped images, reports rows, counters and the drain, writes sidecars, and puts each output in the library once', async () => {
    const dialogs = {
      openWorkflow: async () => null,
      openImage: async () => null,
      pickFolder: async (title: string) => (title === 'Input folder' ? inDir : null),
    };
    const { core, rec } = await openCore({ dialogs });
    expect(await call(core, 'hotFolders.list')).toEqual({ folders: [] });
    expect(await call(core, 'dialog.pickFolder', { title: 'Input folder' })).toEqual({ path: inDir });
    expect(await call(core, 'dialog.pickFolder')).toEqual({ path: null });
    const folder = await saveFolder(core);
    expect(folder).toMatchObject({
      name: 'in',
      inputDir: inDir,
      outputDir: outDir,
      bind: '1.image',
      workflowName: 'invert.json',
      processed: 'leave',
      enabled: true,
    });
    expect(folder.status.paused).toBe(false);
    expect(JSON.parse(folder.workflowJson)).toEqual(invertWorkflow());

    writeFileSync(join(inDir, 'cat.png'), makePng(701));
    writeFileSync(join(inDir, 'dog.png'), makePng(702));
    writeFileSync(join(inDir, 'notes.png'), 'this is not a picture');
    await until(() => payloads(rec, 'hotFolders.drained').some((d) => d.counters.done + d.counters.failed === 3), 'the batch drained', 30_000);

    const drained = payloads(rec, 'hotFolders.drained').at(-1)!;
    expect(drained).toEqual({ folderId: folder.id, name: 'in', counters: { waiting: 0, running: 0, done: 2, failed: 1, duplicates: 0 } });
    expect(rec.notes.at(-1)).toEqual({ title: 'Hot folder in', body: '2 done, 1 failed' });

    // The rows as the renderer last heard of them (throttled, the latest state wins).
    const rows = latestRows(rec);
    const cat = rows.get(join(inDir, 'cat.png'))!;
    const dog = rows.get(join(inDir, 'dog.png'))!;
    expect(cat).toMatchObject({ folderId: folder.id, relPath: 'cat.png', state: 'done', progress: 1, outputs: [join(outDir, 'cat_3_1.png')] });
    expect(dog).toMatchObject({ state: 'done', outputs: [join(outDir, 'dog_3_1.png')] });
    expect(rows.get(join(inDir, 'notes.png'))).toMatchObject({ state: 'failed', reason: expect.stringMatching(/not an image/) });
    // they went through the states in between
    const catStates = payloads(rec, 'hotFolders.file')
      .filter((r) => r.relPath === 'cat.png')
      .map((r) => r.state);
    expect(catStates[0]).not.toBe('done');
    // The folder's own event carries the counters.
    const changed = payloads(rec, 'hotFolders.changed')
      .filter((f) => f.id === folder.id)
      .at(-1)!;
    expect(changed.status.counters).toMatchObject({ done: 2, failed: 1 });
    // hotFolders.files answers the same table
    const files = (await call<{ files: HotFileView[] }>(core, 'hotFolders.files', { id: folder.id })).files;
    expect(files.map((f) => `${f.relPath}:${f.state}`).sort()).toEqual(['cat.png:done', 'dog.png:done', 'notes.png:failed']);

    // Outputs with sidecars naming the job and the input.
    for (const [row, input] of [
      [cat, 'cat.png'],
      [dog, 'dog.png'],
    ] as const) {
      const output = row.outputs[0]!;
      expect(existsSync(output)).toBe(true);
      const sidecar = JSON.parse(readFileSync(`${output}.json`, 'utf8')) as {
        job: { prompt_id: string };
        inputs: { file: string; bind: string };
        workflow_name: string;
      };
      expect(sidecar).toMatchObject({ job: { prompt_id: row.promptId }, inputs: { file: join(inDir, input), bind: '1.image' }, workflow_name: 'invert.json' });
    }
    // Each output downloaded once (by the folder): the app did not record the folder's jobs as well.
    expect(rec.downloads).toBe(2);

    await call(core, 'hotFolders.openOutput', { id: folder.id });
    expect(rec.opened).toEqual([outDir]);

    await core.dispose();
    const items = await libraryItems();
    expect(items).toHaveLength(2);
    const byJob = new Map(items.map((i) => [i.promptId, i]));
    expect(byJob.get(cat.promptId!)).toMatchObject({
      status: 'done',
      sourceFile: join(inDir, 'cat.png'),
      workflowName: 'invert.json',
      nodeClass: 'SaveImage',
      mediaKind: 'image',
    });
    expect(byJob.get(dog.promptId!)).toMatchObject({ status: 'done', sourceFile: join(inDir, 'dog.png') });
    expect(readFileSync(byJob.get(cat.promptId!)!.path!)).toEqual(readFileSync(cat.outputs[0]!));
  });

  it('takes an output image as its workflow file, as the folder dialog opens it (workflow.open), and runs with it', async () => {
    const { core, rec } = await openCore();
    // An output image whose only chunk is the editor graph: LoadImage -> ImageInvert -> SaveImage.
    const ui = graph(
      [
        node(1, 'LoadImage', { outputs: ['IMAGE', 'MASK'], values: ['example.png', 'image'] }),
        node(2, 'ImageInvert', { inputs: [['image', 'IMAGE', 1]], outputs: ['IMAGE'] }),
        node(3, 'SaveImage', { inputs: [['images', 'IMAGE', 2]], values: ['hot/from-image'] }),
      ],
      [
        [1, 1, 0, 2, 0, 'IMAGE'],
        [2, 2, 0, 3, 0, 'IMAGE'],
      ],
    );
    const opened = await call<{ parse: { format: string; workflowJson: string } }>(core, 'workflow.open', {
      name: 'earlier-output.png',
      bytes: withTextChunks(makePng(720), { workflow: JSON.stringify(ui) }),
    });
    expect(opened.parse.format).toBe('image');
    const folder = await saveFolder(core, { workflowJson: opened.parse.workflowJson, workflowName: 'earlier-output.png' });
    writeFileSync(join(inDir, 'owl.png'), makePng(721));
    await until(() => payloads(rec, 'hotFolders.drained').some((d) => d.folderId === folder.id && d.counters.done === 1), 'the image ran', 30_000);
    expect(latestRows(rec).get(join(inDir, 'owl.png'))).toMatchObject({ state: 'done', outputs: [join(outDir, 'owl_3_1.png')] });
  });

  it('pauses and resumes, retries failed files, comes back after a restart, and removes a folder', async () => {
    let { core, rec } = await openCore();
    const folder = await saveFolder(core);
    writeFileSync(join(inDir, 'bad.png'), 'not an image either');
    await until(() => latestRows(rec).get(join(inDir, 'bad.png'))?.state === 'failed', 'bad.png failed', 20_000);

    const paused = await call<HotFolderView>(core, 'hotFolders.pause', { id: folder.id });
    expect(paused.status).toMatchObject({ paused: true, pauseKind: 'user' });
    writeFileSync(join(inDir, 'later.png'), makePng(711));
    await until(() => latestRows(rec).get(join(inDir, 'later.png'))?.state === 'waiting', 'later.png settled and waiting', 20_000);
    await new Promise((r) => setTimeout(r, 800));
    expect(latestRows(rec).get(join(inDir, 'later.png'))).toMatchObject({ state: 'waiting', promptId: null });

    const resumed = await call<HotFolderView>(core, 'hotFolders.resume', { id: folder.id });
    expect(resumed.status.paused).toBe(false);
    await until(() => latestRows(rec).get(join(inDir, 'later.png'))?.state === 'done', 'later.png done after resume', 20_000);

    // retryFailed checks a non-image again and fails it at once, with its reason (nothing uploaded).
    const before = payloads(rec, 'hotFolders.file').filter((r) => r.relPath === 'bad.png').length;
    expect(await call(core, 'hotFolders.retryFailed', { id: folder.id })).toEqual({ count: 1 });
    await until(
      () => payloads(rec, 'hotFolders.file').filter((r) => r.relPath === 'bad.png').length > before,
      'bad.png reported again after the retry',
      20_000,
    );
    const retried = payloads(rec, 'hotFolders.file')
      .filter((r) => r.relPath === 'bad.png')
      .slice(before);
    expect(retried.at(-1)).toMatchObject({ state: 'failed', promptId: null, reason: expect.stringMatching(/not an image/) });

    // A restart brings the saved folder back, with what it did.
    await core.dispose();
    ({ core, rec } = await openCore());
    const listed = (await call<{ folders: HotFolderView[] }>(core, 'hotFolders.list')).folders;
    expect(listed.map((f) => f.id)).toEqual([folder.id]);
    expect(listed[0]).toMatchObject({ inputDir: inDir, outputDir: outDir, bind: '1.image' });
    await until(
      () => {
        const last = payloads(rec, 'hotFolders.changed')
          .filter((f) => f.id === folder.id)
          .at(-1);
        return last?.status.scanned === true && last.status.counters.done === 1 && last.status.counters.failed === 1;
      },
      'the folder scanned again after the restart',
      20_000,
    );
    const files = (await call<{ files: HotFileView[] }>(core, 'hotFolders.files', { id: folder.id })).files;
    expect(files.map((f) => `${f.relPath}:${f.state}`).sort()).toEqual(['bad.png:failed', 'later.png:done']);

    expect(await call(core, 'hotFolders.remove', { id: folder.id })).toEqual({ folders: [] });
    expect(await call(core, 'hotFolders.list')).toEqual({ folders: [] });
    expect((await failure(core, 'hotFolders.files', { id: folder.id })).code).toBe('not_found');
  });

  it('rejects bad folders and unknown ids with specific messages', async () => {
    const { core } = await openCore({ desktop: undefined });
    const base = { inputDir: inDir, outputDir: outDir, workflowJson: WORKFLOW_JSON, bind: '1.image' };
    expect(await failure(core, 'hotFolders.save', { ...base, workflowJson: '{"1": ' })).toMatchObject({
      code: 'invalid_input',
      message: expect.stringMatching(/^The workflow is not valid JSON/),
    });
    expect(await failure(core, 'hotFolders.save', { ...base, bind: '7.image' })).toMatchObject({
      code: 'invalid_input',
      message: expect.stringMatching(/has no node "7".*its nodes are: 1, 2, 3/),
    });
    expect(await failure(core, 'hotFolders.save', { ...base, bind: '3.filename_prefix' })).toMatchObject({
      code: 'invalid_input',
      message: expect.stringMatching(/not an image input/),
    });
    expect(await failure(core, 'hotFolders.save', { ...base, bind: '2.image' })).toMatchObject({
      code: 'invalid_input',
      message: expect.stringMatching(/connected to node 1's output/),
    });
    expect(await failure(core, 'hotFolders.save', { ...base, outputDir: inDir })).toMatchObject({
      code: 'invalid_input',
      message: expect.stringMatching(/output folder must differ/),
    });
    expect(await failure(core, 'hotFolders.save', { ...base, inputDir: 'relative/in' })).toMatchObject({
      code: 'invalid_input',
      message: expect.stringMatching(/absolute path/),
    });
    // System folders are refused with the reason, as input and as output.
    expect(await failure(core, 'hotFolders.save', { ...base, inputDir: '/' })).toMatchObject({
      code: 'invalid_input',
      message: expect.stringMatching(/^The input folder: \/ is the root of the file system/),
    });
    expect(await failure(core, 'hotFolders.save', { ...base, outputDir: '/etc/flowdeck-out' })).toMatchObject({
      code: 'invalid_input',
      message: expect.stringMatching(/^The output folder: \/etc\/flowdeck-out is a system folder/),
    });
    expect(await failure(core, 'hotFolders.save', { ...base, id: 'nope' })).toMatchObject({ code: 'not_found' });

    const folder = await saveFolder(core);
    const nested = join(inDir, 'sub');
    expect(await failure(core, 'hotFolders.save', { ...base, inputDir: nested, outputDir: join(work, 'out2') })).toMatchObject({
      code: 'invalid_input',
      message: expect.stringMatching(/overlaps the hot folder "in"/),
    });
    // editing keeps the id and what was not given
    const edited = await saveFolder(core, { id: folder.id, name: 'Photos', concurrency: 3 });
    expect(edited).toMatchObject({ id: folder.id, name: 'Photos', concurrency: 3, workflowName: 'invert.json' });

    for (const name of [
      'hotFolders.pause',
      'hotFolders.resume',
      'hotFolders.retryFailed',
      'hotFolders.files',
      'hotFolders.openOutput',
      'hotFolders.remove',
    ] as const) {
      expect(await failure(core, name, { id: 'no-such-folder' }), name).toMatchObject({
        code: 'not_found',
        message: 'There is no hot folder "no-such-folder".',
      });
    }
    expect(await failure(core, 'hotFolders.openOutput', { id: folder.id })).toMatchObject({ code: 'invalid_input', message: expect.stringContaining(outDir) });
    expect(await failure(core, 'dialog.pickFolder', { title: 'Input folder' })).toEqual({
      code: 'invalid_input',
      message: 'No folder dialog here: type the path.',
    });
  });

  it('with no server, lists saved folders as paused with the reason, and saves folders that run once a server is there', async () => {
    const broken = await openCore({
      startDemo: async () => {
        throw new Error('no demo in this test');
      },
    });
    expect(await call(broken.core, 'hotFolders.list')).toEqual({ folders: [] });
    const folder = await saveFolder(broken.core);
    expect(folder.status).toMatchObject({ paused: true, pauseKind: null, pauseReason: expect.stringMatching(/^No server is connected/) });
    expect((await call<{ folders: HotFolderView[] }>(broken.core, 'hotFolders.list')).folders.map((f) => f.id)).toEqual([folder.id]);
    expect(await call(broken.core, 'hotFolders.files', { id: folder.id })).toEqual({ files: [] });
    expect((await failure(broken.core, 'hotFolders.retryFailed', { id: folder.id })).message).toMatch(/No server is connected/);
    writeFileSync(join(inDir, 'waiting.png'), makePng(721));
    await broken.core.dispose();

    const { core, rec } = await openCore();
    await until(() => latestRows(rec).get(join(inDir, 'waiting.png'))?.state === 'done', 'the file saved offline ran once a server was there', 30_000);
    expect(existsSync(join(outDir, 'waiting_3_1.png'))).toBe(true);
    expect((await call<{ folders: HotFolderView[] }>(core, 'hotFolders.list')).folders[0]?.status.paused).toBe(false);
  });
});
