// `flowdeck run` end to end: the built CLI against a real demo service, over real sockets.
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PNG } from 'pngjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DemoService } from '../../src/main/demo';
import { parseJsonExact } from '@shared/json';
import { CLI, runCli } from '../support/cli';

const SEED_MAX = '18446744073709551615';

function samplerWorkflow(extra: Record<string, unknown> = {}): string {
  return JSON.stringify({
    '1': {
      class_type: 'DemoSampler',
      inputs: { prompt: 'a lighthouse at dusk', seed: 7, steps: 3, width: 64, height: 48, cfg: 7, sampler_name: 'euler', delay_ms: 40, ...extra },
    },
    '2': { class_type: 'SaveImage', inputs: { images: ['1', 0], filename_prefix: 'cli/test' } },
  });
}

let work: string;
let cloud: DemoService;
let local: DemoService;

function env(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return { FLOWDECK_DATA_DIR: join(work, 'data'), ...extra };
}

function writeWorkflow(name: string, text: string): string {
  const path = join(work, name);
  writeFileSync(path, text);
  return path;
}

beforeAll(async () => {
  expect(existsSync(CLI), `${CLI} (the build runs in tests/support/build.ts)`).toBe(true);
  work = mkdtempSync(join(tmpdir(), 'flowdeck-cli-'));
  cloud = new DemoService({ flavour: 'cloud', timeScale: 0.2 });
  local = new DemoService({ flavour: 'local', timeScale: 0.2 });
  await Promise.all([cloud.start(), local.start()]);
  cloud.setKeyState('key-without-credits', 'no_credits');
  cloud.setKeyState('key-without-subscription', 'inactive');
});

afterAll(async () => {
  await Promise.all([cloud?.stop(), local?.stop()]);
  rmSync(work, { recursive: true, force: true });
});

describe('flowdeck run against the cloud flavour', () => {
  it('runs a workflow, shows progress and previews, downloads real outputs without leaking the key', async () => {
    const wf = writeWorkflow('sampler.json', samplerWorkflow());
    const out = join(work, 'out-cloud');
    const run = await runCli(['run', wf, '--server', cloud.url, '--out', out, '--save-previews', '--set', `1.seed=${SEED_MAX}`], {
      env: env({ FLOWDECK_API_KEY: cloud.apiKey! }),
    });
    expect(run.stderr).toContain('submitted job');
    expect(run.code, run.stderr).toBe(0);
    const paths = run.stdout.trim().split('\n');
    expect(paths.length).toBe(1);
    const png = PNG.sync.read(readFileSync(paths[0]!));
    expect([png.width, png.height]).toEqual([64, 48]);
    const previews = readdirSync(join(out, 'previews'));
    expect(previews.length).toBeGreaterThanOrEqual(2);
    expect(run.stderr).toMatch(/preview/);
    expect(cloud.stats.storageRequestsWithKey).toBe(0);
    expect(cloud.stats.storageRequests).toBeGreaterThan(0);
    expect(run.stdout + run.stderr).not.toContain(cloud.apiKey!);
  });

  it('keeps a seed beyond 2^53 exact all the way to the server', async () => {
    const wf = writeWorkflow('seed.json', samplerWorkflow());
    const run = await runCli(['run', wf, '--server', cloud.url, '--out', join(work, 'out-seed'), '--json', '--set', `1.seed=${SEED_MAX}`], {
      env: env({ FLOWDECK_API_KEY: cloud.apiKey! }),
    });
    expect(run.code, run.stderr).toBe(0);
    const result = JSON.parse(run.stdout) as {
      prompt_id: string;
      status: string;
      outputs: { node: string; filename: string; type: string; path: string }[];
      error: null;
    };
    expect(result.status).toBe('succeeded');
    expect(result.error).toBeNull();
    expect(result.outputs).toHaveLength(1);
    expect(result.outputs[0]).toMatchObject({ node: '2', type: 'output' });
    const history = await fetch(`${cloud.url}/api/history/${result.prompt_id}`, { headers: { 'X-API-Key': cloud.apiKey! } });
    const entry = parseJsonExact(await history.text()) as Record<string, { prompt: unknown[] }>;
    const prompt = entry[result.prompt_id]!.prompt[2] as Record<string, { inputs: Record<string, unknown> }>;
    expect(prompt['1']!.inputs.seed).toBe(BigInt(SEED_MAX));
  });

  it('exits 1 with the node and the reason when the job fails', async () => {
    const wf = writeWorkflow('fail.json', samplerWorkflow({ fail_at_step: 2 }));
    const run = await runCli(['run', wf, '--server', cloud.url, '--out', join(work, 'out-fail')], { env: env({ FLOWDECK_API_KEY: cloud.apiKey! }) });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('node 1');
    expect(run.stderr).toContain('deliberate failure at step 2');
  });

  it('exits 1 naming the node and input when the server rejects the workflow', async () => {
    const wf = writeWorkflow('invalid.json', samplerWorkflow({ steps: 0 }));
    const run = await runCli(['run', wf, '--server', cloud.url, '--out', join(work, 'out-invalid')], { env: env({ FLOWDECK_API_KEY: cloud.apiKey! }) });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('node 1 (DemoSampler)');
    expect(run.stderr).toContain('"steps"');
  });

  it('exits 3 without a key and with a wrong key, saying what to do', async () => {
    const wf = writeWorkflow('nokey.json', samplerWorkflow());
    const missing = await runCli(['run', wf, '--server', cloud.url], { env: env() });
    expect(missing.code).toBe(3);
    expect(missing.stderr).toContain('FLOWDECK_API_KEY');
    const wrong = await runCli(['run', wf, '--server', cloud.url], { env: env({ FLOWDECK_API_KEY: 'wrong-key-123456' }) });
    expect(wrong.code).toBe(3);
    expect(wrong.stderr).toMatch(/401/);
    expect(wrong.stderr).not.toContain('wrong-key-123456');
  });

  it('exits 4 for insufficient credits (402) and an inactive subscription (429)', async () => {
    const wf = writeWorkflow('account.json', samplerWorkflow());
    const credits = await runCli(['run', wf, '--server', cloud.url], { env: env({ FLOWDECK_API_KEY: 'key-without-credits' }) });
    expect(credits.code).toBe(4);
    expect(credits.stderr).toMatch(/credits/i);
    const subscription = await runCli(['run', wf, '--server', cloud.url], { env: env({ FLOWDECK_API_KEY: 'key-without-subscription' }) });
    expect(subscription.code).toBe(4);
    expect(subscription.stderr).toMatch(/subscription/i);
  });
});

