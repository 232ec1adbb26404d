// The cloud flavour: API keys and account states, the job status endpoint in both vocabularies,
// events to every socket of a key, queue entries without secrets, and downloads through a 302 to
// signed storage URLs that must be fetched without the key.
import { describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { api, postJson, startDemo, submit, TestSocket, waitForHistory, type Frame } from './helpers';
import { loopWorkflow } from './trace-nodes';
import { classifyStatusWord } from '@main/service/status-words';

async function upgradeStatus(url: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url);
    ws.on('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString('utf8')));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    ws.on('open', () => {
      ws.terminate();
      reject(new Error('the upgrade was accepted'));
    });
    ws.on('error', () => undefined);
  });
}

async function statusOf(svc: Awaited<ReturnType<typeof startDemo>>, id: string): Promise<Record<string, unknown>> {
  const res = await api(svc, `/api/job/${id}/status`);
  expect(res.status).toBe(200);
  return (await res.json()) as Record<string, unknown>;
}

async function waitForStatus(svc: Awaited<ReturnType<typeof startDemo>>, id: string, word: string): Promise<Record<string, unknown>> {
  for (let i = 0; i < 400; i++) {
    const body = await statusOf(svc, id);
    if (body.status === word) return body;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`job never reached ${word}`);
}

describe('cloud flavour: authentication', () => {
  it('answers 401 {code, message} without a key or with a wrong one, on REST and on /ws', async () => {
    const svc = await startDemo({ flavour: 'cloud', apiKey: 'right-key-123' });
    for (const path of ['/api/queue', '/api/object_info', '/api/prompt', '/api/view?filename=x.png&type=output', '/api/job/x/status']) {
      for (const key of [null, 'wrong-key-456']) {
        const res = await api(svc, path, { key });
        expect(res.status).toBe(401);
        const body = (await res.json()) as Record<string, unknown>;
        expect(body).toEqual({ code: 'unauthorized', message: expect.any(String) });
        expect(JSON.stringify(body)).not.toContain('wrong-key-456');
      }
    }
    const ws = svc.url.replace(/^http/, 'ws');
    expect((await upgradeStatus(`${ws}/ws?clientId=a`)).status).toBe(401);
    const wrong = await upgradeStatus(`${ws}/ws?clientId=a&token=wrong-key-456`);
    expect(wrong.status).toBe(401);
    expect(JSON.parse(wrong.body)).toEqual({ code: 'unauthorized', message: expect.any(String) });
    expect(wrong.body).not.toContain('wrong-key-456');
    // /api is required on the cloud.
    expect((await api(svc, '/queue')).status).toBe(404);
    expect([...svc.stats.keysSeen].sort()).toEqual(['wrong-key-456']);
  });

  it('generates a url-safe key when none is given; local has none', async () => {
    const cloud = await startDemo({ flavour: 'cloud' });
    expect(cloud.apiKey).toMatch(/^[A-Za-z0-9_-]{16,}$/);
    const local = await startDemo({ flavour: 'local', apiKey: 'ignored' });
    expect(local.apiKey).toBeNull();
  });

  it('answers 402 for a key without credits and 429 for an inactive subscription, only on submit', async () => {
    const svc = await startDemo({ flavour: 'cloud' });
    svc.setKeyState('broke-key', 'no_credits');
    svc.setKeyState('lapsed-key', 'inactive');
    const broke = await submit(svc, { prompt: loopWorkflow(1, 0) }, 'broke-key');
    expect(broke.status).toBe(402);
    expect(broke.json).toEqual({ code: 'insufficient_credits', message: expect.stringMatching(/credits/) });
    const lapsed = await submit(svc, { prompt: loopWorkflow(1, 0) }, 'lapsed-key');
    expect(lapsed.status).toBe(429);
    expect(lapsed.json).toEqual({ code: 'subscription_inactive', message: expect.stringMatching(/subscription/i) });
    expect((await api(svc, '/api/queue', { key: 'lapsed-key' })).status).toBe(200);
    expect(svc.stats.promptRequests).toBe(2);
    expect(svc.stats.submissions.size).toBe(0);
  });
});

