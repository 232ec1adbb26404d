// ServiceClient over real HTTP against a scripted server on 127.0.0.1: which requests are retried
// (idempotent ones on 5xx and network failures, with jittered backoff) and which never are (4xx,
// 429, a plain submit), where the key goes, how a submit with a client-chosen prompt_id recovers
// from a lost answer, and how answers of both server kinds are read.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { submitJob } from '@main/jobs/submit-job';
import { ServiceClient } from '@main/service/client';
import { ServiceError, WorkflowRejectedError } from '@main/service/errors';
import { FLOWDECK_USER_AGENT } from '@main/service/http';
import type { ServerKind } from '@main/service/types';
import { hangUp, TestServer } from './support/http-server';

const KEY = 'sk-test-KEY-0123456789';
let server: TestServer;
let delays: number[];
let logs: string[];

function client(kind: ServerKind, options: { key?: string | null; timeoutMs?: number; retries?: number } = {}): ServiceClient {
  const key = options.key === undefined ? KEY : options.key;
  return new ServiceClient(
    { kind, baseUrl: server.url },
    {
      apiKey: () => key,
      retry: {
        retries: options.retries ?? 3,
        baseMs: 100,
        maxMs: 1000,
        random: () => 0.5,
        sleep: async (ms) => {
          delays.push(ms);
        },
      },
      logger: (line) => logs.push(line),
      ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}),
    },
  );
}

beforeEach(async () => {
  server = await new TestServer().start();
  delays = [];
  logs = [];
});

afterEach(async () => {
  await server.close();
  // The key never reaches a log line.
  expect(logs.join('\n')).not.toContain(KEY);
});

