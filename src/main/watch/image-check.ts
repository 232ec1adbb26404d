// Whether a file is a decodable image, decided while the file is read once for its hash (so a
// hot folder never reads a file twice, and memory stays flat for large files). PNG is walked chunk
// by chunk with every CRC checked; JPEG marker by marker up to its end-of-image marker; WebP by its
// RIFF header and first chunk. That finds the usual failures (not an image at all, a truncated
// copy, a damaged PNG) before anything is uploaded; subtler damage fails in the server's loader.
import { crc32 } from 'node:zlib';

export type ImageFormat = 'png' | 'jpeg' | 'webp' | 'gif' | 'bmp' | 'tiff';

export type ImageVerdict = { ok: true; format: ImageFormat; width: number | null; height: number | null } | { ok: false; reason: string };

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const HEAD_BYTES = 16;

interface FormatWalker {
  push(bytes: Buffer): void;
  finish(totalBytes: number): ImageVerdict;
}

/** Feed it the file's bytes in order, then call finish(). */
export class ImageInspector {
  private head = Buffer.alloc(0);
  private walker: FormatWalker | null = null;
  private failed: string | null = null;
  private total = 0;

  push(chunk: Buffer): void {
    this.total += chunk.length;
    if (this.failed) return;
    if (!this.walker) {
      this.head = Buffer.concat([this.head, chunk]);
      if (this.head.length < HEAD_BYTES) return;
      this.walker = pickWalker(this.head);
      if (!this.walker) {
        this.failed = notAnImage(this.head);
        return;
      }
      chunk = this.head;
      this.head = Buffer.alloc(0);
    }
    try {
      this.walker.push(chunk);
    } catch (error) {
      this.failed = error instanceof Error ? error.message : String(error);
    }
  }

  finish(): ImageVerdict {
    if (this.failed) return { ok: false, reason: this.failed };
    if (!this.walker) {
      if (this.total === 0) return { ok: false, reason: 'The file is empty.' };
      const walker = pickWalker(this.head);
      if (!walker) return { ok: false, reason: notAnImage(this.head) };
      try {
        walker.push(this.head);
      } catch (error) {
        return { ok: false, reason: error instanceof Error ? error.message : String(error) };
      }
      return walker.finish(this.total);
    }
    return this.walker.finish(this.total);
  }
}

function notAnImage(head: Buffer): string {
  const text = head.subarray(0, 8).toString('latin1');
  const hint = /^[\x20-\x7e\s]+$/.test(text) ? ' (it looks like text)' : '';
  return `The file is not an image this folder can send: its content is not PNG, JPEG or WebP${hint}.`;
}

function pickWalker(head: Buffer): FormatWalker | null {
  if (head.length >= 8 && head.subarray(0, 8).equals(PNG_SIGNATURE)) return new PngWalker();
  if (head.length >= 3 && head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff) return new JpegWalker();
  const ascii = head.subarray(0, 12).toString('latin1');
  if (head.length >= 12 && ascii.startsWith('RIFF') && ascii.slice(8, 12) === 'WEBP') return new WebpWalker();
  if (ascii.startsWith('GIF87a') || ascii.startsWith('GIF89a')) return new SniffOnly('gif');
  if (ascii.startsWith('BM')) return new SniffOnly('bmp');
  if (ascii.startsWith('II*\0') || ascii.startsWith('MM\0*')) return new SniffOnly('tiff');
  return null;
}

class SniffOnly implements FormatWalker {
  constructor(private readonly format: ImageFormat) {}
  push(): void {}
  finish(): ImageVerdict {
    return { ok: true, format: this.format, width: null, height: null };
  }
}

/** Collects exactly `n` bytes across chunks. */
class Need {
  private parts: Buffer[] = [];
  private have = 0;
  constructor(readonly n: number) {}
  /** Takes what it needs from `bytes` at `offset`; returns the new offset. */
  take(bytes: Buffer, offset: number): number {
    const want = Math.min(this.n - this.have, bytes.length - offset);
    if (want > 0) {
      this.parts.push(bytes.subarray(offset, offset + want));
      this.have += want;
    }
    return offset + Math.max(0, want);
  }
  get done(): boolean {
    return this.have >= this.n;
  }
  value(): Buffer {
    return Buffer.concat(this.parts, this.n);
  }
}