describe('cloud flavour: job status', () => {
  it('speaks the specification words: pending, in_progress, completed, failed, cancelled', async () => {
    const svc = await startDemo({ flavour: 'cloud', timeScale: 1 });
    const long = await submit(svc, { prompt: loopWorkflow(200, 0.05) });
    const waiting = await submit(svc, { prompt: loopWorkflow(1, 0, {}, 2) });
    const longId = long.json.prompt_id as string;
    const waitingId = waiting.json.prompt_id as string;
    const inProgress = await waitForStatus(svc, longId, 'in_progress');
    expect(inProgress).toEqual({ status: 'in_progress', id: longId, created_at: expect.any(String), updated_at: expect.any(String) });
    expect(new Date(inProgress.created_at as string).toISOString()).toBe(inProgress.created_at);
    expect((await statusOf(svc, waitingId)).status).toBe('pending');
    // Deleting a pending job cancels it; deleting the running one does nothing (as documented:
    // delete cancels pending jobs only); interrupt stops it.
    await postJson(svc, '/api/queue', { delete: [waitingId] });
    expect((await statusOf(svc, waitingId)).status).toBe('cancelled');
    expect(await (await postJson(svc, '/api/queue', { delete: [longId] })).json()).toEqual({ deleted: [], cleared: false });
    expect((await statusOf(svc, longId)).status).toBe('in_progress');
    await postJson(svc, '/api/interrupt', {});
    await waitForStatus(svc, longId, 'cancelled');

    const ok = await submit(svc, { prompt: loopWorkflow(1, 0, {}, 3) });
    await waitForStatus(svc, ok.json.prompt_id as string, 'completed');
    const bad = await submit(svc, { prompt: loopWorkflow(2, 0, { fail_at_step: 1 }, 4) });
    const failed = await waitForStatus(svc, bad.json.prompt_id as string, 'failed');
    expect(failed.error_message).toBe('PreviewLoop: deliberate failure at step 1');

    const unknown = await api(svc, '/api/job/00000000-0000-0000-0000-000000000000/status');
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toEqual({ code: 'not_found', message: expect.any(String) });
  });

  it('speaks the documented raw states with the raw vocabulary, all known to the client', async () => {
    const svc = await startDemo({ flavour: 'cloud', statusVocabulary: 'raw', timeScale: 1 });
    const long = await submit(svc, { prompt: loopWorkflow(200, 0.05) });
    const waiting = await submit(svc, { prompt: loopWorkflow(1, 0, {}, 2) });
    const longId = long.json.prompt_id as string;
    const waitingId = waiting.json.prompt_id as string;
    await waitForStatus(svc, longId, 'executing');
    expect((await statusOf(svc, waitingId)).status).toBe('queued_waiting');
    expect(classifyStatusWord('queued_waiting')).toMatchObject({ phase: 'pending', known: true });
    expect(classifyStatusWord('executing')).toMatchObject({ phase: 'running', known: true });
    await postJson(svc, '/api/queue', { delete: [waitingId] });
    await postJson(svc, '/api/interrupt', {});
    await waitForStatus(svc, longId, 'cancelled');
    const ok = await submit(svc, { prompt: loopWorkflow(1, 0, {}, 3) });
    await waitForStatus(svc, ok.json.prompt_id as string, 'success');
  });

  it("speaks success/error with the other vocabulary, and hides other accounts' jobs", async () => {
    const svc = await startDemo({ flavour: 'cloud', statusVocabulary: 'success_error' });
    svc.setKeyState('other-key', 'active');
    const ok = await submit(svc, { prompt: loopWorkflow(1, 0) });
    await waitForStatus(svc, ok.json.prompt_id as string, 'success');
    const bad = await submit(svc, { prompt: loopWorkflow(2, 0, { fail_at_step: 1 }, 4) });
    await waitForStatus(svc, bad.json.prompt_id as string, 'error');
    expect((await api(svc, `/api/job/${ok.json.prompt_id as string}/status`, { key: 'other-key' })).status).toBe(404);
  });
});