describe('retries', () => {
  it('an idempotent GET is retried on 5xx with exponential, jittered delays, then succeeds', async () => {
    let n = 0;
    server.on('GET', '/api/queue', (_req, res) => {
      n += 1;
      if (n <= 2) res.writeHead(503, { 'Content-Type': 'text/plain' }).end('busy');
      else res.writeHead(200, { 'Content-Type': 'application/json' }).end('{"queue_running":[],"queue_pending":[]}');
    });
    await expect(client('local').getQueue()).resolves.toEqual({ running: [], pending: [] });
    expect(server.count('GET', '/api/queue')).toBe(3);
    expect(delays).toEqual([50, 100]); // 0.5 * min(1000, 100 * 2^n)
  });

  it('gives up after the configured retries with a server error', async () => {
    server.on('GET', '/api/queue', (_req, res) => {
      res.writeHead(500, { 'Content-Type': 'text/plain' }).end('500 Internal Server Error\n\nServer got itself in trouble');
    });
    const error = await client('local', { retries: 2 })
      .getQueue()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ServiceError);
    expect(error).toMatchObject({ kind: 'server', status: 500, retryable: true });
    expect(server.count('GET', '/api/queue')).toBe(3);
  });

  it('a 501 means "not a workflow server", not "overloaded", and is not retried', async () => {
    server.on('GET', '/api/queue', (_req, res) => {
      res.writeHead(501, { 'Content-Type': 'text/html' }).end('<h1>Unsupported method</h1>');
    });
    const error = await client('local', { retries: 2 })
      .getQueue()
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ kind: 'protocol', status: 501, retryable: false });
    expect((error as Error).message).toMatch(/not a workflow server/);
    expect((error as Error).message).not.toMatch(/overloaded/);
    expect(server.count('GET', '/api/queue')).toBe(1);
  });

  it('a GET is retried after a dropped connection', async () => {
    let n = 0;
    server.on('GET', '/api/queue', (req, res) => {
      n += 1;
      if (n === 1) hangUp(req, res);
      else res.writeHead(200, { 'Content-Type': 'application/json' }).end('{"queue_running":[[1,"a",{},{},[]]],"queue_pending":[]}');
    });
    await expect(client('local').getQueue()).resolves.toEqual({ running: [{ promptId: 'a', number: 1 }], pending: [] });
    expect(n).toBe(2);
  });

  it.each([
    [400, 'invalid_workflow'],
    [401, 'unauthorized'],
    [402, 'insufficient_credits'],
    [403, 'forbidden'],
    [404, 'not_found'],
    [429, 'subscription_inactive'],
  ])('HTTP %i is never retried and becomes kind %s', async (status, kind) => {
    server.json('GET', '/api/queue', status, { code: 'E', message: `server says ${status}` });
    const error = await client('cloud')
      .getQueue()
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ kind, status });
    expect((error as Error).message).toContain(`server says ${status}`);
    expect(server.count('GET', '/api/queue')).toBe(1);
    expect(delays).toEqual([]);
  });

  it('429 explains the subscription, not a rate limit', async () => {
    server.json('GET', '/api/queue', 429, { message: 'Subscription inactive' });
    await expect(client('cloud').getQueue()).rejects.toThrow(/subscription is not active/);
  });

  it('a submit without prompt_id is never retried, not even on 5xx or a dropped connection', async () => {
    server.on('POST', '/api/prompt', (_req, res) => {
      res.writeHead(503).end();
    });
    await expect(client('local').submit({ '1': { class_type: 'X', inputs: {} } }, { clientId: 'c' })).rejects.toMatchObject({ kind: 'server', status: 503 });
    expect(server.count('POST', '/api/prompt')).toBe(1);
    server.on('POST', '/api/prompt', hangUp);
    await expect(client('local').submit({}, { clientId: 'c' })).rejects.toMatchObject({ kind: 'network' });
    expect(server.count('POST', '/api/prompt')).toBe(2);
  });

  it('a connection refused is a network error naming the host', async () => {
    const url = server.url;
    await server.close();
    server = await new TestServer().start(); // for afterEach
    const c = new ServiceClient({ kind: 'local', baseUrl: url }, { apiKey: () => null, retry: { retries: 1, sleep: async () => {} } });
    const error = await c.getQueue().catch((e: unknown) => e);
    expect(error).toMatchObject({ kind: 'network', retryable: true });
    expect((error as Error).message).toContain(url);
    expect((error as Error).message).toMatch(/ECONNREFUSED/);
  });

  it('a server that never answers times out as a network error, without a retry', async () => {
    let asked = 0;
    server.on('GET', '/api/queue', () => {
      asked += 1;
    });
    const error = await client('local', { timeoutMs: 200, retries: 3 })
      .getQueue()
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ kind: 'network', retryable: false });
    expect((error as Error).message).toMatch(/did not answer the queue \(\/api\/queue\) within 0\.2 s/);
    // Silent for the whole deadline: not asked again (each retry would add a whole deadline).
    expect(asked).toBe(1);
  });

  it('a JSON POST (sent over node:http) whose answer stalls before or inside its body times out; a caller abort cancels it', async () => {
    server.on('POST', '/api/prompt', () => undefined);
    const silent = await client('local', { timeoutMs: 200 })
      .submit({}, { clientId: 'c' })
      .catch((e: unknown) => e);
    expect(silent).toMatchObject({ kind: 'network', retryable: false });
    expect((silent as Error).message).toMatch(/did not answer the workflow submission \(\/api\/prompt\) within 0\.2 s/);
    // Headers and the start of the body, then nothing: the deadline covers the body too.
    server.on('POST', '/api/prompt', (_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' }).write('{"prompt_id":');
    });
    const stalled = await client('local', { timeoutMs: 300 })
      .submit({}, { clientId: 'c' })
      .catch((e: unknown) => e);
    expect(stalled).toMatchObject({ kind: 'network', retryable: false });
    expect((stalled as Error).message).toMatch(/did not answer the workflow submission \(\/api\/prompt\) within 0\.3 s/);
    const controller = new AbortController();
    const cancelled = client('local').submit({}, { clientId: 'c', signal: controller.signal });
    setTimeout(() => controller.abort(), 50);
    await expect(cancelled).rejects.toMatchObject({ kind: 'cancelled' });
  });

  it('a JSON POST answered with more than its cap is an error, not read on', async () => {
    server.on('POST', '/api/prompt', (_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      const chunk = Buffer.alloc(1024 * 1024, 0x20);
      const more = (): void => {
        while (!res.destroyed && res.write(chunk));
        if (!res.destroyed) res.once('drain', more);
      };
      more();
    });
    await expect(client('local').submit({}, { clientId: 'c' })).rejects.toMatchObject({ kind: 'too_large' });
  });

  it('a caller abort becomes kind cancelled and stops retrying', async () => {
    server.on('GET', '/api/queue', (_req, res) => {
      res.writeHead(503).end();
    });
    const controller = new AbortController();
    const c = new ServiceClient(
      { kind: 'local', baseUrl: server.url },
      { apiKey: () => null, retry: { retries: 5, baseMs: 10, maxMs: 10, sleep: async () => controller.abort() } },
    );
    await expect(c.getQueue(controller.signal)).rejects.toMatchObject({ kind: 'cancelled' });
    expect(server.count('GET', '/api/queue')).toBe(1);
  });
});

