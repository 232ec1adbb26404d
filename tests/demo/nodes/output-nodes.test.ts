import { readFile } from 'node:fs/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PNG } from 'pngjs';
import type { DemoNodeContext, RgbaImage, SavedFile } from '@main/demo/node-api';
import { createDemoAudioNode } from '@main/demo/nodes/demo-audio';
import { CHUNK_BYTES, IN_MEMORY_LIMIT_MB, createDemoLargeOutputNode, largeOutputChunk } from '@main/demo/nodes/demo-large-output';
import { createDemoPartnerNode } from '@main/demo/nodes/demo-partner';
import { createDemoVideoNode } from '@main/demo/nodes/demo-video';
import { readTextChunks } from '@main/demo/nodes/png-text';
import { createPreviewImageNode, createSaveImageNode } from '@main/demo/nodes/save-image';
import { createFakeContext, makeImage, type FakeContext } from './fake-context';

let ctx: FakeContext;
beforeEach(async () => {
  ctx = await createFakeContext();
});
afterEach(async () => {
  await ctx.cleanup();
});

const picture = makeImage(40, 30, (x, y) => [x * 6, y * 8, 128]);

describe('SaveImage and PreviewImage', () => {
  it('SaveImage writes a decodable PNG of the right size as an output and reports it under images', async () => {
    const result = await createSaveImageNode().run(ctx, { images: picture, filename_prefix: 'samples/cat' });
    expect(result.outputs).toEqual([]);
    const saved = (result.ui?.images as SavedFile[])[0]!;
    expect(saved).toMatchObject({ type: 'output', subfolder: 'samples' });
    expect(saved.filename).toMatch(/^cat_\d{5}_\.png$/);
    const png = PNG.sync.read(await readFile(ctx.pathOf(saved)));
    expect([png.width, png.height]).toEqual([40, 30]);
    expect(Array.from(png.data.subarray(0, 4))).toEqual([0, 0, 128, 255]);
    expect(Array.from(png.data.subarray((29 * 40 + 39) * 4, (29 * 40 + 39) * 4 + 3))).toEqual([234, 232, 128]);
  });

  it('stores the workflow in a prompt text chunk when the executor passes it, with big seeds exact', async () => {
    const prompt = { '3': { class_type: 'DemoSampler', inputs: { seed: 18446744073709551615n } } };
    const result = await createSaveImageNode().run(ctx, { images: picture, filename_prefix: 'x', prompt } as never);
    const bytes = await readFile(ctx.pathOf((result.ui?.images as SavedFile[])[0]!));
    expect(readTextChunks(bytes).prompt).toBe('{"3":{"class_type":"DemoSampler","inputs":{"seed":18446744073709551615}}}');
  });

  it('writes each extra_pnginfo entry (the editor graph as "workflow") into a text chunk of its name, as the real node does', async () => {
    const prompt = { '3': { class_type: 'DemoSampler', inputs: { seed: 1 } } };
    const workflow = { nodes: [{ id: 3, type: 'DemoSampler', title: 'Phare à l’aube' }], links: [], version: 0.4 };
    const result = await createSaveImageNode().run(ctx, { images: picture, filename_prefix: 'x', prompt, extra_pnginfo: { workflow } } as never);
    const chunks = readTextChunks(await readFile(ctx.pathOf((result.ui?.images as SavedFile[])[0]!)));
    expect(Object.keys(chunks).sort()).toEqual(['prompt', 'workflow']);
    // Not Latin-1 (the typographic apostrophe): written as UTF-8 iTXt and read back intact.
    expect(JSON.parse(chunks.workflow!)).toEqual(workflow);
    const plain = await createSaveImageNode().run(ctx, { images: picture, filename_prefix: 'y', prompt, extra_pnginfo: null } as never);
    expect(Object.keys(readTextChunks(await readFile(ctx.pathOf((plain.ui?.images as SavedFile[])[0]!))))).toEqual(['prompt']);
  });

  it('refuses a prefix that leaves the output folder', async () => {
    for (const prefix of ['../evil', '/abs/x', 'a/../../b']) {
      await expect(createSaveImageNode().run(ctx, { images: picture, filename_prefix: prefix })).rejects.toMatchObject({
        message: expect.stringContaining('outside the output folder'),
      });
    }
    expect(ctx.saved).toEqual([]);
  });

  it('PreviewImage saves a temp PNG', async () => {
    const result = await createPreviewImageNode().run(ctx, { images: picture });
    const saved = (result.ui?.images as SavedFile[])[0]!;
    expect(saved.type).toBe('temp');
    expect(saved.filename).toMatch(/^Flowdeck_temp_[a-z]{5}_\d{5}_\.png$/);
    expect(PNG.sync.read(await readFile(ctx.pathOf(saved))).width).toBe(40);
  });
});

