// The converter against real data: ../shared/ui-corpus holds UI workflows read from output images
// with the API prompt the editor itself queued from each, plus a real server's object_info. Scored
// as compare.py scores a converter: a pair is scoreable when every expected class is in object_info,
// and exact when the ids, classes and every expected input that object_info lists are equal.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseNodeDefinitions } from '../../src/main/service/object-info';
import { convertUiWorkflow } from '../../src/main/workflow/convert-ui';
import { isJsonObject, parseJsonExact, type JsonObject, type JsonValue } from '../../src/shared/json';

// FLOWDECK_UI_CORPUS points elsewhere (a worktree whose ../shared is not the corpus).
const CORPUS = process.env.FLOWDECK_UI_CORPUS ?? resolve(import.meta.dirname, '../..', '..', 'shared', 'ui-corpus');
const PAIRS = join(CORPUS, 'pairs');

/**
 * Pairs whose expected prompt cannot follow from their UI workflow, so no honest converter gets
 * them exact: the workflow chunk was edited after the prompt was queued (model paths with a
 * "SD1.5\\" folder in the prompt, none in the workflow's widgets), or an old editor numbered
 * expanded group-node nodes 60, 61, ... instead of `68:0` (the corpus README's known quirk).
 */
const DATA_DEFECTS: Record<string, string> = {
  'comfy-docs-images-tutorial-controlnet-mixing-controlnets': 'prompt model paths differ from the workflow widgets',
  'comfy-docs-images-tutorial-controlnet-pose-controlnet': 'prompt model paths differ from the workflow widgets',
  'comfyui-examples-stable-cascade-stable-cascade-inpaint-controlnet': 'old editor ids for expanded group-node nodes',
};

/** compare.py reads with Python's json, which takes NaN and Infinity (two unscoreable prompts hold them). */
function readExpected(path: string): JsonObject {
  const text = readFileSync(path, 'utf8');
  try {
    return parseJsonExact(text) as JsonObject;
  } catch {
    return parseJsonExact(text.replace(/(?<=[:[,]\s*)(?:NaN|-?Infinity)(?=\s*[,\]}])/g, 'null')) as JsonObject;
  }
}

function listedInputs(objectInfo: JsonObject, classType: string): Set<string> {
  const entry = objectInfo[classType];
  const spec = isJsonObject(entry) && isJsonObject(entry.input) ? entry.input : {};
  const names = new Set<string>();
  for (const section of ['required', 'optional']) {
    const inputs = spec[section];
    if (isJsonObject(inputs)) for (const name of Object.keys(inputs)) names.add(name);
  }
  return names;
}

const isNumber = (v: JsonValue | undefined): v is number | bigint => typeof v === 'number' || typeof v === 'bigint';
const isLink = (v: JsonValue | undefined): v is [string | number, number] =>
  Array.isArray(v) && v.length === 2 && (typeof v[0] === 'string' || isNumber(v[0])) && typeof v[1] === 'number' && Number.isInteger(v[1]);

function valuesEqual(expected: JsonValue, got: JsonValue | undefined): boolean {
  if (isLink(expected)) return isLink(got) && String(expected[0]) === String(got[0]) && expected[1] === got[1];
  if (typeof expected === 'boolean' || typeof got === 'boolean') return expected === got;
  if (isNumber(expected)) {
    if (!isNumber(got)) return false;
    if (typeof expected === 'bigint' || typeof got === 'bigint') return BigInt(expected) === BigInt(got);
    if (Number.isNaN(expected) || Number.isNaN(got)) return Number.isNaN(expected) && Number.isNaN(got);
    return expected === got || Math.abs(expected - got) <= 1e-9 * Math.max(Math.abs(expected), Math.abs(got));
  }
  if (Array.isArray(expected)) return Array.isArray(got) && got.length === expected.length && expected.every((e, i) => valuesEqual(e, got[i]!));
  if (isJsonObject(expected)) {
    return isJsonObject(got) && Object.keys(got).length === Object.keys(expected).length && Object.keys(expected).every((k) => k in got && valuesEqual(expected[k]!, got[k]));
  }
  return expected === got;
}

function differences(expected: JsonObject, got: JsonObject, objectInfo: JsonObject): string[] {
  const diffs: string[] = [];
  const expectedIds = Object.keys(expected).sort();
  const gotIds = Object.keys(got).sort();
  if (expectedIds.join() !== gotIds.join()) diffs.push(`ids ${gotIds.join(',')} != ${expectedIds.join(',')}`);
  for (const id of expectedIds) {
    const e = expected[id] as JsonObject;
    const g = got[id];
    if (!isJsonObject(g)) continue;
    if (g.class_type !== e.class_type) {
      diffs.push(`node ${id}: class ${String(g.class_type)} != ${String(e.class_type)}`);
      continue;
    }
    const listed = listedInputs(objectInfo, e.class_type as string);
    const eInputs = isJsonObject(e.inputs) ? e.inputs : {};
    const gInputs = isJsonObject(g.inputs) ? g.inputs : {};
    for (const [name, value] of Object.entries(eInputs)) {
      if (listed.has(name) && !valuesEqual(value, gInputs[name])) diffs.push(`node ${id}.${name}: ${JSON.stringify(gInputs[name], (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v))}`);
    }
  }
  return diffs;
}

const PRESENT = existsSync(PAIRS);
const TITLE = PRESENT ? `UI conversion on the real corpus (${CORPUS})` : `UI conversion on the real corpus: skipped, ${PAIRS} is absent`;

describe.skipIf(!PRESENT)(TITLE, () => {
  it('converts every scoreable pair, >= 97.5% exactly, and only the known data defects differ', () => {
    const objectInfoText = readFileSync(join(CORPUS, 'object_info.json'), 'utf8');
    const objectInfo = parseJsonExact(objectInfoText) as JsonObject;
    const definitions = parseNodeDefinitions(objectInfoText);
    const names = readdirSync(PAIRS).filter((f) => f.endsWith('.ui.json')).map((f) => f.slice(0, -'.ui.json'.length)).sort();
    let scoreable = 0;
    const failed: string[] = [];
    const differing: Record<string, string[]> = {};
    for (const name of names) {
      const expected = readExpected(join(PAIRS, `${name}.api.json`));
      if (Object.values(expected).some((n) => !isJsonObject(n) || typeof n.class_type !== 'string' || !(n.class_type in objectInfo))) continue;
      scoreable += 1;
      let prompt: JsonObject;
      try {
        prompt = convertUiWorkflow(parseJsonExact(readFileSync(join(PAIRS, `${name}.ui.json`), 'utf8')) as JsonObject, definitions).prompt;
      } catch (error) {
        failed.push(`${name}: ${error instanceof Error ? error.message : String(error)}`);
        continue;
      }
      const diffs = differences(expected, prompt, objectInfo);
      if (diffs.length > 0) differing[name] = diffs.slice(0, 3);
    }
    const exact = scoreable - failed.length - Object.keys(differing).length;
    console.log(`ui-conversion: ${exact}/${scoreable} exact (${((100 * exact) / scoreable).toFixed(1)}%), ${failed.length} failed to convert`);
    expect(scoreable).toBeGreaterThan(100);
    expect(failed).toEqual([]);
    expect(Object.keys(differing).filter((name) => !(name in DATA_DEFECTS)), JSON.stringify(differing, null, 1)).toEqual([]);
    expect(exact / scoreable).toBeGreaterThanOrEqual(0.975);
  });
});
