// The sample workflows in resources/workflows run on the demo node library: every class exists,
// every link has the right type, and running them gives the results their README promises.
import { existsSync } from 'node:fs';
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PNG } from 'pngjs';
import { isJsonObject, parseJsonExact, type JsonObject } from '@shared/json';
import type { SavedFile } from '@main/demo/node-api';
import { createNodeLibrary } from '@main/demo/nodes';
import { decodePng, encodePng } from '@main/demo/nodes/image-codec';
import { findProjectRoot } from '@main/demo/nodes/resources';
import { createFakeContext, type FakeContext } from './fake-context';
import { runWorkflow } from './run-workflow';

const root = findProjectRoot()!;
const workflowsDir = join(root, 'resources', 'workflows');
const demoDir = join(root, 'resources', 'demo');
const library = createNodeLibrary();

let ctx: FakeContext;
beforeEach(async () => {
  ctx = await createFakeContext({ extraData: { api_key_comfy_org: 'k' }, accountKey: 'k' });
});
afterEach(async () => {
  await ctx.cleanup();
});

async function load(name: string): Promise<JsonObject> {
  const value = parseJsonExact(await readFile(join(workflowsDir, name), 'utf8'));
  if (!isJsonObject(value)) throw new Error(`${name} is not an object`);
  return value;
}

/** What /upload/mask stores: the original's colours with the mask's alpha. */
async function uploadMasked(): Promise<void> {
  const image = decodePng(await readFile(join(demoDir, 'example.png')));
  const mask = decodePng(await readFile(join(demoDir, 'example-mask.png')));
  for (let i = 3; i < image.data.length; i += 4) image.data[i] = mask.data[i]!;
  await ctx.addInput('example.png', encodePng(image, { alpha: true }));
}

const outputs = (results: Awaited<ReturnType<typeof runWorkflow>>, key: string) =>
  [...results.values()].flatMap((r) => (Array.isArray(r.ui?.[key]) ? (r.ui[key] as SavedFile[]) : []));

const exists = (name: string) => existsSync(join(ctx.dir, 'input', name));

describe('sample workflows', () => {
  it('are all described in the README, and the README names only existing files', async () => {
    const files = (await readdir(workflowsDir)).filter((f) => f.endsWith('.json'));
    expect(files).toEqual(
      expect.arrayContaining(['text-to-image.json', 'invert-image.json', 'inpaint-with-mask.json', 'video-and-audio.json', 'mask-to-image.json']),
    );
    const readme = await readFile(join(workflowsDir, 'README.md'), 'utf8');
    for (const f of files) expect(readme).toContain(`\`${f}\``);
  });

  it('text-to-image: DemoSampler (node 3, as the README and CLI docs use) -> SaveImage with previews', async () => {
    const workflow = await load('text-to-image.json');
    expect((workflow['3'] as JsonObject).class_type).toBe('DemoSampler');
    ((workflow['3'] as JsonObject).inputs as JsonObject).delay_ms = 0;
    const results = await runWorkflow(library, workflow, ctx, exists);
    const [saved] = outputs(results, 'images');
    const png = PNG.sync.read(await readFile(ctx.pathOf(saved!)));
    expect([png.width, png.height]).toEqual([256, 256]);
    expect(ctx.previews).toHaveLength(8);
  });

  it('invert-image: the saved image is the exact inverse of example.png', async () => {
    const original = await readFile(join(demoDir, 'example.png'));
    await ctx.addInput('example.png', original);
    const results = await runWorkflow(library, await load('invert-image.json'), ctx, exists);
    const saved = decodePng(await readFile(ctx.pathOf(outputs(results, 'images')[0]!)));
    const source = decodePng(original);
    for (const i of [0, 1, 2, 4 * 1000, 4 * 1000 + 1, 4 * 65535 + 2]) expect(saved.data[i]).toBe(255 - source.data[i]!);
  });

  it('mask-to-image: the uploaded mask comes out as a white disc on black', async () => {
    await uploadMasked();
    const results = await runWorkflow(library, await load('mask-to-image.json'), ctx, exists);
    const saved = decodePng(await readFile(ctx.pathOf(outputs(results, 'images')[0]!)));
    const at = (x: number, y: number) => saved.data[(y * 256 + x) * 4]!;
    expect(at(128, 128)).toBe(255);
    expect(at(5, 5)).toBe(0);
    expect(at(250, 128)).toBe(0);
  });

  it('inpaint-with-mask: only the masked circle changes', async () => {
    await uploadMasked();
    const results = await runWorkflow(library, await load('inpaint-with-mask.json'), ctx, exists);
    const saved = decodePng(await readFile(ctx.pathOf(outputs(results, 'images')[0]!)));
    const source = decodePng(await readFile(join(demoDir, 'example.png')));
    const mask = decodePng(await readFile(join(demoDir, 'example-mask.png')));
    let changed = 0;
    for (let p = 0; p < 256 * 256; p++) {
      const q = p * 4;
      const same = saved.data[q] === source.data[q] && saved.data[q + 1] === source.data[q + 1] && saved.data[q + 2] === source.data[q + 2];
      if (mask.data[q + 3] === 255) {
        if (!same) throw new Error(`pixel ${p % 256},${Math.floor(p / 256)} outside the mask changed`);
      } else if (!same) changed++;
    }
    expect(changed).toBeGreaterThan(10000);
  });

  it('inpaint/mask workflows fail validation when the image was never uploaded', async () => {
    await expect(runWorkflow(library, await load('inpaint-with-mask.json'), ctx, exists)).rejects.toThrow('Invalid image file: example.png');
  });

  it('video-and-audio: a WebM under video and a WAV under audio', async () => {
    const workflow = await load('video-and-audio.json');
    ((workflow['1'] as JsonObject).inputs as JsonObject).delay_ms = 0;
    const results = await runWorkflow(library, workflow, ctx, exists);
    expect(outputs(results, 'video')[0]!.filename).toMatch(/\.webm$/);
    expect(outputs(results, 'audio')[0]!.filename).toMatch(/\.wav$/);
  });

  it('partner-node: runs with the key in extra_data', async () => {
    const workflow = await load('partner-node.json');
    ((workflow['1'] as JsonObject).inputs as JsonObject).delay_ms = 0;
    const results = await runWorkflow(library, workflow, ctx, exists);
    expect(outputs(results, 'images')).toHaveLength(1);
  });
});
