// Saving an app into a UI file (apps.saveToFile, apps.saveAs): only extra.linearData and
// extra.linearMode change, every other byte of the file stays; a file changed on disk since it was
// opened is refused and left alone; a crash between writing and renaming leaves the old file whole.
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { saveAppIntoFile, sha256Hex } from '@main/app/app-file-write';
import { AppFailure } from '@main/app/errors';
import { setLinearData } from '@shared/linear-data';
import type { CallInput, CallName, CallResult, Envelope } from '@shared/ipc/contract';
import type { AppCore } from '@main/app/core';
import { tempCore, type TempCore } from './fakes';

/** A call's envelope, typed by its name. */
async function invoke<N extends CallName>(core: AppCore, name: N, input?: CallInput<N>): Promise<Envelope<CallResult<N>>> {
  return (await core.invoke(name, input)) as Envelope<CallResult<N>>;
}

const ROOT = join(import.meta.dirname, '../..');
const FIXTURE = readFileSync(join(ROOT, 'tests/fixtures/ui-demo-sampler.json'), 'utf8');
const PINS = [
  { nodeId: '3', name: 'prompt' },
  { nodeId: '3', name: 'steps' },
];

/** The file with the app's two members taken out again: what must equal the original, byte for byte. */
function withoutApp(text: string, original: string): string {
  // The edit touches only the extra object: everything before and after it is compared as is.
  const start = original.indexOf('"extra"');
  const after = original.slice(original.indexOf('}', start) + 1);
  expect(text.startsWith(original.slice(0, start))).toBe(true);
  expect(text.endsWith(after)).toBe(true);
  return text;
}

describe('setLinearData keeps the rest of the file byte for byte', () => {
  it('adds linearMode and linearData to an empty extra in the file’s own indentation', () => {
    const out = setLinearData(FIXTURE, PINS);
    withoutApp(out, FIXTURE);
    const graph = JSON.parse(out) as { extra: { linearMode: boolean; linearData: { inputs: unknown[]; outputs: unknown[] } } };
    expect(graph.extra.linearMode).toBe(true);
    expect(graph.extra.linearData.inputs).toEqual([
      [3, 'prompt', {}],
      [3, 'steps', {}],
    ]);
    expect(graph.extra.linearData.outputs).toEqual([]);
  });

  it('replaces an existing linearData, keeping its outputs, its input options and numbers such as 0.10 elsewhere', () => {
    const text = [
      '{',
      '    "nodes": [{"id": 3, "widgets_values": [0.10, 1e2, 18446744073709551615]}],',
      '    "extra": {',
      '        "ds": {"scale": 1.50},',
      '        "linearData": {"inputs": [[3, "steps", {"height": 80}]], "outputs": [9]},',
      '        "linearMode": false',
      '    },',
      '    "version": 0.4',
      '}',
      '',
    ].join('\n');
    const out = setLinearData(text, [
      { nodeId: '3', name: 'cfg' },
      { nodeId: '3', name: 'steps' },
    ]);
    expect(out.split('\n').slice(0, 4)).toEqual(text.split('\n').slice(0, 4));
    expect(out).toContain('"linearMode": true');
    expect(out.endsWith('    },\n    "version": 0.4\n}\n')).toBe(true);
    expect(out).toContain('0.10, 1e2, 18446744073709551615');
    const graph = JSON.parse(out) as { extra: { linearData: { inputs: unknown[]; outputs: unknown[] } } };
    expect(graph.extra.linearData).toEqual({
      inputs: [
        [3, 'cfg', {}],
        [3, 'steps', { height: 80 }],
      ],
      outputs: [9],
    });
  });

  it('adds an extra to a file on one line, still on one line', () => {
    const text = '{"nodes":[],"links":[],"version":0.4}';
    expect(setLinearData(text, [{ nodeId: '5:2', name: 'seed' }])).toBe(
      '{"nodes":[],"links":[],"version":0.4,"extra":{"linearMode":true,"linearData":{"inputs":[["5:2","seed",{}]],"outputs":[]}}}',
    );
  });

  it('keeps a byte-order mark and Windows line endings, and writes its own lines with them', () => {
    const text = '\uFEFF{\r\n  "nodes": [],\r\n  "extra": {\r\n    "ds": {"offset": [0.50, 1]}\r\n  }\r\n}\r\n';
    const out = setLinearData(text, PINS);
    expect(out.startsWith('\uFEFF{\r\n  "nodes": [],\r\n  "extra": {\r\n    "ds": {"offset": [0.50, 1]},\r\n    "linearMode": true,')).toBe(true);
    expect(out.endsWith('\r\n  }\r\n}\r\n')).toBe(true);
    expect(out.replace(/\r\n/g, '')).not.toContain('\n');
    expect(JSON.parse(out.slice(1))).toMatchObject({ extra: { linearMode: true, linearData: { outputs: [] } } });
  });

  it('refuses what is not a UI workflow', () => {
    expect(() => setLinearData('{"3": {"class_type": "KSampler", "inputs": {}}}', PINS)).toThrow(/not a UI-format workflow/);
    expect(() => setLinearData('{"nodes": [', PINS)).toThrow(/not valid JSON/);
  });
});

