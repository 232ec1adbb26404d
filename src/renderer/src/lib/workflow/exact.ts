// Exact integers for form fields. A seed may be as large as 2^64-1, beyond what a JavaScript number
// holds, so integer fields are edited as decimal text and converted through bigint, never Number.

const INTEGER_TEXT = /^-?\d+$/;

/** Reads an integer from a number, bigint or decimal string; null when it is not an exact integer. */
export function toBigInt(value: unknown): bigint | null {
  if (typeof value === 'bigint') return value;
  if (typeof value === 'number') return Number.isSafeInteger(value) ? BigInt(value) : null;
  if (typeof value === 'string') {
    const text = value.trim();
    return INTEGER_TEXT.test(text) ? BigInt(text) : null;
  }
  return null;
}

/** A finite number from a number, bigint or numeric string; null otherwise. */
export function toFiniteNumber(value: unknown): number | null {
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (typeof value === 'bigint') return Number(value);
  if (typeof value === 'string' && value.trim() !== '') {
    const n = Number(value);
    return Number.isFinite(n) ? n : null;
  }
  return null;
}

/** The JSON value for an integer: a plain number while it is safe, a bigint beyond. */
export function integerToJson(value: bigint): number | bigint {
  const asNumber = Number(value);
  return Number.isSafeInteger(asNumber) && BigInt(asNumber) === value ? asNumber : value;
}

export function isIntegerText(text: string): boolean {
  return INTEGER_TEXT.test(text.trim());
}

/** A uniformly random integer in [min, max], using the platform's cryptographic generator. */
export function randomBigIntInRange(min: bigint, max: bigint, fill: (bytes: Uint8Array<ArrayBuffer>) => void): bigint {
  if (max < min) return min;
  const span = max - min + 1n;
  const bytes = new Uint8Array(Math.ceil(span.toString(2).length / 8) + 1);
  // Rejection sampling keeps the distribution uniform; the extra byte makes rejections rare.
  const limit = (1n << BigInt(bytes.length * 8)) - ((1n << BigInt(bytes.length * 8)) % span);
  for (;;) {
    fill(bytes);
    let n = 0n;
    for (const b of bytes) n = (n << 8n) | BigInt(b);
    if (n < limit) return min + (n % span);
  }
}
