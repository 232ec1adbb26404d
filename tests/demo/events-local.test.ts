// The local flavour's event stream compared with recordings of the real local server: the order
// of frames for a job and for a cached re-run, history entries, feature flags switching previews
// from type 1 to type 4, TEXT frames, failures, and routing by clientId.
import { describe, expect, it } from 'vitest';
import { api, postJson, readTrace, readTraceLines, startDemo, submit, TestSocket, uploadPng, waitForHistory, type Frame } from './helpers';
import { loopWorkflow, SIMPLE_WORKFLOW } from './trace-nodes';

type TraceFrame = { kind: string; msg?: { type: string; data: Record<string, unknown> }; event_type?: number; event?: number };

/** Frame kinds in order, binary frames as binary<type>, the way the traces list them. */
function traceKinds(frames: TraceFrame[]): string[] {
  return frames.filter((f) => f.kind !== 'op8').map((f) => (f.kind === 'json' ? f.msg!.type : `binary${f.event_type ?? f.event}`));
}

function kinds(frames: Frame[]): string[] {
  return frames.map((f) => (f.kind === 'json' ? f.type : `binary${f.bytes.readUInt32BE(0)}`));
}

describe('local flavour: a simple job', () => {
  it('sends the frames of traces/simple_prompt_ws.jsonl in the same order, and the cached re-run too', async () => {
    const svc = await startDemo({ flavour: 'local' });
    await uploadPng(svc, 'sample.png');
    const socket = await TestSocket.open(svc, { clientId: 'client-6453b4f6' });
    expect(socket.frames[0]).toEqual({ kind: 'json', type: 'status', data: { status: { exec_info: { queue_remaining: 0 } }, sid: 'client-6453b4f6' } });

    const first = await submit(svc, { prompt: SIMPLE_WORKFLOW, client_id: 'client-6453b4f6' });
    expect(first.status).toBe(200);
    expect(first.json).toEqual({ prompt_id: expect.any(String), number: 0, node_errors: {} });
    const id1 = first.json.prompt_id as string;
    await socket.waitFor((f) => f.kind === 'json' && f.type === 'executing' && f.data.node === null && f.data.prompt_id === id1);
    const second = await submit(svc, { prompt: SIMPLE_WORKFLOW, client_id: 'client-6453b4f6' });
    expect(second.json.number).toBe(1);
    const id2 = second.json.prompt_id as string;
    await socket.waitFor((f) => f.kind === 'json' && f.type === 'executing' && f.data.node === null && f.data.prompt_id === id2);

    const expected = readTraceLines('simple_prompt_ws.jsonl');
    expect(kinds(socket.frames)).toEqual(expected.map((m) => m.type));
    // Same data, apart from ids and timestamps.
    const normalise = (type: string, data: Record<string, unknown>): unknown =>
      JSON.parse(
        JSON.stringify({ type, data })
          .replaceAll(id1, 'P1')
          .replaceAll(id2, 'P2')
          .replace(/"timestamp":\d+/g, '"timestamp":0'),
      );
    const traceId1 = '55a658eb-1f40-44cc-9361-53a3c6633fcd';
    const traceId2 = '0a83bfeb-a866-45da-81aa-3e1e7806d100';
    const expectedNorm = expected.map(
      (m) =>
        JSON.parse(
          JSON.stringify(m)
            .replaceAll(traceId1, 'P1')
            .replaceAll(traceId2, 'P2')
            .replace(/"timestamp": ?\d+/g, '"timestamp":0'),
        ) as unknown,
    );
    expect(socket.frames.map((f) => (f.kind === 'json' ? normalise(f.type, f.data) : null))).toEqual(expectedNorm);
  });

  it('keeps a history entry shaped like the real one; {} before the job has finished', async () => {
    const svc = await startDemo({ flavour: 'local' });
    await uploadPng(svc, 'sample.png');
    const socket = await TestSocket.open(svc, { clientId: 'client-6453b4f6' });
    const unknown = await api(svc, '/api/history/00000000-0000-0000-0000-000000000000');
    expect(unknown.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(await unknown.text()).toBe('{}');

    const { json } = await submit(svc, { prompt: SIMPLE_WORKFLOW, client_id: 'client-6453b4f6', extra_data: { extra_pnginfo: { note: 'samples' } } });
    const id = json.prompt_id as string;
    await socket.waitForEnd(id);
    const entry = await waitForHistory(svc, id);
    const trace = readTrace<{ history: { json: Record<string, Record<string, unknown>> } }>('simple_prompt.json');
    const traced = trace.history.json['55a658eb-1f40-44cc-9361-53a3c6633fcd']!;
    const norm = (v: unknown, pid: string): unknown =>
      JSON.parse(
        JSON.stringify(v)
          .replaceAll(pid, 'P')
          .replace(/"timestamp":\d+/g, '"timestamp":0'),
      );
    expect(norm(entry, id)).toEqual(norm(traced, '55a658eb-1f40-44cc-9361-53a3c6633fcd'));

    // The output file is there, and /history?max_items=1 lists the latest job only.
    const view = await api(svc, '/view?filename=inverted_00001_.png&subfolder=samples&type=output');
    expect(view.status).toBe(200);
    expect(view.headers.get('content-type')).toBe('image/png');
    const list = (await (await api(svc, '/history?max_items=1')).json()) as Record<string, unknown>;
    expect(Object.keys(list)).toEqual([id]);
  });
});

describe('local flavour: previews and text frames', () => {
  it('sends type 1 previews without feature flags and type 4 after announcing them, in the traced order', async () => {
    const svc = await startDemo({ flavour: 'local' });
    const trace = readTrace<Record<string, TraceFrame[]>>('previews.json');
    const withFlags = await TestSocket.open(svc, { clientId: 'client-flags' });
    withFlags.send({ type: 'feature_flags', data: { supports_preview_metadata: true } });
    const flags = await withFlags.waitFor((f) => f.kind === 'json' && f.type === 'feature_flags');
    expect(flags).toEqual({ kind: 'json', type: 'feature_flags', data: { supports_preview_metadata: true, max_upload_size: 104857600 } });
    const a = await submit(svc, { prompt: loopWorkflow(3, 0.1), client_id: 'client-flags' });
    const idA = a.json.prompt_id as string;
    await withFlags.waitFor((f) => f.kind === 'json' && f.type === 'executing' && f.data.node === null);
    expect(kinds(withFlags.frames)).toEqual(traceKinds(trace.with_flags_ws!));

    const plain = await TestSocket.open(svc, { clientId: 'client-plain' });
    const b = await submit(svc, { prompt: loopWorkflow(3, 0.1, {}, 2), client_id: 'client-plain' });
    const idB = b.json.prompt_id as string;
    await plain.waitFor((f) => f.kind === 'json' && f.type === 'executing' && f.data.node === null && f.data.prompt_id === idB);
    expect(kinds(plain.frames)).toEqual(traceKinds(trace.no_flags_ws!));

    // Type 4: [4][n][metadata JSON in Python spacing][JPEG]; metadata names the job and node.
    const four = withFlags.binaries().find((b) => b.readUInt32BE(0) === 4)!;
    const n = four.readUInt32BE(4);
    const metaText = four.subarray(8, 8 + n).toString('utf8');
    expect(metaText.startsWith('{"node_id": "5", "prompt_id": ')).toBe(true);
    expect(JSON.parse(metaText)).toEqual({
      node_id: '5',
      prompt_id: idA,
      display_node_id: '5',
      parent_node_id: null,
      real_node_id: '5',
      image_type: 'image/jpeg',
    });
    expect(n).toBe(166);
    expect([...four.subarray(8 + n, 8 + n + 3)]).toEqual([0xff, 0xd8, 0xff]);
    // Type 1: [1][1 = JPEG][JPEG].
    const one = plain.binaries().find((b) => b.readUInt32BE(0) === 1)!;
    expect(one.readUInt32BE(4)).toBe(1);
    expect([...one.subarray(8, 11)]).toEqual([0xff, 0xd8, 0xff]);
    // TEXT: [3][n][node id][text], exactly the traced bytes.
    const text = plain.binaries().find((b) => b.readUInt32BE(0) === 3)!;
    expect(text.toString('hex')).toBe('000000030000000135737465702031206f662033');
  });
});

describe('local flavour: failures', () => {
  it('reports a node failure as execution_error shaped like traces/execution_error.json, and history says error', async () => {
    const svc = await startDemo({ flavour: 'local' });
    const socket = await TestSocket.open(svc, { clientId: 'client-err' });
    const { json } = await submit(svc, { prompt: loopWorkflow(3, 0, { fail_at_step: 2 }, 3), client_id: 'client-err' });
    const id = json.prompt_id as string;
    const end = (await socket.waitForEnd(id)) as Extract<Frame, { kind: 'json' }>;
    await socket.waitFor((f) => f.kind === 'json' && f.type === 'executing' && f.data.node === null);
    const trace = readTrace<{ ws: TraceFrame[]; history: { json: Record<string, Record<string, unknown>> } }>('execution_error.json');
    expect(kinds(socket.frames)).toEqual(traceKinds(trace.ws));
    const traced = trace.ws.find((f) => f.msg?.type === 'execution_error')!.msg!.data;
    expect(Object.keys(end.data).sort()).toEqual(Object.keys(traced).sort());
    expect(end.data).toMatchObject({
      prompt_id: id,
      node_id: '5',
      node_type: 'PreviewLoop',
      executed: [],
      exception_type: 'RuntimeError',
      exception_message: 'PreviewLoop: deliberate failure at step 2\n',
      current_inputs: { steps: [3], delay: [0], seed: [3], width: [8], height: [8], fail_at_step: [2], unique_id: ['5'] },
      current_outputs: ['6', '5'],
    });
    expect(Array.isArray(end.data.traceback)).toBe(true);
    expect((end.data.traceback as string[]).every((l) => l.startsWith('  File "'))).toBe(true);

    const entry = await waitForHistory(svc, id);
    expect(entry.status).toMatchObject({ status_str: 'error', completed: false });
    const messages = (entry.status as { messages: Array<[string, unknown]> }).messages.map(([t]) => t);
    expect(messages).toEqual(['execution_start', 'execution_cached', 'execution_error']);
    expect(entry.outputs).toEqual({});
    expect(entry.meta).toEqual({});
  });

  it('reports an unexpected error as exception_type Exception', async () => {
    const svc = await startDemo({ flavour: 'local' });
    const socket = await TestSocket.open(svc, { clientId: 'c' });
    const { json } = await submit(svc, { prompt: { '1': { class_type: 'CrashNode', inputs: {} } }, client_id: 'c' });
    const end = (await socket.waitForEnd(json.prompt_id as string)) as Extract<Frame, { kind: 'json' }>;
    expect(end.type).toBe('execution_error');
    expect(end.data.exception_type).toBe('Exception');
    expect(end.data.exception_message).toBe('something broke\n');
  });
});

describe('local flavour: routing by clientId (traces/ws_probe_node.json)', () => {
  it('sends job events only to the socket whose clientId is the job client_id; TEXT and status to everyone', async () => {
    const svc = await startDemo({ flavour: 'local' });
    const a = await TestSocket.open(svc, { clientId: 'node-A' });
    const b = await TestSocket.open(svc);
    expect(typeof b.frames[0]!.kind === 'string' && (b.frames[0] as Extract<Frame, { kind: 'json' }>).data.sid).toMatch(/^[0-9a-f]{32}$/);
    a.send({ type: 'feature_flags', data: { supports_preview_metadata: true } });
    await a.waitFor((f) => f.kind === 'json' && f.type === 'feature_flags');
    const { json } = await submit(svc, { prompt: loopWorkflow(2, 0), client_id: 'node-A' });
    const id = json.prompt_id as string;
    await a.waitFor((f) => f.kind === 'json' && f.type === 'executing' && f.data.node === null);
    await b.waitFor(
      (f) => f.kind === 'json' && f.type === 'status' && (f.data.status as { exec_info: { queue_remaining: number } }).exec_info.queue_remaining === 0,
      8000,
      3,
    );

    const trace = readTrace<{ phase1: { A: TraceFrame[]; B: TraceFrame[] } }>('ws_probe_node.json');
    const probeKinds = (frames: Array<Record<string, unknown>>): string[] => frames.map((f) => (f.binary ? `binary${String(f.event)}` : String(f.type)));
    expect(kinds(a.frames)).toEqual(probeKinds(trace.phase1.A as unknown as Array<Record<string, unknown>>));
    expect(kinds(b.frames)).toEqual(probeKinds(trace.phase1.B as unknown as Array<Record<string, unknown>>));
    expect(b.frames.some((f) => f.kind === 'json' && f.data.prompt_id === id)).toBe(false);
  });

  it('sends progress, progress_state and type 1 previews of a job without client_id to every socket, and its job events to nobody', async () => {
    const svc = await startDemo({ flavour: 'local' });
    const a = await TestSocket.open(svc, { clientId: 'node-A' });
    a.send({ type: 'feature_flags', data: { supports_preview_metadata: true } });
    await a.waitFor((f) => f.kind === 'json' && f.type === 'feature_flags');
    const b = await TestSocket.open(svc, { clientId: 'node-B' });
    await submit(svc, { prompt: loopWorkflow(2, 0) });
    for (const s of [a, b]) {
      await s.waitFor(
        (f) => f.kind === 'json' && f.type === 'status' && (f.data.status as { exec_info: { queue_remaining: number } }).exec_info.queue_remaining === 0,
        8000,
        2,
      );
    }
    const trace = readTrace<{ phase2: { A: Array<Record<string, unknown>>; B: Array<Record<string, unknown>> } }>('ws_probe_node.json');
    const probeKinds = (frames: Array<Record<string, unknown>>): string[] => frames.map((f) => (f.binary ? `binary${String(f.event)}` : String(f.type)));
    const afterGreeting = (s: TestSocket): string[] => kinds(s.frames).slice(s === a ? 2 : 1);
    expect(afterGreeting(a)).toEqual(probeKinds(trace.phase2.A));
    expect(afterGreeting(b)).toEqual(probeKinds(trace.phase2.B));
  });

  it('tells a reconnecting client which node of its job runs now, as {node} alone', async () => {
    const svc = await startDemo({ flavour: 'local', timeScale: 1 });
    const first = await TestSocket.open(svc, { clientId: 'again' });
    const { json } = await submit(svc, { prompt: loopWorkflow(100, 0.05), client_id: 'again' });
    await first.waitFor((f) => f.kind === 'json' && f.type === 'executing' && f.data.node === '5');
    first.ws.terminate();
    const second = await TestSocket.open(svc, { clientId: 'again' });
    const hint = await second.waitFor((f) => f.kind === 'json' && f.type === 'executing');
    expect(second.frames.indexOf(hint)).toBe(1);
    expect(hint).toEqual({ kind: 'json', type: 'executing', data: { node: '5' } });
    const other = await TestSocket.open(svc, { clientId: 'someone-else' });
    expect(other.json('executing')).toEqual([]);
    await postJson(svc, '/interrupt', { prompt_id: json.prompt_id });
    await second.waitForEnd(json.prompt_id as string);
  });

  it('a newer socket with the same clientId takes over the job events', async () => {
    const svc = await startDemo({ flavour: 'local' });
    const old = await TestSocket.open(svc, { clientId: 'same' });
    const fresh = await TestSocket.open(svc, { clientId: 'same' });
    const { json } = await submit(svc, { prompt: loopWorkflow(1, 0), client_id: 'same' });
    await fresh.waitForEnd(json.prompt_id as string);
    expect(old.json('execution_start')).toEqual([]);
  });
});
