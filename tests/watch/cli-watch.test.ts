// `flowdeck watch` end to end: the BUILT command (node out/main/cli.js) against a demo service
// running in this test process. --once exits 0 when every file succeeded and 1 when any failed;
// a run killed with SIGKILL in the middle of a batch, then started again, runs every file exactly
// once (counted at the server) and forgets none.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DemoService } from '../../src/main/demo';
import { Store } from '@main/store/store';
import { Library } from '../../src/main/library';
import { CLI, runCli } from '../support/cli';
import { withTextChunks } from '@main/demo/nodes/png-text';
import { graph, node } from '../workflow/ui-fixtures';
import { invertWorkflow, makePng, until } from './helpers';

let work: string;
let demo: DemoService;

function env(): NodeJS.ProcessEnv {
  return { FLOWDECK_DATA_DIR: join(work, 'data') };
}

function folderWith(name: string, files: Record<string, Buffer | string>): string {
  const dir = join(work, name);
  mkdirSync(dir, { recursive: true });
  for (const [file, content] of Object.entries(files)) writeFileSync(join(dir, file), content);
  return dir;
}

function newSubmissions(before: Map<string, number>): [string, number][] {
  return [...demo.stats.submissions].filter(([id]) => !before.has(id));
}

beforeAll(async () => {
  expect(existsSync(CLI), `${CLI} (the build runs in tests/support/build.ts)`).toBe(true);
  work = mkdtempSync(join(tmpdir(), 'flowdeck-cli-watch-'));
  // No node cache: every job really runs its slow node, so a batch takes long enough to be killed in.
  demo = new DemoService({ flavour: 'local', timeScale: 1, cache: false });
  await demo.start();
  writeFileSync(join(work, 'invert.json'), JSON.stringify(invertWorkflow()));
  const slow = {
    ...invertWorkflow(),
    '4': { class_type: 'DemoSampler', inputs: { prompt: 'slow', seed: 1, steps: 2, width: 16, height: 16, cfg: 7, sampler_name: 'euler', delay_ms: 60 } },
    '5': { class_type: 'PreviewImage', inputs: { images: ['4', 0] } },
  };
  writeFileSync(join(work, 'slow.json'), JSON.stringify(slow));
});

afterAll(async () => {
  await demo?.stop();
  rmSync(work, { recursive: true, force: true });
});

