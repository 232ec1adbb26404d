// Turns one input of a node definition (as the contract normalises it from /api/object_info)
// into the widget the form shows for it. Integer bounds arrive as ExactNumber and become bigint,
// so a seed's maximum of 2^64-1 is compared exactly.
import type { ExactNumber, NodeInputView } from '@shared/ipc/contract';
import { toBigInt, toFiniteNumber } from './exact';

export type FieldSpec =
  | { kind: 'int'; min: bigint | null; max: bigint | null; step: bigint | null; seed: boolean; default: bigint | null }
  | { kind: 'float'; min: number | null; max: number | null; step: number | null; default: number | null }
  | { kind: 'string'; multiline: boolean; default: string | null }
  | { kind: 'boolean'; default: boolean | null }
  | { kind: 'combo'; options: string[]; imageUpload: boolean; default: string | null }
  | { kind: 'connection'; type: string };

type Loose = ExactNumber | string | boolean | null | undefined;

function exactInt(value: Loose): bigint | null {
  if (typeof value === 'object' && value !== null) return toBigInt(value.bigint);
  return toBigInt(value);
}

function exactFloat(value: Loose): number | null {
  if (typeof value === 'object' && value !== null) return toFiniteNumber(value.bigint);
  return toFiniteNumber(value);
}

/** Seeds are integers named like seeds (seed, noise_seed, ...): they get a "randomize" button. */
export function looksLikeSeed(name: string): boolean {
  return /(^|_)seed$/i.test(name);
}

export function fieldSpecOf(input: NodeInputView): FieldSpec {
  const text = typeof input.default === 'string' ? input.default : typeof input.default === 'number' ? String(input.default) : null;
  switch (input.kind) {
    case 'int':
      return {
        kind: 'int',
        min: exactInt(input.min),
        max: exactInt(input.max),
        step: exactInt(input.step),
        seed: looksLikeSeed(input.name),
        default: exactInt(input.default),
      };
    case 'float':
      return { kind: 'float', min: exactFloat(input.min), max: exactFloat(input.max), step: exactFloat(input.step), default: exactFloat(input.default) };
    case 'string':
      return { kind: 'string', multiline: input.multiline === true, default: text };
    case 'boolean':
      return { kind: 'boolean', default: typeof input.default === 'boolean' ? input.default : null };
    case 'combo':
      return { kind: 'combo', options: (input.options ?? []).map(String), imageUpload: input.imageUpload === true, default: text };
    default:
      return { kind: 'connection', type: input.type };
  }
}

/** A file name an image loader takes, or an uploaded asset (Comfy API v2's `core/ASSET:<id>`). */
const IMAGE_VALUE = /^core\/ASSET:|\.(png|jpe?g|webp|gif|bmp|tiff?)(\s*\[\w+\])?$/i;

/**
 * The widget for an input no node definition describes (a serverless deployment has none), from
 * the workflow's own value: text for a string (an image file name or asset: an image field),
 * a whole number for an integer, a number for a decimal, a switch for a boolean. Null for what
 * has no widget (an object or a list, kept as it is). JSON cannot tell 7 from 7.0: an integer
 * value gets an integer field.
 */
export function inferredSpecOf(name: string, value: unknown): FieldSpec | null {
  if (typeof value === 'boolean') return { kind: 'boolean', default: null };
  if (typeof value === 'bigint' || (typeof value === 'number' && Number.isInteger(value)))
    return { kind: 'int', min: null, max: null, step: null, seed: looksLikeSeed(name), default: null };
  if (typeof value === 'number') return Number.isFinite(value) ? { kind: 'float', min: null, max: null, step: null, default: null } : null;
  if (typeof value === 'string') {
    if (IMAGE_VALUE.test(value.trim())) return { kind: 'combo', options: [value], imageUpload: true, default: null };
    return { kind: 'string', multiline: value.includes('\n'), default: null };
  }
  return null;
}
