// The demo service's Comfy API v2 surface, spoken to with plain fetch: both flavours (the cloud
// with v1 beside it, a v2-only deployment), assets by hash, submit with an Idempotency-Key that is
// never replayed, the job resource, the event stream, per-job cancel, outputs with links, and the
// error envelope (invalid_workflow with node details, Retry-After on deployment_not_ready).
import { describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import type { DemoService } from '../../src/main/demo';
import { startDemo } from './support';
import { blake3OfBytes } from '@main/service/v2/blake3';
import { encodePng } from '@main/images/mask-compose';

const surfaces = {
  cloud: () => startDemo({ flavour: 'cloud', v2: 'beside' }),
  'v2-only': () => startDemo({ flavour: 'local', v2: 'only' }),
} as const;

function call(svc: DemoService, path: string, init: RequestInit = {}): Promise<Response> {
  const headers = new Headers(init.headers);
  if (svc.apiKey) headers.set('Authorization', `Bearer ${svc.apiKey}`);
  return fetch(svc.url + path, { ...init, headers, redirect: 'manual' });
}

function png(seed: number): Uint8Array {
  const data = new Uint8Array(8 * 8 * 4).map((_, i) => (i * 31 + seed) % 256);
  for (let i = 3; i < data.length; i += 4) data[i] = 255;
  return encodePng({ width: 8, height: 8, data });
}

async function upload(svc: DemoService, bytes: Uint8Array, name: string): Promise<Response> {
  const form = new FormData();
  form.set('file', new Blob([bytes], { type: 'image/png' }), name);
  form.set('file_path', name);
  form.set('content_type', 'image/png');
  return call(svc, '/api/v2/assets', { method: 'POST', body: form });
}

function invert(image: unknown): Record<string, unknown> {
  return {
    '1': { class_type: 'LoadImage', inputs: { image } },
    '2': { class_type: 'ImageInvert', inputs: { image: ['1', 0] } },
    '3': { class_type: 'SaveImage', inputs: { images: ['2', 0], filename_prefix: 'v2test' } },
  };
}

function sampler(steps = 4, delay = 20): Record<string, unknown> {
  return {
    '3': {
      class_type: 'DemoSampler',
      inputs: { prompt: 'v2', seed: 1, steps, width: 32, height: 32, cfg: 7, sampler_name: 'euler', delay_ms: delay, fail_at_step: 0 },
    },
    '9': { class_type: 'SaveImage', inputs: { images: ['3', 0], filename_prefix: 'v2s' } },
  };
}

async function submit(svc: DemoService, workflow: unknown, key: string | null = randomUUID()): Promise<Response> {
  return call(svc, '/api/v2/jobs', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...(key ? { 'Idempotency-Key': key } : {}) },
    body: JSON.stringify({ workflow }),
  });
}

async function until<T>(read: () => Promise<T>, done: (t: T) => boolean, ms = 10_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((r) => setTimeout(r, 30));
  }
}

type JobJson = {
  id: string;
  status: string;
  outputs: Array<{ id: string; url: string; name: string; node_id: string }>;
  urls: { self: string; events: string; cancel: string };
  expires_at: string;
  error: unknown;
  progress: unknown;
};

async function jobOf(svc: DemoService, id: string): Promise<JobJson> {
  return (await (await call(svc, `/api/v2/jobs/${id}`)).json()) as JobJson;
}

