// Binary WebSocket frames as the servers write them: every integer a big-endian u32.
//   1 PREVIEW_IMAGE                [1][format 1=JPEG 2=PNG][image]
//   3 TEXT                         [3][n][node id, n bytes][text]
//   4 PREVIEW_IMAGE_WITH_METADATA  [4][n][metadata JSON, n bytes][image]

function u32(value: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(value >>> 0, 0);
  return b;
}

export const IMAGE_FORMAT_JPEG = 1;

export function encodePreviewImage(format: 1 | 2, image: Uint8Array): Buffer {
  return Buffer.concat([u32(1), u32(format), image]);
}

export function encodeText(nodeId: string, text: string): Buffer {
  const id = Buffer.from(nodeId, 'utf8');
  return Buffer.concat([u32(3), u32(id.length), id, Buffer.from(text, 'utf8')]);
}

/** `metadataJson` is already serialised, so each flavour keeps its own JSON spacing. */
export function encodePreviewWithMetadata(metadataJson: string, image: Uint8Array): Buffer {
  const meta = Buffer.from(metadataJson, 'utf8');
  return Buffer.concat([u32(4), u32(meta.length), meta, image]);
}

/** Frames a robust client must drop and count, never choke on. */
export function malformedFrames(): Buffer[] {
  return [
    // Shorter than the 4-byte type word.
    Buffer.from([0x00, 0x00, 0x01]),
    // TEXT whose node-id length runs past the end of the frame.
    Buffer.concat([u32(3), u32(1000), Buffer.from('5', 'utf8')]),
    // A type no server defines.
    Buffer.concat([u32(99), u32(1), Buffer.from([0xff, 0xd8, 0xff])]),
  ];
}