describe('saving into the file on disk', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'flowdeck-appfile-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('writes the app in, keeps the mode, and answers the new text and hash', async () => {
    const path = join(dir, 'lighthouse.json');
    writeFileSync(path, FIXTURE);
    chmodSync(path, 0o640);
    const saved = await saveAppIntoFile(path, sha256Hex(Buffer.from(FIXTURE)), PINS);
    const onDisk = readFileSync(path, 'utf8');
    expect(onDisk).toBe(saved.text);
    expect(saved.fileHash).toBe(sha256Hex(readFileSync(path)));
    withoutApp(onDisk, FIXTURE);
    expect(statSync(path).mode & 0o777).toBe(0o640);
    expect(readdirSync(dir)).toEqual(['lighthouse.json']);
  });

  it('refuses a file changed on disk since it was opened, and leaves it as it is', async () => {
    const path = join(dir, 'lighthouse.json');
    writeFileSync(path, FIXTURE);
    const openedHash = sha256Hex(Buffer.from(FIXTURE));
    const edited = FIXTURE.replace('a lighthouse from a UI file', 'edited in the editor meanwhile');
    writeFileSync(path, edited);
    const attempt = saveAppIntoFile(path, openedHash, PINS);
    await expect(attempt).rejects.toBeInstanceOf(AppFailure);
    await expect(attempt).rejects.toThrow(/changed on disk since it was opened/);
    expect(readFileSync(path, 'utf8')).toBe(edited);
  });

  it('refuses when the file changes between reading and renaming, and removes its partial file', async () => {
    const path = join(dir, 'lighthouse.json');
    writeFileSync(path, FIXTURE);
    const late = FIXTURE.replace('"fixed"', '"randomize"');
    const attempt = saveAppIntoFile(path, sha256Hex(Buffer.from(FIXTURE)), PINS, { beforeRename: () => writeFileSync(path, late) });
    await expect(attempt).rejects.toThrow(/changed on disk/);
    expect(readFileSync(path, 'utf8')).toBe(late);
    expect(readdirSync(dir)).toEqual(['lighthouse.json']);
  });

  it('a crash after the new text is written but before the rename leaves the old file whole', async () => {
    const path = join(dir, 'lighthouse.json');
    writeFileSync(path, FIXTURE);
    let partialSeen = '';
    const attempt = saveAppIntoFile(path, sha256Hex(Buffer.from(FIXTURE)), PINS, {
      beforeRename: (partial) => {
        // The complete new text is on disk under a partial name only; the file itself is untouched.
        partialSeen = readFileSync(partial, 'utf8');
        expect(readFileSync(path, 'utf8')).toBe(FIXTURE);
        throw new Error('simulated crash');
      },
    });
    await expect(attempt).rejects.toThrow('simulated crash');
    expect(JSON.parse(partialSeen)).toMatchObject({ extra: { linearMode: true } });
    expect(readFileSync(path, 'utf8')).toBe(FIXTURE);
    expect(readdirSync(dir)).toEqual(['lighthouse.json']);
  });

  it('writes through a symbolic link into its target, and the link stays a link', async () => {
    const target = join(dir, 'real.json');
    const link = join(dir, 'link.json');
    writeFileSync(target, FIXTURE);
    symlinkSync(target, link);
    await saveAppIntoFile(link, sha256Hex(Buffer.from(FIXTURE)), PINS);
    expect(JSON.parse(readFileSync(target, 'utf8'))).toMatchObject({ extra: { linearMode: true } });
    expect(readdirSync(dir).sort()).toEqual(['link.json', 'real.json']);
  });
});

