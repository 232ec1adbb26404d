// Text frames: every frame recorded from a real local server validates; every PROTOCOL.md variant
// is accepted; malformed frames are rejected with a counted reason, never thrown.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { MessageDecoder, parseServerMessage, parseWithSchemas } from '@main/service/messages';
import { fastServerEvent } from '@main/service/message-fast-path';

const TRACES = new URL('../demo/traces', import.meta.url).pathname;

function jsonFramesOf(list: unknown[]): unknown[] {
  return list
    .map((r) => r as { kind?: string; msg?: unknown; type?: string; data?: unknown })
    .flatMap((r) => (r.kind === 'json' ? [r.msg] : r.type !== undefined && r.data !== undefined ? [r] : []));
}

describe('recorded text frames', () => {
  it('every line of simple_prompt_ws.jsonl validates to a known event type', () => {
    const lines = readFileSync(`${TRACES}/simple_prompt_ws.jsonl`, 'utf8')
      .split('\n')
      .filter((l) => l.trim() !== '');
    expect(lines.length).toBeGreaterThan(10);
    const types = new Set<string>();
    for (const line of lines) {
      const result = parseServerMessage(line);
      if (!result.ok) throw new Error(`rejected (${result.reason}): ${line.slice(0, 200)}`);
      expect(result.event.type).not.toBe('unknown');
      types.add(result.event.type);
    }
    for (const t of ['status', 'execution_start', 'execution_cached', 'executing', 'progress_state', 'executed', 'execution_success'])
      expect(types).toContain(t);
  });

  it('the executed frame carries the output and the trailing executing has node null', () => {
    const lines = readFileSync(`${TRACES}/simple_prompt_ws.jsonl`, 'utf8')
      .split('\n')
      .filter((l) => l.trim() !== '');
    const events = lines.map((l) => parseServerMessage(l)).flatMap((r) => (r.ok ? [r.event] : []));
    const executed = events.find((e) => e.type === 'executed');
    expect(executed).toMatchObject({ node: '3', output: { images: [{ filename: 'inverted_00001_.png', subfolder: 'samples', type: 'output' }] } });
    const last = events.filter((e) => e.type === 'executing').at(-1);
    expect(last).toMatchObject({ type: 'executing', node: null });
    const status = events.find((e) => e.type === 'status');
    expect(status).toEqual({ type: 'status', queueRemaining: 0, sid: 'client-6453b4f6' });
  });

  it('frames of the other traces (errors, interrupts, previews) validate too', () => {
    const error = JSON.parse(readFileSync(`${TRACES}/execution_error.json`, 'utf8')) as { ws: unknown[] };
    const queue = JSON.parse(readFileSync(`${TRACES}/queue_interrupt.json`, 'utf8')) as { ws_filtered: unknown[] };
    const previews = JSON.parse(readFileSync(`${TRACES}/previews.json`, 'utf8')) as { with_flags_ws: unknown[]; no_flags_ws: unknown[] };
    const frames = [
      ...jsonFramesOf(error.ws),
      ...jsonFramesOf(queue.ws_filtered),
      ...jsonFramesOf(previews.with_flags_ws),
      ...jsonFramesOf(previews.no_flags_ws),
    ];
    expect(frames.length).toBeGreaterThan(20);
    for (const frame of frames) {
      const result = parseServerMessage(JSON.stringify(frame));
      if (!result.ok) throw new Error(`rejected (${result.reason}): ${JSON.stringify(frame).slice(0, 200)}`);
    }
    const failed = jsonFramesOf(error.ws)
      .map((f) => parseServerMessage(JSON.stringify(f)))
      .find((r) => r.ok && r.event.type === 'execution_error');
    expect(failed).toMatchObject({
      ok: true,
      event: {
        type: 'execution_error',
        nodeId: '5',
        nodeType: 'PreviewLoop',
        exceptionType: 'RuntimeError',
        exceptionMessage: 'PreviewLoop: deliberate failure at step 2\n',
      },
    });
    if (failed?.ok && failed.event.type === 'execution_error') expect(failed.event.traceback.length).toBe(5);
    const interrupted = jsonFramesOf(queue.ws_filtered)
      .map((f) => parseServerMessage(JSON.stringify(f)))
      .find((r) => r.ok && r.event.type === 'execution_interrupted');
    expect(interrupted).toMatchObject({ ok: true, event: { nodeId: '5', nodeType: 'PreviewLoop' } });
    const flags = jsonFramesOf(previews.with_flags_ws)
      .map((f) => parseServerMessage(JSON.stringify(f)))
      .find((r) => r.ok && r.event.type === 'feature_flags');
    expect(flags).toMatchObject({ ok: true, event: { flags: { supports_preview_metadata: true } } });
  });
});

