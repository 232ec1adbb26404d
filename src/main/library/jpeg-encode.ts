// A baseline JPEG encoder for thumbnails (4:4:4, the standard Huffman tables of ITU T.81 Annex K,
// quality scaled as libjpeg does). jpeg-js, which decodes here, also encodes, but its encode()
// builds its lookup tables (65,535 little arrays) on every call and does not export the encoder
// to keep one: that set-up was 28 ms of a thumbnail's 32 ms of encoding (bench/PROFILE-issue25.md).
// The tables here are made once, at load; a call only transforms and writes.

const ZIGZAG = new Uint8Array([
  0, 1, 8, 16, 9, 2, 3, 10, 17, 24, 32, 25, 18, 11, 4, 5, 12, 19, 26, 33, 40, 48, 41, 34, 27, 20, 13, 6, 7, 14, 21, 28, 35, 42, 49, 56, 57, 50, 43, 36, 29, 22,
  15, 23, 30, 37, 44, 51, 58, 59, 52, 45, 38, 31, 39, 46, 53, 60, 61, 54, 47, 55, 62, 63,
]);

// Annex K quantization tables, in natural (row-major) order.
const LUMA_QUANT = [
  16, 11, 10, 16, 24, 40, 51, 61, 12, 12, 14, 19, 26, 58, 60, 55, 14, 13, 16, 24, 40, 57, 69, 56, 14, 17, 22, 29, 51, 87, 80, 62, 18, 22, 37, 56, 68, 109, 103,
  77, 24, 35, 55, 64, 81, 104, 113, 92, 49, 64, 78, 87, 103, 121, 120, 101, 72, 92, 95, 98, 112, 100, 103, 99,
];
const CHROMA_QUANT = [
  17, 18, 24, 47, 99, 99, 99, 99, 18, 21, 26, 66, 99, 99, 99, 99, 24, 26, 56, 99, 99, 99, 99, 99, 47, 66, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99,
  99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99,
];

// Annex K Huffman tables: code counts per length 1..16, then the symbols.
const DC_LUMA = { counts: [0, 1, 5, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0], symbols: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11] };
const DC_CHROMA = { counts: [0, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0], symbols: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11] };
const AC_LUMA = {
  counts: [0, 2, 1, 3, 3, 2, 4, 3, 5, 5, 4, 4, 0, 0, 1, 0x7d],
  symbols: hex(
    '01020300041105122131410613516107227114328191a1082342b1c11552d1f02433627282090a161718191a25262728292a3435363738393a434445464748494a535455565758595a636465666768696a737475767778797a838485868788898a92939495969798999aa2a3a4a5a6a7a8a9aab2b3b4b5b6b7b8b9bac2c3c4c5c6c7c8c9cad2d3d4d5d6d7d8d9dae1e2e3e4e5e6e7e8e9eaf1f2f3f4f5f6f7f8f9fa',
  ),
};
const AC_CHROMA = {
  counts: [0, 2, 1, 2, 4, 4, 3, 4, 7, 5, 4, 4, 0, 1, 2, 0x77],
  symbols: hex(
    '000102031104052131061241510761711322328108144291a1b1c109233352f0156272d10a162434e125f11718191a262728292a35363738393a434445464748494a535455565758595a636465666768696a737475767778797a82838485868788898a92939495969798999aa2a3a4a5a6a7a8a9aab2b3b4b5b6b7b8b9bac2c3c4c5c6c7c8c9cad2d3d4d5d6d7d8d9dae2e3e4e5e6e7e8e9eaf2f3f4f5f6f7f8f9fa',
  ),
};

function hex(text: string): number[] {
  const out: number[] = [];
  for (let i = 0; i < text.length; i += 2) out.push(parseInt(text.slice(i, i + 2), 16));
  return out;
}

interface HuffmanSpec {
  counts: number[];
  symbols: number[];
}

/** Code and length of each symbol (Annex C: canonical codes in order of length). */
function huffmanCodes(spec: HuffmanSpec): { code: Uint16Array; length: Uint8Array } {
  const code = new Uint16Array(256);
  const length = new Uint8Array(256);
  let next = 0;
  let k = 0;
  for (let bits = 1; bits <= 16; bits += 1) {
    for (let i = 0; i < spec.counts[bits - 1]!; i += 1) {
      const symbol = spec.symbols[k++]!;
      code[symbol] = next++;
      length[symbol] = bits;
    }
    next <<= 1;
  }
  return { code, length };
}

const HUFFMAN = {
  dcLuma: huffmanCodes(DC_LUMA),
  acLuma: huffmanCodes(AC_LUMA),
  dcChroma: huffmanCodes(DC_CHROMA),
  acChroma: huffmanCodes(AC_CHROMA),
};

// The AAN forward DCT leaves each coefficient scaled by these factors; the divisors take them out.
const AAN = [1, 1.387039845, 1.306562965, 1.175875602, 1, 0.785694958, 0.5411961, 0.275899379];