describe('cloud flavour: events', () => {
  it("sends every event of a key's job to every socket of that key (clientId ignored), and none to other keys", async () => {
    const svc = await startDemo({ flavour: 'cloud' });
    svc.setKeyState('other-key', 'active');
    const one = await TestSocket.open(svc, { clientId: 'one' });
    const two = await TestSocket.open(svc, { clientId: 'two' });
    two.send({ type: 'feature_flags', data: { supports_preview_metadata: true } });
    await two.waitFor((f) => f.kind === 'json' && f.type === 'feature_flags');
    const stranger = await TestSocket.open(svc, { clientId: 'one', token: 'other-key' });
    const { json } = await submit(svc, { prompt: loopWorkflow(2, 0), client_id: 'somebody-else' });
    const id = json.prompt_id as string;
    for (const s of [one, two]) {
      await s.waitForEnd(id);
      await s.waitFor(
        (f) => f.kind === 'json' && f.type === 'status' && (f.data.status as { exec_info: { queue_remaining: number } }).exec_info.queue_remaining === 0,
        8000,
        2,
      );
    }
    for (const type of ['execution_start', 'execution_cached', 'executing', 'progress', 'progress_state', 'executed', 'execution_success']) {
      expect(one.json(type).length).toBeGreaterThan(0);
      expect(two.json(type).length).toBe(one.json(type).length);
    }
    // No trailing `executing null` on the cloud.
    expect(one.json('executing').some((d) => d.node === null)).toBe(false);
    // Previews: type 1 without the flag; type 4 with it, whose metadata has no image_type.
    expect(one.binaries().filter((b) => b.readUInt32BE(0) === 1).length).toBe(2);
    const four = two.binaries().filter((b) => b.readUInt32BE(0) === 4);
    expect(four.length).toBe(2);
    const meta = JSON.parse(four[0]!.subarray(8, 8 + four[0]!.readUInt32BE(4)).toString('utf8')) as Record<string, unknown>;
    expect(meta).toEqual({ node_id: '5', prompt_id: id, display_node_id: '5', parent_node_id: null, real_node_id: '5' });
    expect(two.binaries().filter((b) => b.readUInt32BE(0) === 3).length).toBe(1);
    // The other account saw only its own queue status.
    expect(stranger.frames.filter((f: Frame) => f.kind === 'binary' || (f.kind === 'json' && f.type !== 'status'))).toEqual([]);
    expect(stranger.json('status').every((d) => (d.status as { exec_info: { queue_remaining: number } }).exec_info.queue_remaining === 0)).toBe(true);
  });
});

describe('cloud flavour: queue and history', () => {
  it('lists entries as [number, id, workflow, output ids, {create_time}] with no extra_data, and keeps keys out of history', async () => {
    const svc = await startDemo({ flavour: 'cloud', timeScale: 1 });
    const key = svc.apiKey!;
    const running = await submit(svc, { prompt: loopWorkflow(200, 0.05), extra_data: { api_key_comfy_org: key } });
    const pending = await submit(svc, { prompt: loopWorkflow(1, 0, {}, 9), extra_data: { api_key_comfy_org: key } });
    await waitForStatus(svc, running.json.prompt_id as string, 'in_progress');
    const res = await api(svc, '/api/queue');
    const text = await res.text();
    expect(text).not.toContain(key);
    const queue = JSON.parse(text) as { queue_running: unknown[][]; queue_pending: unknown[][] };
    expect(queue.queue_running).toHaveLength(1);
    const [entry] = queue.queue_running;
    expect(entry).toHaveLength(5);
    expect(entry![0]).toBe(running.json.number);
    expect(entry![1]).toBe(running.json.prompt_id);
    expect(entry![3]).toEqual(['6']);
    expect(entry![4]).toEqual({ create_time: expect.any(Number) });
    expect(queue.queue_pending.map((e) => e[1])).toEqual([pending.json.prompt_id]);
    // Another key sees an empty queue.
    svc.setKeyState('other-key', 'active');
    expect(await (await api(svc, '/api/queue', { key: 'other-key' })).json()).toEqual({ queue_running: [], queue_pending: [] });
    // Interrupt stops the caller's running job; the pending one then runs.
    expect((await postJson(svc, '/api/interrupt', {})).status).toBe(200);
    await waitForStatus(svc, running.json.prompt_id as string, 'cancelled');
    await waitForStatus(svc, pending.json.prompt_id as string, 'completed');
    const history = await api(svc, `/api/history/${pending.json.prompt_id as string}`);
    const historyText = await history.text();
    expect(historyText).not.toContain(key);
    expect(Object.keys(JSON.parse(historyText) as object)).toEqual([pending.json.prompt_id]);
    expect(await (await api(svc, `/api/history/${pending.json.prompt_id as string}`, { key: 'other-key' })).json()).toEqual({});
  });
});