class PngWalker implements FormatWalker {
  private state: 'signature' | 'header' | 'data' | 'crc' | 'end' = 'signature';
  private need = new Need(8);
  private dataLeft = 0;
  private type = '';
  private crc = 0;
  private chunks = 0;
  private sawIdat = false;
  private width: number | null = null;
  private height: number | null = null;
  private ihdr: Buffer[] = [];

  push(bytes: Buffer): void {
    let i = 0;
    while (i < bytes.length && this.state !== 'end') {
      if (this.state === 'data') {
        const n = Math.min(this.dataLeft, bytes.length - i);
        const part = bytes.subarray(i, i + n);
        this.crc = crc32(part, this.crc);
        if (this.type === 'IHDR') this.ihdr.push(part);
        this.dataLeft -= n;
        i += n;
        if (this.dataLeft === 0) {
          this.state = 'crc';
          this.need = new Need(4);
        }
        continue;
      }
      i = this.need.take(bytes, i);
      if (!this.need.done) return;
      const value = this.need.value();
      if (this.state === 'signature') {
        this.state = 'header';
        this.need = new Need(8);
      } else if (this.state === 'header') {
        const length = value.readUInt32BE(0);
        this.type = value.subarray(4, 8).toString('latin1');
        if (length > 0x7fffffff || !/^[A-Za-z]{4}$/.test(this.type)) throw new Error('The PNG file is damaged: a chunk header is invalid.');
        if (this.chunks === 0 && (this.type !== 'IHDR' || length !== 13)) throw new Error('The PNG file is damaged: it does not start with an image header.');
        this.chunks += 1;
        if (this.type === 'IDAT') this.sawIdat = true;
        this.crc = crc32(value.subarray(4, 8));
        this.dataLeft = length;
        if (length === 0) {
          this.state = 'crc';
          this.need = new Need(4);
        } else {
          this.state = 'data';
        }
      } else if (this.state === 'crc') {
        if (value.readUInt32BE(0) !== this.crc >>> 0) throw new Error(`The PNG file is damaged: the ${this.type} chunk fails its checksum.`);
        if (this.type === 'IHDR') {
          const header = Buffer.concat(this.ihdr);
          this.width = header.readUInt32BE(0);
          this.height = header.readUInt32BE(4);
          if (this.width === 0 || this.height === 0) throw new Error(`The PNG file declares an empty image (${this.width}x${this.height}).`);
        }
        if (this.type === 'IEND') {
          this.state = 'end';
          return;
        }
        this.state = 'header';
        this.need = new Need(8);
      }
    }
  }

  finish(): ImageVerdict {
    if (this.state !== 'end')
      return { ok: false, reason: 'The PNG file is truncated (it ends before its last chunk): it may still be copying, or the copy was cut short.' };
    if (!this.sawIdat) return { ok: false, reason: 'The PNG file holds no image data.' };
    return { ok: true, format: 'png', width: this.width, height: this.height };
  }
}

const SOF_MARKERS = new Set([0xc0, 0xc1, 0xc2, 0xc3, 0xc5, 0xc6, 0xc7, 0xc9, 0xca, 0xcb, 0xcd, 0xce, 0xcf]);

class JpegWalker implements FormatWalker {
  private state: 'soi' | 'marker' | 'length' | 'segment' | 'entropy' | 'entropyFF' | 'end' = 'soi';
  private need = new Need(2);
  private marker = 0;
  private skip = 0;
  private segment: Buffer[] = [];
  private sawSof = false;
  private sawSos = false;
  private width: number | null = null;
  private height: number | null = null;

