// Decoder of the socket's binary frames (PROTOCOL.md "Binary frames"). All integers are big-endian
// u32. Runs for every preview frame, so it never copies the image bytes (they are a view into the
// frame) and never throws: a frame it cannot use comes back as a DroppedFrame with a reason, which
// the socket counts instead of letting one bad frame break its event loop.
import type { ImageMime, PreviewEvent, ProgressTextEvent } from './types';

export type DecodedFrame = PreviewEvent | ProgressTextEvent;

export type DropReason =
  | 'short' // fewer bytes than the header needs
  | 'overrun' // a length field points past the end of the frame
  | 'bad_metadata' // type 4 metadata is not a JSON object
  | 'not_image' // the payload is neither JPEG nor PNG
  | 'unknown_type'; // not 1, 3 or 4

export interface DroppedFrame {
  type: 'dropped';
  reason: DropReason;
  /** The type word when the frame had one. */
  frameType: number | null;
  length: number;
}

export const FRAME_PREVIEW_IMAGE = 1;
export const FRAME_TEXT = 3;
export const FRAME_PREVIEW_WITH_METADATA = 4;

const HEADER = 8;
const utf8 = new TextDecoder('utf-8');

function u32(bytes: Uint8Array, offset: number): number {
  // Unsigned: `>>> 0` keeps 0x80000000 and above positive.
  return (((bytes[offset] ?? 0) << 24) | ((bytes[offset + 1] ?? 0) << 16) | ((bytes[offset + 2] ?? 0) << 8) | (bytes[offset + 3] ?? 0)) >>> 0;
}

/** The image's own magic bytes: FF D8 FF is JPEG, 89 50 4E 47 is PNG. */
export function sniffImageMime(bytes: Uint8Array): ImageMime | null {
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'image/jpeg';
  if (bytes.length >= 4 && bytes[0] === 0x89 && bytes[1] === 0x50 && bytes[2] === 0x4e && bytes[3] === 0x47) return 'image/png';
  return null;
}

function dropped(reason: DropReason, frameType: number | null, length: number): DroppedFrame {
  return { type: 'dropped', reason, frameType, length };
}

export function isDroppedFrame(frame: DecodedFrame | DroppedFrame): frame is DroppedFrame {
  return frame.type === 'dropped';
}

function stringOrNull(value: unknown): string | null {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return null;
}

/**
 * Decodes one binary frame. The returned `bytes` of a preview is a subarray of `frame` (no copy):
 * the caller must not reuse the frame's buffer while the preview is in use (ws gives each message
 * its own buffer, so this holds for socket frames).
 */
export function decodeBinaryFrame(frame: Uint8Array): DecodedFrame | DroppedFrame {
  const length = frame.length;
  if (length < 4) return dropped('short', null, length);
  const frameType = u32(frame, 0);
  switch (frameType) {
    case FRAME_PREVIEW_IMAGE:
      return decodePreview(frame, frameType);
    case FRAME_TEXT:
      return decodeText(frame, frameType);
    case FRAME_PREVIEW_WITH_METADATA:
      return decodePreviewWithMetadata(frame, frameType);
    default:
      return dropped('unknown_type', frameType, length);
  }
}

function decodePreview(frame: Uint8Array, frameType: number): PreviewEvent | DroppedFrame {
  if (frame.length < HEADER) return dropped('short', frameType, frame.length);
  // The format word sits at offset 4 (1 JPEG, 2 PNG; two popular clients read it elsewhere). The
  // image's own magic bytes decide, though: a renderer fed a PNG labelled JPEG would fail, and a
  // payload without a JPEG/PNG signature is not something we can show, whatever the word says.
  const image = frame.subarray(HEADER);
  const sniffed = sniffImageMime(image);
  if (sniffed === null) return dropped('not_image', frameType, frame.length);
  return {
    type: 'preview',
    frameType: 1,
    promptId: null,
    nodeId: null,
    displayNodeId: null,
    mime: sniffed,
    bytes: image,
  };
}

function decodeText(frame: Uint8Array, frameType: number): ProgressTextEvent | DroppedFrame {
  if (frame.length < HEADER) return dropped('short', frameType, frame.length);
  const idLength = u32(frame, 4);
  if (idLength > frame.length - HEADER) return dropped('overrun', frameType, frame.length);
  const nodeId = utf8.decode(frame.subarray(HEADER, HEADER + idLength));
  const text = utf8.decode(frame.subarray(HEADER + idLength));
  return { type: 'progress_text', nodeId, text };
}

function decodePreviewWithMetadata(frame: Uint8Array, frameType: number): PreviewEvent | DroppedFrame {
  if (frame.length < HEADER) return dropped('short', frameType, frame.length);
  const metaLength = u32(frame, 4);
  if (metaLength > frame.length - HEADER) return dropped('overrun', frameType, frame.length);
  let metadata: unknown;
  try {
    metadata = JSON.parse(utf8.decode(frame.subarray(HEADER, HEADER + metaLength)));
  } catch {
    return dropped('bad_metadata', frameType, frame.length);
  }
  if (typeof metadata !== 'object' || metadata === null || Array.isArray(metadata)) return dropped('bad_metadata', frameType, frame.length);
  const meta = metadata as Record<string, unknown>;
  const image = frame.subarray(HEADER + metaLength);
  const sniffed = sniffImageMime(image);
  if (sniffed === null) return dropped('not_image', frameType, frame.length);
  // `image_type` is optional (the cloud may omit it); the magic bytes are authoritative either way.
  return {
    type: 'preview',
    frameType: 4,
    promptId: stringOrNull(meta.prompt_id),
    nodeId: stringOrNull(meta.node_id),
    displayNodeId: stringOrNull(meta.display_node_id),
    mime: sniffed,
    bytes: image,
  };
}
