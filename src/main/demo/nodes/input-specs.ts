// One description per node input serves twice: as the object_info tuple the server publishes
// (`["INT", {default, min, max}]`, a legacy combo `[[...], {...}]`, ...) and as the reader that turns
// the value the executor hands over into a typed value, with a clear error when it does not fit.
// The server validates types and ranges before a job runs; the readers re-check so that a node
// called directly (tests, a future executor) can never work on garbage.
import type { JsonObject, JsonValue } from '@shared/json';
import { NodeExecutionError, type Mask, type RgbaImage } from '../node-api';

export interface InputSpec<T> {
  /** The object_info tuple. A function, because a combo's options may change (uploaded files). */
  json(): JsonValue;
  /** Used when the input is absent; undefined means the input must be present. */
  readonly fallback: T | undefined;
  /** Checks and converts a present value; `where` is e.g. `DemoSampler input "steps"`. */
  parse(value: unknown, where: string): T;
}

export type SpecValue<S> = S extends InputSpec<infer T> ? T : never;
export type InputSpecs = Record<string, InputSpec<unknown>>;
export type InputValues<S extends InputSpecs> = { [K in keyof S]: SpecValue<S[K]> };

function invalid(where: string, expectation: string, value: unknown): NodeExecutionError {
  return new NodeExecutionError('ValueError', `${where} must be ${expectation} (got ${describe(value)}).`);
}

function describe(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value.length > 60 ? `${value.slice(0, 60)}…` : value);
  if (typeof value === 'bigint') return value.toString();
  if (isRgbaImage(value)) return `an IMAGE ${value.width}x${value.height}`;
  if (isMask(value)) return `a MASK ${value.width}x${value.height}`;
  if (Array.isArray(value)) return 'a list';
  if (value === null) return 'null';
  return typeof value === 'object' ? 'an object' : String(value);
}

function options(base: JsonObject, tooltip: string | undefined): JsonObject {
  return tooltip === undefined ? base : { ...base, tooltip };
}

function toBigInt(value: unknown): bigint | null {
  if (typeof value === 'bigint') return value;
  if (typeof value === 'number' && Number.isInteger(value)) return BigInt(value);
  return null;
}

export interface IntOptions {
  default: number;
  min: number;
  max: number;
  step?: number;
  tooltip?: string;
}

/** An INT whose whole range is a safe JavaScript integer; read as number. */
export function intInput(o: IntOptions): InputSpec<number> {
  return {
    json: () => ['INT', options({ default: o.default, min: o.min, max: o.max, ...(o.step === undefined ? {} : { step: o.step }) }, o.tooltip)],
    fallback: o.default,
    parse(value, where) {
      const n = toBigInt(value);
      if (n === null || n < BigInt(o.min) || n > BigInt(o.max)) throw invalid(where, `an integer from ${o.min} to ${o.max}`, value);
      return Number(n);
    },
  };
}

export const SEED_MAX = 18446744073709551615n; // 2^64 - 1, as the real server's seed inputs

/** A seed: INT 0..2^64-1, published with an exact bigint maximum and read as bigint. */
export function seedInput(tooltip = 'The random seed; the same seed gives the same result.'): InputSpec<bigint> {
  return {
    json: () => ['INT', { default: 0, min: 0, max: SEED_MAX, control_after_generate: true, tooltip }],
    fallback: 0n,
    parse(value, where) {
      const n = toBigInt(value);
      if (n === null || n < 0n || n > SEED_MAX) throw invalid(where, `an integer from 0 to ${SEED_MAX}`, value);
      return n;
    },
  };
}

export interface FloatOptions {
  default: number;
  min: number;
  max: number;
  step: number;
  round?: number;
  tooltip?: string;
}

export function floatInput(o: FloatOptions): InputSpec<number> {
  return {
    json: () => [
      'FLOAT',
      options({ default: o.default, min: o.min, max: o.max, step: o.step, ...(o.round === undefined ? {} : { round: o.round }) }, o.tooltip),
    ],
    fallback: o.default,
    parse(value, where) {
      const n = typeof value === 'bigint' ? Number(value) : value;
      if (typeof n !== 'number' || !Number.isFinite(n) || n < o.min || n > o.max) throw invalid(where, `a number from ${o.min} to ${o.max}`, value);
      return n;
    },
  };
}

