// The local queue (traces/queue_interrupt.json): entry shapes, `front`, delete of pending jobs,
// clear, interrupt with another job's id (nothing), with the running id, and with no body, the
// frames a socket sees meanwhile, and the interrupted job's history.
import { describe, expect, it } from 'vitest';
import { api, postJson, readTrace, startDemo, submit, TestSocket, waitForHistory } from './helpers';
import { loopWorkflow } from './trace-nodes';

type QueueBody = { queue_running: unknown[][]; queue_pending: unknown[][] };

async function queue(svc: Awaited<ReturnType<typeof startDemo>>): Promise<QueueBody> {
  return (await (await api(svc, '/queue')).json()) as QueueBody;
}

async function expectEmpty200(res: Response): Promise<void> {
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toBe('application/octet-stream');
  expect((await res.arrayBuffer()).byteLength).toBe(0);
}

describe('local queue and interrupt', () => {
  it('follows the recorded session: front, delete, interrupt other id / running id / no body', async () => {
    const svc = await startDemo({ flavour: 'local', timeScale: 1 });
    const socket = await TestSocket.open(svc, { clientId: 'client-a7a455' });
    const long = (seed: number): Record<string, unknown> => ({ prompt: loopWorkflow(400, 0.05, {}, seed), client_id: 'client-a7a455' });
    const p1 = (await submit(svc, long(10))).json;
    await socket.waitFor((f) => f.kind === 'json' && f.type === 'executing' && f.data.node === '5' && f.data.prompt_id === p1.prompt_id);
    const p2 = (await submit(svc, long(11))).json;
    const p3 = (await submit(svc, { ...long(12), front: true })).json;
    expect([p1.number, p2.number, p3.number]).toEqual([0, 1, -2]);

    const q = await queue(svc);
    expect(q.queue_running).toEqual([[0, p1.prompt_id, expect.any(Object), { client_id: 'client-a7a455' }, ['6']]]);
    expect(q.queue_pending.map((e) => e[1])).toEqual([p3.prompt_id, p2.prompt_id]);
    expect(q.queue_pending[0]![2]).toEqual(loopWorkflow(400, 0.05, {}, 12));
    expect(await (await api(svc, '/prompt')).json()).toEqual({ exec_info: { queue_remaining: 3 } });
    expect(await (await api(svc, '/api/queue')).json()).toEqual(q);

    await expectEmpty200(await postJson(svc, '/queue', { delete: [p2.prompt_id] }));
    const afterDelete = await queue(svc);
    expect({ running: afterDelete.queue_running.map((e) => e[1]), pending: afterDelete.queue_pending.map((e) => e[1]) }).toEqual({
      running: [p1.prompt_id],
      pending: [p3.prompt_id],
    });

    await expectEmpty200(await postJson(svc, '/interrupt', { prompt_id: p3.prompt_id }));
    expect((await queue(svc)).queue_running.map((e) => e[1])).toEqual([p1.prompt_id]);
    await expectEmpty200(await postJson(svc, '/interrupt', { prompt_id: p1.prompt_id }));
    await socket.waitFor((f) => f.kind === 'json' && f.type === 'executing' && f.data.node === '5' && f.data.prompt_id === p3.prompt_id);
    await expectEmpty200(await api(svc, '/interrupt', { method: 'POST' }));
    await socket.waitFor((f) => f.kind === 'json' && f.type === 'executing' && f.data.node === null && f.data.prompt_id === p3.prompt_id);

    const trace = readTrace<{
      ws_filtered: Array<{ kind: string; msg?: { type: string; data: Record<string, unknown> } }>;
      history_p1: { json: Record<string, Record<string, unknown>> };
    }>('queue_interrupt.json');
    const filtered = socket.frames.filter((f) => f.kind === 'json' && !['progress', 'progress_state'].includes(f.type));
    const expected = trace.ws_filtered.filter((f) => f.kind === 'json').map((f) => f.msg!);
    expect(filtered.map((f) => (f.kind === 'json' ? f.type : ''))).toEqual(expected.map((m) => m.type));
    const remaining = (frames: Array<{ type: string; data: Record<string, unknown> }>): number[] =>
      frames.filter((m) => m.type === 'status').map((m) => (m.data.status as { exec_info: { queue_remaining: number } }).exec_info.queue_remaining);
    expect(remaining(filtered as Array<{ type: string; data: Record<string, unknown> }>)).toEqual(remaining(expected));
    const interrupted = socket.json('execution_interrupted')[0]!;
    expect(Object.keys(interrupted)).toEqual(['prompt_id', 'node_id', 'node_type', 'executed', 'timestamp']);
    expect(interrupted).toMatchObject({ prompt_id: p1.prompt_id, node_id: '5', node_type: 'PreviewLoop', executed: [] });

    const history = await waitForHistory(svc, p1.prompt_id as string);
    const recorded = trace.history_p1.json['ec2d5dbe-abee-4bbe-bb9f-38e2b3838366']!;
    expect(history.status).toMatchObject({ status_str: 'error', completed: false });
    expect((history.status as { messages: Array<[string]> }).messages.map((m) => m[0])).toEqual(
      (recorded.status as { messages: Array<[string]> }).messages.map((m) => m[0]),
    );
    expect(history.outputs).toEqual({});
    expect(await (await api(svc, `/history/${p2.prompt_id as string}`)).json()).toEqual({});
    expect(await queue(svc)).toEqual({ queue_running: [], queue_pending: [] });
  });

  it('clear removes pending jobs only; the running one goes on', async () => {
    const svc = await startDemo({ flavour: 'local', timeScale: 1 });
    const socket = await TestSocket.open(svc, { clientId: 'c' });
    const running = (await submit(svc, { prompt: loopWorkflow(3, 0.05), client_id: 'c' })).json;
    await socket.waitFor((f) => f.kind === 'json' && f.type === 'executing' && f.data.prompt_id === running.prompt_id);
    await submit(svc, { prompt: loopWorkflow(2, 0, {}, 2) });
    await submit(svc, { prompt: loopWorkflow(2, 0, {}, 3) });
    expect((await queue(svc)).queue_pending).toHaveLength(2);
    await expectEmpty200(await postJson(svc, '/queue', { clear: true }));
    const q = await queue(svc);
    expect(q.queue_pending).toEqual([]);
    expect(q.queue_running.map((e) => e[1])).toEqual([running.prompt_id]);
    const end = await socket.waitForEnd(running.prompt_id as string);
    expect(end.kind === 'json' && end.type).toBe('execution_success');
    // A malformed body fails like the real server: 500.
    expect((await postJson(svc, '/queue', 'not json')).status).toBe(500);
  });

  it('keeps the platform key out of queue entries and history', async () => {
    const svc = await startDemo({ flavour: 'local', timeScale: 1 });
    const socket = await TestSocket.open(svc, { clientId: 'c' });
    const running = (await submit(svc, { prompt: loopWorkflow(3, 0.05), client_id: 'c', extra_data: { api_key_comfy_org: 'secret-platform-key' } })).json;
    await socket.waitFor((f) => f.kind === 'json' && f.type === 'executing' && f.data.prompt_id === running.prompt_id);
    expect(await (await api(svc, '/queue')).text()).not.toContain('secret-platform-key');
    await waitForHistory(svc, running.prompt_id as string);
    expect(await (await api(svc, `/history/${running.prompt_id as string}`)).text()).not.toContain('secret-platform-key');
  });
});