describe('the API key', () => {
  it('goes in X-API-Key to the cloud service, never to a local server', async () => {
    server.json('GET', '/api/queue', 200, { queue_running: [], queue_pending: [] });
    await client('cloud').getQueue();
    await client('local').getQueue();
    expect(server.requests[0]?.headers['x-api-key']).toBe(KEY);
    expect(server.requests[1]?.headers['x-api-key']).toBeUndefined();
  });

  it('is redacted from server text in errors', async () => {
    server.json('GET', '/api/queue', 401, { message: `key ${KEY} is not valid` });
    const error = await client('cloud')
      .getQueue()
      .catch((e: unknown) => e);
    expect((error as Error).message).not.toContain(KEY);
    expect((error as Error).message).toContain('[redacted]');
  });
});

describe('who is asking', () => {
  it('every request names Flowdeck as its User-Agent, over fetch (GET) and over node:http (a JSON body)', async () => {
    server.json('GET', '/api/queue', 200, { queue_running: [], queue_pending: [] });
    server.json('POST', '/api/queue', 200, {});
    const api = client('cloud');
    await api.getQueue();
    await api.cancel(['p1']);
    expect(server.requests.map((r) => `${r.method} ${String(r.headers['user-agent'])}`)).toEqual([
      `GET ${FLOWDECK_USER_AGENT}`,
      `POST ${FLOWDECK_USER_AGENT}`,
      `GET ${FLOWDECK_USER_AGENT}`,
    ]);
    expect(FLOWDECK_USER_AGENT).toMatch(/^Flowdeck\b/);
  });
});

