// Widget values converted the way the local server converts them before range checks: Python's
// int(), float(), str() and bool(), with Python's error texts. Integers beyond 2^53 stay bigint.
import { pyFloatRepr, pyRepr, pyStr, pyTruthy, pyTypeName } from './py-format';

export type Converted = { ok: true; value: unknown } | { ok: false; message: string };

function exactInt(big: bigint): number | bigint {
  return big >= BigInt(Number.MIN_SAFE_INTEGER) && big <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(big) : big;
}

function toInt(val: unknown): Converted {
  if (typeof val === 'boolean') return { ok: true, value: val ? 1 : 0 };
  if (typeof val === 'bigint') return { ok: true, value: exactInt(val) };
  if (typeof val === 'number') {
    if (Number.isNaN(val)) return { ok: false, message: 'cannot convert float NaN to integer' };
    if (!Number.isFinite(val)) return { ok: false, message: 'cannot convert float infinity to integer' };
    // int() truncates toward zero; a float beyond 2^53 is still an exact integer value.
    return { ok: true, value: exactInt(BigInt(Math.trunc(val))) };
  }
  if (typeof val === 'string') {
    const text = val.trim();
    if (/^[+-]?\d(_?\d)*$/.test(text)) return { ok: true, value: exactInt(BigInt(text.replace(/_/g, ''))) };
    return { ok: false, message: `invalid literal for int() with base 10: ${pyRepr(val)}` };
  }
  return { ok: false, message: `int() argument must be a string, a bytes-like object or a real number, not '${pyTypeName(val)}'` };
}

function toFloat(val: unknown): Converted {
  if (typeof val === 'boolean') return { ok: true, value: val ? 1 : 0 };
  if (typeof val === 'number') return { ok: true, value: val };
  if (typeof val === 'bigint') return { ok: true, value: Number(val) };
  if (typeof val === 'string') {
    const text = val.trim().replace(/(\d)_(?=\d)/g, '$1');
    if (/^[+-]?(\d+\.?\d*([eE][+-]?\d+)?|\.\d+([eE][+-]?\d+)?)$/.test(text)) return { ok: true, value: Number(text) };
    if (/^[+-]?(inf|infinity)$/i.test(text)) return { ok: true, value: text.startsWith('-') ? -Infinity : Infinity };
    if (/^[+-]?nan$/i.test(text)) return { ok: true, value: NaN };
    return { ok: false, message: `could not convert string to float: ${pyRepr(val)}` };
  }
  return { ok: false, message: `float() argument must be a string or a real number, not '${pyTypeName(val)}'` };
}

/** Converts a widget value for an input of `inputType`; other types pass through unchanged. */
export function convertWidgetValue(inputType: unknown, val: unknown): Converted {
  switch (inputType) {
    case 'INT':
      return toInt(val);
    case 'FLOAT':
      return toFloat(val);
    case 'STRING':
      return { ok: true, value: pyStr(val) };
    case 'BOOLEAN':
      return { ok: true, value: pyTruthy(val) };
    default:
      return { ok: true, value: val };
  }
}

/** Python's `a < b` for numbers of either representation; null when not comparable. */
export function compareNumbers(a: unknown, b: unknown): number | null {
  const numeric = (v: unknown): v is number | bigint => typeof v === 'number' || typeof v === 'bigint';
  if (!numeric(a) || !numeric(b)) return null;
  // JavaScript compares number and bigint exactly with < and >.
  if (a < b) return -1;
  if (a > b) return 1;
  return 0;
}

/** str() of a value in a message, floats shown as floats for FLOAT inputs. */
export function formatNumberFor(inputType: unknown, value: unknown): string {
  if (inputType === 'FLOAT' && typeof value === 'number') return pyFloatRepr(value);
  return pyStr(value);
}
