// Every endpoint on both flavours, the /api aliases of the local server (traces/api_aliases.json),
// its cross-origin guard, and /view's answers (traces/view.json).
import { describe, expect, it } from 'vitest';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { DemoService } from '../../src/main/demo';
import { api, postJson, readTrace, startDemo, submit, TestSocket, uploadPng, waitForHistory } from './helpers';
import { decodePngImage, loopWorkflow, solidImage } from './trace-nodes';
import { tempDir } from './helpers';

const viewTrace = readTrace<Record<string, { status: number; headers: Record<string, string> }>>('view.json');
const aliasTrace = readTrace<Record<string, unknown>>('api_aliases.json');

async function expectEmpty(res: Response, status: number): Promise<void> {
  expect(res.status).toBe(status);
  expect(res.headers.get('content-type')).toBe('application/octet-stream');
  expect(res.headers.get('content-length')).toBe('0');
  expect((await res.arrayBuffer()).byteLength).toBe(0);
}

async function finishedJob(svc: DemoService): Promise<string> {
  const { json } = await submit(svc, { prompt: loopWorkflow(1, 0) });
  await waitForHistory(svc, json.prompt_id as string);
  return json.prompt_id as string;
}

describe('local flavour: routes with and without /api', () => {
  it('answers the same body on both paths for every read endpoint', async () => {
    const svc = await startDemo({ flavour: 'local' });
    await uploadPng(svc, 'sample.png');
    await finishedJob(svc);
    for (const path of [
      '/prompt',
      '/queue',
      '/history?max_items=2',
      '/object_info/ImageInvert',
      '/features',
      '/embeddings',
      '/extensions',
      '/models',
      '/object_info',
      '/view?filename=sample.png&type=input',
    ]) {
      const plain = await api(svc, path);
      const prefixed = await api(svc, `/api${path}`);
      expect([plain.status, prefixed.status], path).toEqual([200, 200]);
      expect(Buffer.from(await plain.arrayBuffer()).equals(Buffer.from(await prefixed.arrayBuffer())), path).toBe(true);
      expect((aliasTrace[`GET ${path}`] as { same_body: boolean } | undefined)?.same_body ?? true).toBe(true);
    }
    const stats = (await (await api(svc, '/system_stats')).json()) as { system: Record<string, unknown>; devices: unknown[] };
    expect(stats.system.comfyui_version).toEqual(expect.any(String));
    expect(stats.devices).toHaveLength(1);
  });

  it('serves the front page, features, object_info for one class ({} when unknown) and GET /prompt', async () => {
    const svc = await startDemo({ flavour: 'local' });
    const front = await api(svc, '/');
    expect(front.headers.get('content-type')).toBe('text/html');
    expect(await front.text()).toMatch(/^<!doctype html>/);
    expect(await (await api(svc, '/api/')).text()).toMatch(/^<!doctype html>/);
    expect(await (await api(svc, '/api/features')).json()).toEqual({ supports_preview_metadata: true, max_upload_size: 104857600 });
    const unknown = await api(svc, '/api/object_info/NoSuchNode');
    expect(await unknown.text()).toBe('{}');
    const one = (await (await api(svc, '/api/object_info/LoadImage')).json()) as Record<string, { input: { required: { image: unknown[] } } }>;
    expect(one.LoadImage!.input.required.image[0]).toEqual([]);
    await uploadPng(svc, 'b.png');
    await uploadPng(svc, 'a.png', solidImage(2, 2, [1, 1, 1, 255]));
    const after = (await (await api(svc, '/api/object_info/LoadImage')).json()) as typeof one;
    expect(after.LoadImage!.input.required.image).toEqual([['a.png', 'b.png'], { image_upload: true }]);
    expect(await (await api(svc, '/api/prompt')).text()).toBe('{"exec_info": {"queue_remaining": 0}}');
    expect((await api(svc, '/api/nothing-here')).status).toBe(404);
    expect((await api(svc, '/api/queue', { method: 'PUT' })).status).toBe(405);
  });

  it('refuses a request whose Origin differs from a loopback Host with an empty 403; no Origin is fine', async () => {
    const svc = await startDemo({ flavour: 'local' });
    await expectEmpty(await api(svc, '/api/queue', { headers: { Origin: 'http://evil.example' } }), 403);
    const post = await api(svc, '/api/prompt', {
      method: 'POST',
      headers: { Origin: 'https://evil.example', 'Content-Type': 'application/json' },
      body: JSON.stringify({ prompt: loopWorkflow(1, 0) }),
    });
    await expectEmpty(post, 403);
    expect(svc.stats.submissions.size).toBe(0);
    expect((await api(svc, '/api/queue', { headers: { Origin: svc.url } })).status).toBe(200);
    expect((await api(svc, '/api/queue')).status).toBe(200);
  });

  it('history: POST /history deletes and clears', async () => {
    const svc = await startDemo({ flavour: 'local' });
    const id = await finishedJob(svc);
    await expectEmpty(await postJson(svc, '/api/history', { delete: ['unknown-id'] }), 200);
    expect(Object.keys((await (await api(svc, '/history')).json()) as object)).toEqual([id]);
    await expectEmpty(await postJson(svc, '/api/history', { clear: true }), 200);
    expect(await (await api(svc, '/history')).json()).toEqual({});
  });
});