describe('flowdeck watch --once', () => {
  it('processes what is there and exits 0 when every file succeeded', async () => {
    const dir = folderWith('ok', { 'a.png': makePng(601), 'b.png': makePng(602), 'c.png': makePng(603), 'readme.txt': 'ignored' });
    const out = join(work, 'ok-out');
    const run = await runCli(
      ['watch', dir, '--workflow', join(work, 'invert.json'), '--bind', '1.image', '--server', demo.url, '--local', '--out', out, '--once', '--settle', '100'],
      { env: env() },
    );
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout.trim().split('\n').sort()).toEqual(['a_3_1.png', 'b_3_1.png', 'c_3_1.png'].map((n) => join(out, n)));
    expect(run.stderr).toContain('3 done, 0 failed');
    // a second run finds everything done in the journal and sends nothing
    const before = new Map(demo.stats.submissions);
    const again = await runCli(
      ['watch', dir, '--workflow', join(work, 'invert.json'), '--bind', '1.image', '--server', demo.url, '--local', '--out', out, '--once', '--json'],
      { env: env() },
    );
    expect(again.code, again.stderr).toBe(0);
    expect(newSubmissions(before)).toEqual([]);
    const summary = JSON.parse(again.stdout.trim().split('\n').pop()!) as { event: string; done: number; failed: number };
    expect(summary).toMatchObject({ event: 'summary', done: 3, failed: 0 });
  });

  it('exits 1 when any file failed, naming it and the reason', async () => {
    const dir = folderWith('bad', { 'good.png': makePng(611), 'bad.png': 'this is not a picture' });
    const run = await runCli(
      [
        'watch',
        dir,
        '--workflow',
        join(work, 'invert.json'),
        '--bind',
        '1.image',
        '--server',
        demo.url,
        '--local',
        '--out',
        join(work, 'bad-out'),
        '--once',
        '--json',
        '--settle',
        '100',
      ],
      {
        env: env(),
      },
    );
    expect(run.code, run.stderr).toBe(1);
    const lines = run.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { event: string; file?: string; reason?: string });
    const failed = lines.find((l) => l.event === 'failed')!;
    expect(failed.file).toBe(join(dir, 'bad.png'));
    expect(failed.reason).toMatch(/not an image/);
    expect(lines.find((l) => l.event === 'done')!.file).toBe(join(dir, 'good.png'));
    expect(lines.at(-1)).toMatchObject({ event: 'summary', done: 1, failed: 1 });
  });

  it('runs the files again when the workflow changed (the journal is per workflow), and not when it did not', async () => {
    const dir = folderWith('changed', { 'a.png': makePng(631), 'b.png': makePng(632) });
    const out = join(work, 'changed-out');
    const args = (wf: string): string[] => [
      'watch',
      dir,
      '--workflow',
      wf,
      '--bind',
      '1.image',
      '--server',
      demo.url,
      '--local',
      '--out',
      out,
      '--once',
      '--json',
      '--settle',
      '100',
    ];
    const first = await runCli(args(join(work, 'invert.json')), { env: env() });
    expect(first.code, first.stderr).toBe(0);
    writeFileSync(
      join(work, 'invert-other.json'),
      JSON.stringify(invertWorkflow({ '3': { class_type: 'SaveImage', inputs: { images: ['2', 0], filename_prefix: 'watch/other' } } })),
    );
    const before = new Map(demo.stats.submissions);
    const changed = await runCli(args(join(work, 'invert-other.json')), { env: env() });
    expect(changed.code, changed.stderr).toBe(0);
    expect(newSubmissions(before)).toHaveLength(2);
    const same = new Map(demo.stats.submissions);
    const again = await runCli(args(join(work, 'invert-other.json')), { env: env() });
    expect(again.code, again.stderr).toBe(0);
    expect(newSubmissions(same)).toEqual([]);
  });

  it("takes an output image as its workflow: its prompt, else its editor graph converted with the server's definitions", async () => {
    const ui = graph(
      [
        node(1, 'LoadImage', { outputs: ['IMAGE', 'MASK'], values: ['example.png', 'image'] }),
        node(2, 'ImageInvert', { inputs: [['image', 'IMAGE', 1]], outputs: ['IMAGE'] }),
        node(3, 'SaveImage', { inputs: [['images', 'IMAGE', 2]], values: ['watch/from-graph'] }),
      ],
      [
        [1, 1, 0, 2, 0, 'IMAGE'],
        [2, 2, 0, 3, 0, 'IMAGE'],
      ],
    );
    const withGraph = join(work, 'graph-only.png');
    writeFileSync(withGraph, withTextChunks(makePng(611), { workflow: JSON.stringify(ui) }));
    const withPrompt = join(work, 'with-prompt.png');
    writeFileSync(
      withPrompt,
      withTextChunks(makePng(612), {
        prompt: JSON.stringify(invertWorkflow({ '3': { class_type: 'SaveImage', inputs: { images: ['2', 0], filename_prefix: 'watch/from-prompt' } } })),
        workflow: JSON.stringify(ui),
      }),
    );
    for (const [workflow, name] of [
      [withGraph, 'from-graph'],
      [withPrompt, 'from-prompt'],
    ] as const) {
      const dir = folderWith(`image-wf-${name}`, { 'a.png': makePng(613) });
      const out = join(work, `image-wf-${name}-out`);
      const run = await runCli(
        ['watch', dir, '--workflow', workflow, '--bind', '1.image', '--server', demo.url, '--local', '--out', out, '--once', '--settle', '100'],
        { env: env() },
      );
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout.trim().split('\n')).toEqual([join(out, 'a_3_1.png')]);
      expect(existsSync(join(out, 'a_3_1.png'))).toBe(true);
    }
  });

  it('exits 2 before the first file when --bind names an input the node lacks, listing its inputs', async () => {
    const dir = folderWith('badbind', { 'x.png': makePng(641) });
    const uploads = demo.stats.uploads;
    const lists = demo.stats.objectInfoListRequests;
    const run = await runCli(
      ['watch', dir, '--workflow', join(work, 'invert.json'), '--bind', '1.imgae', '--server', demo.url, '--local', '--once', '--settle', '100'],
      { env: env() },
    );
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--bind 1.imgae: Node 1 (LoadImage) has no input "imgae". Its inputs are: image');
    expect(demo.stats.uploads).toBe(uploads);
    // Only the bound node's class was asked for (/object_info/LoadImage), not the whole list.
    expect(demo.stats.objectInfoListRequests).toBe(lists);
  });

  it('exits 2 for a workflow without the bound node', async () => {
    const dir = folderWith('usage', { 'x.png': makePng(621) });
    const run = await runCli(['watch', dir, '--workflow', join(work, 'invert.json'), '--bind', '7.image', '--server', demo.url, '--local', '--once'], {
      env: env(),
    });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('no node "7"');
  });
});

