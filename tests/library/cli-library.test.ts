// The built CLI and the library: `flowdeck run` keeps its outputs in the library (and copies them
// to --out), `flowdeck library list|search` reads them back, as text and as JSON.
import { createHash } from 'node:crypto';
import { closeSync, existsSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PassThrough } from 'node:stream';
import { libraryCommand, parseDateOption } from '../../src/cli/commands/library';
import { UsageError } from '../../src/cli/errors';
import { SessionSecretStore } from '@main/config/secrets';
import { JsonSettingsStore } from '@main/config/json-settings';
import { dataPaths } from '@main/config/data-dir';
import { DemoService } from '../../src/main/demo';
import { Store } from '@main/store/store';
import { Library } from '../../src/main/library';
import { CLI, runCli } from '../support/cli';
import { invertWorkflow, makePng } from '../watch/helpers';
import { dateFolder, filesUnder } from './support/helpers';

interface ListedItem {
  id: number;
  prompt_id: string;
  path: string | null;
  media_type: string;
  mime: string | null;
  created_at: string;
  status: string;
  workflow_name: string | null;
  node_class: string | null;
  prompt: string;
  width: number | null;
  height: number | null;
  duration_ms: number | null;
  inputs: Record<string, Record<string, unknown>>;
  source_file: string | null;
}

interface RunJson {
  prompt_id: string;
  status: string;
  outputs: { node: string; filename: string; path: string; library_path: string | null }[];
}

let work: string;
let local: DemoService;
let cloud: DemoService;
let imageRun: RunJson;
let mediaRun: RunJson;

function env(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return { FLOWDECK_DATA_DIR: join(work, 'data'), ...extra };
}

function sha(path: string): string {
  return createHash('sha256').update(readFileSync(path)).digest('hex');
}

async function listJson(args: string[], extra: NodeJS.ProcessEnv = {}): Promise<ListedItem[]> {
  const run = await runCli(['library', ...args, '--json'], { env: env(extra) });
  expect(run.code, run.stderr).toBe(0);
  return JSON.parse(run.stdout) as ListedItem[];
}

/** Runs `flowdeck library ARGS` in this process; returns the parsed JSON items (or [] for text output). */
async function inProcess(args: string[], stderrLines: string[] = []): Promise<ListedItem[]> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  stdout.on('data', (d: Buffer) => (out += d.toString()));
  stderr.on('data', (d: Buffer) => stderrLines.push(d.toString()));
  const dataDir = join(work, 'data');
  const io = { stdout: stdout as unknown as NodeJS.WriteStream, stderr: stderr as unknown as NodeJS.WriteStream };
  const code = await libraryCommand(args, io, { env: {}, dataDir, settings: new JsonSettingsStore(dataDir), secrets: new SessionSecretStore() });
  expect(code).toBe(0);
  return args.includes('--json') ? (JSON.parse(out) as ListedItem[]) : [];
}

