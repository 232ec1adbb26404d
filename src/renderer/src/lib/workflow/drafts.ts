// What the user types into a field (a draft), checked against the input's definition and turned
// into the exact JSON value that goes into the workflow. Integers stay decimal text until they
// become number or bigint, so a 20-digit seed survives untouched.
import type { JsonObject, JsonValue } from '@shared/json';
import { integerToJson, isIntegerText, toBigInt } from './exact';
import type { FormField } from './form-model';
import type { FieldSpec } from './input-spec';

export type Draft = string | boolean;

export function fieldKey(nodeId: string, input: string): string {
  return `${nodeId}\u0000${input}`;
}

/** A workflow value as the text a field shows (integers exactly, bigint included). */
export function textOf(value: JsonValue | undefined): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'bigint' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}

/** The draft a field starts with: its workflow value, else the definition's default. */
export function initialDraft(field: FormField): Draft {
  const value = field.source.kind === 'value' ? field.source.value : undefined;
  const spec = field.spec;
  if (spec?.kind === 'boolean' || (spec === null && typeof value === 'boolean')) {
    if (typeof value === 'boolean') return value;
    return spec?.kind === 'boolean' ? (spec.default ?? false) : false;
  }
  if (value !== undefined) return textOf(value);
  if (spec && 'default' in spec && spec.default !== null) return String(spec.default);
  return '';
}

/** The draft that puts a recorded workflow value back into a field ("Reuse parameters"). */
export function draftOf(value: JsonValue): Draft {
  return typeof value === 'boolean' ? value : textOf(value);
}

/** Why a draft is not acceptable for its input, in plain words; null when it is fine. */
export function checkDraft(spec: FieldSpec | null, draft: Draft): string | null {
  if (spec === null || spec.kind === 'connection') return null;
  switch (spec.kind) {
    case 'int': {
      if (typeof draft !== 'string' || !isIntegerText(draft)) return 'Enter a whole number.';
      const n = BigInt(draft.trim());
      if (spec.min !== null && n < spec.min) return `The smallest allowed value is ${spec.min}.`;
      if (spec.max !== null && n > spec.max) return `The largest allowed value is ${spec.max}.`;
      return null;
    }
    case 'float': {
      const n = typeof draft === 'string' && draft.trim() !== '' ? Number(draft) : NaN;
      if (!Number.isFinite(n)) return 'Enter a number.';
      if (spec.min !== null && n < spec.min) return `The smallest allowed value is ${spec.min}.`;
      if (spec.max !== null && n > spec.max) return `The largest allowed value is ${spec.max}.`;
      return null;
    }
    case 'combo':
      if (typeof draft !== 'string' || draft === '') return 'Choose a value.';
      if (!spec.imageUpload && spec.options.length > 0 && !spec.options.includes(draft)) return `"${draft}" is not one of the server's choices.`;
      return null;
    default:
      return null;
  }
}

/** The workflow value for a draft; the original value when the input has no definition. */
export function draftToJson(spec: FieldSpec | null, draft: Draft, original: JsonValue | undefined): JsonValue {
  if (typeof draft === 'boolean') return draft;
  if (spec === null) {
    // Keep the file's own type: a number stays a number (exactly), anything else is text.
    if ((typeof original === 'number' || typeof original === 'bigint') && draft.trim() !== '') {
      const exact = toBigInt(draft);
      if (exact !== null) return integerToJson(exact);
      const n = Number(draft);
      if (Number.isFinite(n)) return n;
    }
    if (original !== null && typeof original === 'object') return original;
    return draft;
  }
  switch (spec.kind) {
    case 'int': {
      const exact = toBigInt(draft);
      return exact === null ? draft : integerToJson(exact);
    }
    case 'float': {
      const n = Number(draft);
      return Number.isFinite(n) ? n : draft;
    }
    default:
      return draft;
  }
}

export interface FieldProblem {
  nodeId: string;
  input: string;
  message: string;
}

/** Applies the drafts to a copy of the workflow and lists every field that cannot be submitted. */
export function applyDrafts(
  workflow: JsonObject,
  fields: readonly FormField[],
  drafts: ReadonlyMap<string, Draft>,
): { workflow: JsonObject; problems: FieldProblem[] } {
  const copy = structuredClone(workflow);
  const problems: FieldProblem[] = [];
  for (const field of fields) {
    if (field.source.kind === 'link') continue;
    const touched = drafts.get(fieldKey(field.nodeId, field.name));
    const draft = touched ?? initialDraft(field);
    // An input the file left out and the user did not touch is filled with its default when the
    // definition has one, and otherwise left to the server.
    if (field.source.kind === 'absent' && touched === undefined && draft === '') continue;
    const problem = checkDraft(field.spec, draft);
    if (problem) problems.push({ nodeId: field.nodeId, input: field.name, message: problem });
    const node = copy[field.nodeId] as JsonObject | undefined;
    if (!node) continue;
    const inputs = (node.inputs ??= {}) as JsonObject;
    inputs[field.name] = draftToJson(field.spec, draft, field.source.kind === 'value' ? field.source.value : undefined);
  }
  return { workflow: copy, problems };
}