describe('variants of PROTOCOL.md', () => {
  const parse = (type: string, data: unknown) => parseServerMessage(JSON.stringify({ type, data }));

  it('traceback as a string or an array becomes string[]', () => {
    expect(
      parse('execution_error', { prompt_id: 'p', exception_type: 'OOMError', exception_message: 'out of memory', traceback: 'line 1\nline 2' }),
    ).toMatchObject({
      ok: true,
      event: { traceback: ['line 1\nline 2'], nodeId: null, nodeType: null },
    });
    expect(parse('execution_error', { prompt_id: 'p', exception_type: 'X', exception_message: 'm', traceback: ['a', 'b'] })).toMatchObject({
      event: { traceback: ['a', 'b'] },
    });
    expect(parse('execution_error', { prompt_id: 'p', exception_type: 'X', exception_message: 'm' })).toMatchObject({ event: { traceback: [] } });
  });

  it('executing with node null, absent, or without prompt_id', () => {
    expect(parse('executing', { node: null, prompt_id: 'p' })).toEqual({ ok: true, event: { type: 'executing', node: null, promptId: 'p' } });
    expect(parse('executing', { prompt_id: 'p' })).toEqual({ ok: true, event: { type: 'executing', node: null, promptId: 'p' } });
    expect(parse('executing', { node: null })).toEqual({ ok: true, event: { type: 'executing', node: null, promptId: null } });
    expect(parse('executing', { node: '4', display_node: '9', prompt_id: 'p' })).toEqual({
      ok: true,
      event: { type: 'executing', node: '4', displayNode: '9', promptId: 'p' },
    });
  });

  it('executed with output null (cached node)', () => {
    expect(parse('executed', { node: '3', display_node: '3', output: null, prompt_id: 'p' })).toEqual({
      ok: true,
      event: { type: 'executed', node: '3', output: null, promptId: 'p' },
    });
  });

  it('numeric node ids become strings', () => {
    expect(parse('execution_cached', { nodes: [1, '2'], prompt_id: 'p' })).toEqual({
      ok: true,
      event: { type: 'execution_cached', nodes: ['1', '2'], promptId: 'p' },
    });
    expect(parse('progress', { value: 1, max: 4, node: 7, prompt_id: 'p' })).toMatchObject({ event: { node: '7' } });
  });

  it('progress_state nodes, notification, status variants', () => {
    expect(
      parse('progress_state', {
        prompt_id: 'p',
        nodes: { '5': { value: 1, max: 3, state: 'running', node_id: '5', display_node_id: '5', parent_node_id: null, real_node_id: '5' } },
      }),
    ).toEqual({
      ok: true,
      event: { type: 'progress_state', promptId: 'p', nodes: { '5': { value: 1, max: 3, state: 'running', displayNodeId: '5' } } },
    });
    expect(parse('notification', { value: 'Queue is busy', id: 'x' })).toEqual({ ok: true, event: { type: 'notification', value: 'Queue is busy' } });
    expect(parse('status', { status: { exec_info: { queue_remaining: 3 } } })).toEqual({ ok: true, event: { type: 'status', queueRemaining: 3 } });
    expect(parse('status', { queue_remaining: 2 })).toEqual({ ok: true, event: { type: 'status', queueRemaining: 2 } });
  });

  it('execution_start/success/interrupted', () => {
    expect(parse('execution_start', { prompt_id: 'p', timestamp: 1 })).toEqual({ ok: true, event: { type: 'execution_start', promptId: 'p' } });
    expect(parse('execution_success', { prompt_id: 'p', timestamp: 1 })).toEqual({ ok: true, event: { type: 'execution_success', promptId: 'p' } });
    expect(parse('execution_interrupted', { prompt_id: 'p', node_id: '5', node_type: 'K', executed: [] })).toEqual({
      ok: true,
      event: { type: 'execution_interrupted', promptId: 'p', nodeId: '5', nodeType: 'K' },
    });
  });

  it('an unknown type with an object data is kept as unknown', () => {
    expect(parse('crystools.monitor', { cpu_utilization: 3 })).toEqual({
      ok: true,
      event: { type: 'unknown', rawType: 'crystools.monitor', data: { cpu_utilization: 3 } },
    });
  });
});

