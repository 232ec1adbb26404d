// An app written into a UI workflow file's text, as the editor keeps it: `extra.linearData`
// ({inputs: [[nodeId, widgetName, {options}], ...], outputs: [nodeId, ...]}) and
// `extra.linearMode: true`. The edit is made on the text itself, so every other byte of the file
// stays as it was (the editor's indentation, key order, numbers such as 0.10 that a parse and
// stringify would rewrite); only the two members change or are added, in the file's own style.
// The result is parsed again and compared with the intended graph before anyone writes it.
// Shared by the core (saving into a file) and the page (a download where there is no save dialog).
import { isJsonObject, parseJsonExact, stringifyJsonExact, type JsonObject, type JsonValue } from './json';

export interface LinearInput {
  nodeId: string;
  name: string;
}

export class LinearDataError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'LinearDataError';
  }
}

interface Member {
  key: string;
  keyStart: number;
  keyEnd: number;
  valueStart: number;
  valueEnd: number;
}

interface ObjectSpan {
  start: number;
  /** The index of the closing brace. */
  close: number;
  members: Member[];
}

function skipSpace(text: string, at: number): number {
  let i = at;
  while (i < text.length && (text[i] === ' ' || text[i] === '\t' || text[i] === '\n' || text[i] === '\r')) i += 1;
  return i;
}

/** The index just past the string starting at `at` (a double quote). */
function skipString(text: string, at: number): number {
  let i = at + 1;
  while (i < text.length) {
    const c = text[i];
    if (c === '\\') i += 2;
    else if (c === '"') return i + 1;
    else i += 1;
  }
  throw new LinearDataError('the file ends inside a string.');
}

/** The index just past the JSON value starting at `at`. */
function skipValue(text: string, at: number): number {
  const c = text[at];
  if (c === '"') return skipString(text, at);
  if (c === '{' || c === '[') {
    let depth = 0;
    let i = at;
    while (i < text.length) {
      const d = text[i];
      if (d === '"') {
        i = skipString(text, i);
        continue;
      }
      if (d === '{' || d === '[') depth += 1;
      else if (d === '}' || d === ']') {
        depth -= 1;
        if (depth === 0) return i + 1;
      }
      i += 1;
    }
    throw new LinearDataError('the file ends inside an object or list.');
  }
  let i = at;
  while (i < text.length && !/[\s,}\]]/.test(text[i]!)) i += 1;
  if (i === at) throw new LinearDataError(`unexpected "${text[at] ?? 'end of file'}" at offset ${at}.`);
  return i;
}

/** The members of the object whose opening brace is at `start`. */
function objectAt(text: string, start: number): ObjectSpan {
  const members: Member[] = [];
  let i = skipSpace(text, start + 1);
  if (text[i] === '}') return { start, close: i, members };
  for (;;) {
    if (text[i] !== '"') throw new LinearDataError(`expected a member name at offset ${i}.`);
    const keyStart = i;
    const keyEnd = skipString(text, i);
    const key = JSON.parse(text.slice(keyStart, keyEnd)) as string;
    i = skipSpace(text, keyEnd);
    if (text[i] !== ':') throw new LinearDataError(`expected ":" at offset ${i}.`);
    const valueStart = skipSpace(text, i + 1);
    const valueEnd = skipValue(text, valueStart);
    members.push({ key, keyStart, keyEnd, valueStart, valueEnd });
    i = skipSpace(text, valueEnd);
    if (text[i] === ',') i = skipSpace(text, i + 1);
    else if (text[i] === '}') return { start, close: i, members };
    else throw new LinearDataError(`expected "," or "}" at offset ${i}.`);
  }
}

/** The whitespace that starts the line holding `at`. */
function lineIndent(text: string, at: number): string {
  const lineStart = text.lastIndexOf('\n', at - 1) + 1;
  const match = /^[ \t]*/.exec(text.slice(lineStart, at));
  return match ? match[0] : '';
}

/** One level of the file's indentation ('' for a file on one line). */
function indentUnit(text: string, root: ObjectSpan): string {
  const first = root.members[0];
  if (!first) return '';
  const gap = text.slice(root.start + 1, first.keyStart);
  return gap.includes('\n') ? gap.slice(gap.lastIndexOf('\n') + 1) : '';
}

/** How the file is laid out: one level of indentation ('' on one line) and its line ending. */
interface Style {
  unit: string;
  eol: string;
}

/** `value` as the file would write it at a member indented by `indent`. */
function render(value: JsonValue, style: Style, indent: string): string {
  return style.unit === '' ? stringifyJsonExact(value) : stringifyJsonExact(value, style.unit).replace(/\n/g, `${style.eol}${indent}`);
}

interface Edit {
  at: number;
  end: number;
  text: string;
}

/** New members `"key": value` after the object's last member (or inside an empty one), in the object's style. */
function insertion(text: string, object: ObjectSpan, pairs: [string, JsonValue][], style: Style): Edit {
  const { unit, eol } = style;
  const last = object.members[object.members.length - 1];
  if (!last) {
    const outer = lineIndent(text, object.start);
    const indent = unit === '' ? '' : outer + unit;
    const joiner = unit === '' ? ',' : `,${eol}${indent}`;
    const body = pairs.map(([key, value]) => `${JSON.stringify(key)}${unit === '' ? ':' : ': '}${render(value, style, indent)}`).join(joiner);
    return { at: object.start + 1, end: object.close, text: unit === '' ? body : `${eol}${indent}${body}${eol}${outer}` };
  }
  const previousEnd = object.members.length > 1 ? object.members[object.members.length - 2]!.valueEnd : object.start + 1;
  const gap = text.slice(previousEnd, last.keyStart).replace(/^\s*,/, '');
  const separator = text.slice(last.keyEnd, last.valueStart);
  const indent = lineIndent(text, last.keyStart);
  return {
    at: last.valueEnd,
    end: last.valueEnd,
    text: pairs.map(([key, value]) => `,${gap}${JSON.stringify(key)}${separator}${render(value, style, indent)}`).join(''),
  };
}

