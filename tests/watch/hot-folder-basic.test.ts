// A hot folder end to end against the local demo service: files dropped in the folder run through
// the workflow once each, outputs land in the output folder under the naming rule with a sidecar,
// the sink gets them with their provenance, masks are uploaded against their image, and the
// journal in the store records every file.
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PNG } from 'pngjs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DemoService } from '../../src/main/demo';
import { parseJsonExact } from '@shared/json';
import { folderInput, invertWorkflow, makeMask, makePng, openHarness, totalSubmissions, until, type Harness } from './helpers';

let demo: DemoService;
let h: Harness | null = null;

beforeAll(async () => {
  demo = new DemoService({ flavour: 'local', timeScale: 0.05 });
  await demo.start();
});

afterAll(async () => {
  await demo.stop();
});

afterEach(async () => {
  await h?.close();
  h = null;
  demo.faults.reset();
});

describe('a hot folder on the local demo service', () => {
  it('runs each dropped image once, names outputs after their inputs, writes sidecars and feeds the sink', async () => {
    h = await openHarness(demo);
    mkdirSync(h.inDir, { recursive: true });
    writeFileSync(join(h.inDir, 'alpha.png'), makePng(1));
    writeFileSync(join(h.inDir, 'beta.png'), makePng(2));
    const before = totalSubmissions(demo);
    const seed = 18446744073709551615n;
    const workflow = invertWorkflow({
      '9': { class_type: 'DemoSampler', inputs: { prompt: 'x', seed, steps: 1, width: 16, height: 16, cfg: 7, sampler_name: 'euler', delay_ms: 0 } },
    });
    const config = await h.hot.add(folderInput(h, { workflow }));
    await h.hot.whenIdle(config.id);
    // a file dropped after the scan is seen by the watcher
    writeFileSync(join(h.inDir, 'gamma.png'), makePng(3));
    await until(() => h!.hot.counters(config.id).done === 3, 'three files done');
    await h.hot.whenIdle(config.id);

    expect(totalSubmissions(demo) - before).toBe(3);
    const counters = h.hot.counters(config.id);
    expect(counters).toMatchObject({ waiting: 0, running: 0, done: 3, failed: 0 });
    const names = readdirSync(h.outDir).sort();
    expect(names).toEqual(['alpha_3_1.png', 'alpha_3_1.png.json', 'beta_3_1.png', 'beta_3_1.png.json', 'gamma_3_1.png', 'gamma_3_1.png.json']);

    // the output really is the inverted input
    const input = PNG.sync.read(makePng(1));
    const output = PNG.sync.read(readFileSync(join(h.outDir, 'alpha_3_1.png')));
    expect([output.width, output.height]).toEqual([input.width, input.height]);
    expect(output.data[0]).toBe(255 - input.data[0]!);

    const sidecar = parseJsonExact(readFileSync(join(h.outDir, 'alpha_3_1.png.json'), 'utf8')) as unknown as Sidecar;
    const row = h.hot.files(config.id).find((r) => r.relPath === 'alpha.png')!;
    expect(row.state).toBe('done');
    expect(sidecar.job.prompt_id).toBe(row.promptId);
    expect(sidecar.inputs.file).toBe(join(h.inDir, 'alpha.png'));
    expect(sidecar.inputs.bind).toBe('1.image');
    expect(sidecar.inputs.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(sidecar.workflow['1']?.inputs.image).toBe(sidecar.inputs.uploaded_as);
    expect(sidecar.workflow['9']?.inputs.seed).toBe(seed); // exact beyond 2^53
    expect(sidecar.output).toMatchObject({ file: 'alpha_3_1.png', node: '3', index: 1 });

    expect(h.sunk.map((o) => o.path).sort()).toEqual(['alpha_3_1.png', 'beta_3_1.png', 'gamma_3_1.png'].map((n) => join(h!.outDir, n)));
    expect(h.sunk[0]!.provenance.source).toBe('hot-folder');
    expect(h.events.some((e) => e.type === 'drained')).toBe(true);
    expect(row.outputs).toEqual([join(h.outDir, 'alpha_3_1.png')]);

    // journal rows under module 'watch'
    const rows = await h.store.all('SELECT state, prompt_id FROM watch_entries WHERE folder_id = ?', [config.id]);
    expect(rows.map((r) => r.state)).toEqual(['done', 'done', 'done']);
    expect(await h.store.version('watch')).toBe(2);
  });

  it('uploads a mask found by the naming rule against its image, and moves processed inputs to done/', async () => {
    h = await openHarness(demo);
    mkdirSync(join(h.inDir, 'sub'), { recursive: true });
    writeFileSync(join(h.inDir, 'sub', 'photo.png'), makePng(7));
    writeFileSync(join(h.inDir, 'sub', 'photo.mask.png'), makeMask());
    const workflow = invertWorkflow({
      '4': { class_type: 'MaskToImage', inputs: { mask: ['1', 1] } },
      '5': { class_type: 'SaveImage', inputs: { images: ['4', 0], filename_prefix: 'watch/mask' } },
    });
    const config = await h.hot.add(folderInput(h, { workflow, recursive: true, processed: 'move' }));
    await until(() => h!.hot.counters(config.id).done === 1, 'the photo done');
    await h.hot.whenIdle(config.id);
    expect(h.hot.counters(config.id).done).toBe(1); // the mask is no input of its own
    const outs = readdirSync(join(h.outDir, 'sub')).sort();
    expect(outs).toEqual(['photo_3_1.png', 'photo_3_1.png.json', 'photo_5_1.png', 'photo_5_1.png.json']);
    // MaskToImage: white (1.0) where the mask's alpha was 0, i.e. the left half
    const maskImage = PNG.sync.read(readFileSync(join(h.outDir, 'sub', 'photo_5_1.png')));
    expect(maskImage.data[0]).toBe(255);
    expect(maskImage.data[(maskImage.width - 1) * 4]).toBe(0);
    // moved, mask included, keeping the subfolder
    expect(existsSync(join(h.inDir, 'done', 'sub', 'photo.png'))).toBe(true);
    expect(existsSync(join(h.inDir, 'done', 'sub', 'photo.mask.png'))).toBe(true);
    expect(existsSync(join(h.inDir, 'sub', 'photo.png'))).toBe(false);
    const sidecar = JSON.parse(readFileSync(join(h.outDir, 'sub', 'photo_3_1.png.json'), 'utf8')) as { inputs: { mask: { file: string } | null } };
    expect(sidecar.inputs.mask?.file).toBe(join(h.inDir, 'sub', 'photo.mask.png'));
    expect(h.hot.files(config.id)[0]!.path).toBe(join(h.inDir, 'done', 'sub', 'photo.png'));
  });
});

/** The fields of a sidecar this test reads (the file is untrusted JSON; the test asserts their values). */
interface Sidecar {
  job: { prompt_id: unknown };
  inputs: { file: unknown; bind: unknown; sha256: string; uploaded_as: unknown };
  workflow: Record<string, { inputs: Record<string, unknown> }>;
  output: unknown;
}