describe('submit', () => {
  const workflow = {
    '1': { class_type: 'Seeded', inputs: { seed: 18446744073709551615n, text: 'x' } },
    '2': { class_type: 'SaveImage', inputs: { images: ['1', 0] } },
  };
  const objectInfo = (apiNode: boolean): string =>
    JSON.stringify({
      Seeded: { input: { required: { seed: ['INT', { max: 1 }] } }, name: 'Seeded', api_node: apiNode },
      SaveImage: { input: { required: {} }, name: 'SaveImage', output_node: true },
    });
  // A send under a chosen id through the one owner of "did my send get through?" (jobs/submit-job.ts).
  const sendAs = (api: ServiceClient, promptId: string) =>
    submitJob({ api, jobs: null, clientId: 'c' }, { workflow, workflowName: null, origin: 'cli', promptId });

  it('sends prompt, client_id, prompt_id, front and extra_data; bigint exact', async () => {
    server.json('POST', '/api/prompt', 200, { prompt_id: 'p-1', number: 7, node_errors: {} });
    const result = await client('local', { key: null }).submit(workflow, { clientId: 'client-1', front: true, extraData: { extra_pnginfo: { a: 1 } } });
    expect(result).toEqual({ promptId: 'p-1', number: 7 });
    const body = server.requests[0]?.body.toString('utf8') ?? '';
    expect(body).toContain('"seed":18446744073709551615');
    const parsed = JSON.parse(body) as Record<string, unknown>;
    expect(parsed).toMatchObject({ client_id: 'client-1', front: true, extra_data: { extra_pnginfo: { a: 1 } } });
    expect(server.requests[0]?.headers['content-type']).toBe('application/json');
    expect(Number(server.requests[0]?.headers['content-length'])).toBe(Buffer.byteLength(body));
    // No key: object_info is not even fetched.
    expect(server.count('GET', '/api/object_info')).toBe(0);
  });

  it('adds extra_data.api_key_comfy_org only for a workflow with an api_node class', async () => {
    server.json('POST', '/api/prompt', 200, { prompt_id: 'p', number: 1, node_errors: {} });
    server.on('GET', '/api/object_info', (_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' }).end(objectInfo(true));
    });
    const c = client('cloud');
    await c.submit(workflow, { clientId: 'c' });
    expect(JSON.parse(server.requests.at(-1)?.body.toString() ?? '{}')).toMatchObject({ extra_data: { api_key_comfy_org: KEY } });
    // The definitions are cached: a second submit does not fetch them again.
    await c.submit(workflow, { clientId: 'c' });
    expect(server.count('GET', '/api/object_info')).toBe(1);

    server.on('GET', '/api/object_info', (_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' }).end(objectInfo(false));
    });
    await client('cloud').submit(workflow, { clientId: 'c' });
    const last = JSON.parse(server.requests.at(-1)?.body.toString() ?? '{}') as Record<string, unknown>;
    expect(last.extra_data).toBeUndefined();
    expect(JSON.stringify(last)).not.toContain(KEY);
  });

  it('a 400 rejection names node, class, input and reason', async () => {
    server.json('POST', '/api/prompt', 400, {
      error: { type: 'prompt_outputs_failed_validation', message: 'Prompt outputs failed validation', details: '', extra_info: {} },
      node_errors: {
        '1': {
          errors: [{ type: 'value_bigger_than_max', message: 'Value 9 bigger than max of 1', details: 'seed', extra_info: { input_name: 'seed' } }],
          class_type: 'Seeded',
          dependent_outputs: ['2'],
        },
      },
    });
    const error = await client('local', { key: null })
      .submit(workflow, { clientId: 'c' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WorkflowRejectedError);
    expect((error as Error).message).toContain('node 1 (Seeded), input "seed": Value 9 bigger than max of 1');
  });

  it('a 200 carrying error is a rejection; the cloud free-form bodies too', async () => {
    server.json('POST', '/api/prompt', 200, { error: 'partner node needs credits' });
    await expect(client('cloud', { key: null }).submit(workflow, { clientId: 'c' })).rejects.toThrow(/partner node needs credits/);
    server.json('POST', '/api/prompt', 400, { code: 'BAD', message: 'bad workflow' });
    await expect(client('cloud', { key: null }).submit(workflow, { clientId: 'c' })).rejects.toMatchObject({ errorType: 'BAD' });
  });

  it('with a prompt_id, a lost answer is followed by a check; a job the server has is not sent again (local)', async () => {
    const id = '0b5e1c1e-52a4-4a3c-9a0e-6f6f7d7b7c01';
    server.on('POST', '/api/prompt', hangUp); // accepted, then the answer is lost
    server.json('GET', `/api/history/${id}`, 200, {});
    server.json('GET', '/api/queue', 200, { queue_running: [], queue_pending: [[3, id, {}, { client_id: 'c' }, ['2']]] });
    await expect(sendAs(client('local', { key: null }), id)).resolves.toEqual({ promptId: id, number: null });
    expect(server.count('POST', '/api/prompt')).toBe(1);
    expect(JSON.parse(server.requests[0]?.body.toString() ?? '{}')).toMatchObject({ prompt_id: id });
  });

  it('with a prompt_id, a job the server does not have is sent again (local: in neither queue nor history)', async () => {
    const id = '0b5e1c1e-52a4-4a3c-9a0e-6f6f7d7b7c02';
    let n = 0;
    server.on('POST', '/api/prompt', (req, res) => {
      n += 1;
      if (n === 1) hangUp(req, res);
      else res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify({ prompt_id: id, number: 9 }));
    });
    server.json('GET', '/api/queue', 200, { queue_running: [], queue_pending: [] });
    server.json('GET', `/api/history/${id}`, 200, {});
    await expect(sendAs(client('local', { key: null }), id)).resolves.toEqual({ promptId: id, number: 9 });
    expect(server.count('POST', '/api/prompt')).toBe(2);
    expect(server.count('GET', '/api/queue')).toBe(1);
  });

  it('a resend refused with "already exists" means the first send was accepted', async () => {
    const id = '0b5e1c1e-52a4-4a3c-9a0e-6f6f7d7b7c03';
    let n = 0;
    server.on('POST', '/api/prompt', (req, res) => {
      n += 1;
      if (n === 1) hangUp(req, res);
      else
        res
          .writeHead(400, { 'Content-Type': 'application/json' })
          .end(
            JSON.stringify({ error: { type: 'invalid_prompt_id', message: `Prompt ID ${id} already exists`, details: '', extra_info: {} }, node_errors: {} }),
          );
    });
    server.on('GET', /^\/api\/(history|queue)/, hangUp); // the check itself fails: resend anyway
    await expect(sendAs(client('local', { key: null }), id)).resolves.toEqual({ promptId: id, number: null });
    expect(server.count('POST', '/api/prompt')).toBe(2);
  });
});