/** libjpeg's quality scaling of a base table: the table as written (zigzag) and the DCT divisors (natural order). */
function quantTables(base: number[], quality: number): { zigzag: Uint8Array; divisors: Float64Array } {
  const q = Math.max(1, Math.min(100, Math.round(quality)));
  const scale = q < 50 ? Math.floor(5000 / q) : 200 - q * 2;
  const zigzag = new Uint8Array(64);
  const divisors = new Float64Array(64);
  for (let i = 0; i < 64; i += 1) {
    const value = Math.max(1, Math.min(255, Math.floor((base[i]! * scale + 50) / 100)));
    zigzag[ZIGZAG.indexOf(i)] = value;
    divisors[i] = 1 / (value * AAN[i >> 3]! * AAN[i & 7]! * 8);
  }
  return { zigzag, divisors };
}

/** The AAN forward DCT of one 8x8 block in place (rows, then columns). */
function forwardDct(d: Float64Array): void {
  for (let pass = 0; pass < 2; pass += 1) {
    const step = pass === 0 ? 1 : 8;
    const stride = pass === 0 ? 8 : 1;
    for (let line = 0; line < 8; line += 1) {
      const o = line * stride;
      const p0 = d[o]!;
      const p1 = d[o + step]!;
      const p2 = d[o + 2 * step]!;
      const p3 = d[o + 3 * step]!;
      const p4 = d[o + 4 * step]!;
      const p5 = d[o + 5 * step]!;
      const p6 = d[o + 6 * step]!;
      const p7 = d[o + 7 * step]!;
      const t0 = p0 + p7;
      const t7 = p0 - p7;
      const t1 = p1 + p6;
      const t6 = p1 - p6;
      const t2 = p2 + p5;
      const t5 = p2 - p5;
      const t3 = p3 + p4;
      const t4 = p3 - p4;
      let t10 = t0 + t3;
      const t13 = t0 - t3;
      let t11 = t1 + t2;
      let t12 = t1 - t2;
      d[o] = t10 + t11;
      d[o + 4 * step] = t10 - t11;
      const z1 = (t12 + t13) * 0.707106781;
      d[o + 2 * step] = t13 + z1;
      d[o + 6 * step] = t13 - z1;
      t10 = t4 + t5;
      t11 = t5 + t6;
      t12 = t6 + t7;
      const z5 = (t10 - t12) * 0.382683433;
      const z2 = 0.5411961 * t10 + z5;
      const z4 = 1.306562965 * t12 + z5;
      const z3 = t11 * 0.707106781;
      const z11 = t7 + z3;
      const z13 = t7 - z3;
      d[o + 5 * step] = z13 + z2;
      d[o + 3 * step] = z13 - z2;
      d[o + step] = z11 + z4;
      d[o + 7 * step] = z11 - z4;
    }
  }
}

/** Bits into bytes, with the 0x00 stuffed after every 0xFF of entropy-coded data. */
class BitWriter {
  bytes: Uint8Array;
  length = 0;
  private buffer = 0;
  private count = 0;

  constructor(capacity: number) {
    this.bytes = new Uint8Array(capacity);
  }

  raw(values: ArrayLike<number>): void {
    this.ensure(values.length);
    for (let i = 0; i < values.length; i += 1) this.bytes[this.length++] = values[i]!;
  }

  bits(code: number, size: number): void {
    this.buffer = (this.buffer << size) | (code & ((1 << size) - 1));
    this.count += size;
    while (this.count >= 8) {
      const byte = (this.buffer >>> (this.count - 8)) & 0xff;
      this.ensure(2);
      this.bytes[this.length++] = byte;
      if (byte === 0xff) this.bytes[this.length++] = 0;
      this.count -= 8;
    }
    this.buffer &= (1 << this.count) - 1;
  }

  /** Pads the last byte with 1 bits (T.81 F.1.2.3). */
  flush(): void {
    if (this.count > 0) this.bits(0x7f, 8 - this.count);
  }

  private ensure(more: number): void {
    if (this.length + more <= this.bytes.length) return;
    const grown = new Uint8Array(Math.max(this.bytes.length * 2, this.length + more));
    grown.set(this.bytes.subarray(0, this.length));
    this.bytes = grown;
  }
}

