// `flowdeck convert` and `flowdeck run` with UI-format files and images: the built CLI, a real
// demo service for --server, hand-written graphs and object_info (tests/workflow/ui-fixtures.ts).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PNG } from 'pngjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readTextChunks, withTextChunks } from '@main/demo/nodes/png-text';
import { parseJsonExact, stringifyJsonExact, type JsonObject } from '@shared/json';
import { runCli } from '../support/cli';
import { startCliWork, type CliWork } from '../support/cli-work';
import { basicGraph, graph, node, OBJECT_INFO } from '../workflow/ui-fixtures';

let cli: CliWork;
let objectInfo: string;

function env(): NodeJS.ProcessEnv {
  return { FLOWDECK_DATA_DIR: join(cli.dir, 'data') };
}

function png(texts: Record<string, string>): Uint8Array {
  const image = new PNG({ width: 2, height: 2 });
  image.data.fill(255);
  return withTextChunks(PNG.sync.write(image), texts);
}

/** A UI graph of the demo service's own classes: DemoSampler -> SaveImage, the seed beyond 2^53. */
function demoUiGraph(): string {
  const g = graph(
    [
      node(1, 'DemoSampler', { outputs: ['IMAGE'], values: ['a lighthouse at dusk', 123, 'randomize', 2, 32, 32, 7, 'euler', 10, 0] }),
      node(2, 'Reroute', { inputs: [['', '*', 1]], outputs: ['*'] }),
      node(3, 'SaveImage', { inputs: [['images', 'IMAGE', 2]], values: ['cli/ui'] }),
      node(4, 'Note', { values: ['converted by flowdeck'] }),
    ],
    [
      [1, 1, 0, 2, 0, 'IMAGE'],
      [2, 2, 0, 3, 0, 'IMAGE'],
    ],
  );
  return stringifyJsonExact(g).replace(',123,"randomize"', ',18446744073709551615,"randomize"');
}

beforeAll(async () => {
  cli = await startCliWork('flowdeck-convert-');
  objectInfo = cli.write('object_info.json', JSON.stringify(OBJECT_INFO).replace('"__SEED_MAX__"', '18446744073709551615'));
});

afterAll(async () => {
  await cli?.close();
});