describe('cloud flavour: downloads through signed storage URLs', () => {
  async function finishedOutput(svc: Awaited<ReturnType<typeof startDemo>>): Promise<{ filename: string; type: string }> {
    const { json } = await submit(svc, { prompt: loopWorkflow(1, 0) });
    const entry = await waitForHistory(svc, json.prompt_id as string);
    const image = (entry.outputs as Record<string, { images: Array<{ filename: string; subfolder: string; type: string }> }>)['6']!.images[0]!;
    expect(image.subfolder).toBe('');
    return image;
  }

  it('redirects /api/view to the storage listener; the file comes without the key, and a request with it is refused and counted', async () => {
    const svc = await startDemo({ flavour: 'cloud' });
    const image = await finishedOutput(svc);
    const view = await api(svc, `/api/view?filename=${encodeURIComponent(image.filename)}&subfolder=&type=${image.type}`);
    expect(view.status).toBe(302);
    const location = view.headers.get('location')!;
    expect(location.startsWith(`${svc.storageUrl}/`)).toBe(true);
    expect(location).toMatch(/\?expires=\d+&sig=[0-9a-f]{64}$/);
    expect(location).not.toContain(svc.apiKey!);

    const file = await fetch(location);
    expect(file.status).toBe(200);
    expect(file.headers.get('content-type')).toBe('image/png');
    const bytes = Buffer.from(await file.arrayBuffer());
    expect(Number(file.headers.get('content-length'))).toBe(bytes.length);
    expect(bytes.subarray(0, 4).toString('hex')).toBe('89504e47');

    const withKey = await fetch(location, { headers: { 'X-API-Key': svc.apiKey! } });
    expect(withKey.status).toBe(403);
    const keyInUrl = await fetch(`${location}&token=${svc.apiKey!}`);
    expect(keyInUrl.status).toBe(403);
    expect(svc.stats.storageRequestsWithKey).toBe(2);
    expect(svc.stats.storageRequests).toBe(3);
    expect(svc.stats.viewRequests).toBe(1);

    const forged = await fetch(location.replace(/sig=[0-9a-f]{4}/, 'sig=0000'));
    expect(forged.status).toBe(403);
    expect(await forged.text()).toContain('SignatureDoesNotMatch');
    const missing = await api(svc, '/api/view?filename=nope.png&type=output');
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({ code: 'not_found', message: expect.any(String) });
  });

  it('expires signed URLs after their lifetime, answering 403 with an "expired" body', async () => {
    const svc = await startDemo({ flavour: 'cloud', signedUrlTtlMs: -1000 });
    const image = await finishedOutput(svc);
    const view = await api(svc, `/api/view?filename=${encodeURIComponent(image.filename)}&type=${image.type}`);
    const expired = await fetch(view.headers.get('location')!);
    expect(expired.status).toBe(403);
    expect(await expired.text()).toMatch(/<Code>AccessDenied<\/Code><Message>Request has expired<\/Message>/);
  });
});
