// Library.importFile: an output already on disk (a hot folder's) enters the library by copy, never
// by a second download. Real files, a real store; the library has no way to download at all here
// (its source resolver answers null), so whatever reaches "done" came from the local file.
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { canReflink } from '@main/files/reflink';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { Store } from '@main/store/store';
import { Library, type LibraryChange } from '../../src/main/library';
import type { ImportFileRequest } from '@main/library/import-file';
import { importRequestOf } from '../../src/main/watch';
import type { FinishedOutput } from '../../src/main/watch';
import { invertWorkflow, makePng } from './helpers';

let dir: string;
let store: Store;
let library: Library;
let changes: LibraryChange[];

const SERVER = { profileId: 'p1', kind: 'local' as const, baseUrl: 'http://127.0.0.1:9' };

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'flowdeck-import-'));
  store = await Store.open(join(dir, 'flowdeck.sqlite'));
  library = await Library.open({ store, root: join(dir, 'library'), source: () => null });
  await library.start();
  changes = [];
  library.onChange((change) => changes.push(change));
});

afterEach(async () => {
  await library.dispose();
  await store.close();
  await rm(dir, { recursive: true, force: true });
});

async function outputFile(name: string, bytes: Buffer): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, bytes);
  return path;
}

function request(path: string, overrides: Partial<ImportFileRequest> = {}): ImportFileRequest {
  const workflow = { ...invertWorkflow(), '4': { class_type: 'Note', inputs: { text: 'a lighthouse at dusk', seed: 18446744073709551615n } } };
  return {
    path,
    promptId: 'job-1',
    server: SERVER,
    file: { filename: 'test_00001_.png', subfolder: 'watch', type: 'output', node: '3', key: 'images' },
    workflow,
    workflowName: 'invert.json',
    sourceFile: '/photos/in/cat.png',
    createdAt: new Date(2026, 10, 21, 9, 30).getTime(),
    ...overrides,
  };
}

async function libraryFiles(): Promise<string[]> {
  const names = await readdir(join(dir, 'library'), { recursive: true, withFileTypes: true });
  return names.filter((e) => e.isFile() && !e.parentPath.includes('.incoming')).map((e) => join(e.parentPath, e.name));
}

it('copies the file into the dated folder and indexes it done, with provenance and its input file', async () => {
  const bytes = makePng(1, 12, 9);
  const path = await outputFile('cat_3_1.png', bytes);
  const item = await library.importFile(request(path));
  expect(item).toMatchObject({
    status: 'done',
    promptId: 'job-1',
    server: SERVER,
    workflowName: 'invert.json',
    nodeId: '3',
    nodeClass: 'SaveImage',
    outputKey: 'images',
    file: { filename: 'test_00001_.png', subfolder: 'watch', type: 'output' },
    mediaKind: 'image',
    mime: 'image/png',
    width: 12,
    height: 9,
    size: bytes.length,
    sourceFile: '/photos/in/cat.png',
    promptText: 'a lighthouse at dusk',
  });
  expect(item.inputs['4']?.['seed']).toBe(18446744073709551615n);
  expect(item.path).toBe(join(dir, 'library', '2026', '11', '21', 'test_00001_.png'));
  expect(await readFile(item.path!)).toEqual(bytes);
  // copied, not moved: the hot folder's output stays where it was written
  expect(await readFile(path)).toEqual(bytes);
  expect(changes).toEqual([{ type: 'added', item }]);
  expect((await library.search('lighthouse')).map((i) => i.id)).toEqual([item.id]);
});

it('is idempotent by output: importing again (a restart) keeps one item and one file', async () => {
  const path = await outputFile('cat_3_1.png', makePng(2));
  const first = await library.importFile(request(path));
  const second = await library.importFile(request(path));
  expect(second.id).toBe(first.id);
  expect(await library.list()).toHaveLength(1);
  expect(await libraryFiles()).toEqual([first.path]);
  expect(changes.map((c) => c.type)).toEqual(['added']);
});

it('keeps one file for the same bytes from two jobs', async () => {
  const bytes = makePng(3);
  const a = await library.importFile(request(await outputFile('a.png', bytes), { promptId: 'job-a' }));
  const b = await library.importFile(request(await outputFile('b.png', bytes), { promptId: 'job-b', sourceFile: '/photos/in/b.png' }));
  expect(b.id).not.toBe(a.id);
  expect(b.path).toBe(a.path);
  expect(b.sourceFile).toBe('/photos/in/b.png');
  expect(await libraryFiles()).toEqual([a.path]);
  // different bytes under the same server name get a name of their own
  const c = await library.importFile(request(await outputFile('c.png', makePng(4)), { promptId: 'job-c' }));
  expect(c.path).toBe(join(dir, 'library', '2026', '11', '21', 'test_00001_ (1).png'));
});