describe('DemoVideo', () => {
  it('saves a real WebM (EBML magic, VP8 track) under the key video', async () => {
    const result = await createDemoVideoNode().run(ctx, { image: picture, frames: 24, fps: 12 });
    const saved = (result.ui?.video as SavedFile[])[0]!;
    expect(saved.filename).toMatch(/\.webm$/);
    expect(result.ui?.animated).toBe(true);
    const bytes = await readFile(ctx.pathOf(saved));
    expect(Array.from(bytes.subarray(0, 4))).toEqual([0x1a, 0x45, 0xdf, 0xa3]);
    expect(bytes.includes(Buffer.from('webm'))).toBe(true);
    expect(bytes.includes(Buffer.from('V_VP8'))).toBe(true);
    expect(bytes.length).toBeLessThan(100 * 1024);
    expect(ctx.progressCalls.at(-1)).toEqual([24, 24]);
  });

  it('finds the clip through FLOWDECK_RESOURCES_DIR too', async () => {
    const { demoResourcePath, findProjectRoot } = await import('@main/demo/nodes/resources');
    const root = findProjectRoot();
    expect(root).not.toBeNull();
    expect(demoResourcePath('demo-clip.webm', { FLOWDECK_RESOURCES_DIR: `${root}/resources` })).toBe(`${root}/resources/demo/demo-clip.webm`);
    expect(demoResourcePath('demo-clip.webm', { FLOWDECK_RESOURCES_DIR: `${root}/resources/demo` })).toBe(`${root}/resources/demo/demo-clip.webm`);
    expect(() => demoResourcePath('no-such-file.webm', {})).toThrow(/FLOWDECK_RESOURCES_DIR/);
  });

  it('needs an IMAGE input', async () => {
    await expect(createDemoVideoNode().run(ctx, { frames: 24, fps: 12 })).rejects.toThrow(/"image" is required/);
  });
});

describe('DemoAudio', () => {
  it('saves a valid 16-bit mono 22050 Hz WAV of the requested length under the key audio', async () => {
    const result = await createDemoAudioNode().run(ctx, { seconds: 0.5, frequency: 440 });
    const saved = (result.ui?.audio as SavedFile[])[0]!;
    expect(saved).toMatchObject({ type: 'output', subfolder: 'audio' });
    const bytes = await readFile(ctx.pathOf(saved));
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const ascii = (at: number) => bytes.subarray(at, at + 4).toString('latin1');
    expect([ascii(0), ascii(8), ascii(12), ascii(36)]).toEqual(['RIFF', 'WAVE', 'fmt ', 'data']);
    expect(view.getUint32(4, true)).toBe(bytes.length - 8);
    expect(view.getUint16(20, true)).toBe(1); // PCM
    expect(view.getUint16(22, true)).toBe(1); // mono
    expect(view.getUint32(24, true)).toBe(22050);
    expect(view.getUint16(34, true)).toBe(16);
    const samples = view.getUint32(40, true) / 2;
    expect(samples).toBe(11025);
    expect(bytes.length).toBe(44 + samples * 2);
    // Fades: silent at both ends, loud in the middle; about 220 cycles in 0.5 s.
    expect(view.getInt16(44, true)).toBe(0);
    let peak = 0;
    let crossings = 0;
    for (let i = 1; i < samples; i++) {
      const a = view.getInt16(44 + (i - 1) * 2, true);
      const b = view.getInt16(44 + i * 2, true);
      peak = Math.max(peak, Math.abs(b));
      if (a < 0 && b >= 0) crossings++;
    }
    expect(peak).toBeGreaterThan(15000);
    expect(Math.abs(crossings - 220)).toBeLessThanOrEqual(2);
  });

  it('refuses a length outside 0.2..10 s', async () => {
    await expect(createDemoAudioNode().run(ctx, { seconds: 11, frequency: 440 })).rejects.toThrow(/from 0.2 to 10/);
  });
});

