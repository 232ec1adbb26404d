// The hot folders view's plain-data parts: merging file rows from listings and events, the error
// column, the status words, and the add/edit form's checks and save input.
import { describe, expect, it } from 'vitest';
import type { HotFileView, HotFolderView } from '@shared/ipc/hot-folders-contract';
import { hotFolderSaveSchema } from '@shared/ipc/hot-folders-contract';
import { baseName, describeFileProblem, isActive, mergeFileRow, sortedFileRows } from '../../src/renderer/src/lib/hotfolders/file-rows';
import { drainedText, pauseText, removeQuestion } from '../../src/renderer/src/lib/hotfolders/folder-text';
import { DEFAULT_OUTPUT_NAME, draftOf, newDraft, problemsFromIssues, standingProblems, toSaveInput } from '../../src/renderer/src/lib/hotfolders/folder-form';

function row(relPath: string, patch: Partial<HotFileView> = {}): HotFileView {
  return {
    folderId: 'f1',
    path: `/in/${relPath}`,
    relPath,
    state: 'waiting',
    promptId: null,
    attempts: 0,
    reason: null,
    retryAt: null,
    progress: null,
    outputs: [],
    duplicateOf: null,
    updatedAt: 1000,
    ...patch,
  };
}

const folder: HotFolderView = {
  id: 'f1',
  name: 'Scans',
  inputDir: '/in',
  outputDir: '/out',
  recursive: true,
  patterns: ['*.png', '*.tif'],
  workflowJson: '{"1": {"class_type": "LoadImage", "inputs": {"image": "x.png"}}}',
  workflowName: 'invert.json',
  bind: '1.image',
  maskRule: null,
  outputName: '{stem}.{ext}',
  concurrency: 3,
  processed: 'move',
  enabled: true,
  runOn: 'active',
  status: {
    counters: { waiting: 0, running: 0, done: 0, failed: 0, duplicates: 0 },
    paused: false,
    pauseKind: null,
    pauseReason: null,
    scanned: true,
    idle: true,
  },
};

describe('file rows', () => {
  it('lets the newer row win, whichever arrives first', () => {
    const rows = new Map<string, HotFileView>();
    expect(mergeFileRow(rows, row('a.png', { state: 'running', updatedAt: 2000 }))).toBe(true);
    // The listing answered after a newer event: the event's row stays.
    expect(mergeFileRow(rows, row('a.png', { state: 'waiting', updatedAt: 1500 }))).toBe(false);
    expect(rows.get('/in/a.png')?.state).toBe('running');
    expect(mergeFileRow(rows, row('a.png', { state: 'done', updatedAt: 2000 }))).toBe(true);
    expect(rows.get('/in/a.png')?.state).toBe('done');
  });

  it('sorts by relative path with numbers in order', () => {
    expect(sortedFileRows([row('img10.png'), row('img2.png'), row('sub/a.png'), row('img1.png')]).map((r) => r.relPath)).toEqual([
      'img1.png',
      'img2.png',
      'img10.png',
      'sub/a.png',
    ]);
  });

  it('counts uploading, submitting and running as under way', () => {
    expect(
      ['settling', 'waiting', 'uploading', 'submitting', 'running', 'done', 'failed', 'duplicate'].filter((state) =>
        isActive(row('a', { state: state as HotFileView['state'] })),
      ),
    ).toEqual(['uploading', 'submitting', 'running']);
  });

  it('says why a file failed or waits, its attempts and its next try', () => {
    const at = (ms: number): string => `@${ms}`;
    expect(describeFileProblem(row('a'), at)).toBeNull();
    expect(describeFileProblem(row('a', { state: 'failed', reason: 'Not an image: x.txt', attempts: 0 }), at)).toBe('Not an image: x.txt');
    expect(describeFileProblem(row('a', { state: 'waiting', reason: 'Server unreachable', attempts: 2, retryAt: 5000 }), at)).toBe(
      'Server unreachable · 2 attempts · next try at @5000',
    );
    // A failed file does not try again by itself, so no next try is shown.
    expect(describeFileProblem(row('a', { state: 'failed', reason: 'Gave up', attempts: 1, retryAt: 5000 }), at)).toBe('Gave up · 1 attempt');
    expect(describeFileProblem(row('a', { state: 'duplicate', duplicateOf: 'b.png' }), at)).toBe('Same content as b.png');
  });

  it('names outputs by their last path part on either separator', () => {
    expect(baseName('/out/a_3_1.png')).toBe('a_3_1.png');
    expect(baseName('C:\\out\\a_3_1.png')).toBe('a_3_1.png');
    expect(baseName('plain.png')).toBe('plain.png');
  });
});

