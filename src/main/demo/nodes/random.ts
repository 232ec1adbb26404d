// Deterministic randomness for the demo nodes. Seeds are up to 2^64-1 (bigint); they are folded,
// together with the prompt text and a purpose label, into 32-bit states for fast generators.
// Nothing here uses Math.random: the same inputs must give the same pixels on every machine.

const MASK64 = (1n << 64n) - 1n;

/** splitmix64 finaliser: a good 64-bit mixer. */
function mix64(x: bigint): bigint {
  let z = (x + 0x9e3779b97f4a7c15n) & MASK64;
  z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & MASK64;
  z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & MASK64;
  return z ^ (z >> 31n);
}

/** FNV-1a over the UTF-8 bytes of `text`, 64-bit. */
export function hashText(text: string): bigint {
  let h = 0xcbf29ce484222325n;
  for (const byte of Buffer.from(text, 'utf8')) h = ((h ^ BigInt(byte)) * 0x100000001b3n) & MASK64;
  return h;
}

/** A 32-bit state derived from a seed, any number of texts (prompt, purpose) and numbers. */
export function deriveSeed32(seed: bigint, ...parts: (string | number)[]): number {
  let h = mix64(seed & MASK64);
  for (const part of parts) {
    const v = typeof part === 'string' ? hashText(part) : BigInt(Math.trunc(part)) & MASK64;
    h = mix64(h ^ v);
  }
  return Number(h & 0xffffffffn) >>> 0;
}

/** mulberry32: a small fast PRNG; returns floats in [0, 1). */
export function mulberry32(seed32: number): () => number {
  let a = seed32 >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Stateless 32-bit hash of (x, y, channel, seed): per-pixel noise that needs no generator state. */
export function hash32(x: number, y: number, c: number, seed32: number): number {
  let h = seed32 ^ Math.imul(x, 0x27d4eb2d) ^ Math.imul(y, 0x165667b1) ^ Math.imul(c + 1, 0x9e3779b1);
  h = Math.imul(h ^ (h >>> 16), 0x7feb352d);
  h = Math.imul(h ^ (h >>> 15), 0x846ca68b);
  return (h ^ (h >>> 16)) >>> 0;
}

/** hash32 as a float in [0, 1). */
export function hashUnit(x: number, y: number, c: number, seed32: number): number {
  return hash32(x, y, c, seed32) / 4294967296;
}

/** xorshift32 fill: deterministic incompressible bytes (large-output node). */
export function fillXorshift(out: Uint8Array, seed32: number): void {
  let s = seed32 >>> 0 || 0x9e3779b9;
  const words = Math.floor(out.length / 4);
  const view = new DataView(out.buffer, out.byteOffset, out.byteLength);
  for (let i = 0; i < words; i++) {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    view.setUint32(i * 4, s, true);
  }
  for (let i = words * 4; i < out.length; i++) {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    out[i] = s & 0xff;
  }
}
