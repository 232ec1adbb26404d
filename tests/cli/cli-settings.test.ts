// The CLI and the app share settings.json: a command keeps its outputs in the library folder
// chosen in the app, and a command run on a damaged settings file still works (on the defaults),
// keeps the file beside itself and says so on stderr (a command has no notification centre).
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { DemoService } from '../../src/main/demo';
import { runCli } from '../support/cli';

let work: string;
let local: DemoService;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'flowdeck-cli-settings-'));
  local = new DemoService({ flavour: 'local', timeScale: 0.05 });
  await local.start();
});

afterAll(async () => {
  await local?.stop();
  rmSync(work, { recursive: true, force: true });
});

function freshDataDir(name: string): string {
  const dataDir = join(work, name);
  mkdirSync(dataDir);
  return dataDir;
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => entry.name);
}

/** A small sampler workflow, written once; its path. */
function samplerWorkflow(): string {
  const workflow = join(work, 'sampler.json');
  writeFileSync(
    workflow,
    JSON.stringify({
      '1': {
        class_type: 'DemoSampler',
        inputs: { prompt: 'a quiet harbour', seed: 3, steps: 2, width: 32, height: 32, cfg: 7, sampler_name: 'euler', delay_ms: 10 },
      },
      '2': { class_type: 'SaveImage', inputs: { images: ['1', 0], filename_prefix: 'cli/settings' } },
    }),
  );
  return workflow;
}

it('run keeps its output in the library folder chosen in the app, and library list reads it there', async () => {
  const dataDir = freshDataDir('chosen');
  const chosen = join(work, 'my-library');
  writeFileSync(join(dataDir, 'settings.json'), JSON.stringify({ libraryDir: chosen }));
  const run = await runCli(['run', samplerWorkflow(), '--local', '--server', local.url, '--out', join(work, 'out')], { env: { FLOWDECK_DATA_DIR: dataDir } });
  expect(run.code, run.stderr).toBe(0);
  expect(filesUnder(chosen).some((name) => name.endsWith('.png'))).toBe(true);
  expect(readdirSync(dataDir)).not.toContain('library');
  const list = await runCli(['library', 'list', '--json'], { env: { FLOWDECK_DATA_DIR: dataDir } });
  expect(list.code, list.stderr).toBe(0);
  expect(list.stdout).toContain(chosen);
});

it('run --repeat keeps its outputs in the library folder chosen in the app too', async () => {
  const dataDir = freshDataDir('chosen-repeat');
  const chosen = join(work, 'my-repeat-library');
  writeFileSync(join(dataDir, 'settings.json'), JSON.stringify({ libraryDir: chosen }));
  const run = await runCli(['run', samplerWorkflow(), '--local', '--server', local.url, '--repeat', '2', '--out', join(work, 'out-repeat')], {
    env: { FLOWDECK_DATA_DIR: dataDir },
  });
  expect(run.code, run.stderr).toBe(0);
  // Two runs of one seed make the same bytes: the library keeps them as one file.
  expect(filesUnder(chosen).some((name) => name.endsWith('.png'))).toBe(true);
  expect(readdirSync(dataDir)).not.toContain('library');
});

it('a damaged settings file: the command answers, keeps the file and says where', async () => {
  const dataDir = freshDataDir('damaged');
  writeFileSync(join(dataDir, 'settings.json'), '{"libraryDir": "/x",');
  const run = await runCli(['library', 'list', '--json'], { env: { FLOWDECK_DATA_DIR: dataDir } });
  expect(run.code, run.stderr).toBe(0);
  const kept = readdirSync(dataDir).filter((name) => name.startsWith('settings.json.damaged-'));
  expect(kept).toHaveLength(1);
  expect(readFileSync(join(dataDir, kept[0]!), 'utf8')).toBe('{"libraryDir": "/x",');
  expect(run.stderr).toContain(`The settings file was damaged (not readable as JSON); it was kept as ${join(dataDir, kept[0]!)}`);
  // The defaults took its place: the next command says nothing.
  const again = await runCli(['library', 'list', '--json'], { env: { FLOWDECK_DATA_DIR: dataDir } });
  expect(again.code).toBe(0);
  expect(again.stderr).not.toContain('settings file');
});
