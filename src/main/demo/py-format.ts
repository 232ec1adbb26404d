// Python's str() and repr() of JSON values, for validation messages that must read exactly like
// the local server's ("Value 0 smaller than min of 1", "invalid literal for int() with base 10: 'abc'").

/** repr() of a float: always a decimal point or an exponent, exponents of at least two digits. */
export function pyFloatRepr(value: number): string {
  if (Number.isNaN(value)) return 'nan';
  if (!Number.isFinite(value)) return value > 0 ? 'inf' : '-inf';
  if (Number.isInteger(value) && Math.abs(value) < 1e16) return `${value}.0`;
  const text = String(value);
  return text.replace(/e([+-])(\d)$/, 'e$10$2');
}

function reprString(text: string): string {
  const quote = text.includes("'") && !text.includes('"') ? '"' : "'";
  let out = quote;
  for (const ch of text) {
    if (ch === '\\') out += '\\\\';
    else if (ch === quote) out += `\\${quote}`;
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else out += ch;
  }
  return out + quote;
}

/** str(value); numbers that are whole are taken for ints unless `asFloat`. */
export function pyStr(value: unknown, asFloat = false): string {
  if (typeof value === 'string') return value;
  return pyRepr(value, asFloat);
}

export function pyRepr(value: unknown, asFloat = false): string {
  if (value === null || value === undefined) return 'None';
  if (value === true) return 'True';
  if (value === false) return 'False';
  if (typeof value === 'string') return reprString(value);
  if (typeof value === 'bigint') return value.toString();
  if (typeof value === 'number') return asFloat || !Number.isInteger(value) ? pyFloatRepr(value) : String(value);
  if (Array.isArray(value)) return `[${value.map((v) => pyRepr(v)).join(', ')}]`;
  if (typeof value === 'object') {
    return `{${Object.entries(value as Record<string, unknown>)
      .map(([k, v]) => `${reprString(k)}: ${pyRepr(v)}`)
      .join(', ')}}`;
  }
  return String(value);
}

/** Python's type name of a JSON value, for TypeError messages. */
export function pyTypeName(value: unknown): string {
  if (value === null || value === undefined) return 'NoneType';
  if (typeof value === 'boolean') return 'bool';
  if (typeof value === 'bigint') return 'int';
  if (typeof value === 'number') return Number.isInteger(value) ? 'int' : 'float';
  if (typeof value === 'string') return 'str';
  if (Array.isArray(value)) return 'list';
  return 'dict';
}

/** Python's truthiness of a JSON value (bool(value)). */
export function pyTruthy(value: unknown): boolean {
  if (value === null || value === undefined) return false;
  if (typeof value === 'boolean') return value;
  if (typeof value === 'number') return value !== 0; // NaN is truthy in Python too
  if (typeof value === 'bigint') return value !== 0n;
  if (typeof value === 'string') return value.length > 0;
  if (Array.isArray(value)) return value.length > 0;
  return Object.keys(value as object).length > 0;
}