describe('flowdeck convert', () => {
  it('prints the API prompt of a UI file (--json: the prompt alone), warnings on stderr', async () => {
    const g = basicGraph();
    (g.nodes as JsonObject[]).push(
      node(8, 'Reroute', { inputs: [['', '*', null]], outputs: ['*'] }),
      node(9, 'Save', { inputs: [['images', 'IMAGE', 7]], values: ['dangling'] }),
    );
    (g.links as unknown[]).push([7, 8, 0, 9, 0, 'IMAGE']);
    const file = cli.write('ui.json', stringifyJsonExact(g).replace('[42,"randomize"', '[18446744073709551615,"randomize"'));
    const run = await runCli(['convert', file, '--object-info', objectInfo, '--json'], { env: env() });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout.trim().split('\n')).toHaveLength(1);
    expect(run.stdout).toContain('"seed":18446744073709551615');
    const prompt = parseJsonExact(run.stdout) as JsonObject;
    expect(Object.keys(prompt).sort()).toEqual(['1', '2', '3', '4', '5', '9']);
    expect(prompt['5']).toEqual({ inputs: { filename_prefix: 'fox', images: ['4', 0] }, class_type: 'Save', _meta: { title: 'Save Image' } });
    expect(run.stderr).toMatch(/warning: Node 9 \(Save\): input "images" comes through Reroute 8, which has no input/);
  });

  it('writes the prompt to --out (pretty without --json) and nothing to stdout', async () => {
    const out = join(cli.dir, 'prompt.json');
    const run = await runCli(['convert', cli.write('ui2.json', JSON.stringify(basicGraph())), '--object-info', objectInfo, '--out', out], { env: env() });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain(`(5 nodes, from a UI-format workflow) to ${out}`);
    const text = readFileSync(out, 'utf8');
    expect(text).toContain('\n  "1": {');
    expect((parseJsonExact(text) as JsonObject)['3']).toMatchObject({ class_type: 'Sampler' });
    const nowhere = await runCli(['convert', join(cli.dir, 'ui2.json'), '--object-info', objectInfo, '--out', join(cli.dir, 'no-such-folder', 'p.json')], {
      env: env(),
    });
    expect(nowhere.code).toBe(2);
    expect(nowhere.stderr).toContain('Cannot write');
  });

  it('exits 2 listing every class the definitions lack', async () => {
    const g = graph([node(1, 'CustomA', { values: [1, 2] }), node(2, 'CustomB', { values: ['x'] }), node(3, 'Save', { values: ['x'] })], []);
    const run = await runCli(['convert', cli.write('custom.json', JSON.stringify(g)), '--object-info', objectInfo, '--json'], { env: env() });
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(/CustomA \(node 1\); CustomB \(node 2\)/);
  });

  it('passes an API-format file through, without asking any server', async () => {
    const api = { '1': { class_type: 'Save', inputs: { filename_prefix: 'x', seed: 18446744073709551615n } } };
    const run = await runCli(['convert', cli.write('api.json', stringifyJsonExact(api)), '--json', '--server', 'http://127.0.0.1:9'], { env: env() });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout.trim()).toBe(stringifyJsonExact(api));
  });

  it("uses an image's prompt as is, else converts its workflow, and says when it has neither", async () => {
    const api = { '7': { class_type: 'Save', inputs: { filename_prefix: 'ran' } } };
    const both = await runCli(
      ['convert', cli.write('both.png', png({ prompt: JSON.stringify(api), workflow: JSON.stringify(basicGraph()) })), '--json', '--object-info', objectInfo],
      { env: env() },
    );
    expect(both.code, both.stderr).toBe(0);
    expect(JSON.parse(both.stdout)).toEqual(api);
    const workflowOnly = await runCli(
      ['convert', cli.write('wf.png', png({ workflow: JSON.stringify(basicGraph()) })), '--json', '--object-info', objectInfo],
      { env: env() },
    );
    expect(workflowOnly.code, workflowOnly.stderr).toBe(0);
    expect(Object.keys(JSON.parse(workflowOnly.stdout) as object).sort()).toEqual(['1', '2', '3', '4', '5']);
    const none = await runCli(['convert', cli.write('none.png', png({})), '--json', '--object-info', objectInfo], { env: env() });
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('carries no workflow');
    const bytes = png({ workflow: JSON.stringify(basicGraph()) });
    const truncated = await runCli(['convert', cli.write('cut.png', bytes.subarray(0, 60)), '--json', '--object-info', objectInfo], { env: env() });
    expect(truncated.code).toBe(2);
    expect(truncated.stderr).toMatch(/cut\.png: /);
  });

  it('converts with the definitions of a running server (--server)', async () => {
    const run = await runCli(['convert', cli.write('demo-ui.json', demoUiGraph()), '--server', cli.local.url, '--local', '--json'], { env: env() });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('"seed":18446744073709551615');
    const prompt = parseJsonExact(run.stdout) as JsonObject;
    expect(Object.keys(prompt).sort()).toEqual(['1', '3']);
    expect((prompt['1'] as JsonObject).inputs).toEqual({
      prompt: 'a lighthouse at dusk',
      seed: 18446744073709551615n,
      steps: 2,
      width: 32,
      height: 32,
      cfg: 7,
      sampler_name: 'euler',
      delay_ms: 10,
      fail_at_step: 0,
    });
    expect((prompt['3'] as JsonObject).inputs).toEqual({ filename_prefix: 'cli/ui', images: ['1', 0] });
  });

  it('prints the empty prompt of a graph with nothing to run, saying why; run refuses it with the same reason', async () => {
    const notes = cli.write(
      'notes.json',
      JSON.stringify(graph([node(1, 'Note', { values: ['a'] }), node(2, 'Loader', { values: ['a.safetensors'], mode: 2 })], [])),
    );
    const convert = await runCli(['convert', notes, '--object-info', objectInfo, '--json'], { env: env() });
    expect(convert.code, convert.stderr).toBe(0);
    expect(convert.stdout.trim()).toBe('{}');
    expect(convert.stderr).toContain(
      'warning: Nothing in this workflow runs on the server: it holds 1 note (Note 1), which the editor never sends; 1 muted node (Loader 2), which the server never runs.',
    );
    const run = await runCli(['run', notes, '--server', cli.local.url, '--local', '--out', join(cli.dir, 'notes-out')], { env: env() });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('1 note (Note 1), which the editor never sends');
  });

  it('exits 2 only when a value no file can hold is required and has no default; otherwise warns and converts the rest', async () => {
    const info = cli.write(
      'info-3d.json',
      JSON.stringify({
        ...OBJECT_INFO,
        Viewer3D: {
          input: { required: { model_file: [[], {}], image: ['LOAD_3D', {}], width: ['INT', { default: 8 }] } },
          output: ['IMAGE'],
          name: 'Viewer3D',
        },
        Preview3DOptional: { input: { required: { model_file: ['STRING', {}] }, optional: { image: ['LOAD_3D', {}] } }, output: [], name: 'Preview3DOptional' },
      }).replace('"__SEED_MAX__"', '18446744073709551615'),
    );
    const required = await runCli(
      [
        'convert',
        cli.write('3d.json', JSON.stringify(graph([node(4, 'Viewer3D', { values: ['cube.glb', 'a', 'b', 'c', null, 16] })], []))),
        '--object-info',
        info,
        '--json',
      ],
      { env: env() },
    );
    expect(required.code).toBe(2);
    expect(required.stdout).toBe('');
    expect(required.stderr).toMatch(/node 4 \(Viewer3D\) input "image": it is a picture of the 3D scene/);
    const optional = await runCli(
      [
        'convert',
        cli.write('3d-opt.json', JSON.stringify(graph([node(4, 'Preview3DOptional', { values: ['cube.glb'] })], []))),
        '--object-info',
        info,
        '--json',
      ],
      { env: env() },
    );
    expect(optional.code, optional.stderr).toBe(0);
    expect(JSON.parse(optional.stdout)).toEqual({
      '4': { inputs: { model_file: 'cube.glb' }, class_type: 'Preview3DOptional', _meta: { title: 'Preview3DOptional' } },
    });
    expect(optional.stderr).toMatch(/warning: Node 4 \(Preview3DOptional\): input "image" cannot be converted: .*; it is left out\./);
  });

  it('exits 2 on usage mistakes and unreadable definitions', async () => {
    const ui = cli.write('ui3.json', JSON.stringify(basicGraph()));
    expect((await runCli(['convert'], { env: env() })).code).toBe(2);
    expect((await runCli(['convert', ui, '--object-info', objectInfo, '--server', cli.local.url], { env: env() })).code).toBe(2);
    const badInfo = await runCli(['convert', ui, '--object-info', cli.write('bad-info.json', '{"Save": ')], { env: env() });
    expect(badInfo.code).toBe(2);
    expect(badInfo.stderr).toContain('not valid JSON');
    const missing = await runCli(['convert', join(cli.dir, 'nope.json'), '--object-info', objectInfo], { env: env() });
    expect(missing.code).toBe(2);
  });
});

