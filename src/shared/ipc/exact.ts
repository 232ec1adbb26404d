// ExactNumber: how node definitions carry numbers that may not fit a JavaScript number (a seed's
// maximum is 2^64-1). A plain number when it is safe, else {bigint: "<digits>"}. No runtime
// dependencies: the renderer uses these too.
import type { ExactNumber } from './contract';

export function toExactNumber(value: number | bigint): ExactNumber {
  if (typeof value === 'bigint') {
    return value >= BigInt(Number.MIN_SAFE_INTEGER) && value <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(value) : { bigint: value.toString() };
  }
  return value;
}

export function fromExactNumber(value: ExactNumber): number | bigint {
  return typeof value === 'number' ? value : BigInt(value.bigint);
}

/** Compares two exact numbers without losing precision (-1, 0, 1). */
export function compareExact(a: number | bigint, b: number | bigint): number {
  if (typeof a === 'number' && typeof b === 'number') return a < b ? -1 : a > b ? 1 : 0;
  if ((typeof a === 'number' && !Number.isInteger(a)) || (typeof b === 'number' && !Number.isInteger(b))) {
    // A fraction against a bigint: precision beyond 2^53 cannot matter to the comparison's sign
    // except at the extremes, where a fractional bound is meaningless anyway.
    const x = Number(a);
    const y = Number(b);
    return x < y ? -1 : x > y ? 1 : 0;
  }
  const x = BigInt(a);
  const y = BigInt(b);
  return x < y ? -1 : x > y ? 1 : 0;
}
