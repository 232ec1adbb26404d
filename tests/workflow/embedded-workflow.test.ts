// The reader of workflows embedded in output images: PNG text chunks of all three kinds, WebP EXIF
// as the server writes it, and every malformed case answered with an error naming the chunk.
import { deflateSync, crc32 } from 'node:zlib';
import { PNG } from 'pngjs';
import { describe, expect, it } from 'vitest';
import { EmbeddedWorkflowError, imageFormatOf, readEmbeddedWorkflow } from '@main/workflow/embedded-workflow';

const PROMPT = '{"3":{"class_type":"KSampler","inputs":{"seed":18446744073709551615,"model":["4",0]}}}';
const WORKFLOW = '{"nodes":[{"id":3,"type":"KSampler"}],"links":[],"version":0.4}';

function chunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])), 0);
  return Buffer.concat([head, data, crc]);
}

/** A real 2x2 PNG with extra chunks inserted after IHDR. */
function pngWith(...extra: Buffer[]): Buffer {
  const png = new PNG({ width: 2, height: 2 });
  png.data.fill(200);
  const plain = PNG.sync.write(png);
  const ihdrEnd = 8 + 8 + 13 + 4;
  return Buffer.concat([plain.subarray(0, ihdrEnd), ...extra, plain.subarray(ihdrEnd)]);
}

const tEXt = (key: string, text: string): Buffer => chunk('tEXt', Buffer.concat([Buffer.from(`${key}\0`, 'latin1'), Buffer.from(text, 'latin1')]));
const zTXt = (key: string, text: string): Buffer =>
  chunk('zTXt', Buffer.concat([Buffer.from(`${key}\0\0`, 'latin1'), deflateSync(Buffer.from(text, 'latin1'))]));
const iTXt = (key: string, text: string, compressed: boolean): Buffer => {
  const body = compressed ? deflateSync(Buffer.from(text, 'utf8')) : Buffer.from(text, 'utf8');
  return chunk('iTXt', Buffer.concat([Buffer.from(`${key}\0`, 'latin1'), Buffer.from([compressed ? 1 : 0, 0]), Buffer.from('en\0\0', 'latin1'), body]));
};

/** A TIFF block (little or big endian) with ASCII entries, as PIL writes a WebP's EXIF. */
function tiff(entries: Array<[number, string]>, little = true, exifPrefix = false): Buffer {
  const u16 = (v: number): Buffer => {
    const b = Buffer.alloc(2);
    if (little) b.writeUInt16LE(v);
    else b.writeUInt16BE(v);
    return b;
  };
  const u32 = (v: number): Buffer => {
    const b = Buffer.alloc(4);
    if (little) b.writeUInt32LE(v);
    else b.writeUInt32BE(v);
    return b;
  };
  const dirSize = 2 + entries.length * 12 + 4;
  let dataOffset = 8 + dirSize;
  const dir: Buffer[] = [u16(entries.length)];
  const data: Buffer[] = [];
  for (const [tag, text] of entries) {
    const bytes = Buffer.from(`${text}\0`, 'utf8');
    dir.push(u16(tag), u16(2), u32(bytes.length), u32(dataOffset));
    data.push(bytes);
    dataOffset += bytes.length;
  }
  dir.push(u32(0));
  const body = Buffer.concat([Buffer.from(little ? 'II' : 'MM'), u16(42), u32(8), ...dir, ...data]);
  return exifPrefix ? Buffer.concat([Buffer.from('Exif\0\0', 'latin1'), body]) : body;
}

function webpWith(exif: Buffer | null): Buffer {
  const riffChunk = (type: string, data: Buffer): Buffer => {
    const head = Buffer.alloc(8);
    head.write(type, 0, 'latin1');
    head.writeUInt32LE(data.length, 4);
    return Buffer.concat([head, data, data.length % 2 ? Buffer.alloc(1) : Buffer.alloc(0)]);
  };
  const chunks = [riffChunk('VP8L', Buffer.from([0x2f, 0, 0, 0, 0])), ...(exif ? [riffChunk('EXIF', exif)] : [])];
  const body = Buffer.concat([Buffer.from('WEBP', 'latin1'), ...chunks]);
  const head = Buffer.alloc(8);
  head.write('RIFF', 0, 'latin1');
  head.writeUInt32LE(body.length, 4);
  return Buffer.concat([head, body]);
}