describe('local flavour: /view (traces/view.json)', () => {
  it('streams the file with its type and disposition; errors are empty bodies with the real codes', async () => {
    const svc = await startDemo({ flavour: 'local' });
    await uploadPng(svc, 'sample.png', solidImage(32, 24, [200, 30, 30, 128]));
    const ok = await api(svc, '/view?filename=sample.png&subfolder=&type=input');
    expect(ok.status).toBe(200);
    expect(ok.headers.get('content-disposition')).toBe(viewTrace.view_input_upload!.headers['Content-Disposition']);
    expect(ok.headers.get('content-type')).toBe('image/png');
    const bytes = Buffer.from(await ok.arrayBuffer());
    expect(Number(ok.headers.get('content-length'))).toBe(bytes.length);
    expect((await api(svc, '/view?filename=sample.png [input]')).status).toBe(200);

    await expectEmpty(await api(svc, '/view?filename=sample.png'), viewTrace.view_default_type_is_output!.status);
    await expectEmpty(await api(svc, '/view?filename=missing.png&type=input'), viewTrace.view_missing_file!.status);
    await expectEmpty(await api(svc, '/view?type=input'), viewTrace.view_no_filename!.status);
    await expectEmpty(await api(svc, '/view?filename=../secret.png&type=input'), viewTrace.view_dotdot!.status);
    await expectEmpty(await api(svc, '/view?filename=sample.png&type=input&subfolder=../../etc'), viewTrace.view_subfolder_escape!.status);
    await expectEmpty(await api(svc, '/view?filename=sample.png&type=secret'), viewTrace.view_bad_type!.status);

    await uploadPng(svc, 'café ☕.png');
    const unicode = await api(svc, `/view?filename=${encodeURIComponent('café ☕.png')}&type=input`);
    expect(unicode.status).toBe(200);
    expect(Buffer.from(unicode.headers.get('content-disposition')!, 'latin1').toString('utf8')).toBe('filename="café ☕.png"');

    const rgb = decodePngImage(new Uint8Array(await (await api(svc, '/view?filename=sample.png&type=input&channel=rgb')).arrayBuffer()));
    expect([...rgb.data.subarray(0, 4)]).toEqual([200, 30, 30, 255]);
    const alpha = decodePngImage(new Uint8Array(await (await api(svc, '/view?filename=sample.png&type=input&channel=a')).arrayBuffer()));
    expect([...alpha.data.subarray(0, 4)]).toEqual([0, 0, 0, 128]);
    const preview = await api(svc, '/view?filename=sample.png&type=input&preview=jpeg;50');
    expect(preview.headers.get('content-type')).toBe('image/jpeg');
    expect(
      Buffer.from(await preview.arrayBuffer())
        .subarray(0, 3)
        .toString('hex'),
    ).toBe('ffd8ff');
    expect(svc.stats.viewRequests).toBe(12);
  });

  it('registers an existing file as an output (addOutputFile) and serves it', async () => {
    const svc = await startDemo({ flavour: 'local' });
    const dir = await tempDir();
    const src = join(dir, 'big.bin');
    await writeFile(src, Buffer.alloc(3 * 1024 * 1024, 7));
    const ref = await svc.addOutputFile(src, 'big.bin', 'bench');
    expect(ref).toEqual({ filename: 'big.bin', subfolder: 'bench', type: 'output' });
    const res = await api(svc, '/view?filename=big.bin&subfolder=bench&type=output');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-length')).toBe(String(3 * 1024 * 1024));
    expect(res.headers.get('content-type')).toBe('application/octet-stream');
    expect((await res.arrayBuffer()).byteLength).toBe(3 * 1024 * 1024);
  });
});

