// Where the CPU of one grid thumbnail goes, and what sharp's options change: the same 512x512 PNGs
// the import bench imports (the demo's sampler), each variant run over all of them per round, the
// variants' order rotated every round, CPU per image by process.cpuUsage (every thread: libvips's
// worker and libuv's pool, where sharp runs), median over all images and rounds, with the ratio to
// the pipeline the library used before this bench (`current`). Floors beside them: node's zlib
// inflate of the PNG's pixel data, a raw decode, and the sha256 of the same bytes.
// Run: npx tsx bench/thumbnail-options.ts [--images 8] [--rounds 7] [--only name,name] [--grain 0.02]
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as fs from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { inflateSync } from 'node:zlib';
import sharp, { type JpegOptions, type OutputInfo, type ResizeOptions, type SharpOptions } from 'sharp';
import { buildScene, renderScene } from '@main/demo/nodes/procedural';
import { encodePng } from '@main/demo/nodes/image-codec';
import { partialPathFor, publishFile, writeFileAtomically } from '@main/files/publish';

const { values } = parseArgs({ options: { images: { type: 'string' }, rounds: { type: 'string' }, only: { type: 'string' }, grain: { type: 'string' } } });
const IMAGES = Number(values.images ?? 8);
const ROUNDS = Number(values.rounds ?? 7);
/** The sampler's film grain: 0.02 as the import bench renders (~100 KB PNGs); ~0.15 gives the ~400 KB of a real model's output. */
const GRAIN = Number(values.grain ?? 0.02);

sharp.cache(false);
sharp.concurrency(1);

interface Source {
  file: string;
  bytes: Buffer;
}

type Variant = (source: Source) => Promise<unknown> | unknown;

const EDGE = 256;
const fit = { width: EDGE, height: EDGE, fit: 'inside', withoutEnlargement: true } as const;
const limits = { limitInputPixels: 64 * 1024 * 1024, animated: false } as const;

/** The PNG's IDAT chunks joined (the zlib stream of its pixel rows). */
function idat(png: Buffer): Buffer {
  const parts: Buffer[] = [];
  for (let at = 8; at + 8 <= png.length;) {
    const length = png.readUInt32BE(at);
    if (png.toString('latin1', at + 4, at + 8) === 'IDAT') parts.push(png.subarray(at + 8, at + 8 + length));
    at += 12 + length;
  }
  return Buffer.concat(parts);
}

let made = 0;
let thumbDir = '';
/** A fresh thumbnail path (each end-to-end variant writes a new file, as the library does). */
const target = (): string => join(thumbDir, `t-${(made += 1)}-256.jpg`);