export function stringInput(o: { default: string; multiline?: boolean; tooltip?: string }): InputSpec<string> {
  return {
    json: () => ['STRING', options({ ...(o.multiline ? { multiline: true } : {}), default: o.default }, o.tooltip)],
    fallback: o.default,
    parse(value, where) {
      if (typeof value !== 'string') throw invalid(where, 'a string', value);
      return value;
    },
  };
}

/** A legacy combo `[[...options], {default}]`. With `check: false` any string is accepted (validated elsewhere). */
export function legacyComboInput(o: { options: () => string[]; default?: string; extra?: JsonObject; check?: boolean; tooltip?: string }): InputSpec<string> {
  return {
    json: () => [o.options(), options({ ...(o.default === undefined ? {} : { default: o.default }), ...o.extra }, o.tooltip)],
    fallback: o.default,
    parse(value, where) {
      if (typeof value !== 'string') throw invalid(where, 'a string', value);
      if (o.check !== false) {
        const allowed = o.options();
        if (!allowed.includes(value)) throw invalid(where, `one of ${allowed.join(', ')}`, value);
      }
      return value;
    },
  };
}

/** A newer combo `["COMBO", {options, default}]`. */
export function comboInput<T extends string>(o: { options: readonly T[]; default: T; tooltip?: string }): InputSpec<T> {
  return {
    json: () => ['COMBO', options({ options: [...o.options], default: o.default }, o.tooltip)],
    fallback: o.default,
    parse(value, where) {
      if (typeof value !== 'string' || !(o.options as readonly string[]).includes(value)) throw invalid(where, `one of ${o.options.join(', ')}`, value);
      return value as T;
    },
  };
}

export function isRgbaImage(value: unknown): value is RgbaImage {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Partial<RgbaImage>;
  return (
    v.data instanceof Uint8Array &&
    Number.isInteger(v.width) &&
    Number.isInteger(v.height) &&
    (v.width ?? 0) > 0 &&
    (v.height ?? 0) > 0 &&
    v.data.length === (v.width ?? 0) * (v.height ?? 0) * 4
  );
}

export function isMask(value: unknown): value is Mask {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Partial<Mask>;
  return (
    v.data instanceof Float32Array &&
    Number.isInteger(v.width) &&
    Number.isInteger(v.height) &&
    (v.width ?? 0) > 0 &&
    (v.height ?? 0) > 0 &&
    v.data.length === (v.width ?? 0) * (v.height ?? 0)
  );
}

/** A link input of type IMAGE. */
export function imageInput(tooltip?: string): InputSpec<RgbaImage> {
  return {
    json: () => (tooltip === undefined ? ['IMAGE'] : ['IMAGE', { tooltip }]),
    fallback: undefined,
    parse(value, where) {
      if (!isRgbaImage(value)) throw invalid(where, 'an IMAGE (link it to a node that outputs IMAGE)', value);
      return value;
    },
  };
}

/** A link input of type MASK. */
export function maskInput(tooltip?: string): InputSpec<Mask> {
  return {
    json: () => (tooltip === undefined ? ['MASK'] : ['MASK', { tooltip }]),
    fallback: undefined,
    parse(value, where) {
      if (!isMask(value)) throw invalid(where, 'a MASK (link it to a node that outputs MASK)', value);
      return value;
    },
  };
}

/** Reads every declared input; absent ones take their default, or fail when they have none. */
export function readInputs<S extends InputSpecs>(className: string, specs: S, inputs: Record<string, unknown>): InputValues<S> {
  const out: Record<string, unknown> = {};
  for (const [name, spec] of Object.entries(specs)) {
    const where = `${className} input "${name}"`;
    const value = inputs[name];
    if (value === undefined) {
      if (spec.fallback === undefined) throw new NodeExecutionError('ValueError', `${where} is required but was not given.`);
      out[name] = spec.fallback;
    } else {
      out[name] = spec.parse(value, where);
    }
  }
  return out as InputValues<S>;
}