beforeAll(async () => {
  expect(existsSync(CLI), `${CLI} (the build runs in tests/support/build.ts)`).toBe(true);
  work = mkdtempSync(join(tmpdir(), 'flowdeck-cli-library-'));
  local = new DemoService({ flavour: 'local', timeScale: 0.05 });
  cloud = new DemoService({ flavour: 'cloud', timeScale: 0.05 });
  await Promise.all([local.start(), cloud.start()]);

  // A picture on the local server, into the default library folder (<data>/library).
  writeFileSync(
    join(work, 'lighthouse.json'),
    JSON.stringify({
      '1': {
        class_type: 'DemoSampler',
        inputs: {
          prompt: 'a lighthouse at dusk',
          seed: 18446744073709551615n.toString(),
          steps: 2,
          width: 40,
          height: 30,
          cfg: 7,
          sampler_name: 'euler',
          delay_ms: 10,
        },
      },
      '2': { class_type: 'SaveImage', inputs: { images: ['1', 0], filename_prefix: 'cli/lib' } },
    }).replace('"18446744073709551615"', '18446744073709551615'),
  );
  const first = await runCli(['run', join(work, 'lighthouse.json'), '--local', '--server', local.url, '--out', join(work, 'out1'), '--json'], { env: env() });
  expect(first.code, first.stderr).toBe(0);
  imageRun = JSON.parse(first.stdout) as RunJson;

  // Video and audio on the cloud flavour, into a library folder chosen by FLOWDECK_LIBRARY_DIR.
  writeFileSync(
    join(work, 'media.json'),
    JSON.stringify({
      '1': {
        class_type: 'DemoSampler',
        inputs: { prompt: 'waves on a beach', seed: 3, steps: 2, width: 16, height: 16, cfg: 7, sampler_name: 'euler', delay_ms: 10 },
      },
      '3': { class_type: 'DemoVideo', inputs: { image: ['1', 0], frames: 2, fps: 12 } },
      '4': { class_type: 'DemoAudio', inputs: { seconds: 0.5, frequency: 220 } },
    }),
  );
  const second = await runCli(['run', join(work, 'media.json'), '--server', cloud.url, '--out', join(work, 'out2'), '--json'], {
    env: env({ FLOWDECK_API_KEY: cloud.apiKey!, FLOWDECK_LIBRARY_DIR: join(work, 'elsewhere') }),
  });
  expect(second.code, second.stderr).toBe(0);
  mediaRun = JSON.parse(second.stdout) as RunJson;
}, 60_000);

afterAll(async () => {
  await Promise.all([local?.stop(), cloud?.stop()]);
  rmSync(work, { recursive: true, force: true });
});

describe('flowdeck run and the library', () => {
  it('keeps each output in the library and copies it to --out', () => {
    expect(imageRun.status).toBe('succeeded');
    const [output] = imageRun.outputs;
    expect(output!.path.startsWith(join(work, 'out1'))).toBe(true);
    expect(output!.library_path).toBe(join(work, 'data', 'library', ...dateFolder(Date.now()).split('/'), output!.filename));
    expect(sha(output!.path)).toBe(sha(output!.library_path!));
    // A copy, not a link: changing it leaves the library file alone.
    writeFileSync(output!.path, 'edited');
    expect(readFileSync(output!.library_path!).subarray(1, 4).toString()).toBe('PNG');

    expect(mediaRun.outputs.map((o) => o.library_path?.startsWith(join(work, 'elsewhere')))).toEqual([true, true]);
    expect(filesUnder(join(work, 'elsewhere')).map((f) => f.split('/').length)).toEqual([4, 4]);
    expect(cloud.stats.storageRequestsWithKey).toBe(0);
  });

  it('gives --out its own file (no hard link): editing it in place leaves the library file unchanged', () => {
    for (const output of mediaRun.outputs) {
      const libraryFile = output.library_path!;
      const before = sha(libraryFile);
      expect(sha(output.path)).toBe(before);
      expect(statSync(output.path).ino).not.toBe(statSync(libraryFile).ino);
      expect(statSync(libraryFile).nlink).toBe(1);
      // Overwrite bytes in place (no truncation, no new inode), as an editor saving in place does.
      const fd = openSync(output.path, 'r+');
      writeSync(fd, Buffer.from('edited in --out'), 0, 15, 0);
      closeSync(fd);
      expect(sha(output.path)).not.toBe(before);
      expect(sha(libraryFile)).toBe(before);
    }
    // No partial file (a tee copy, a download) is left in --out.
    expect(readdirSync(join(work, 'out2')).filter((name) => name.includes('.part-'))).toEqual([]);
  });
});

describe('flowdeck run without a usable library', () => {
  it('still saves its outputs to --out, and says why the library was skipped', async () => {
    const notAFolder = join(work, 'not-a-folder');
    writeFileSync(notAFolder, 'a file where the library folder should be');
    const run = await runCli(['run', join(work, 'lighthouse.json'), '--local', '--server', local.url, '--out', join(work, 'out3'), '--json'], {
      env: env({ FLOWDECK_DATA_DIR: join(work, 'data3'), FLOWDECK_LIBRARY_DIR: notAFolder }),
    });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain('outputs library cannot be used');
    const result = JSON.parse(run.stdout) as RunJson;
    expect(result.outputs[0]).toMatchObject({ library_path: null });
    expect(readFileSync(result.outputs[0]!.path).subarray(1, 4).toString()).toBe('PNG');
  });
});