describe('status, history and queue operations', () => {
  const id = 'job-1';

  it('cloud status: words classified; 404 throws not_found', async () => {
    server.json('GET', `/api/job/${id}/status`, 200, { status: 'Waiting_To_Dispatch', id });
    await expect(client('cloud').getJobStatus(id)).resolves.toEqual({ phase: 'pending', raw: 'Waiting_To_Dispatch', known: true });
    server.json('GET', `/api/job/${id}/status`, 200, { status: 'brand_new_word' });
    await expect(client('cloud').getJobStatus(id)).resolves.toEqual({ phase: 'running', raw: 'brand_new_word', known: false });
    server.json('GET', `/api/job/${id}/status`, 404, { code: 'NOT_FOUND', message: 'no such job' });
    await expect(client('cloud').getJobStatus(id)).rejects.toMatchObject({ kind: 'not_found', status: 404 });
  });

  it('local status: history, then queue, else unknown', async () => {
    server.json('GET', `/api/history/${id}`, 200, {});
    server.json('GET', '/api/queue', 200, { queue_running: [[1, id, {}, {}, []]], queue_pending: [] });
    await expect(client('local').getJobStatus(id)).resolves.toEqual({ phase: 'running', raw: 'in_progress', known: true });
    server.json('GET', '/api/queue', 200, { queue_running: [], queue_pending: [[2, id, {}, {}, []]] });
    await expect(client('local').getJobStatus(id)).resolves.toEqual({ phase: 'pending', raw: 'pending', known: true });
    server.json('GET', '/api/queue', 200, { queue_running: [], queue_pending: [] });
    await expect(client('local').getJobStatus(id)).resolves.toEqual({ phase: 'running', raw: 'unknown', known: false });
    server.json('GET', `/api/history/${id}`, 200, { [id]: { outputs: {}, status: { status_str: 'success', completed: true, messages: [] } } });
    await expect(client('local').getJobStatus(id)).resolves.toEqual({ phase: 'succeeded', raw: 'success', known: true });
  });

  it('history: null when unknown (local {} or cloud 404)', async () => {
    server.json('GET', `/api/history/${id}`, 200, {});
    await expect(client('local').getHistory(id)).resolves.toBeNull();
    server.json('GET', `/api/history/${id}`, 404, { message: 'nope' });
    await expect(client('cloud').getHistory(id)).resolves.toBeNull();
  });

  it('cancel, clearPending, interrupt send the right bodies for each kind', async () => {
    server.on('POST', '/api/queue', (_req, res) => res.writeHead(200).end());
    server.on('POST', '/api/interrupt', (_req, res) => res.writeHead(200).end());
    server.json('GET', '/api/queue', 200, { queue_running: [[1, 'b', {}, {}, []]], queue_pending: [[2, 'y', {}, {}, []]] });
    const calls = (): string[] => server.requests.map((r) => `${r.method} ${r.path} ${r.body.toString()}`.trim());

    // Local: delete, then interrupt only the id that is running (older servers ignore the id and
    // would stop whatever runs).
    await client('local').cancel(['a', 'b']);
    expect(calls()).toEqual(['POST /api/queue {"delete":["a","b"]}', 'GET /api/queue', 'POST /api/interrupt {"prompt_id":"b"}']);
    server.requests.length = 0;
    await client('local').interrupt('y');
    expect(calls()).toEqual(['GET /api/queue']);
    server.requests.length = 0;
    await client('local').interrupt();
    expect(calls()).toEqual(['POST /api/interrupt']);
    server.requests.length = 0;
    // Cloud (as documented): delete cancels pending jobs only, so a running id comes back for
    // stopJob(); /api/interrupt stops every running job of the account, whatever the id.
    expect(await client('cloud').cancel(['a', 'b'])).toEqual({ stillRunning: ['b'] });
    await client('cloud').clearPending();
    await client('cloud').interrupt();
    await client('cloud').interrupt('x');
    expect(calls()).toEqual([
      'POST /api/queue {"delete":["a","b"]}',
      'GET /api/queue',
      'POST /api/queue {"clear":true}',
      'POST /api/interrupt',
      'POST /api/interrupt',
    ]);
  });

  it('object_info: exact parse of a large INT', async () => {
    server.on('GET', '/api/object_info', (_req, res) => {
      res
        .writeHead(200, { 'Content-Type': 'application/json' })
        .end('{"K":{"input":{"required":{"seed":["INT",{"default":0,"min":0,"max":18446744073709551615}]}}}}');
    });
    const defs = await client('local').getNodeDefinitions();
    expect(defs.get('K')?.inputs[0]).toMatchObject({ kind: 'int', max: 18446744073709551615n });
  });
});
