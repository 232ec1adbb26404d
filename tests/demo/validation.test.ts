// POST /prompt rejections compared with the real server's answers (traces/invalid_prompts.json),
// byte for byte where the recording holds no machine-specific text; integers beyond 2^53 compared
// exactly; client-chosen prompt ids.
import { describe, expect, it } from 'vitest';
import { api, postJson, readTrace, startDemo, submit, uploadPng, waitForHistory } from './helpers';
import type { DemoNode } from '@main/demo/node-api';
import { loopWorkflow, SIMPLE_WORKFLOW, traceNodes } from './trace-nodes';

interface Recorded {
  request_prompt?: unknown;
  status: number;
  headers: Record<string, string>;
  json?: { error: Record<string, unknown>; node_errors: Record<string, unknown> };
  text?: string;
}

const cases = readTrace<Record<string, Recorded>>('invalid_prompts.json');

describe('local flavour: rejected workflows as the real server answers them', () => {
  for (const [name, recorded] of Object.entries(cases)) {
    if (recorded.request_prompt === undefined) continue;
    it(name, async () => {
      const svc = await startDemo({ flavour: 'local' });
      await uploadPng(svc, 'sample.png');
      const res = await postJson(svc, '/prompt', { prompt: recorded.request_prompt, client_id: 'c' });
      const text = await res.text();
      expect(res.status).toBe(recorded.status);
      expect(res.headers.get('content-type')).toBe(recorded.headers['Content-Type']);
      const body = JSON.parse(text) as Recorded['json'];
      if (name === 'link_to_missing_node') {
        // The traceback names the server's own files; everything else is compared.
        const strip = (b: Recorded['json']): unknown =>
          JSON.parse(JSON.stringify(b), (k, v: unknown) => (k === 'traceback' ? (Array.isArray(v) ? 'frames' : v) : v));
        expect(strip(body)).toEqual(strip(recorded.json));
      } else {
        expect(body).toEqual(recorded.json);
        // Same bytes: Python's separators and key order. (Two recordings were normalised after
        // the fact: their Content-Length is 4 more than json.dumps of their own body.)
        if (!['value_below_min', 'wrong_value_type'].includes(name)) {
          expect(res.headers.get('content-length')).toBe(recorded.headers['Content-Length']);
        }
      }
    });
  }

  it('no prompt key: 400 no_prompt', async () => {
    const svc = await startDemo({ flavour: 'local' });
    const res = await postJson(svc, '/prompt', { client_id: 'x' });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual(cases.no_prompt_key!.json);
  });

  it('a body that is not JSON, or a prompt given as a string: 500 text/plain', async () => {
    const svc = await startDemo({ flavour: 'local' });
    for (const body of ['{not json', JSON.stringify({ prompt: JSON.stringify(SIMPLE_WORKFLOW) })]) {
      const res = await postJson(svc, '/prompt', body);
      expect(res.status).toBe(500);
      expect(res.headers.get('content-type')).toBe('text/plain; charset=utf-8');
      expect(await res.text()).toBe(cases.non_json_body!.text);
    }
  });

  it('the cloud answers a malformed body with 400 {code, message}', async () => {
    const svc = await startDemo({ flavour: 'cloud' });
    const res = await postJson(svc, '/api/prompt', '{not json');
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ code: 'invalid_request', message: expect.any(String) });
  });

  it('value above max, and wrong types in messages worded like Python', async () => {
    const svc = await startDemo({ flavour: 'local' });
    const res = await postJson(svc, '/prompt', { prompt: loopWorkflow(1001, 0.5) });
    const body = (await res.json()) as { node_errors: Record<string, { errors: Array<Record<string, unknown>> }> };
    expect(body.node_errors['5']!.errors[0]).toMatchObject({ type: 'value_bigger_than_max', message: 'Value 1001 bigger than max of 1000', details: 'steps' });
    const floatRes = await postJson(svc, '/prompt', { prompt: loopWorkflow(2, 11.5) });
    const floatBody = (await floatRes.json()) as typeof body;
    expect(floatBody.node_errors['5']!.errors[0]).toMatchObject({
      type: 'value_bigger_than_max',
      message: 'Value 11.5 bigger than max of 10.0',
      details: 'delay',
    });
    const wrong = await postJson(svc, '/prompt', { prompt: loopWorkflow(2, 'x' as unknown as number) });
    const wrongBody = (await wrong.json()) as typeof body;
    expect(wrongBody.node_errors['5']!.errors[0]).toMatchObject({ type: 'invalid_input_type', details: "delay, x, could not convert string to float: 'x'" });
  });

  it('accepts a valid output while reporting the failing one in node_errors (200)', async () => {
    const svc = await startDemo({ flavour: 'local' });
    const prompt = { ...loopWorkflow(1, 0), '7': { class_type: 'PreviewImage', inputs: {} } };
    const res = await postJson(svc, '/prompt', { prompt });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { node_errors: Record<string, unknown> };
    expect(body.node_errors).toEqual({
      '7': {
        errors: [{ type: 'required_input_missing', message: 'Required input is missing', details: 'images', extra_info: { input_name: 'images' } }],
        dependent_outputs: ['7'],
        class_type: 'PreviewImage',
      },
    });
  });
});