describe('rejections', () => {
  it('invalid JSON, bad envelopes and schema failures are rejected with a reason', () => {
    expect(parseServerMessage('{not json')).toEqual({ ok: false, reason: 'invalid_json' });
    expect(parseServerMessage('[1,2]')).toEqual({ ok: false, reason: 'bad_envelope' });
    expect(parseServerMessage('{"data":{}}')).toEqual({ ok: false, reason: 'bad_envelope' });
    expect(parseServerMessage('{"type":"mystery","data":5}')).toEqual({ ok: false, reason: 'bad_envelope' });
    expect(parseServerMessage('{"type":"progress","data":{"value":"1","max":3}}')).toEqual({ ok: false, reason: 'bad_progress' });
    expect(parseServerMessage('{"type":"executed","data":{"node":"1","output":{}}}')).toEqual({ ok: false, reason: 'bad_executed' });
    expect(parseServerMessage('{"type":"status","data":{"status":{}}}')).toEqual({ ok: false, reason: 'bad_status' });
    expect(parseServerMessage('{"type":"execution_start","data":{}}')).toEqual({ ok: false, reason: 'bad_execution_start' });
  });

  it('MessageDecoder returns null for rejects and counts them by reason', () => {
    const decoder = new MessageDecoder();
    expect(decoder.decode('{"type":"execution_success","data":{"prompt_id":"p"}}')).toEqual({ type: 'execution_success', promptId: 'p' });
    expect(decoder.decode('nope')).toBeNull();
    expect(decoder.decode('nope again')).toBeNull();
    expect(decoder.decode('{"type":"progress","data":{}}')).toBeNull();
    expect(decoder.rejectedCount).toBe(3);
    expect(decoder.rejectedByReason()).toEqual({ invalid_json: 2, bad_progress: 1 });
  });
});