describe('DemoPartnerNode', () => {
  const KEY = 'demo-secret-key-123';

  async function runWith(extraData: Record<string, string>, accountKey: string | null) {
    const context = await createFakeContext({ extraData, accountKey });
    try {
      return await createDemoPartnerNode().run(context, { prompt: 'a fox', delay_ms: 0 });
    } finally {
      await context.cleanup();
    }
  }

  it('refuses to run without the platform key, and never echoes a key', async () => {
    await expect(runWith({}, KEY)).rejects.toMatchObject({
      exceptionType: 'Unauthorized',
      message: expect.stringMatching(/^This partner node needs your platform API key in extra_data\.api_key_comfy_org/),
    });
    const wrong = runWith({ api_key_comfy_org: 'not-the-key' }, KEY);
    await expect(wrong).rejects.toMatchObject({ exceptionType: 'Unauthorized', message: expect.stringContaining('does not match') });
    const error = await runWith({ api_key_comfy_org: 'not-the-key' }, KEY).then(
      () => null,
      (e: unknown) => e as Error,
    );
    expect(error?.message).toBeTruthy();
    expect(error?.message).not.toContain('not-the-key');
    expect(error?.message).not.toContain(KEY);
  });

  it('produces an image with the right key (or any key on a server without accounts)', async () => {
    const ok = await runWith({ api_key_comfy_org: KEY }, KEY);
    expect((ok.outputs[0] as RgbaImage).width).toBeGreaterThan(0);
    const local = await runWith({ api_key_comfy_org: 'whatever' }, null);
    expect((local.outputs[0] as RgbaImage).height).toBeGreaterThan(0);
    await expect(runWith({}, null)).rejects.toMatchObject({ exceptionType: 'Unauthorized' });
  });

  it('is marked as an api_node in its definition', () => {
    expect(createDemoPartnerNode().definition.api_node).toBe(true);
  });
});

describe('DemoLargeOutput', () => {
  it('writes N MiB of the documented deterministic bytes under the key files', async () => {
    const result = await createDemoLargeOutputNode().run(ctx, { megabytes: 3 });
    const saved = (result.ui?.files as SavedFile[])[0]!;
    expect(saved.filename).toMatch(/\.bin$/);
    const bytes = await readFile(ctx.pathOf(saved));
    expect(bytes.length).toBe(3 * CHUNK_BYTES);
    expect(bytes.subarray(2 * CHUNK_BYTES).equals(Buffer.from(largeOutputChunk(2)))).toBe(true);
    expect(bytes.subarray(0, CHUNK_BYTES).equals(bytes.subarray(CHUNK_BYTES, 2 * CHUNK_BYTES))).toBe(false);
    expect(ctx.progressCalls.at(-1)).toEqual([3, 3]);
  });

  it('streams chunk by chunk when the context offers saveFileStream', async () => {
    const seen: number[] = [];
    const streaming: DemoNodeContext & { saveFileStream: (p: string, e: string, c: AsyncIterable<Uint8Array>, t: 'output' | 'temp') => Promise<SavedFile> } =
      Object.assign(Object.create(ctx) as DemoNodeContext, {
        async saveFileStream(prefix: string, extension: string, chunks: AsyncIterable<Uint8Array>, type: 'output' | 'temp') {
          for await (const chunk of chunks) seen.push(chunk.length);
          return { filename: `${prefix}_00001_.${extension}`, subfolder: '', type };
        },
      });
    const result = await createDemoLargeOutputNode().run(streaming, { megabytes: 4 });
    expect(seen).toEqual([CHUNK_BYTES, CHUNK_BYTES, CHUNK_BYTES, CHUNK_BYTES]);
    expect((result.ui?.files as SavedFile[])[0]!.filename).toBe('Flowdeck_large_00001_.bin');
    expect(ctx.saved).toEqual([]);
  });

  it('says why when a size beyond the in-memory limit cannot be stored without streaming', async () => {
    await expect(createDemoLargeOutputNode().run(ctx, { megabytes: IN_MEMORY_LIMIT_MB + 1 })).rejects.toMatchObject({
      exceptionType: 'MemoryError',
      message: expect.stringContaining('cannot stream'),
    });
  });
});
