// Which app a workflow opens as (chooseApp: an arrangement of exactly this content, else the file's
// own, else one of the same file or graph, else proposed) and which outputs it shows (appOutputsOf).
import { describe, expect, it } from 'vitest';
import { appOutputsOf, linearDataInputs, linearDataOutputs } from '../../src/renderer/src/lib/workflow/app-inputs';
import { chooseApp, forgetLegacyApp, legacyApp } from '../../src/renderer/src/lib/workflow/app-store';

const FILE = [{ nodeId: '3', name: 'steps' }];
const KEPT = [
  { nodeId: '3', name: 'prompt' },
  { nodeId: '3', name: 'steps' },
];

describe('chooseApp', () => {
  it('prefers an arrangement of this very content, then the file, then a looser match, then the proposed app', () => {
    expect(chooseApp({ inputs: KEPT, match: 'content', savedAt: 1 }, FILE, true)).toEqual({ pins: KEPT, source: 'unsaved' });
    expect(chooseApp({ inputs: KEPT, match: 'shape', savedAt: 1 }, FILE, true)).toEqual({ pins: FILE, source: 'file' });
    expect(chooseApp({ inputs: KEPT, match: 'path', savedAt: 1 }, null, true)).toEqual({ pins: KEPT, source: 'unsaved' });
    expect(chooseApp({ inputs: KEPT, match: 'path', savedAt: 1 }, null, false)).toEqual({ pins: KEPT, source: 'saved' });
    expect(chooseApp(null, FILE, true)).toEqual({ pins: FILE, source: 'file' });
    expect(chooseApp(null, [], true)).toEqual({ pins: null, source: 'proposed' });
    expect(chooseApp(null, null, false)).toEqual({ pins: null, source: 'proposed' });
  });

  it('calls an arrangement equal to the file’s app the file’s', () => {
    expect(chooseApp({ inputs: FILE, match: 'content', savedAt: 1 }, FILE, true)).toEqual({ pins: FILE, source: 'file' });
  });
});

describe('the outputs an app shows', () => {
  const graph = (linearData: unknown): string => JSON.stringify({ nodes: [], extra: { linearData } });
  const outputs = [{ file: { node: '9' } }, { file: { node: '10' } }, { file: { node: '10' } }];

  it('reads linearData.outputs; none listed means every output', () => {
    expect(linearDataOutputs(graph({ inputs: [], outputs: [10, '5:2'] }))).toEqual(['10', '5:2']);
    expect(linearDataOutputs(graph({ inputs: [], outputs: [] }))).toBeNull();
    expect(linearDataOutputs(graph({ inputs: [] }))).toBeNull();
    expect(linearDataOutputs(null)).toBeNull();
    expect(linearDataInputs(graph({ inputs: [[3, 'seed', {}], ['bad'], ['5:1', 'text']] }))).toEqual([
      { nodeId: '3', name: 'seed' },
      { nodeId: '5:1', name: 'text' },
    ]);
  });

  it('keeps the listed nodes’ outputs, and all of them when the listed nodes made none', () => {
    expect(appOutputsOf(outputs, ['10'])).toEqual([outputs[1], outputs[2]]);
    expect(appOutputsOf(outputs, null)).toEqual(outputs);
    expect(appOutputsOf(outputs, ['42'])).toEqual(outputs);
  });
});

describe('an app the earlier version kept in the window', () => {
  const storage = (entries: Record<string, string>) => {
    const map = new Map(Object.entries(entries));
    return { map, getItem: (k: string) => map.get(k) ?? null, removeItem: (k: string) => void map.delete(k) };
  };

  it('is read by the workflow shape, checked, and forgotten on request', () => {
    const s = storage({ 'flowdeck.app.abc-12': JSON.stringify(KEPT), 'flowdeck.app.other': JSON.stringify(FILE) });
    expect(legacyApp('abc-12', s)).toEqual(KEPT);
    forgetLegacyApp('abc-12', s);
    expect(legacyApp('abc-12', s)).toBeNull();
    expect([...s.map.keys()]).toEqual(['flowdeck.app.other']);
  });

  it('counts anything unreadable or empty as none', () => {
    for (const bad of ['not json', '{}', '[]', JSON.stringify([{ nodeId: '', name: 'x' }]), JSON.stringify([{ nodeId: '1', name: 'x', extra: 1 }])]) {
      expect(legacyApp('s', storage({ 'flowdeck.app.s': bad }))).toBeNull();
    }
    expect(legacyApp('s', undefined)).toBeNull();
  });
});