describe('the hand-checked fast path answers what the schemas answer', () => {
  const traceFrames = (): unknown[] => {
    const simple = readFileSync(`${TRACES}/simple_prompt_ws.jsonl`, 'utf8')
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l) => JSON.parse(l) as unknown);
    const error = JSON.parse(readFileSync(`${TRACES}/execution_error.json`, 'utf8')) as { ws: unknown[] };
    const queue = JSON.parse(readFileSync(`${TRACES}/queue_interrupt.json`, 'utf8')) as { ws_filtered: unknown[] };
    const previews = JSON.parse(readFileSync(`${TRACES}/previews.json`, 'utf8')) as { with_flags_ws: unknown[]; no_flags_ws: unknown[] };
    return [
      ...simple,
      ...jsonFramesOf(error.ws),
      ...jsonFramesOf(queue.ws_filtered),
      ...jsonFramesOf(previews.with_flags_ws),
      ...jsonFramesOf(previews.no_flags_ws),
    ];
  };
  const node = { value: 1, max: 3, state: 'running', node_id: '5', display_node_id: '5', parent_node_id: null, real_node_id: '5' };
  // Every hot type in its plain shape and in the variants and faults the fast path must leave to the schemas.
  const variants: Array<[string, unknown]> = [
    ['progress_state', { prompt_id: 'p', nodes: { '5': node, '10': { ...node, display_node_id: null }, '2': { value: 0, max: 1, state: 'pending' } } }],
    ['progress_state', { prompt_id: 'p', nodes: {} }],
    ['progress_state', { prompt_id: 'p', nodes: { '5': { ...node, display_node_id: 5 } } }],
    ['progress_state', { prompt_id: 'p', nodes: { '5': { ...node, value: '1' } } }],
    ['progress_state', { prompt_id: 'p', nodes: { '5': { ...node, state: null } } }],
    ['progress_state', { prompt_id: 'p', nodes: { '5': null } }],
    ['progress_state', { prompt_id: 'p', nodes: [] }],
    ['progress_state', { prompt_id: 7, nodes: {} }],
    ['progress_state', { nodes: {} }],
    ['executing', { node: '4', display_node: '9', prompt_id: 'p' }],
    ['executing', { node: null, prompt_id: 'p' }],
    ['executing', { node: 4, display_node: 9, prompt_id: 'p' }],
    ['executing', { node: '4', display_node: null, prompt_id: null }],
    ['executing', {}],
    ['executing', null],
    ['executing', { node: true }],
    ['executing', { node: '4', prompt_id: 3 }],
    ['status', { status: { exec_info: { queue_remaining: 3 } }, sid: 's' }],
    ['status', { status: { exec_info: { queue_remaining: 0 } } }],
    ['status', { status: { exec_info: {} }, exec_info: { queue_remaining: 1 } }],
    ['status', { status: { exec_info: { queue_remaining: 2 } }, queue_remaining: 5 }],
    ['status', { status: null, queue_remaining: 2 }],
    ['status', { status: { exec_info: { queue_remaining: '2' } } }],
    ['status', { status: { exec_info: { queue_remaining: 2 } }, sid: null }],
    ['status', { status: {} }],
    ['execution_start', { prompt_id: 'p', timestamp: 1 }],
    ['execution_start', { prompt_id: null }],
    ['execution_success', { prompt_id: 'p' }],
    ['execution_success', {}],
    ['execution_cached', { nodes: [], prompt_id: 'p', timestamp: 1 }],
    ['execution_cached', { nodes: ['1', '2'], prompt_id: 'p' }],
    ['execution_cached', { nodes: [1, '2'], prompt_id: 'p' }],
    ['execution_cached', { nodes: [null], prompt_id: 'p' }],
    ['execution_cached', { nodes: 'x', prompt_id: 'p' }],
    ['executed', { node: '3', display_node: '3', output: { images: [{ filename: 'a.png', subfolder: '', type: 'output' }] }, prompt_id: 'p' }],
    ['executed', { node: '3', output: null, prompt_id: 'p' }],
    ['executed', { node: '3', prompt_id: 'p' }],
    ['executed', { node: 3, output: {}, prompt_id: 'p' }],
    ['executed', { node: '3', output: [], prompt_id: 'p' }],
    ['executed', { node: '3', output: 'x', prompt_id: 'p' }],
    ['executed', { node: '1', output: {} }],
    ['progress', { value: 1, max: 4, node: '7', prompt_id: 'p' }],
    ['progress', { value: 1, max: 4 }],
    ['progress', { value: 1, max: 4, node: 7, prompt_id: 'p' }],
    ['progress', { value: '1', max: 3 }],
    ['progress', { value: 1, max: 3, prompt_id: 5 }],
  ];

  it('on every recorded frame and every variant, and it takes the plain shapes itself', () => {
    const frames = [...traceFrames(), ...variants.map(([type, data]) => ({ type, data }))];
    let fast = 0;
    for (const frame of frames) {
      // Through JSON, as frames arrive: a copy each side, so neither path can see the other's work.
      const text = JSON.stringify(frame);
      expect(parseServerMessage(text), text).toEqual(parseWithSchemas(JSON.parse(text)));
      if (fastServerEvent(JSON.parse(text)) !== undefined) fast += 1;
    }
    // The recorded job's progress_state, executing, status, start/success, cached and executed frames.
    const plain = traceFrames().filter((f) => fastServerEvent(f) !== undefined);
    expect(new Set(plain.map((f) => (f as { type: string }).type))).toEqual(
      new Set(['status', 'execution_start', 'execution_cached', 'executing', 'progress_state', 'executed', 'execution_success', 'progress']),
    );
    expect(fast).toBeGreaterThan(20);
  });

  it('leaves a __proto__ key to the schemas', () => {
    const text = '{"type":"progress_state","data":{"prompt_id":"p","nodes":{"__proto__":{"value":1,"max":1,"state":"running"}}}}';
    expect(fastServerEvent(JSON.parse(text))).toBeUndefined();
    expect(parseServerMessage(text)).toEqual(parseWithSchemas(JSON.parse(text)));
    const executed = '{"type":"executed","data":{"node":"1","prompt_id":"p","output":{"__proto__":{"images":[]}}}}';
    expect(fastServerEvent(JSON.parse(executed))).toBeUndefined();
  });
});