describe('flowdeck watch killed with SIGKILL mid-batch', () => {
  it('runs every file exactly once after a restart, and forgets none', async () => {
    const files: Record<string, Buffer> = {};
    for (let i = 0; i < 12; i += 1) files[`img${String(i).padStart(2, '0')}.png`] = makePng(700 + i);
    files['img03 copy.png'] = makePng(703); // duplicates by content
    files['img07 copy.png'] = makePng(707);
    const dir = folderWith('killed', files);
    const out = join(work, 'killed-out');
    const args = [
      'watch',
      dir,
      '--workflow',
      join(work, 'slow.json'),
      '--bind',
      '1.image',
      '--server',
      demo.url,
      '--local',
      '--out',
      out,
      '--concurrency',
      '3',
      '--settle',
      '100',
      '--json',
    ];
    const before = new Map(demo.stats.submissions);

    const child = spawn(process.execPath, [CLI, ...args], {
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env() },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('close', (code, signal) => resolve(signal === 'SIGKILL' ? -9 : code)));
    try {
      // Kill once some files are done and others are in flight: a batch cut in the middle.
      await until(
        () => (stdout.match(/"event":"done"/g) ?? []).length >= 2 && newSubmissions(before).length >= 4,
        `progress before the kill\n${stderr}`,
        30_000,
      );
    } finally {
      child.kill('SIGKILL');
    }
    expect(await exited).toBe(-9);
    const doneBeforeKill = (stdout.match(/"event":"done"/g) ?? []).length;
    expect(doneBeforeKill).toBeLessThan(12);

    const rerun = await runCli([...args, '--once'], { env: env(), timeoutMs: 60_000 });
    expect(rerun.code, rerun.stderr).toBe(0);

    const submitted = newSubmissions(before);
    expect(submitted.length).toBe(12); // one accepted submission per distinct content
    expect(submitted.every(([, count]) => count === 1)).toBe(true); // none sent twice
    // one output per distinct content, named after one of the names that content had
    const outputs = readdirSync(out)
      .filter((n) => n.endsWith('.png'))
      .sort();
    expect(outputs.length).toBe(12);
    const contents = new Set(outputs.map((n) => files[n.replace('_3_1.png', '.png')]!.toString('base64')));
    expect(contents.size).toBe(12);
    for (const name of outputs) {
      const sidecar = JSON.parse(readFileSync(join(out, `${name}.json`), 'utf8')) as { job: { prompt_id: string } };
      expect(demo.stats.submissions.get(sidecar.job.prompt_id)).toBe(1);
    }
    const summary = JSON.parse(rerun.stdout.trim().split('\n').pop()!) as { done: number; failed: number; duplicates: number };
    expect(summary).toMatchObject({ done: 12, failed: 0, duplicates: 2 });
  }, 90_000);
});