function writeHeaders(out: BitWriter, width: number, height: number, luma: Uint8Array, chroma: Uint8Array): void {
  out.raw([0xff, 0xd8]); // SOI
  out.raw([0xff, 0xe0, 0, 16, 0x4a, 0x46, 0x49, 0x46, 0, 1, 1, 0, 0, 1, 0, 1, 0, 0]); // APP0 JFIF 1.1
  out.raw([0xff, 0xdb, 0, 132, 0]);
  out.raw(luma);
  out.raw([1]);
  out.raw(chroma);
  // SOF0: 8-bit samples, three components at full resolution (4:4:4), chroma on table 1.
  out.raw([0xff, 0xc0, 0, 17, 8, height >> 8, height & 0xff, width >> 8, width & 0xff, 3, 1, 0x11, 0, 2, 0x11, 1, 3, 0x11, 1]);
  const tables: [number, HuffmanSpec][] = [
    [0x00, DC_LUMA],
    [0x10, AC_LUMA],
    [0x01, DC_CHROMA],
    [0x11, AC_CHROMA],
  ];
  const size = 2 + tables.reduce((n, [, t]) => n + 17 + t.symbols.length, 0);
  out.raw([0xff, 0xc4, size >> 8, size & 0xff]);
  for (const [id, t] of tables) {
    out.raw([id]);
    out.raw(t.counts);
    out.raw(t.symbols);
  }
  out.raw([0xff, 0xda, 0, 12, 3, 1, 0x00, 2, 0x11, 3, 0x11, 0, 63, 0]); // SOS
}

/** Writes a value's category code and its extra bits (T.81 F.1.2.1). */
function writeValue(out: BitWriter, value: number, table: { code: Uint16Array; length: Uint8Array }, run: number): void {
  const magnitude = value < 0 ? -value : value;
  const size = magnitude === 0 ? 0 : 32 - Math.clz32(magnitude);
  const symbol = (run << 4) | size;
  out.bits(table.code[symbol]!, table.length[symbol]!);
  if (size > 0) out.bits(value < 0 ? value + (1 << size) - 1 : value, size);
}

/** Quantizes and writes one transformed block; returns its DC value for the next block's difference. */
function writeBlock(
  out: BitWriter,
  block: Float64Array,
  divisors: Float64Array,
  previousDc: number,
  dc: { code: Uint16Array; length: Uint8Array },
  ac: { code: Uint16Array; length: Uint8Array },
): number {
  forwardDct(block);
  const dcValue = Math.round(block[0]! * divisors[0]!);
  writeValue(out, dcValue - previousDc, dc, 0);
  let run = 0;
  for (let k = 1; k < 64; k += 1) {
    const i = ZIGZAG[k]!;
    const value = Math.round(block[i]! * divisors[i]!);
    if (value === 0) {
      run += 1;
      continue;
    }
    while (run > 15) {
      out.bits(ac.code[0xf0]!, ac.length[0xf0]!); // ZRL: 16 zeros
      run -= 16;
    }
    writeValue(out, value, ac, run);
    run = 0;
  }
  if (run > 0) out.bits(ac.code[0]!, ac.length[0]!); // EOB
  return dcValue;
}

/** An RGBA image (alpha ignored: flatten it first) as a baseline JPEG. */
export function encodeJpeg(image: { width: number; height: number; data: Uint8Array }, quality: number): Uint8Array {
  const { width, height, data } = image;
  if (width < 1 || height < 1 || width > 65535 || height > 65535) throw new RangeError(`a JPEG cannot be ${width}x${height}`);
  const luma = quantTables(LUMA_QUANT, quality);
  const chroma = quantTables(CHROMA_QUANT, quality);
  const out = new BitWriter(1024 + width * height);
  writeHeaders(out, width, height, luma.zigzag, chroma.zigzag);
  const y = new Float64Array(64);
  const cb = new Float64Array(64);
  const cr = new Float64Array(64);
  let dcY = 0;
  let dcCb = 0;
  let dcCr = 0;
  for (let by = 0; by < height; by += 8) {
    for (let bx = 0; bx < width; bx += 8) {
      for (let row = 0; row < 8; row += 1) {
        // Edge blocks repeat the last row and column of pixels.
        const sy = Math.min(by + row, height - 1);
        for (let col = 0; col < 8; col += 1) {
          const p = (sy * width + Math.min(bx + col, width - 1)) * 4;
          const r = data[p]!;
          const g = data[p + 1]!;
          const b = data[p + 2]!;
          const i = row * 8 + col;
          y[i] = 0.299 * r + 0.587 * g + 0.114 * b - 128;
          cb[i] = -0.168736 * r - 0.331264 * g + 0.5 * b;
          cr[i] = 0.5 * r - 0.418688 * g - 0.081312 * b;
        }
      }
      dcY = writeBlock(out, y, luma.divisors, dcY, HUFFMAN.dcLuma, HUFFMAN.acLuma);
      dcCb = writeBlock(out, cb, chroma.divisors, dcCb, HUFFMAN.dcChroma, HUFFMAN.acChroma);
      dcCr = writeBlock(out, cr, chroma.divisors, dcCr, HUFFMAN.dcChroma, HUFFMAN.acChroma);
    }
  }
  out.flush();
  out.raw([0xff, 0xd9]); // EOI
  return out.bytes.subarray(0, out.length);
}