describe('workflows embedded in PNG outputs', () => {
  it('reads prompt and workflow from tEXt chunks, keeping a 64-bit seed exact', () => {
    const result = readEmbeddedWorkflow(pngWith(tEXt('prompt', PROMPT), tEXt('workflow', WORKFLOW)));
    expect(result.format).toBe('png');
    const node = result.prompt?.['3'] as { inputs: { seed: unknown } };
    expect(node.inputs.seed).toBe(18446744073709551615n);
    expect(result.workflow?.version).toBe(0.4);
  });

  it('reads zTXt and iTXt (compressed and not), with UTF-8 text in iTXt', () => {
    const unicodeWorkflow = '{"nodes":[],"links":[],"extra":{"title":"Fenêtre 雪"}}';
    const z = readEmbeddedWorkflow(pngWith(zTXt('prompt', PROMPT), iTXt('workflow', unicodeWorkflow, true)));
    expect(z.prompt).not.toBeNull();
    expect((z.workflow?.extra as { title: string }).title).toBe('Fenêtre 雪');
    const i = readEmbeddedWorkflow(pngWith(iTXt('prompt', PROMPT, false)));
    expect(i.prompt).not.toBeNull();
    expect(i.workflow).toBeNull();
  });

  it('ignores other text chunks and returns nulls for an image without a workflow', () => {
    const result = readEmbeddedWorkflow(pngWith(tEXt('Software', 'something'), tEXt('parameters', 'a photo')));
    expect(result).toEqual({ format: 'png', prompt: null, workflow: null });
  });

  it('names the chunk that is not JSON', () => {
    expect(() => readEmbeddedWorkflow(pngWith(tEXt('prompt', '{"3": {oops')))).toThrow(/"prompt" text chunk is not JSON/);
    expect(() => readEmbeddedWorkflow(pngWith(tEXt('workflow', '[1,2]')))).toThrow(/"workflow" text chunk is JSON but not an object/);
  });

  it('reports a truncated file, never reading past the end', () => {
    const whole = pngWith(tEXt('prompt', PROMPT));
    for (const cut of [12, 20, 40, 60, 80]) {
      expect(() => readEmbeddedWorkflow(whole.subarray(0, cut))).toThrow(EmbeddedWorkflowError);
    }
    expect(() => readEmbeddedWorkflow(whole.subarray(0, 60))).toThrow(/truncated: its tEXt chunk/);
  });

  it('refuses a zTXt that is not zlib data or that inflates without bound', () => {
    const bad = chunk('zTXt', Buffer.concat([Buffer.from('prompt\0\0', 'latin1'), Buffer.from('not zlib at all')]));
    expect(() => readEmbeddedWorkflow(pngWith(bad))).toThrow(/"prompt" zTXt chunk is not valid zlib data/);
    const bomb = chunk('zTXt', Buffer.concat([Buffer.from('prompt\0\0', 'latin1'), deflateSync(Buffer.alloc(80 * 1024 * 1024, 32))]));
    expect(() => readEmbeddedWorkflow(pngWith(bomb))).toThrow(/inflates beyond 64 MiB/);
  });
});

describe('workflows embedded in WebP outputs', () => {
  it('reads "prompt:" and "workflow:" EXIF entries, either byte order, with or without the Exif prefix', () => {
    for (const little of [true, false]) {
      for (const prefix of [false, true]) {
        const result = readEmbeddedWorkflow(
          webpWith(
            tiff(
              [
                [0x010f, `workflow:${WORKFLOW}`],
                [0x0110, `prompt:${PROMPT}`],
              ],
              little,
              prefix,
            ),
          ),
        );
        expect(result.format).toBe('webp');
        expect(result.prompt).not.toBeNull();
        expect(result.workflow?.version).toBe(0.4);
      }
    }
  });

  it('returns nulls for a WebP without EXIF', () => {
    expect(readEmbeddedWorkflow(webpWith(null))).toEqual({ format: 'webp', prompt: null, workflow: null });
  });

  it('refuses what is not a WebP and a truncated EXIF', () => {
    const riffNotWebp = Buffer.concat([Buffer.from('RIFF'), Buffer.from([4, 0, 0, 0]), Buffer.from('WAVE')]);
    expect(() => readEmbeddedWorkflow(riffNotWebp)).toThrow(/RIFF container but not a WebP/);
    expect(() => readEmbeddedWorkflow(Buffer.from('GIF89a....'))).toThrow(/neither a PNG nor a WebP/);
    const exif = tiff([[0x0110, `prompt:${PROMPT}`]]);
    expect(() => readEmbeddedWorkflow(webpWith(exif.subarray(0, 20)))).toThrow(/EXIF chunk is truncated/);
    const whole = webpWith(exif);
    expect(() => readEmbeddedWorkflow(whole.subarray(0, whole.length - 10))).toThrow(/WebP is truncated/);
  });

  it('tells the formats apart by magic bytes', () => {
    expect(imageFormatOf(pngWith())).toBe('png');
    expect(imageFormatOf(webpWith(null))).toBe('webp');
    expect(imageFormatOf(new Uint8Array([1, 2, 3]))).toBeNull();
  });
});