describe('flowdeck library list', () => {
  it('lists every output as JSON with its job, path, media type and creation time', async () => {
    const raw = await runCli(['library', 'list', '--json'], { env: env() });
    expect(raw.code, raw.stderr).toBe(0);
    // The 64-bit seed among the run's inputs is printed exactly.
    expect(raw.stdout).toContain('"seed":18446744073709551615');
    const items = JSON.parse(raw.stdout) as ListedItem[];
    expect(items).toHaveLength(3);
    for (const item of items) {
      expect(typeof item.prompt_id).toBe('string');
      expect(item.status).toBe('done');
      expect(existsSync(item.path!)).toBe(true);
      expect(Number.isNaN(Date.parse(item.created_at))).toBe(false);
    }
    expect(items.map((i) => i.media_type).sort()).toEqual(['audio', 'image', 'video']);
    const image = items.find((i) => i.media_type === 'image')!;
    expect(image).toMatchObject({
      prompt_id: imageRun.prompt_id,
      mime: 'image/png',
      width: 40,
      height: 30,
      workflow_name: 'lighthouse.json',
      node_class: 'SaveImage',
      prompt: 'a lighthouse at dusk',
    });
    // Each row keeps the folder it was written to (the second run used FLOWDECK_LIBRARY_DIR).
    expect(image.path).toBe(imageRun.outputs[0]!.library_path);
    const video = items.find((i) => i.media_type === 'video')!;
    expect(video).toMatchObject({ prompt_id: mediaRun.prompt_id, mime: 'video/webm', width: 64, height: 64, duration_ms: 2000 });
    expect(video.path).toBe(mediaRun.outputs.find((o) => o.filename.endsWith('.webm'))!.library_path);
    expect(items.find((i) => i.media_type === 'audio')).toMatchObject({ mime: 'audio/wav', duration_ms: 500 });
  });

  it('filters by type and date', async () => {
    expect((await listJson(['list', '--type', 'video'])).map((i) => i.media_type)).toEqual(['video']);
    expect(await listJson(['list', '--since', '2999-01-01'])).toEqual([]);
    // The same command in-process (each spawn costs a second): more filters.
    expect((await inProcess(['list', '--type', 'audio', '--json'])).map((i) => i.prompt_id)).toEqual([mediaRun.prompt_id]);
    expect(await inProcess(['list', '--type', 'model', '--json'])).toEqual([]);
    expect(await inProcess(['list', '--since', '1d', '--json'])).toHaveLength(3);
    expect(await inProcess(['list', '--until', '2000-01-01T00:00:00Z', '--json'])).toEqual([]);
    expect(await inProcess(['list', '--limit', '1', '--json'])).toHaveLength(1);
  });

  it('prints one line per file, with its path', async () => {
    const run = await runCli(['library', 'list'], { env: env() });
    expect(run.code, run.stderr).toBe(0);
    const lines = run.stdout.trim().split('\n');
    expect(lines).toHaveLength(3);
    expect(run.stdout).toContain(imageRun.outputs[0]!.library_path!);
    expect(run.stdout).toContain('40x30');
    expect(run.stdout).toContain('"a lighthouse at dusk"');
  });

  it('refuses what it cannot understand, with exit code 2', async () => {
    const run = await runCli(['library', 'grid'], { env: env() });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('flowdeck library list');
    for (const args of [
      ['list', '--type', 'hologram'],
      ['list', '--since', 'last tuesday'],
      ['search'],
      ['list', 'words'],
      ['list', '--limit', '-1'],
      ['list', '--bogus'],
    ]) {
      await expect(inProcess(args), args.join(' ')).rejects.toBeInstanceOf(UsageError);
    }
  });

  it('reads dates as local days, ISO times or ages', () => {
    const now = new Date(2026, 10, 21, 15, 0).getTime();
    expect(parseDateOption('since', '2026-11-21', now)).toBe(new Date(2026, 10, 21).getTime());
    expect(parseDateOption('since', '2026-11-21T10:00:00Z', now)).toBe(Date.UTC(2026, 10, 21, 10));
    expect(parseDateOption('since', '7d', now)).toBe(now - 7 * 86_400_000);
    expect(parseDateOption('since', '12h', now)).toBe(now - 12 * 3_600_000);
    expect(() => parseDateOption('since', '2026-02-30', now)).toThrow(UsageError);
    expect(() => parseDateOption('since', 'yesterday', now)).toThrow(/--since/);
  });
});