describe('status words', () => {
  it('tells the account reason, the user pause, and nothing while running', () => {
    expect(pauseText(folder.status)).toBeNull();
    expect(pauseText({ ...folder.status, paused: true, pauseKind: 'user' })).toBe('Paused by you');
    expect(pauseText({ ...folder.status, paused: true, pauseKind: 'unauthorized', pauseReason: 'the API key was rejected: set a new key in Servers.' })).toBe(
      'Paused: the API key was rejected: set a new key in Servers.',
    );
  });

  it('sums up a drained batch', () => {
    expect(drainedText('Scans', { waiting: 0, running: 0, done: 3, failed: 0, duplicates: 0 })).toBe('Hot folder Scans: 3 done, 0 failed');
    const idle = { waiting: 0, running: 0, done: 3, failed: 0, duplicates: 0 };
    expect(removeQuestion('Scans', idle)).toBe('Remove the hot folder "Scans"? Its files and outputs stay on disk.');
    expect(removeQuestion('Scans', { ...idle, running: 1, waiting: 4 })).toBe(
      'Remove the hot folder "Scans"? Its files and outputs stay on disk. 1 file is being processed: its job finishes on the server and the outputs go to the library. 4 files waiting will not be sent.',
    );
    expect(removeQuestion('Scans', { ...idle, running: 2, waiting: 1 })).toContain('2 files are being processed: their jobs finish on the server');
    expect(drainedText('Scans', { waiting: 0, running: 0, done: 1, failed: 2, duplicates: 1 })).toBe('Hot folder Scans: 1 done, 2 failed, 1 duplicate');
  });
});

describe('the add/edit form', () => {
  it('names what is missing instead of asking main', () => {
    const result = toSaveInput({ ...newDraft(), concurrency: 0, outputName: ' ' }, null);
    expect(result.ok).toBe(false);
    expect(!result.ok && Object.keys(result.problems).sort()).toEqual(['concurrency', 'inputDir', 'outputDir', 'outputName', 'workflowJson']);
    const noBind = toSaveInput({ ...newDraft(), inputDir: '/a', outputDir: '/a', workflowJson: '{}' }, null);
    expect(!noBind.ok && noBind.problems).toEqual({ outputDir: expect.stringMatching(/differ/), bind: expect.stringMatching(/image input/) });
  });

  it('builds a new folder that the contract accepts, with defaults and no masks when the rule is empty', () => {
    const draft = {
      ...newDraft(),
      inputDir: ' /in ',
      outputDir: '/out',
      workflowJson: folder.workflowJson,
      workflowName: 'w.json',
      bind: '1.image',
      maskRule: '',
    };
    const result = toSaveInput(draft, null);
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.input).toEqual({
      inputDir: '/in',
      outputDir: '/out',
      recursive: false,
      workflowJson: folder.workflowJson,
      workflowName: 'w.json',
      bind: '1.image',
      maskRule: null,
      outputName: DEFAULT_OUTPUT_NAME,
      concurrency: 2,
      processed: 'leave',
      runOn: 'active',
    });
    expect(hotFolderSaveSchema.safeParse(result.input).success).toBe(true);
  });

  it('edits a folder in place: same id, its patterns kept, its values as the starting point', () => {
    const result = toSaveInput({ ...draftOf(folder), name: 'Scans 2' }, folder);
    expect(result.ok && result.input).toMatchObject({
      id: 'f1',
      name: 'Scans 2',
      patterns: ['*.png', '*.tif'],
      recursive: true,
      maskRule: null,
      outputName: '{stem}.{ext}',
      concurrency: 3,
      processed: 'move',
      runOn: 'active',
    });
    expect(result.ok && hotFolderSaveSchema.safeParse(result.input).success).toBe(true);
    // A folder on the pool stays on it when edited, and the choice is saved.
    const onPool = toSaveInput(draftOf({ ...folder, runOn: 'pool' }), { ...folder, runOn: 'pool' });
    expect(onPool.ok && onPool.input.runOn).toBe('pool');
  });

  it("places main's issues on the fields and keeps the others general", () => {
    expect(
      problemsFromIssues([
        { path: 'inputDir', message: 'missing' },
        { path: 'workflowName', message: 'too long' },
        { path: 'settleMs', message: 'odd' },
      ]),
    ).toEqual({
      fields: { inputDir: 'missing', workflowJson: 'too long' },
      general: ['odd'],
    });
  });

  it('keeps a mark only while its field still holds the value it was found in', () => {
    const checked = { ...newDraft(), inputDir: 'rel' };
    const problems = { inputDir: 'must be absolute', outputDir: 'missing' };
    expect(standingProblems(problems, null, checked)).toEqual({});
    expect(standingProblems(problems, checked, { ...checked })).toEqual(problems);
    expect(standingProblems(problems, checked, { ...checked, inputDir: '/abs' })).toEqual({ outputDir: 'missing' });
  });
});
