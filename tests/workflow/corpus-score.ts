// Scoring a converted prompt against the prompt the editor itself queued, as ../shared/ui-corpus/
// compare.py does: node ids and classes must match, and every expected input that object_info lists
// for the class must be equal (links as [str(id), int(slot)], numbers numerically). Shared by the
// older corpus test and the modern one.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseNodeDefinitions, type NodeDefinitions } from '@main/service/object-info';
import { isJsonObject, parseJsonExact, type JsonObject, type JsonValue } from '@shared/json';

export interface Corpus {
  /** object_info as JSON (to list a class's inputs), and parsed (to convert with). */
  objectInfo: JsonObject;
  definitions: NodeDefinitions;
  /** Pair names (`pairs/NAME.ui.json`), sorted. */
  names: string[];
}

/** A corpus folder: `object_info.json` and `pairs/`. */
export function readCorpus(folder: string): Corpus {
  const text = readFileSync(join(folder, 'object_info.json'), 'utf8');
  const names = readdirSync(join(folder, 'pairs'))
    .filter((f) => f.endsWith('.ui.json'))
    .map((f) => f.slice(0, -'.ui.json'.length))
    .sort();
  return { objectInfo: parseJsonExact(text) as JsonObject, definitions: parseNodeDefinitions(text), names };
}

/** compare.py reads with Python's json, which takes NaN and Infinity (two unscoreable prompts hold them). */
export function readExpected(path: string): JsonObject {
  const text = readFileSync(path, 'utf8');
  try {
    return parseJsonExact(text) as JsonObject;
  } catch {
    return parseJsonExact(text.replace(/(?<=[:[,]\s*)(?:NaN|-?Infinity)(?=\s*[,\]}])/g, 'null')) as JsonObject;
  }
}

/** A pair is scored only when every class its expected prompt uses is in object_info. */
export function scoreable(expected: JsonObject, objectInfo: JsonObject): boolean {
  return Object.values(expected).every((n) => isJsonObject(n) && typeof n.class_type === 'string' && n.class_type in objectInfo);
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
    return (
      isJsonObject(got) &&
      Object.keys(got).length === Object.keys(expected).length &&
      Object.keys(expected).every((k) => k in got && valuesEqual(expected[k]!, got[k]))
    );
  }
  return expected === got;
}

/** One line per difference, `node ID.INPUT: got` for an input; empty when the prompt is exact. */
export function differences(expected: JsonObject, got: JsonObject, objectInfo: JsonObject): string[] {
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
      if (listed.has(name) && !valuesEqual(value, gInputs[name]))
        diffs.push(`node ${id}.${name}: ${JSON.stringify(gInputs[name], (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v))}`);
    }
  }
  return diffs;
}