it('completes an item the app recorded (pending) from the local file instead of downloading it', async () => {
  const file = request('').file;
  const [pending] = await library.record({ promptId: 'job-1', outputs: [file] }, { server: SERVER, workflow: invertWorkflow(), workflowName: 'invert.json' });
  expect(pending).toMatchObject({ status: 'pending', sourceFile: null });
  // the download attempt finds no client (nothing can be downloaded here) and leaves it pending
  const [waiting] = await library.whenSettled([pending!.id]);
  expect(waiting).toMatchObject({ status: 'pending', path: null });

  const bytes = makePng(5);
  const item = await library.importFile(request(await outputFile('x.png', bytes)));
  expect(item.id).toBe(pending!.id);
  expect(item).toMatchObject({ status: 'done', sourceFile: '/photos/in/cat.png', size: bytes.length });
  expect(await readFile(item.path!)).toEqual(bytes);
  expect(changes.filter((c) => c.type === 'updated' && c.item.status === 'done')).toHaveLength(1);
  expect(await library.list()).toHaveLength(1);
  // nothing left for resumePending to download
  expect(await library.resumePending()).toBe(0);
});

it('notes the input file on an item the app already downloaded, without copying again', async () => {
  const first = await library.importFile(request(await outputFile('x.png', makePng(6)), { sourceFile: null }));
  expect(first.sourceFile).toBeNull();
  const again = await library.importFile(request(join(dir, 'gone-already.png')));
  expect(again).toMatchObject({ id: first.id, sourceFile: '/photos/in/cat.png', path: first.path });
  expect(await libraryFiles()).toEqual([first.path]);
});

it('says clearly when the output file is no longer there, and indexes nothing', async () => {
  const missing = join(dir, 'vanished.png');
  await expect(library.importFile(request(missing))).rejects.toThrow(`The output file ${missing} is no longer there, so it cannot be added to the library.`);
  expect(await library.list()).toEqual([]);
  expect(changes).toEqual([]);
  // no partial copy is left in staging (the instance's own staging folder is removed on dispose)
  const staged = await readdir(join(dir, 'library', '.incoming'), { recursive: true, withFileTypes: true }).catch(() => []);
  expect(staged.filter((e) => !e.isDirectory() || e.name.startsWith('import-'))).toEqual([]);
});

it('maps a hot folder output to an import request: its input file is the source', () => {
  const provenance: FinishedOutput['provenance'] = {
    source: 'hot-folder',
    folderId: 'f',
    folderName: 'in',
    inputPath: '/in/cat.png',
    inputSha256: 'a'.repeat(64),
    maskPath: null,
    maskSha256: null,
    bind: '1.image',
    workflow: invertWorkflow(),
    workflowName: 'invert.json',
    promptId: 'p',
    server: { kind: 'cloud', baseUrl: 'https://example.test' },
    serverFile: { filename: 'o.png', subfolder: '', type: 'output', node: '3', key: 'images' },
    index: 1,
    sidecarPath: '/out/cat_3_1.png.json',
    finishedAt: 1234,
  };
  expect(importRequestOf({ path: '/out/cat_3_1.png', provenance }, 'prof')).toEqual({
    path: '/out/cat_3_1.png',
    promptId: 'p',
    server: { profileId: 'prof', kind: 'cloud', baseUrl: 'https://example.test' },
    file: provenance.serverFile,
    workflow: provenance.workflow,
    workflowName: 'invert.json',
    sourceFile: '/in/cat.png',
    createdAt: 1234,
  });
});

it('takes the tee copy the download wrote into staging, with the digest taken while streaming: the output is not read back', async () => {
  const bytes = makePng(7, 10, 6);
  const outputDir = join(dir, 'out');
  await mkdir(outputDir);
  const teePath = await library.stagingFileFor(outputDir);
  // This machine's ext4 has no reflinks: the library asks for a tee. (On btrfs/XFS it takes a reflink: null.)
  if (teePath === null) return expect(await canReflink(join(dir, 'library'), outputDir)).toBe(true);
  expect(teePath).toMatch(/\.incoming\/\d+-[0-9a-f]+\/import\.part-\d+-[0-9a-f]{12}$/);
  await writeFile(teePath, bytes);
  const digest = { sha256: createHash('sha256').update(bytes).digest('hex'), size: bytes.length, head: bytes };
  // The output in the output folder is gone already: only the tee copy and the digest can serve.
  const item = await library.importFile(request(join(outputDir, 'missing.png'), { staged: { path: teePath, digest } }));
  expect(item).toMatchObject({ status: 'done', sha256: digest.sha256, size: bytes.length, width: 10, height: 6 });
  expect(await readFile(item.path!)).toEqual(bytes);
  expect(existsSync(teePath)).toBe(false);
});

it('refuses a staged copy outside its staging folder', async () => {
  const bytes = makePng(8, 4, 4);
  const path = await outputFile('elsewhere.png', bytes);
  const digest = { sha256: createHash('sha256').update(bytes).digest('hex'), size: bytes.length, head: bytes };
  await expect(library.importFile(request(path, { staged: { path, digest } }))).rejects.toThrow(/not in the library's staging folder/);
  expect(await readFile(path)).toEqual(bytes);
});