  push(bytes: Buffer): void {
    let i = 0;
    while (i < bytes.length && this.state !== 'end') {
      switch (this.state) {
        case 'soi':
          i = this.need.take(bytes, i);
          if (!this.need.done) return;
          this.state = 'marker';
          break;
        case 'marker': {
          const b = bytes[i]!;
          i += 1;
          if (b !== 0xff) continue; // stray bytes between segments: decoders skip them too
          this.state = 'entropyFF';
          this.afterFF = 'marker';
          break;
        }
        case 'entropy': {
          const next = bytes.indexOf(0xff, i);
          if (next < 0) return;
          i = next + 1;
          this.state = 'entropyFF';
          this.afterFF = 'entropy';
          break;
        }
        case 'entropyFF': {
          const b = bytes[i]!;
          i += 1;
          if (b === 0xff) continue; // fill bytes
          if (this.afterFF === 'entropy' && (b === 0x00 || (b >= 0xd0 && b <= 0xd7))) {
            this.state = 'entropy'; // stuffed byte or restart marker inside scan data
            continue;
          }
          this.onMarker(b);
          break;
        }
        case 'length': {
          i = this.need.take(bytes, i);
          if (!this.need.done) return;
          const length = this.need.value().readUInt16BE(0);
          if (length < 2) throw new Error('The JPEG file is damaged: a segment has an invalid length.');
          this.skip = length - 2;
          this.segment = [];
          this.state = this.skip === 0 ? this.afterSegment() : 'segment';
          break;
        }
        case 'segment': {
          const n = Math.min(this.skip, bytes.length - i);
          if (SOF_MARKERS.has(this.marker)) this.segment.push(bytes.subarray(i, i + n));
          this.skip -= n;
          i += n;
          if (this.skip === 0) this.state = this.afterSegment();
          break;
        }
        default:
          return;
      }
    }
  }

  private afterFF: 'marker' | 'entropy' = 'marker';

  private onMarker(b: number): void {
    this.marker = b;
    if (b === 0xd9) {
      if (!this.sawSos) throw new Error('The JPEG file ends before any image data.');
      this.state = 'end';
      return;
    }
    if (b === 0xd8) throw new Error('The JPEG file is damaged: a second start-of-image marker.');
    if ((b >= 0xd0 && b <= 0xd7) || b === 0x01) {
      this.state = 'marker';
      return;
    }
    this.state = 'length';
    this.need = new Need(2);
  }

  private afterSegment(): 'marker' | 'entropy' {
    if (SOF_MARKERS.has(this.marker)) {
      this.sawSof = true;
      const frame = Buffer.concat(this.segment);
      if (frame.length >= 5) {
        this.height = frame.readUInt16BE(1);
        this.width = frame.readUInt16BE(3);
        if (this.width === 0) throw new Error('The JPEG file declares an image 0 pixels wide.');
      }
    }
    if (this.marker === 0xda) {
      if (!this.sawSof) throw new Error('The JPEG file is damaged: image data comes before the frame header.');
      this.sawSos = true;
      return 'entropy';
    }
    return 'marker';
  }

  finish(): ImageVerdict {
    if (this.state !== 'end')
      return { ok: false, reason: 'The JPEG file is truncated (no end-of-image marker): it may still be copying, or the copy was cut short.' };
    return { ok: true, format: 'jpeg', width: this.width, height: this.height };
  }
}

class WebpWalker implements FormatWalker {
  private need = new Need(26);
  private verdict: ImageVerdict | null = null;
  private riffSize = 0;

  push(bytes: Buffer): void {
    if (this.verdict) return;
    this.need.take(bytes, 0);
    if (!this.need.done) return;
    const head = this.need.value();
    this.riffSize = head.readUInt32LE(4);
    const chunk = head.subarray(12, 16).toString('latin1');
    if (chunk !== 'VP8 ' && chunk !== 'VP8L' && chunk !== 'VP8X') {
      this.verdict = { ok: false, reason: `The WebP file is damaged: its first chunk is "${chunk.trim()}", not image data.` };
      return;
    }
    // Lossless data starts with the signature byte 0x2f; a lossy key frame with 9d 01 2a.
    if ((chunk === 'VP8L' && head[20] !== 0x2f) || (chunk === 'VP8 ' && !(head[23] === 0x9d && head[24] === 0x01 && head[25] === 0x2a))) {
      this.verdict = { ok: false, reason: 'The WebP file is damaged: its image header is invalid.' };
      return;
    }
    this.verdict = { ok: true, format: 'webp', width: null, height: null };
  }

  finish(totalBytes: number): ImageVerdict {
    if (!this.verdict) return { ok: false, reason: 'The WebP file is truncated (shorter than its header).' };
    if (this.verdict.ok && totalBytes < this.riffSize + 8) {
      return {
        ok: false,
        reason: `The WebP file is truncated (${totalBytes} of ${this.riffSize + 8} bytes): it may still be copying, or the copy was cut short.`,
      };
    }
    return this.verdict;
  }
}