describe('flowdeck run against the local flavour', () => {
  it('runs with --local, uploads an image with a mask, and downloads the result', async () => {
    const image = join(work, 'photo.png');
    const png = new PNG({ width: 16, height: 16 });
    for (let i = 0; i < png.data.length; i += 4) png.data.set([200, 30, 30, 255], i);
    writeFileSync(image, PNG.sync.write(png));
    // A mask without alpha: white = masked (the left half).
    const mask = new PNG({ width: 16, height: 16 });
    for (let y = 0; y < 16; y += 1) for (let x = 0; x < 16; x += 1) mask.data.set(x < 8 ? [255, 255, 255, 255] : [0, 0, 0, 255], (y * 16 + x) * 4);
    const maskPath = join(work, 'mask.png');
    writeFileSync(maskPath, PNG.sync.write(mask, { colorType: 2 }));
    const wf = writeWorkflow(
      'mask.json',
      JSON.stringify({
        '1': { class_type: 'LoadImage', inputs: { image: 'placeholder.png' } },
        '2': { class_type: 'MaskToImage', inputs: { mask: ['1', 1] } },
        '3': { class_type: 'SaveImage', inputs: { images: ['2', 0], filename_prefix: 'masktest' } },
      }),
    );
    const run = await runCli(['run', wf, '--local', '--server', local.url, '--mask', `1.image=${image},${maskPath}`, '--out', join(work, 'out-mask')], {
      env: env(),
    });
    expect(run.code, run.stderr).toBe(0);
    const result = PNG.sync.read(readFileSync(run.stdout.trim()));
    const at = (x: number, y: number): number => result.data[(y * 16 + x) * 4]!;
    expect(at(2, 5)).toBe(255); // painted (white in the mask) -> masked -> white
    expect(at(12, 5)).toBe(0);
  });

  it('exits 2 for a missing file, invalid JSON and a UI-format export', async () => {
    const missing = await runCli(['run', join(work, 'nope.json'), '--local', '--server', local.url], { env: env() });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('does not exist');
    const invalid = await runCli(['run', writeWorkflow('bad.json', '{"1": {'), '--local', '--server', local.url], { env: env() });
    expect(invalid.code).toBe(2);
    expect(invalid.stderr).toContain('not valid JSON');
    const ui = await runCli(['run', writeWorkflow('ui.json', JSON.stringify({ last_node_id: 3, nodes: [], links: [] })), '--local', '--server', local.url], {
      env: env(),
    });
    expect(ui.code).toBe(2);
    expect(ui.stderr).toContain('API');
    const usage = await runCli(['run', '--bogus'], { env: env() });
    expect(usage.code).toBe(2);
  });

  it('exits 2 for --set naming an input the node lacks (listing its inputs) or a prototype key', async () => {
    const wf = writeWorkflow('set.json', samplerWorkflow());
    const before = local.stats.promptRequests;
    const typo = await runCli(['run', wf, '--local', '--server', local.url, '--set', '1.sed=5'], { env: env() });
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain('Node 1 (DemoSampler) has no input "sed". Its inputs are: ');
    expect(typo.stderr).toMatch(/Its inputs are: .*\bseed\b.*\bsteps\b/);
    expect(local.stats.promptRequests).toBe(before);
    const proto = await runCli(['run', wf, '--local', '--server', local.url, '--set', '__proto__.x=1'], { env: env() });
    expect(proto.code).toBe(2);
    expect(proto.stderr).toContain('reserved name');
  });

  it('exits 5 when the server cannot be reached', async () => {
    const wf = writeWorkflow('down.json', samplerWorkflow());
    const run = await runCli(['run', wf, '--local', '--server', 'http://127.0.0.1:9'], { env: env(), timeoutMs: 60_000 });
    expect(run.code).toBe(5);
    expect(run.stderr).toMatch(/reach|connect|network/i);
  });

  it('exits 1 when --timeout passes before the job ends, naming the job to cancel', async () => {
    const wf = writeWorkflow('slow.json', samplerWorkflow({ steps: 40, delay_ms: 2000 }));
    const run = await runCli(['run', wf, '--local', '--server', local.url, '--timeout', '1'], { env: env() });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('flowdeck cancel');
    const promptId = /flowdeck cancel ([0-9a-f-]+)/.exec(run.stderr)?.[1];
    expect(promptId).toBeTruthy();
    const cancel = await runCli(['cancel', promptId!, '--local', '--server', local.url], { env: env() });
    expect(cancel.code).toBe(0);
    const interrupt = await runCli(['interrupt', '--local', '--server', local.url], { env: env() });
    expect(interrupt.code).toBe(0);
  });
});
