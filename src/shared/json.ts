// JSON with integers kept exact: workflow inputs such as a seed may go up to 2^64-1, beyond what a
// JavaScript number holds. Integers outside the safe range become bigint; everything else stays a
// plain number, so ordinary code keeps working with ordinary values.
import { parse, stringify, isSafeNumber, isInteger } from 'lossless-json';

export type JsonValue = null | boolean | number | bigint | string | JsonValue[] | JsonObject;
export type JsonObject = { [key: string]: JsonValue };

function parseNumberExact(text: string): number | bigint {
  if (isInteger(text) && !isSafeNumber(text)) return BigInt(text);
  return Number(text);
}

/** Parses JSON text; throws SyntaxError with a position on malformed input. */
export function parseJsonExact(text: string): JsonValue {
  return parse(text, null, parseNumberExact) as JsonValue;
}

/** Serialises a value, writing bigint as plain JSON digits. */
export function stringifyJsonExact(value: unknown, indent?: number | string): string {
  const out = stringify(value, null, indent);
  if (out === undefined) throw new TypeError('value cannot be serialised as JSON');
  return out;
}

export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
