// Where failures are shown: 401 to the key field, 402/429 explained, 400 with node details to the
// form; and what opening a file leads to (a document or a notice).
import { describe, expect, it } from 'vitest';
import { Api, CallError } from '../../src/renderer/src/lib/api';
import { routeError } from '../../src/renderer/src/lib/errors';
import { interpretParse, OpenDocument } from '../../src/renderer/src/lib/stores/workflow.svelte';
import type { FlowdeckApi } from '@shared/ipc/contract';

describe('routeError', () => {
  it('sends a rejected key to the key field with the message', () => {
    expect(routeError(new CallError({ code: 'unauthorized', message: 'HTTP 401: key refused' }))).toEqual({ kind: 'key', message: 'HTTP 401: key refused' });
  });

  it('explains credits (402) and an inactive subscription (429) differently', () => {
    const credits = routeError(new CallError({ code: 'insufficient_credits', message: 'HTTP 402.' }));
    const subscription = routeError(new CallError({ code: 'subscription_inactive', message: 'HTTP 429.' }));
    expect(credits).toMatchObject({ kind: 'billing', title: 'Not enough credits', message: expect.stringMatching(/^HTTP 402\. .*add credits/i) });
    expect(subscription).toMatchObject({ kind: 'billing', title: 'Subscription inactive', message: expect.stringMatching(/renew/i) });
  });

  it('keeps the node and input of a rejection, and tolerates missing details', () => {
    const details = {
      errorType: 'prompt_outputs_failed_validation',
      nodeErrors: [{ nodeId: '3', classType: 'DemoSampler', inputName: 'steps', message: 'Value 0 smaller than min of 1' }],
    };
    expect(routeError(new CallError({ code: 'invalid_workflow', message: 'rejected', details }))).toEqual({ kind: 'rejected', message: 'rejected', details });
    expect(routeError(new CallError({ code: 'invalid_workflow', message: 'rejected', details: { nope: 1 } }))).toEqual({
      kind: 'rejected',
      message: 'rejected',
      details: null,
    });
    expect(routeError(new Error('boom'))).toEqual({ kind: 'plain', message: 'boom' });
  });
});

describe('Api', () => {
  const bridge = (answer: unknown): FlowdeckApi => ({ invoke: async () => answer, on: () => () => undefined }) as unknown as FlowdeckApi;

  it('returns results that match the contract and turns failures into CallError', async () => {
    await expect(new Api(bridge({ ok: true, value: { version: '1.2.3' } })).call('renderer.ready')).resolves.toEqual({ version: '1.2.3' });
    await expect(new Api(bridge({ ok: false, error: { code: 'network', message: 'down' } })).call('renderer.ready')).rejects.toMatchObject({
      code: 'network',
      message: 'down',
    });
    await expect(new Api(bridge({ ok: true, value: { version: 3 } })).call('renderer.ready')).rejects.toMatchObject({ code: 'internal' });
  });

  it('drops events that do not match the contract', () => {
    const listeners: ((payload: unknown) => unknown)[] = [];
    const api = new Api({
      invoke: async () => ({ ok: true, value: null }),
      on: (_name: string, l: (p: unknown) => unknown) => (listeners.push(l), () => undefined),
    } as unknown as FlowdeckApi);
    const seen: unknown[] = [];
    api.on('queue.changed', (q) => void seen.push(q));
    listeners[0]!({ running: 'nope' });
    listeners[0]!({ running: [], pending: [{ promptId: 'a', number: 1 }] });
    expect(seen).toEqual([{ running: [], pending: [{ promptId: 'a', number: 1 }] }]);
  });
});

describe('interpretParse', () => {
  it('opens an API workflow with exact integers', () => {
    const doc = interpretParse('w.json', null, {
      format: 'api',
      workflowJson: '{"3":{"class_type":"X","inputs":{"seed":18446744073709551615}}}',
      nodeCount: 1,
      unknownClasses: [],
    });
    expect(doc).toBeInstanceOf(OpenDocument);
    expect(((doc as OpenDocument).workflow['3'] as { inputs: { seed: unknown } }).inputs.seed).toBe(18446744073709551615n);
  });

  it('opens a converted UI workflow or an image with the editor graph kept for the run', () => {
    const graph = '{"nodes":[],"links":[]}';
    for (const format of ['ui', 'image'] as const) {
      const doc = interpretParse('w', null, {
        format,
        workflowJson: '{"1":{"class_type":"X","inputs":{}}}',
        nodeCount: 1,
        unknownClasses: null,
        uiWorkflowJson: graph,
        warnings: [],
      });
      expect(doc).toBeInstanceOf(OpenDocument);
      expect((doc as OpenDocument).uiWorkflowJson).toBe(graph);
    }
    const api = interpretParse('w', null, { format: 'api', workflowJson: '{"1":{"class_type":"X","inputs":{}}}', nodeCount: 1, unknownClasses: null });
    expect((api as OpenDocument).uiWorkflowJson).toBeNull();
  });

  it('says plainly why a UI workflow did not convert, and reports invalid JSON with its position', () => {
    expect(
      interpretParse('ui.json', null, { format: 'conversion_failed', message: 'Missing: Foo, Bar.', missingClasses: ['Foo', 'Bar'], nodeId: null }),
    ).toEqual({
      tone: 'error',
      title: 'The UI-format workflow could not be converted',
      message: 'Missing: Foo, Bar.',
    });
    expect(interpretParse('b.json', null, { format: 'invalid_json', message: 'Unexpected }', position: { offset: 9, line: 2, column: 4 } })).toEqual({
      tone: 'error',
      title: 'Not valid JSON',
      message: 'Unexpected } (line 2, column 4)',
    });
  });
});