describe('flowdeck watch stopped with Ctrl+C', () => {
  it('lets uploads under way finish, exits 0, and the next run collects the rest without sending anything twice', async () => {
    const files: Record<string, Buffer> = {};
    for (let i = 0; i < 8; i += 1) files[`sig${i}.png`] = makePng(900 + i);
    const dir = folderWith('interrupted', files);
    const out = join(work, 'interrupted-out');
    const args = [
      'watch',
      dir,
      '--workflow',
      join(work, 'slow.json'),
      '--bind',
      '1.image',
      '--server',
      demo.url,
      '--local',
      '--out',
      out,
      '--concurrency',
      '3',
      '--settle',
      '100',
    ];
    const before = new Map(demo.stats.submissions);
    const child = spawn(process.execPath, [CLI, ...args], {
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env() },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.stdout.resume();
    const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    await until(() => newSubmissions(before).length >= 2, `jobs submitted before Ctrl+C\n${stderr}`, 30_000);
    child.kill('SIGINT');
    expect(await exited).toBe(0);
    expect(stderr).toContain('stopping: finishing uploads in progress');
    expect(stderr).toMatch(/\d+ done, 0 failed/);

    const rerun = await runCli([...args, '--once'], { env: env(), timeoutMs: 60_000 });
    expect(rerun.code, rerun.stderr).toBe(0);
    const submitted = newSubmissions(before);
    expect(submitted.length).toBe(8);
    expect(submitted.every(([, count]) => count === 1)).toBe(true);
    expect(readdirSync(out).filter((n) => n.endsWith('.png')).length).toBe(8);
  }, 90_000);
});

describe('flowdeck watch and the outputs library', () => {
  it('puts every output into the library (by copy, with its input file), once however often it runs', async () => {
    const dir = folderWith('lib', { 'sun.png': makePng(631), 'moon.png': makePng(632) });
    const out = join(work, 'lib-out');
    const libEnv = { FLOWDECK_DATA_DIR: join(work, 'data-lib') };
    const args = [
      'watch',
      dir,
      '--workflow',
      join(work, 'invert.json'),
      '--bind',
      '1.image',
      '--server',
      demo.url,
      '--local',
      '--out',
      out,
      '--once',
      '--settle',
      '100',
    ];
    const run = await runCli(args, { env: libEnv });
    expect(run.code, run.stderr).toBe(0);
    expect((await runCli(args, { env: libEnv })).code).toBe(0);

    const list = await runCli(['library', 'list', '--json'], { env: libEnv });
    expect(list.code, list.stderr).toBe(0);
    const items = JSON.parse(list.stdout) as { path: string; status: string; workflow_name: string; media_type: string }[];
    expect(items).toHaveLength(2);
    for (const item of items) {
      expect(item).toMatchObject({ status: 'done', workflow_name: 'invert.json', media_type: 'image' });
      expect(item.path.startsWith(join(work, 'data-lib', 'library'))).toBe(true);
    }
    // Same bytes as the outputs in --out, and each item knows the input it was made from.
    const store = await Store.open(join(work, 'data-lib', 'flowdeck.sqlite'));
    const library = await Library.open({ store, root: join(work, 'data-lib', 'library'), source: () => null });
    try {
      const bySource = new Map((await library.list()).map((i) => [i.sourceFile, i]));
      for (const stem of ['sun', 'moon']) {
        const item = bySource.get(join(dir, `${stem}.png`));
        expect(item, stem).toBeDefined();
        expect(readFileSync(item!.path!)).toEqual(readFileSync(join(out, `${stem}_3_1.png`)));
      }
    } finally {
      await library.dispose();
      await store.close();
    }
  });
});

describe('two flowdeck watch --once started together on one folder', () => {
  it('sends every file exactly once: one takes the folder, the other says it is taken', async () => {
    const files: Record<string, Buffer> = {};
    for (let i = 0; i < 20; i += 1) files[`pair${String(i).padStart(2, '0')}.png`] = makePng(1100 + i);
    const dir = folderWith('pair', files);
    const out = join(work, 'pair-out');
    const pairEnv = { FLOWDECK_DATA_DIR: join(work, 'data-pair') };
    const args = [
      'watch',
      dir,
      '--workflow',
      join(work, 'invert.json'),
      '--bind',
      '1.image',
      '--server',
      demo.url,
      '--local',
      '--out',
      out,
      '--once',
      '--settle',
      '100',
      '--concurrency',
      '4',
    ];
    const before = new Map(demo.stats.submissions);
    const [first, second] = await Promise.all([runCli(args, { env: pairEnv, timeoutMs: 60_000 }), runCli(args, { env: pairEnv, timeoutMs: 60_000 })]);
    const codes = [first.code, second.code].sort();
    const submitted = newSubmissions(before);
    expect(submitted.length, `${first.stderr}\n---\n${second.stderr}`).toBe(20);
    expect(submitted.every(([, count]) => count === 1)).toBe(true);
    // Either the second found the folder taken (exit 2, naming the owner) or it came after and found all done.
    if (codes[1] === 2) expect([first, second].find((r) => r.code === 2)!.stderr).toMatch(/Another Flowdeck process \(pid \d+\) is already watching/);
    expect(codes[0]).toBe(0);
    expect(readdirSync(out).filter((n) => n.endsWith('.png')).length).toBe(20);
  }, 90_000);
});