describe('cloud flavour: every endpoint', () => {
  it('answers the ten endpoints of the specification (and the compatibility ones) with the key', async () => {
    const svc = await startDemo({ flavour: 'cloud' });
    const name = await uploadPng(svc, 'sample.png');
    expect(name).toMatch(/^[0-9a-f]{16}\.png$/);
    const info = (await (await api(svc, '/api/object_info')).json()) as Record<string, { input: { required: Record<string, unknown> } }>;
    expect(Object.keys(info).sort()).toEqual(['CrashNode', 'ImageInvert', 'LoadImage', 'PreviewImage', 'PreviewLoop', 'SaveImage']);
    expect(info.LoadImage!.input.required.image).toEqual([[name], { image_upload: true }]);
    const socket = await TestSocket.open(svc, { clientId: 'c' });
    const workflow = {
      '1': { class_type: 'LoadImage', inputs: { image: name } },
      '2': { class_type: 'ImageInvert', inputs: { image: ['1', 0] } },
      '3': { class_type: 'SaveImage', inputs: { images: ['2', 0], filename_prefix: 'samples/inverted' } },
    };
    const { status, json } = await submit(svc, { prompt: workflow, client_id: 'c' });
    expect(status).toBe(200);
    const id = json.prompt_id as string;
    await socket.waitForEnd(id);
    const executed = socket.json('executed')[0]!;
    // Flat on the cloud: the prefix's folder is dropped.
    expect(executed.output).toEqual({ images: [{ filename: 'inverted_00001_.png', subfolder: '', type: 'output' }] });
    expect((await (await api(svc, `/api/job/${id}/status`)).json()) as object).toMatchObject({ status: 'completed' });
    expect((await api(svc, '/api/view?filename=inverted_00001_.png&subfolder=&type=output')).status).toBe(302);
    expect(await (await api(svc, '/api/queue')).json()).toEqual({ queue_running: [], queue_pending: [] });
    // As documented: {deleted, cleared}; a finished job is not deleted.
    expect(await (await postJson(svc, '/api/queue', { delete: [id] })).json()).toEqual({ deleted: [], cleared: false });
    expect(await (await postJson(svc, '/api/queue', { clear: true })).json()).toEqual({ deleted: [], cleared: false });
    await expectEmpty(await api(svc, '/api/interrupt', { method: 'POST' }), 200);
    expect(await (await api(svc, '/api/features')).json()).toEqual({ supports_preview_metadata: true, max_upload_size: 50000000, max_concurrent_jobs: 1 });
    const list = (await (await api(svc, '/api/jobs?status=completed&limit=1000')).json()) as { jobs: Array<Record<string, unknown>>; pagination: object };
    expect(list.pagination).toEqual({ offset: 0, limit: 1000, total: list.jobs.length, has_more: false });
    expect(list.jobs.find((j) => j.id === id)).toMatchObject({
      status: 'completed',
      outputs_count: 1,
      create_time: expect.any(Number),
      execution_start_time: expect.any(Number),
    });
    expect((await api(svc, '/api/jobs?limit=1001')).status).toBe(400);
    expect((await api(svc, '/api/jobs?status=done')).status).toBe(400);
    expect(await (await api(svc, `/api/jobs/${id}`)).json()).toMatchObject({
      id,
      workflow: expect.any(Object),
      outputs: expect.any(Object),
      update_time: expect.any(Number),
      execution_meta: expect.any(Object),
    });
    expect((await api(svc, '/api/jobs/unknown-id')).status).toBe(404);
    expect((await api(svc, '/api/system_stats')).status).toBe(200);
    expect(await (await api(svc, '/api/prompt')).json()).toEqual({ exec_info: { queue_remaining: 0 } });
    expect((await api(svc, '/api/history')).status).toBe(404);
    expect((await api(svc, '/')).status).toBe(200);
  });
});