describe('flowdeck run with a UI-format workflow', () => {
  it("converts with the server's definitions and runs it", async () => {
    const out = join(cli.dir, 'run-out');
    const run = await runCli(['run', cli.write('demo-run.json', demoUiGraph()), '--server', cli.local.url, '--local', '--out', out], {
      env: env(),
      timeoutMs: 60_000,
    });
    expect(run.code, run.stderr).toBe(0);
    const paths = run.stdout.trim().split('\n');
    expect(paths).toHaveLength(1);
    const output = readFileSync(paths[0]!);
    expect(PNG.sync.read(output).width).toBe(32);
    // The local server got the editor graph as extra_pnginfo.workflow and wrote it into the PNG.
    const chunks = readTextChunks(output);
    expect(JSON.parse(chunks.workflow!)).toMatchObject({
      nodes: [{ id: 1, type: 'DemoSampler' }, { type: 'Reroute' }, { type: 'SaveImage' }, { type: 'Note' }],
    });
    expect(Object.keys(JSON.parse(chunks.prompt!) as object).sort()).toEqual(['1', '3']);
  });

  it('sends the graph with the values that ran: --set edits land in its widgets', async () => {
    const out = join(cli.dir, 'run-set-out');
    const args = ['run', cli.write('demo-run-set.json', demoUiGraph()), '--set', '1.seed=7', '--set', '1.prompt=a lighthouse set on the command line'];
    const run = await runCli([...args, '--server', cli.local.url, '--local', '--out', out], { env: env(), timeoutMs: 60_000 });
    expect(run.code, run.stderr).toBe(0);
    const chunks = readTextChunks(readFileSync(run.stdout.trim().split('\n')[0]!));
    expect((JSON.parse(chunks.prompt!) as Record<string, { inputs: JsonObject }>)['1']!.inputs).toMatchObject({
      seed: 7,
      prompt: 'a lighthouse set on the command line',
    });
    const sampler = (JSON.parse(chunks.workflow!) as { nodes: JsonObject[] }).nodes[0]!;
    expect(sampler.widgets_values).toEqual(['a lighthouse set on the command line', 7, 'randomize', 2, 32, 32, 7, 'euler', 10, 0]);
  });
});
