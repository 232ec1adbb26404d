// Every handler validates its input with the contract and answers `invalid_input` (as an
// envelope, never a throw) when it does not fit; nothing reaches a handler unvalidated.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CallName } from '@shared/ipc/contract';
import { CALL_NAMES } from '@shared/ipc/names';
import { tempCore, type TempCore } from './fakes';

/** One wrong input per call; the Record type makes forgetting a call a compile error. */
const WRONG: Record<CallName, unknown> = {
  'profiles.list': { extra: 1 },
  'profiles.save': { name: '', kind: 'cloud', baseUrl: 'http://x' },
  'profiles.remove': { id: '' },
  'profiles.select': {},
  'key.status': { profileId: 5 },
  'key.save': { key: '   ' },
  'key.remove': { profileId: '', other: true },
  'connection.test': 'active',
  'nodes.definitions': { refresh: 'yes' },
  'workflow.open': { path: '' },
  'workflow.parse': { text: 42 },
  'workflow.recent': [],
  'run.submit': { workflowJson: '{}', repeat: 0 },
  'jobs.list': null,
  'jobs.cancel': { promptId: ['a'] },
  'jobs.checkAgain': { promptId: ['a'] },
  'queue.get': 0,
  'queue.cancel': { promptIds: [] },
  'queue.interrupt': { promptId: 7 },
  'queue.clearPending': { all: true },
  'upload.image': { name: '../../etc/passwd', bytes: new Uint8Array(1) },
  'upload.mask': { original: { name: 'a.png', subfolder: '', type: 'input' }, maskPng: 'not bytes' },
  'output.fetch': { promptId: 'p', file: { filename: 'x.png' } },
  'input.fetch': { name: '../x.png', subfolder: '', type: 'output' },
  'preview.ack': { promptId: 'p', seq: '1' },
  'renderer.ready': { now: true },
  'templates.list': { all: true },
  'templates.thumbnail': { path: '' },
  'templates.open': { source: 'default', name: '', extra: 1 },
  'library.info': { dir: '/' },
  'library.list': { limit: 20_000 },
  'library.facets': [],
  'library.get': { id: '1' },
  'library.delete': { ids: [] },
  'library.retry': { id: 0 },
  'library.bytes': { id: 1.5 },
  'library.reveal': { id: 1, action: 'run' },
  'library.setFolder': { path: 42 },
  'hotFolders.list': { all: true },
  'hotFolders.save': { inputDir: '/in', outputDir: '/out', workflowJson: '{}', bind: '1.image', extra: 1 },
  'hotFolders.remove': { id: '' },
  'hotFolders.pause': {},
  'hotFolders.resume': { id: 3 },
  'hotFolders.retryFailed': { id: null },
  'hotFolders.files': { id: ['a'] },
  'hotFolders.openOutput': { id: '' },
  'dialog.pickFolder': { title: 5 },
  'history.list': { source: 'elsewhere', offset: -1, limit: 0 },
  'pool.get': { servers: [] },
  'pool.save': { servers: [{ profileId: 'p', concurrency: 0 }] },
  'pool.queues': 1,
  'pool.status': 'now',
  'apps.get': { path: null, contentHash: 'abc', shape: 's' },
  'apps.keep': { key: { path: null, contentHash: 'a'.repeat(64), shape: 's' }, inputs: [{ nodeId: '', name: 'x' }] },
  'apps.saveToFile': { path: '/x.json', fileHash: 'nothex', inputs: [] },
  'apps.saveAs': { uiWorkflowJson: '{}', suggestedName: '', inputs: [] },
};

describe('input validation', () => {
  let t: TempCore;
  beforeAll(async () => {
    t = tempCore();
    await t.core.start();
  });
  afterAll(async () => {
    await t.cleanup();
  });

  it.each(CALL_NAMES.map((name) => [name]))('%s rejects a wrong input with invalid_input', async (name) => {
    const answer = await t.core.invoke(name, WRONG[name]);
    expect(answer.ok).toBe(false);
    if (answer.ok) return;
    expect(answer.error.code).toBe('invalid_input');
    expect(answer.error.message).toMatch(/not valid/);
    expect(answer.error.details).toMatchObject({ issues: expect.any(Array) });
    // Plain data only: no Error object, no stack.
    expect(JSON.stringify(answer)).not.toMatch(/at .*\.ts:\d+/);
  });

  it.each(CALL_NAMES.map((name) => [name]))('%s rejects a number as input', async (name) => {
    expect(await t.core.invoke(name, 42)).toMatchObject({ ok: false, error: { code: 'invalid_input' } });
  });

  it('refuses an unknown call name', async () => {
    expect(await t.core.invoke('fs.readFile', { path: '/etc/passwd' })).toMatchObject({ ok: false, error: { code: 'invalid_input' } });
    expect(await t.core.invoke(undefined, undefined)).toMatchObject({ ok: false, error: { code: 'invalid_input' } });
  });

  it('answers a valid call (the first start created and selected a Demo profile)', async () => {
    const answer = await t.core.invoke('profiles.list', undefined);
    expect(answer).toMatchObject({ ok: true, value: { profiles: [{ name: 'Demo', kind: 'demo' }] } });
  });
});