describe.each(Object.keys(surfaces) as Array<keyof typeof surfaces>)('the demo v2 surface (%s)', (surface) => {
  it('dedups assets by blake3 hash, runs a job on an asset reference, and links its outputs', async () => {
    const svc = await surfaces[surface]();
    const bytes = png(1);
    const hash = blake3OfBytes(bytes);
    expect((await call(svc, `/api/v2/assets/by-hash/${hash}`, { method: 'HEAD' })).status).toBe(404);
    const first = await upload(svc, bytes, 'photo.png');
    expect(first.status).toBe(201);
    const asset = (await first.json()) as { id: string; hash: string; size_bytes: number; created_new: boolean; url: string };
    expect(asset).toMatchObject({ hash, size_bytes: bytes.length, created_new: true });
    expect((await call(svc, `/api/v2/assets/by-hash/${hash}`, { method: 'HEAD' })).status).toBe(200);
    const again = await upload(svc, bytes, 'other-name.png');
    expect(again.status).toBe(200);
    expect(((await again.json()) as { id: string }).id).toBe(asset.id);
    const fromHash = await call(svc, '/api/v2/assets/from-hash', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ hash, file_path: 'x.png' }),
    });
    expect(fromHash.status).toBe(200);
    const miss = await call(svc, '/api/v2/assets/from-hash', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ hash: blake3OfBytes(png(2)) }),
    });
    expect(miss.status).toBe(404);
    expect(((await miss.json()) as { error: { code: string } }).error.code).toBe('blob_not_found');

    const sent = await submit(svc, invert({ __type: 'core/ASSET', info: { id: asset.id } }));
    expect(sent.status).toBe(201);
    const job = (await sent.json()) as JobJson;
    expect(job.status).toBe('queued');
    const done = await until(
      () => jobOf(svc, job.id),
      (j) => j.status === 'succeeded',
    );
    expect(done.status).toBe('succeeded');
    expect(done.outputs).toHaveLength(1);
    expect(Date.parse(done.expires_at)).toBeGreaterThan(Date.now());
    const output = done.outputs[0]!;
    expect(output.node_id).toBe('3');
    // Outputs are fetched through their links; the cloud's point at the storage host (no key there).
    const direct = surface === 'cloud' ? await fetch(output.url) : await call(svc, new URL(output.url).pathname);
    expect(direct.status).toBe(200);
    expect(
      Buffer.from(await direct.arrayBuffer())
        .subarray(1, 4)
        .toString(),
    ).toBe('PNG');
    const workflow = (await (await call(svc, `/api/v2/jobs/${job.id}/workflow`)).json()) as {
      format: string;
      workflow: Record<string, { inputs: { image?: unknown } }>;
    };
    expect(workflow.format).toBe('api');
    expect(typeof workflow.workflow['1']!.inputs.image).toBe('string');
  });

  it('never replays an Idempotency-Key, and releases it when the submission failed without a job', async () => {
    const svc = await surfaces[surface]();
    const key = randomUUID();
    const bad = await submit(
      svc,
      {
        '1': {
          class_type: 'DemoSampler',
          inputs: { prompt: 'x', seed: 1, steps: -3, width: 32, height: 32, cfg: 7, sampler_name: 'nope', delay_ms: 0, fail_at_step: 0 },
        },
        '9': { class_type: 'SaveImage', inputs: { images: ['1', 0], filename_prefix: 'p' } },
      },
      key,
    );
    expect(bad.status).toBe(422);
    const envelope = (await bad.json()) as { error: { code: string; details: { node_errors: Record<string, unknown> } } };
    expect(envelope.error.code).toBe('invalid_workflow');
    expect(Object.keys(envelope.error.details.node_errors)).toEqual(['1']);
    const good = await submit(svc, sampler(), key);
    expect(good.status).toBe(201);
    const reused = await submit(svc, sampler(), key);
    expect(reused.status).toBe(422);
    expect(((await reused.json()) as { error: { code: string } }).error.code).toBe('idempotency_key_reuse');
    expect(svc.v2!.stats.jobsByKey.get(key)).toBe(1);
    const missing = await submit(svc, invert({ __type: 'core/ASSET', info: { id: randomUUID() } }));
    expect(missing.status).toBe(422);
    expect(((await missing.json()) as { error: { code: string } }).error.code).toBe('missing_asset');
    const ui = await submit(svc, { nodes: [], links: [] });
    expect(((await ui.json()) as { error: { code: string } }).error.code).toBe('workflow_format_ui');
  });

  it('answers deployment_not_ready and queue_full with Retry-After, and the same key then goes through', async () => {
    const svc = await surfaces[surface]();
    svc.v2!.faults.notReady(1, 2);
    svc.v2!.faults.queueFull(1, 1);
    const key = randomUUID();
    const first = await submit(svc, sampler(), key);
    expect(first.status).toBe(429);
    expect(first.headers.get('retry-after')).toBe('2');
    expect(((await first.json()) as { error: { code: string } }).error.code).toBe('deployment_not_ready');
    const second = await submit(svc, sampler(), key);
    expect(((await second.json()) as { error: { code: string } }).error.code).toBe('queue_full');
    expect((await submit(svc, sampler(), key)).status).toBe(201);
  });

  it('streams status, progress, preview and output, ending after the terminal status', async () => {
    const svc = await surfaces[surface]();
    const job = (await (await submit(svc, sampler(6, 40))).json()) as JobJson;
    const events = await call(svc, new URL(job.urls.events, svc.url).pathname);
    expect(events.headers.get('content-type')).toContain('text/event-stream');
    const text = await events.text();
    const names = [...text.matchAll(/^event: (\w+)$/gm)].map((m) => m[1]);
    expect(names[0]).toBe('status');
    expect(names).toContain('progress');
    expect(names).toContain('preview');
    expect(names).toContain('output');
    expect(names.at(-1)).toBe('status');
    expect(text.trim().split('\n').at(-1)).toContain('"succeeded"');
  });

  it('cancels one job, queued or running, and leaves the others alone', async () => {
    const svc = await surfaces[surface]();
    const running = (await (await submit(svc, sampler(40, 50))).json()) as JobJson;
    const waiting = (await (await submit(svc, sampler(2, 10))).json()) as JobJson;
    const other = (await (await submit(svc, sampler(2, 10))).json()) as JobJson;
    await until(
      () => jobOf(svc, running.id),
      (j) => j.status === 'running',
    );
    const cancelWaiting = (await (await call(svc, `/api/v2/jobs/${waiting.id}/cancel`, { method: 'POST' })).json()) as JobJson;
    expect(cancelWaiting.status).toBe('canceled');
    const cancelRunning = (await (await call(svc, `/api/v2/jobs/${running.id}/cancel`, { method: 'POST' })).json()) as JobJson;
    expect(['canceling', 'canceled']).toContain(cancelRunning.status);
    expect(
      (
        await until(
          () => jobOf(svc, running.id),
          (j) => j.status === 'canceled',
        )
      ).status,
    ).toBe('canceled');
    expect(
      (
        await until(
          () => jobOf(svc, other.id),
          (j) => j.status === 'succeeded',
        )
      ).status,
    ).toBe('succeeded');
  });
});