/** The first 64 KiB, as thumbnails.ts reads them to check the format and size. */
async function readHead(file: string): Promise<Buffer> {
  const handle = await fs.open(file, 'r');
  try {
    const head = Buffer.alloc(64 * 1024);
    const { bytesRead } = await handle.read(head, 0, head.length, 0);
    return head.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

/** The whole file in one read (open, fstat, read, close). */
async function readWhole(file: string): Promise<Buffer> {
  const handle = await fs.open(file, 'r');
  try {
    const { size } = await handle.stat();
    const bytes = Buffer.allocUnsafe(size);
    const { bytesRead } = await handle.read(bytes, 0, size, 0);
    return bytes.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

interface Changes {
  open?: SharpOptions;
  resize?: ResizeOptions;
  jpeg?: JpegOptions;
}

/** The library's thumbnail pipeline (before this bench) with the `changes` given, to a JPEG in memory. */
function thumbnail(input: string | Buffer, changes: Changes = {}): Promise<{ data: Buffer; info: OutputInfo }> {
  return sharp(input, { ...limits, ...changes.open })
    .resize({ ...fit, ...changes.resize })
    .flatten({ background: '#ffffff' })
    .jpeg({ quality: 82, ...changes.jpeg })
    .toBuffer({ resolveWithObject: true });
}

const variants: Record<string, Variant> = {
  // Floors: no thumbnail pipeline can cost less than these for a PNG of this size.
  'floor: zlib inflate of the pixel rows (node)': (s) => inflateSync(idat(s.bytes)),
  'floor: sha256 of the file': (s) => createHash('sha256').update(s.bytes).digest(),
  'header only: metadata()': (s) => sharp(s.file, limits).metadata(),
  'decode to raw pixels (path)': (s) => sharp(s.file, limits).raw().toBuffer(),
  'decode to raw pixels (buffer)': (s) => sharp(s.bytes, limits).raw().toBuffer(),
  'decode + resize, raw out': (s) => sharp(s.file, limits).resize(fit).raw().toBuffer(),
  // sharp's cost per call, whatever the image: the options object built in JavaScript and read
  // field by field by the native side (~250 fields), libvips's operations made and freed, two
  // thread hand-offs (libuv's pool, libvips's worker).
  'fixed cost per call: a 1x1 PNG through the pipeline': () => thumbnail(tinyPng),
  // The pipeline as the library ran it (thumbnails.ts before this bench), then one change at a time.
  current: (s) => thumbnail(s.file),
  // Asking sharp for the size first (what thumbnails.ts does not: it reads the header itself).
  'two calls: metadata(), then the pipeline': async (s) => {
    await sharp(s.bytes, limits).metadata();
    return thumbnail(s.bytes);
  },
  // The scaled pixels copied out to JavaScript and back into a second call to encode them.
  'two calls: decode + resize to raw pixels, then encode them': async (s) => {
    const { data, info } = await sharp(s.bytes, limits).resize(fit).raw().toBuffer({ resolveWithObject: true });
    return sharp(data, { raw: { width: info.width, height: info.height, channels: info.channels } })
      .jpeg({ quality: 82, optimiseCoding: false })
      .toBuffer();
  },
  'current, from the bytes in memory': (s) => thumbnail(s.bytes),
  'current, concurrency 2': async (s) => {
    sharp.concurrency(2);
    try {
      return await thumbnail(s.file);
    } finally {
      sharp.concurrency(1);
    }
  },
  // sequentialRead is sharp's default (true) since 0.33: the current pipeline already reads so.
  'current, sequentialRead false': (s) => thumbnail(s.file, { open: { sequentialRead: false } }),
  "current, failOn 'none'": (s) => thumbnail(s.file, { open: { failOn: 'none' } }),
  'no flatten (RGB source)': (s) => sharp(s.file, limits).resize(fit).jpeg({ quality: 82 }).toBuffer(),
  'kernel nearest': (s) => thumbnail(s.file, { resize: { kernel: 'nearest' } }),
  'kernel linear': (s) => thumbnail(s.file, { resize: { kernel: 'linear' } }),
  'kernel cubic': (s) => thumbnail(s.file, { resize: { kernel: 'cubic' } }),
  'jpeg optimiseCoding false': (s) => thumbnail(s.file, { jpeg: { optimiseCoding: false } }),
  'jpeg 4:4:4': (s) => thumbnail(s.file, { jpeg: { chromaSubsampling: '4:4:4' } }),
  'jpeg mozjpeg (trellis etc.)': (s) => thumbnail(s.file, { jpeg: { mozjpeg: true } }),
  'webp q80 effort 0': (s) => sharp(s.file, limits).resize(fit).webp({ quality: 80, effort: 0 }).toBuffer(),
  'webp q80 default effort': (s) => sharp(s.file, limits).resize(fit).webp({ quality: 80 }).toBuffer(),
  // End to end, as a library thumbnail is written (the file's checks, sharp, the file written).
  'write: stat + head + sharp(path) + mkdir + atomic write (before)': async (s) => {
    await fs.stat(s.file);
    await readHead(s.file);
    const out = await thumbnail(s.file);
    await fs.mkdir(thumbDir, { recursive: true });
    await writeFileAtomically(target(), out.data);
  },
  'write: one read + sharp(bytes) + atomic write': async (s) => {
    const out = await thumbnail(await readWhole(s.file));
    await writeFileAtomically(target(), out.data);
  },
  'write: one read + sharp(bytes).toFile(partial) + rename': async (s) => {
    const file = target();
    const partial = partialPathFor(file);
    await sharp(await readWhole(s.file), limits)
      .resize(fit)
      .flatten({ background: '#ffffff' })
      .jpeg({ quality: 82 })
      .toFile(partial);
    await publishFile(partial, thumbDir, file.slice(thumbDir.length + 1), { replace: true });
  },
  'write: one read + sharp(bytes) optimiseCoding false + atomic write (after)': async (s) => {
    const out = await thumbnail(await readWhole(s.file), { jpeg: { optimiseCoding: false } });
    await writeFileAtomically(target(), out.data);
  },
  // Every saving at once, quality aside (the library keeps lanczos3).
  'bytes + linear + optimiseCoding false': (s) => thumbnail(s.bytes, { resize: { kernel: 'linear' }, jpeg: { optimiseCoding: false } }),
};

/** A 1x1 PNG: what a sharp call costs apart from the pixels. */
const tinyPng = await sharp({ create: { width: 1, height: 1, channels: 3, background: '#000000' } })
  .png()
  .toBuffer();

const only = values.only?.split(',');
const names = Object.keys(variants).filter((n) => !only || only.some((o) => n.includes(o)));

const dir = mkdtempSync(join(tmpdir(), 'flowdeck-bench-thumb-'));
try {
  const sources: Source[] = [];
  for (let i = 0; i < IMAGES; i += 1) {
    const png = encodePng(renderScene(buildScene(`a lighthouse at dusk ${i}`, BigInt(i + 1), 7), 512, 512, GRAIN));
    const file = join(dir, `out-${i}.png`);
    writeFileSync(file, png);
    sources.push({ file, bytes: readFileSync(file) });
  }
  const sizes = sources.map((s) => s.bytes.length);
  thumbDir = join(dir, '.thumbnails');
  mkdirSync(thumbDir);
  // Warm-up: load libvips's codecs and every variant's code paths once.
  for (const name of names) await variants[name]!(sources[0]!);

  const samples = new Map<string, number[]>(names.map((n) => [n, []]));
  const loads: number[] = [];
  for (let round = 0; round < ROUNDS; round += 1) {
    const order = names.map((_, i) => names[(i + round) % names.length]!);
    for (const name of order) {
      for (const source of sources) {
        const c0 = process.cpuUsage();
        await variants[name]!(source);
        const used = process.cpuUsage(c0);
        samples.get(name)!.push((used.user + used.system) / 1000);
      }
    }
    loads.push(loadavg()[0]!);
  }
  const median = (list: number[]): number => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)]!;
  const base = samples.has('current') ? median(samples.get('current')!) : NaN;
  console.log(
    `thumbnail of a 512x512 RGB PNG (grain ${GRAIN}, ${Math.min(...sizes)}-${Math.max(...sizes)} bytes) to ${EDGE} px, sharp ${sharp.versions.sharp} / libvips ${sharp.versions.vips}, concurrency ${sharp.concurrency()}, cache off; ${IMAGES} images x ${ROUNDS} rounds, load ${Math.min(...loads).toFixed(1)}-${Math.max(...loads).toFixed(1)}`,
  );
  console.log(`${'CPU per image, ms'.padEnd(52)} median    p25-p75       / current`);
  for (const name of names) {
    const list = [...samples.get(name)!].sort((a, b) => a - b);
    const m = median(list);
    const q = (p: number): string => list[Math.floor((list.length - 1) * p)]!.toFixed(2);
    console.log(`  ${name.padEnd(50)} ${m.toFixed(2).padStart(6)}  ${q(0.25).padStart(6)}-${q(0.75).padEnd(6)}  ${(m / base).toFixed(2)}x`);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