describe('flowdeck library search', () => {
  it('finds outputs by prompt text, workflow name and node class', async () => {
    expect((await listJson(['search', 'lighthouse'])).map((i) => i.prompt_id)).toEqual([imageRun.prompt_id]);
    expect((await listJson(['search', 'waves', '--type', 'audio'])).map((i) => i.media_type)).toEqual(['audio']);
    expect((await inProcess(['search', 'waves', 'beach', '--json'])).map((i) => i.media_type).sort()).toEqual(['audio', 'video']);
    expect((await inProcess(['search', 'media', '--json'])).map((i) => i.workflow_name)).toEqual(['media.json', 'media.json']);
    expect((await inProcess(['search', 'DemoVideo', '--json'])).map((i) => i.media_type)).toEqual(['video']);
    expect(await inProcess(['search', 'submarine', '--json'])).toEqual([]);
    const stderr: string[] = [];
    await inProcess(['search', 'submarine'], stderr);
    expect(stderr.join('')).toContain('Nothing in the library matches');
  });
});

describe('flowdeck library and hot-folder provenance', () => {
  it('prints the input file a hot-folder output came from (source_file), null for the others', async () => {
    // A data folder of its own, so the counts above stay what they are.
    const dataDir = join(work, 'hot-data');
    const output = join(work, 'cat_3_1.png');
    writeFileSync(output, makePng(7, 12, 9));
    const store = await Store.open(dataPaths(dataDir).database);
    try {
      const library = await Library.open({ store, root: dataPaths(dataDir).library, source: () => null });
      await library.start();
      try {
        await library.importFile({
          path: output,
          promptId: 'hot-job-1',
          server: { profileId: 'demo', kind: 'local', baseUrl: local.url },
          file: { filename: 'test_00001_.png', subfolder: 'watch', type: 'output', node: '3', key: 'images' },
          workflow: invertWorkflow(),
          workflowName: 'invert-hot.json',
          sourceFile: '/photos/in/cat.png',
        });
      } finally {
        await library.dispose();
      }
    } finally {
      await store.close();
    }

    const hotEnv = { FLOWDECK_DATA_DIR: dataDir };
    for (const args of [['list'], ['search', 'invert-hot']]) {
      const json = await runCli(['library', ...args, '--json'], { env: hotEnv });
      expect(json.code, json.stderr).toBe(0);
      const items = JSON.parse(json.stdout) as ListedItem[];
      expect(
        items.map((i) => [i.prompt_id, i.source_file, i.status]),
        args.join(' '),
      ).toEqual([['hot-job-1', '/photos/in/cat.png', 'done']]);
      expect(readFileSync(items[0]!.path!)).toEqual(readFileSync(output));
    }
    const text = await runCli(['library', 'list'], { env: hotEnv });
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout.trim().split('\n')).toHaveLength(1);
    expect(text.stdout).toContain('(invert-hot.json)  from /photos/in/cat.png');

    // Outputs of `flowdeck run` came from no hot folder: null, and nothing extra on their lines.
    const runItems = await inProcess(['list', '--json']);
    expect(runItems.map((i) => i.source_file)).toEqual([null, null, null]);
    const plain = await runCli(['library', 'list'], { env: env() });
    expect(plain.stdout).not.toContain(' from ');
  });
});