describe('what each surface serves besides v2', () => {
  it('a v2-only deployment has no node definitions, queue, interrupt or socket; a token, when set, is required', async () => {
    const svc = await startDemo({ flavour: 'local', v2: 'only', v2Token: 'tok-123' });
    for (const path of ['/api/object_info', '/api/queue', '/object_info', '/api/interrupt']) {
      const answer = await fetch(svc.url + path);
      expect(answer.status).toBe(404);
      expect(((await answer.json()) as { error: { code: string } }).error.code).toBe('not_found');
    }
    expect((await fetch(`${svc.url}/api/v2/jobs/${randomUUID()}`)).status).toBe(401);
    expect((await fetch(`${svc.url}/api/v2/jobs/${randomUUID()}`, { headers: { Authorization: 'Bearer tok-123' } })).status).toBe(404);
    expect((await fetch(`${svc.url}/api/v2/health`)).status).toBe(200);
  });

  it('the cloud serves v1 beside v2, and v2 takes the same key as a bearer token only', async () => {
    const svc = await startDemo({ flavour: 'cloud', v2: 'beside' });
    expect((await fetch(`${svc.url}/api/object_info`, { headers: { 'X-API-Key': svc.apiKey! } })).status).toBe(200);
    expect((await fetch(`${svc.url}/api/v2/jobs`, { headers: { 'X-API-Key': svc.apiKey! } })).status).toBe(401);
    const list = await call(svc, '/api/v2/jobs');
    expect(list.status).toBe(501);
  });
});

describe('the proxy quirks of a v2-only demo (proxy-observed.md)', () => {
  it('sends status only on connect and at the end, polls a placeholder progress, and hides outputs until the end', async () => {
    const svc = await startDemo({ flavour: 'local', v2: 'only', v2ProxyQuirks: true });
    // A job ahead keeps this one queued while its stream connects.
    await submit(svc, sampler(4, 1500));
    const job = (await (await submit(svc, sampler(6, 1500))).json()) as JobJson;
    const events = await call(svc, new URL(job.urls.events).pathname);
    const running = await until(
      () => jobOf(svc, job.id),
      (j) => j.status === 'running',
    );
    expect(running).toMatchObject({ progress: { value: 0, nodes_done: 0, nodes_total: 0 }, outputs: [], started_at: null });
    const text = await events.text();
    const statuses = [...text.matchAll(/^event: status\ndata: (.*)$/gm)].map((m) => (JSON.parse(m[1]!) as { status: string }).status);
    // No event at queued -> running: status on connect and at the end only.
    expect(statuses).toEqual(['queued', 'succeeded']);
    const done = await jobOf(svc, job.id);
    expect(done.outputs[0]!.id).toMatch(/^[\w-]+\.[\w-]+$/);
  });
});