/** The text without a leading byte-order mark (kept in the file, not part of the JSON). */
function withoutBom(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

function sameJson(a: JsonValue, b: JsonValue): boolean {
  if (Array.isArray(a) || Array.isArray(b)) return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => sameJson(x, b[i]!));
  if (isJsonObject(a) || isJsonObject(b)) {
    if (!isJsonObject(a) || !isJsonObject(b)) return false;
    const keys = Object.keys(a);
    return keys.length === Object.keys(b).length && keys.every((k) => k in b && sameJson(a[k]!, b[k]!));
  }
  return typeof a === typeof b ? a === b : String(a) === String(b);
}

/** The linearData a graph would hold with `inputs`: their options and the outputs kept from the old one. */
export function linearDataFor(graph: JsonObject, inputs: readonly LinearInput[]): JsonObject {
  const extra = isJsonObject(graph['extra']) ? graph['extra'] : {};
  const old = isJsonObject(extra['linearData']) ? extra['linearData'] : {};
  const oldInputs = Array.isArray(old['inputs']) ? old['inputs'] : [];
  const optionsOf = (input: LinearInput): JsonValue => {
    const entry = oldInputs.find((e) => Array.isArray(e) && String(e[0]) === input.nodeId && e[1] === input.name);
    return Array.isArray(entry) && isJsonObject(entry[2]) ? entry[2] : {};
  };
  // The editor writes plain node ids as numbers and subgraph ids ("5:3") as strings.
  const id = (nodeId: string): JsonValue => (/^\d{1,15}$/.test(nodeId) ? Number(nodeId) : nodeId);
  return { ...old, inputs: inputs.map((i) => [id(i.nodeId), i.name, optionsOf(i)]), outputs: Array.isArray(old['outputs']) ? old['outputs'] : [] };
}

/**
 * The UI workflow text with `inputs` as its app. Throws LinearDataError when the text is not a
 * UI workflow object, or when the edit would change anything but the app.
 */
export function setLinearData(text: string, inputs: readonly LinearInput[]): string {
  let graph: JsonValue;
  try {
    graph = parseJsonExact(withoutBom(text));
  } catch (error) {
    throw new LinearDataError(`the file is not valid JSON (${error instanceof Error ? error.message : String(error)}).`);
  }
  if (!isJsonObject(graph) || !Array.isArray(graph['nodes'])) throw new LinearDataError('the file is not a UI-format workflow (no "nodes" list).');
  const linearData = linearDataFor(graph, inputs);
  const oldExtra = isJsonObject(graph['extra']) ? graph['extra'] : null;
  const intended: JsonObject = { ...graph, extra: { ...(oldExtra ?? {}), linearMode: true, linearData } };

  const rootStart = skipSpace(text, text.charCodeAt(0) === 0xfeff ? 1 : 0);
  const root = objectAt(text, rootStart);
  const style: Style = { unit: indentUnit(text, root), eol: text.includes('\r\n') ? '\r\n' : '\n' };
  // JSON.parse keeps the last of two members of one name: so do we.
  const extraMember = [...root.members].reverse().find((m) => m.key === 'extra');
  const edits: Edit[] = [];
  if (!extraMember) {
    edits.push(insertion(text, root, [['extra', { linearMode: true, linearData }]], style));
  } else if (text[extraMember.valueStart] !== '{') {
    const indent = lineIndent(text, extraMember.keyStart);
    edits.push({ at: extraMember.valueStart, end: extraMember.valueEnd, text: render({ linearMode: true, linearData }, style, indent) });
  } else {
    const extra = objectAt(text, extraMember.valueStart);
    const mode = [...extra.members].reverse().find((m) => m.key === 'linearMode');
    const data = [...extra.members].reverse().find((m) => m.key === 'linearData');
    if (mode) edits.push({ at: mode.valueStart, end: mode.valueEnd, text: 'true' });
    if (data) edits.push({ at: data.valueStart, end: data.valueEnd, text: render(linearData, style, lineIndent(text, data.keyStart)) });
    const missing: [string, JsonValue][] = [];
    if (!mode) missing.push(['linearMode', true]);
    if (!data) missing.push(['linearData', linearData]);
    if (missing.length > 0) edits.push(insertion(text, extra, missing, style));
  }
  edits.sort((a, b) => b.at - a.at);
  let out = text;
  for (const edit of edits) out = out.slice(0, edit.at) + edit.text + out.slice(edit.end);

  let check: JsonValue;
  try {
    check = parseJsonExact(withoutBom(out));
  } catch {
    throw new LinearDataError('writing the app would have made the file unreadable; nothing was changed.');
  }
  if (!sameJson(check, intended)) throw new LinearDataError('writing the app would have changed more than the app; nothing was changed.');
  return out;
}
