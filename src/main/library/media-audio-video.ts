// Duration (and a video's frame size) from container headers, when the header alone tells it:
// WAV (fmt byte rate + data size), FLAC (STREAMINFO), MP4/MOV (mvhd, when `moov` comes first),
// WebM/Matroska (Segment Info Duration x TimecodeScale, Tracks PixelWidth/PixelHeight).
// Anything that would need the whole file (MP3 frames, a trailing moov) is left unknown.
import type { Dimensions } from './media-images';

export interface AvInfo {
  durationMs: number | null;
  /** Frame size of the first video track (Matroska/WebM only). */
  video: Dimensions | null;
  /** Matroska/WebM: whether a video track exists (false for audio-only files). */
  hasVideo: boolean | null;
  docType?: string;
}

const NONE: AvInfo = { durationMs: null, video: null, hasVideo: null };

function ascii(bytes: Uint8Array, at: number, length: number): string {
  if (at < 0 || at + length > bytes.length) return '';
  return String.fromCharCode(...bytes.subarray(at, at + length));
}

function view(bytes: Uint8Array): DataView {
  return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

function ms(value: number): number | null {
  return Number.isFinite(value) && value >= 0 && value < 1e12 ? Math.round(value) : null;
}

// ---------------------------------------------------------------- WAV

export function isWav(bytes: Uint8Array): boolean {
  return ascii(bytes, 0, 4) === 'RIFF' && ascii(bytes, 8, 4) === 'WAVE';
}

export function wavInfo(bytes: Uint8Array, fileSize: number): AvInfo {
  const v = view(bytes);
  let byteRate = 0;
  let at = 12;
  while (at + 8 <= bytes.length) {
    const id = ascii(bytes, at, 4);
    const size = v.getUint32(at + 4, true);
    if (id === 'fmt ' && at + 16 <= bytes.length) byteRate = v.getUint32(at + 16, true);
    if (id === 'data') {
      if (byteRate <= 0) return NONE;
      // A streamed WAV leaves the size as 0 or 0xFFFFFFFF: the file's length says it then.
      const dataBytes = size === 0 || size === 0xffffffff ? Math.max(0, fileSize - (at + 8)) : Math.min(size, Math.max(0, fileSize - (at + 8)));
      return { ...NONE, durationMs: ms((dataBytes / byteRate) * 1000) };
    }
    at += 8 + size + (size % 2); // chunks are padded to an even length
  }
  return NONE;
}

// ---------------------------------------------------------------- FLAC

export function isFlac(bytes: Uint8Array): boolean {
  return ascii(bytes, 0, 4) === 'fLaC';
}

export function flacInfo(bytes: Uint8Array): AvInfo {
  // "fLaC", then the STREAMINFO block: 4-byte header, 10 bytes of block/frame sizes, then
  // 20 bits sample rate, 3 bits channels, 5 bits bits-per-sample, 36 bits total samples.
  if (bytes.length < 26 || (bytes[4]! & 0x7f) !== 0) return NONE;
  const rate = (bytes[18]! << 12) | (bytes[19]! << 4) | (bytes[20]! >> 4);
  const total = (bytes[21]! & 0x0f) * 2 ** 32 + view(bytes).getUint32(22);
  if (rate <= 0 || total <= 0) return NONE;
  return { ...NONE, durationMs: ms((total / rate) * 1000) };
}

// ---------------------------------------------------------------- MP4 / MOV

export function isIsoMedia(bytes: Uint8Array): boolean {
  return ascii(bytes, 4, 4) === 'ftyp';
}

export function isoBrand(bytes: Uint8Array): string {
  return ascii(bytes, 8, 4);
}

/** The mvhd duration when the moov box sits within `bytes` (files written for streaming). */
export function isoInfo(bytes: Uint8Array): AvInfo {
  const v = view(bytes);
  const findChild = (start: number, end: number, type: string): { at: number; end: number } | null => {
    let at = start;
    while (at + 8 <= end) {
      let size = v.getUint32(at);
      let header = 8;
      if (size === 1 && at + 16 <= end) {
        size = Number(v.getBigUint64(at + 8));
        header = 16;
      } else if (size === 0) {
        size = end - at;
      }
      if (size < header) return null;
      if (ascii(bytes, at + 4, 4) === type) return { at: at + header, end: Math.min(end, at + size) };
      at += size;
    }
    return null;
  };
  const moov = findChild(0, bytes.length, 'moov');
  if (!moov) return NONE;
  const mvhd = findChild(moov.at, moov.end, 'mvhd');
  if (!mvhd || mvhd.at + 32 > bytes.length) return NONE;
  const version = bytes[mvhd.at]!;
  const timescale = version === 1 ? v.getUint32(mvhd.at + 20) : v.getUint32(mvhd.at + 12);
  const duration = version === 1 ? Number(v.getBigUint64(mvhd.at + 24)) : v.getUint32(mvhd.at + 16);
  if (timescale <= 0) return NONE;
  return { ...NONE, durationMs: ms((duration / timescale) * 1000) };
}

// ---------------------------------------------------------------- WebM / Matroska (EBML)

export function isEbml(bytes: Uint8Array): boolean {
  return bytes.length >= 4 && bytes[0] === 0x1a && bytes[1] === 0x45 && bytes[2] === 0xdf && bytes[3] === 0xa3;
}

const ID = {
  docType: 0x4282,
  segment: 0x18538067,
  info: 0x1549a966,
  timecodeScale: 0x2ad7b1,
  duration: 0x4489,
  tracks: 0x1654ae6b,
  trackEntry: 0xae,
  trackType: 0x83,
  video: 0xe0,
  pixelWidth: 0xb0,
  pixelHeight: 0xba,
  cluster: 0x1f43b675,
} as const;

interface Element {
  id: number;
  /** Start of the element's data. */
  data: number;
  /** End of the element's data (clamped to the bytes we have); unknown sizes run to `limit`. */
  end: number;
}

/** Reads an EBML variable-length integer; `keepMarker` for element ids. */
function readVint(bytes: Uint8Array, at: number, keepMarker: boolean): { value: number; length: number; unknown: boolean } | null {
  const first = bytes[at];
  if (first === undefined || first === 0) return null;
  let length = 1;
  while (length <= 8 && (first & (0x80 >> (length - 1))) === 0) length += 1;
  if (length > 8 || at + length > bytes.length) return null;
  let value = keepMarker ? first : first & (0xff >> length);
  let allOnes = value === 0xff >> length;
  for (let i = 1; i < length; i += 1) {
    value = value * 256 + bytes[at + i]!;
    if (bytes[at + i] !== 0xff) allOnes = false;
  }
  return { value, length, unknown: !keepMarker && allOnes };
}

function readElement(bytes: Uint8Array, at: number, limit: number): Element | null {
  const id = readVint(bytes, at, true);
  if (!id) return null;
  const size = readVint(bytes, at + id.length, false);
  if (!size) return null;
  const data = at + id.length + size.length;
  const end = size.unknown ? limit : Math.min(limit, data + size.value);
  return { id: id.value, data, end };
}

function children(bytes: Uint8Array, start: number, end: number): Element[] {
  const out: Element[] = [];
  let at = start;
  while (at < end) {
    const el = readElement(bytes, at, end);
    if (!el) break;
    out.push(el);
    if (el.id === ID.cluster) break; // media data follows: nothing more of interest
    at = el.end; // always past `at`: an element's data starts after its id and size
  }
  return out;
}

function readUint(bytes: Uint8Array, el: Element): number {
  let value = 0;
  for (let i = el.data; i < el.end; i += 1) value = value * 256 + bytes[i]!;
  return value;
}

function readFloat(bytes: Uint8Array, el: Element): number | null {
  const v = view(bytes);
  if (el.end - el.data === 4) return v.getFloat32(el.data);
  if (el.end - el.data === 8) return v.getFloat64(el.data);
  return null;
}

export function ebmlInfo(bytes: Uint8Array): AvInfo {
  const header = readElement(bytes, 0, bytes.length);
  if (!header) return NONE;
  let docType = '';
  for (const el of children(bytes, header.data, header.end)) {
    if (el.id === ID.docType) docType = ascii(bytes, el.data, el.end - el.data);
  }
  const segment = readElement(bytes, header.end, bytes.length);
  if (!segment || segment.id !== ID.segment) return { ...NONE, docType };
  let scale = 1_000_000; // default TimecodeScale: 1 ms in nanoseconds
  let duration: number | null = null;
  let video: Dimensions | null = null;
  let hasVideo: boolean | null = null;
  for (const el of children(bytes, segment.data, segment.end)) {
    if (el.id === ID.info) {
      for (const field of children(bytes, el.data, el.end)) {
        if (field.id === ID.timecodeScale) scale = readUint(bytes, field) || scale;
        if (field.id === ID.duration) duration = readFloat(bytes, field);
      }
    }
    if (el.id === ID.tracks) {
      hasVideo = false;
      for (const entry of children(bytes, el.data, el.end)) {
        if (entry.id !== ID.trackEntry) continue;
        for (const field of children(bytes, entry.data, entry.end)) {
          if (field.id === ID.trackType && readUint(bytes, field) === 1) hasVideo = true;
          if (field.id === ID.video) {
            hasVideo = true;
            let width = 0;
            let height = 0;
            for (const dim of children(bytes, field.data, field.end)) {
              if (dim.id === ID.pixelWidth) width = readUint(bytes, dim);
              if (dim.id === ID.pixelHeight) height = readUint(bytes, dim);
            }
            if (!video && width > 0 && height > 0) video = { width, height };
          }
        }
      }
    }
  }
  return { durationMs: duration === null ? null : ms((duration * scale) / 1e6), video, hasVideo, docType };
}