describe('apps.saveToFile and apps.saveAs through the core', () => {
  let c: TempCore | null = null;
  afterEach(async () => {
    await c?.cleanup();
    c = null;
  });

  it('saves into a file opened from disk, then refuses the stale hash', async () => {
    c = tempCore();
    const path = join(c.dataDir, 'flow.json');
    writeFileSync(path, FIXTURE);
    const opened = await invoke(c.core, 'workflow.open', { path });
    expect(opened.ok).toBe(true);
    const fileHash = opened.ok ? opened.value.fileHash : undefined;
    expect(fileHash).toBe(sha256Hex(Buffer.from(FIXTURE)));
    const saved = await invoke(c.core, 'apps.saveToFile', { path, fileHash: fileHash!, inputs: PINS });
    expect(saved.ok).toBe(true);
    expect(readFileSync(path, 'utf8')).toBe(saved.ok ? saved.value.uiWorkflowJson : '');
    // The hash from the first opening no longer fits the file.
    const again = await invoke(c.core, 'apps.saveToFile', { path, fileHash: fileHash!, inputs: PINS });
    expect(again.ok).toBe(false);
    if (!again.ok) expect(again.error.message).toMatch(/changed on disk since it was opened/);
  });

  it('outside the harness, refuses a path that was never opened', async () => {
    c = tempCore({ allowAnyPath: false });
    const path = join(c.dataDir, 'never-opened.json');
    writeFileSync(path, FIXTURE);
    const answer = await invoke(c.core, 'apps.saveToFile', { path, fileHash: sha256Hex(Buffer.from(FIXTURE)), inputs: PINS });
    expect(answer.ok).toBe(false);
    expect(readFileSync(path, 'utf8')).toBe(FIXTURE);
  });

  it('Save as writes a new file where the dialog says, and remembers it as recent', async () => {
    const picked: string[] = [];
    const dir = mkdtempSync(join(tmpdir(), 'flowdeck-saveas-'));
    const target = join(dir, 'lighthouse.app.json');
    c = tempCore({
      dialogs: {
        openWorkflow: async () => null,
        openImage: async () => null,
        pickFolder: async () => null,
        saveWorkflow: async (name) => {
          picked.push(name);
          return target;
        },
      },
    });
    try {
      const compact = JSON.stringify(JSON.parse(FIXTURE));
      const saved = await invoke(c.core, 'apps.saveAs', { uiWorkflowJson: compact, suggestedName: 'lighthouse.app.json', inputs: PINS });
      expect(saved).toMatchObject({ ok: true, value: { saved: true, path: target } });
      expect(picked).toEqual(['lighthouse.app.json']);
      const text = readFileSync(target, 'utf8');
      expect(text).toContain('\n  "nodes": [');
      expect(JSON.parse(text)).toMatchObject({
        extra: {
          linearMode: true,
          linearData: {
            inputs: [
              [3, 'prompt', {}],
              [3, 'steps', {}],
            ],
          },
        },
      });
      const recent = await invoke(c.core, 'workflow.recent');
      expect(recent.ok && recent.value.items.map((i) => i.path)).toEqual([target]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('Save as without a save dialog (the harness) says the page downloads instead', async () => {
    c = tempCore();
    const answer = await invoke(c.core, 'apps.saveAs', { uiWorkflowJson: FIXTURE, suggestedName: 'x.app.json', inputs: PINS });
    expect(answer.ok).toBe(false);
    if (!answer.ok) expect(answer.error.message).toMatch(/No save dialog here/);
  });
});