describe('combo and boolean inputs', () => {
  const comboNode: DemoNode = {
    definition: {
      input: {
        required: {
          direction: [['right', 'down', 'left', 'up'], { default: 'right' }],
          mode: ['COMBO', { options: ['fast', 'slow'], default: 'fast' }],
          flag: ['BOOLEAN', { default: true }],
        },
      },
      input_order: { required: ['direction', 'mode', 'flag'] },
      output: [],
      output_is_list: [],
      output_name: [],
      name: 'ComboNode',
      display_name: 'Combo Node',
      description: '',
      python_module: 'nodes',
      category: 'testing',
      output_node: true,
    },
    async run(ctx, inputs) {
      ctx.text(`${String(inputs.direction)} ${String(inputs.mode)} ${String(inputs.flag)}`);
      return { outputs: [] };
    },
  };

  it('refuses a value outside a legacy or COMBO list with value_not_in_list, worded like Python', async () => {
    const nodes = traceNodes();
    nodes.set('ComboNode', comboNode);
    const svc = await startDemo({ flavour: 'local', nodes });
    const res = await postJson(svc, '/prompt', {
      prompt: { '1': { class_type: 'ComboNode', inputs: { direction: 'sideways', mode: 'medium', flag: 'false' } } },
    });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { node_errors: Record<string, { errors: Array<Record<string, unknown>> }> };
    expect(body.node_errors['1']!.errors).toEqual([
      {
        type: 'value_not_in_list',
        message: 'Value not in list',
        details: "direction: 'sideways' not in ['right', 'down', 'left', 'up']",
        extra_info: { input_name: 'direction', input_config: [['right', 'down', 'left', 'up'], { default: 'right' }], received_value: 'sideways' },
      },
      {
        type: 'value_not_in_list',
        message: 'Value not in list',
        details: "mode: 'medium' not in ['fast', 'slow']",
        extra_info: { input_name: 'mode', input_config: ['COMBO', { options: ['fast', 'slow'], default: 'fast' }], received_value: 'medium' },
      },
    ]);
    // bool("false") is True in Python, and the converted value is what the job keeps.
    const ok = await submit(svc, { prompt: { '1': { class_type: 'ComboNode', inputs: { direction: 'up', mode: 'slow', flag: 'false' } } } });
    expect(ok.status).toBe(200);
    const entry = await waitForHistory(svc, ok.json.prompt_id as string);
    const prompt = (entry.prompt as unknown[])[2] as Record<string, { inputs: Record<string, unknown> }>;
    expect(prompt['1']!.inputs).toEqual({ direction: 'up', mode: 'slow', flag: true });
  });
});

describe('integers beyond 2^53 stay exact', () => {
  const seedBody = (seed: string): string =>
    `{"prompt": {"5": {"class_type": "PreviewLoop", "inputs": {"steps": 1, "delay": 0, "seed": ${seed}, "width": 8, "height": 8}}, "6": {"class_type": "PreviewImage", "inputs": {"images": ["5", 0]}}}}`;

  it('accepts the maximum seed 2^64-1 and refuses 2^64, quoting both exactly', async () => {
    const svc = await startDemo({ flavour: 'local' });
    const ok = await postJson(svc, '/prompt', seedBody('18446744073709551615'));
    expect(ok.status).toBe(200);
    const over = await postJson(svc, '/prompt', seedBody('18446744073709551616'));
    expect(over.status).toBe(400);
    const text = await over.text();
    expect(text).toContain('"message": "Value 18446744073709551616 bigger than max of 18446744073709551615"');
    expect(text).toContain('"received_value": 18446744073709551616');
    // 2^53 + 1 differs from 2^53 only when compared exactly.
    const queue = await (await api(svc, '/queue')).text();
    expect(queue).toContain('"seed": 18446744073709551615');
  });

  it('writes object_info maxima exactly', async () => {
    for (const flavour of ['local', 'cloud'] as const) {
      const svc = await startDemo({ flavour });
      const text = await (await api(svc, '/api/object_info/PreviewLoop')).text();
      expect(text).toMatch(/"max": ?18446744073709551615/);
    }
  });
});

describe('client-chosen prompt ids', () => {
  it('accepts a lowercase canonical UUID once; a known or malformed one is invalid_prompt_id', async () => {
    const svc = await startDemo({ flavour: 'local' });
    const id = '0b6a4f0e-8f51-4c1e-9a7d-2f3b5c6d7e8f';
    const first = await submit(svc, { prompt: loopWorkflow(1, 0), prompt_id: id });
    expect(first.status).toBe(200);
    expect(first.json.prompt_id).toBe(id);
    const again = await submit(svc, { prompt: loopWorkflow(1, 0), prompt_id: id });
    expect(again.status).toBe(400);
    expect(again.json).toMatchObject({ error: { type: 'invalid_prompt_id', message: 'prompt_id already exists' }, node_errors: {} });
    for (const bad of ['ABC', id.toUpperCase(), `${id}x`]) {
      const res = await submit(svc, { prompt: loopWorkflow(1, 0), prompt_id: bad });
      expect(res.status).toBe(400);
      expect((res.json.error as Record<string, unknown>).type).toBe('invalid_prompt_id');
    }
    expect(svc.stats.submissions.get(id)).toBe(1);
    expect(svc.stats.promptRequests).toBe(5);
  });
});
