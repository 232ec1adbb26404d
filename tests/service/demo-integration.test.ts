// The client and the socket against the demo service, for both server kinds: every endpoint, a job
// from submit to downloaded output, partner-node keys, rejections, uploads (image and mask).
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DemoService } from '../../src/main/demo';
import { WorkflowRejectedError } from '@main/service/errors';
import { collectNodeOutputs } from '@main/service/outputs';
import type { OutputFile, ServerKind } from '@main/service/types';
import { pairFor, samplerWorkflow, terminalEvent, waitFor, type Pair } from './support/demo-jobs';

const RESOURCES = path.resolve(__dirname, '../../resources/demo');

describe.each(['cloud', 'local'] as ServerKind[])('against the %s demo service', (kind) => {
  let demo: DemoService;
  let pair: Pair;
  let dir: string;

  beforeAll(async () => {
    demo = new DemoService({ flavour: kind, timeScale: 0.05 });
    await demo.start();
    pair = pairFor(kind, demo.url, demo.apiKey);
    pair.socket.start();
    await waitFor(() => pair.socket.state === 'connected', 'the socket');
    dir = await mkdtemp(path.join(tmpdir(), `flowdeck-itest-${kind}-`));
  });

  afterEach(() => {
    demo.faults.reset();
  });

  afterAll(async () => {
    await pair.socket.dispose();
    await demo.stop();
    await rm(dir, { recursive: true, force: true });
    // The key never left the service: not in logs, not at the storage host.
    if (demo.apiKey) expect(pair.logs.join('\n')).not.toContain(demo.apiKey);
    expect(demo.stats.storageRequestsWithKey).toBe(0);
  });

  it('node definitions: the demo library, exact seed maximum, the partner node flagged', async () => {
    const defs = await pair.client.getNodeDefinitions();
    for (const name of ['DemoSampler', 'SaveImage', 'LoadImage', 'DemoPartnerNode']) expect(defs.has(name)).toBe(true);
    const seed = defs.get('DemoSampler')?.inputs.find((i) => i.name === 'seed');
    expect(seed).toMatchObject({ kind: 'int', max: 18446744073709551615n });
    expect(defs.get('DemoPartnerNode')?.apiNode).toBe(true);
    expect(defs.get('SaveImage')?.outputNode).toBe(true);
  });

  it('a job from submit to downloaded output: events, previews, status, history, download', async () => {
    const before = pair.events.length;
    const { promptId } = await pair.client.submit(samplerWorkflow({ seed: 18446744073709551615n }), { clientId: pair.socket.clientId });
    const end = await terminalEvent(pair, promptId);
    expect(end.type).toBe('execution_success');
    const mine = pair.events.slice(before);
    const previews = mine.filter((e) => e.type === 'preview');
    expect(previews.length).toBeGreaterThan(0);
    expect(previews[0]).toMatchObject({ frameType: 4, promptId });
    const outputs: OutputFile[] = mine.flatMap((e) => (e.type === 'executed' && e.promptId === promptId ? collectNodeOutputs(e.node, e.output) : []));
    expect(outputs.length).toBe(1);

    await expect(pair.client.getJobStatus(promptId)).resolves.toMatchObject({ phase: 'succeeded', known: true });
    const history = await pair.client.getHistory(promptId);
    expect(history?.reading.phase).toBe('succeeded');
    expect(history?.outputs.map((o) => o.filename)).toEqual(outputs.map((o) => o.filename));

    const file = outputs[0];
    if (!file) throw new Error('no output');
    const viewsBefore = demo.stats.viewRequests;
    const result = await pair.client.download(file, dir);
    expect(result.redirected).toBe(kind === 'cloud');
    expect(demo.stats.viewRequests).toBe(viewsBefore + 1);
    const bytes = await readFile(result.path);
    expect(bytes.subarray(0, 4).toString('hex')).toBe('89504e47');
    expect(result.bytes).toBe(bytes.length);
    expect(path.dirname(result.path)).toBe(dir);
    expect((await readdir(dir)).filter((n) => n.includes('.part-'))).toEqual([]);
  });

  it('an expired signed URL is asked for again once (cloud); local needs no URL', async () => {
    const { promptId } = await pair.client.submit(samplerWorkflow({ seed: 7 }), { clientId: pair.socket.clientId });
    await terminalEvent(pair, promptId);
    const file = (await pair.client.getHistory(promptId))?.outputs[0];
    if (!file) throw new Error('no output');
    // Expire the URLs handed out so far at the moment the client goes to the storage host.
    let expired = false;
    const storage = kind === 'cloud' ? new URL(demo.storageUrl).origin : null;
    const { ServiceClient } = await import('@main/service/client');
    const client = new ServiceClient(
      { kind, baseUrl: demo.url },
      {
        apiKey: () => demo.apiKey,
        fetch: (input, init) => {
          const url = new URL(input instanceof Request ? input.url : String(input));
          if (url.origin === storage && !expired) {
            expired = true;
            demo.faults.expireSignedUrls();
          }
          return fetch(input, init);
        },
      },
    );
    const views = demo.stats.viewRequests;
    const storageRequests = demo.stats.storageRequests;
    const result = await client.download(file, dir, { destName: 'expired-then-fresh.png' });
    expect(path.basename(result.path)).toBe('expired-then-fresh.png');
    if (kind === 'cloud') {
      expect(expired).toBe(true);
      expect(demo.stats.viewRequests).toBe(views + 2);
      expect(demo.stats.storageRequests).toBe(storageRequests + 2);
    } else {
      expect(demo.stats.viewRequests).toBe(views + 1);
    }
  });

  it('partner node: the key goes into extra_data only when the workflow needs it and a key exists', async () => {
    const workflow = {
      '1': { class_type: 'DemoPartnerNode', inputs: { prompt: 'a red fox', seed: 3, delay_ms: 20 } },
      '2': { class_type: 'SaveImage', inputs: { images: ['1', 0], filename_prefix: 'partner' } },
    };
    const { promptId } = await pair.client.submit(workflow, { clientId: pair.socket.clientId });
    const end = await terminalEvent(pair, promptId);
    if (kind === 'cloud') {
      expect(end.type).toBe('execution_success');
    } else {
      // No key for a local server here: the partner node says what is missing.
      expect(end).toMatchObject({ type: 'execution_error' });
      if (end.type === 'execution_error') expect(end.exceptionMessage).toMatch(/api_key_comfy_org/);
    }
  });

  it('a rejected workflow names the node, its class, the input and the reason', async () => {
    const workflow = samplerWorkflow();
    const sampler = workflow['3'] as { inputs: Record<string, unknown> };
    sampler.inputs.steps = 0;
    const error = await pair.client.submit(workflow, { clientId: pair.socket.clientId }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WorkflowRejectedError);
    expect((error as Error).message).toMatch(/node 3 \(DemoSampler\), input "steps"/);
    expect((error as WorkflowRejectedError).nodeErrors[0]).toMatchObject({ nodeId: '3', classType: 'DemoSampler', inputName: 'steps' });
  });

  it('uploads an image and a mask for it, then runs a workflow on the mask', async () => {
    const image = await pair.client.uploadImage(path.join(RESOURCES, 'example.png'), { overwrite: true });
    expect(image.name).toMatch(/\.png$/);
    expect(image.type).toBe('input');
    const mask = await pair.client.uploadMask(path.join(RESOURCES, 'example-mask.png'), {
      originalRef: { filename: image.name, subfolder: image.subfolder, type: image.type },
      overwrite: true,
    });
    expect(mask.name).toMatch(/\.png$/);
    const input = kind === 'local' && mask.subfolder ? `${mask.subfolder}/${mask.name}` : mask.name;
    const workflow = {
      '1': { class_type: 'LoadImage', inputs: { image: input } },
      '2': { class_type: 'DemoInpaint', inputs: { image: ['1', 0], mask: ['1', 1], seed: 7, fill: 'blur' } },
      '3': { class_type: 'SaveImage', inputs: { images: ['2', 0], filename_prefix: 'inpaint' } },
    };
    const { promptId } = await pair.client.submit(workflow, { clientId: pair.socket.clientId });
    expect((await terminalEvent(pair, promptId)).type).toBe('execution_success');
  });

  it('a failing node: execution_error event, failed status and history with the error', async () => {
    const { promptId } = await pair.client.submit(samplerWorkflow({ steps: 4, failAtStep: 2, seed: 9 }), { clientId: pair.socket.clientId });
    const end = await terminalEvent(pair, promptId);
    expect(end).toMatchObject({ type: 'execution_error', nodeId: '3', nodeType: 'DemoSampler' });
    await expect(pair.client.getJobStatus(promptId)).resolves.toMatchObject({ phase: 'failed' });
    const history = await pair.client.getHistory(promptId);
    expect(history?.reading.phase).toBe('failed');
    if (history?.error) expect(history.error.nodeId).toBe('3');
  });

  it('queue, cancel of a pending job, interrupt of the running one, clearPending', async () => {
    const long = (seed: number) => samplerWorkflow({ steps: 200, delayMs: 1000, seed });
    const a = await pair.client.submit(long(101), { clientId: pair.socket.clientId });
    const b = await pair.client.submit(long(102), { clientId: pair.socket.clientId });
    const c = await pair.client.submit(long(103), { clientId: pair.socket.clientId });
    await waitFor(() => pair.events.some((e) => e.type === 'execution_start' && e.promptId === a.promptId), 'job a to start');
    const queue = await pair.client.getQueue();
    expect(queue.running.map((e) => e.promptId)).toEqual([a.promptId]);
    expect(queue.pending.map((e) => e.promptId)).toEqual([b.promptId, c.promptId]);
    expect(JSON.stringify(queue)).not.toContain('extra_data');
    await expect(pair.client.getJobStatus(b.promptId)).resolves.toMatchObject({ phase: 'pending' });
    await expect(pair.client.getJobStatus(a.promptId)).resolves.toMatchObject({ phase: 'running' });

    await pair.client.cancel([b.promptId]);
    expect((await pair.client.getQueue()).pending.map((e) => e.promptId)).toEqual([c.promptId]);
    await pair.client.clearPending();
    expect((await pair.client.getQueue()).pending).toEqual([]);

    await pair.client.interrupt(a.promptId);
    const end = await terminalEvent(pair, a.promptId);
    expect(end.type).toBe('execution_interrupted');
    await expect(pair.client.getJobStatus(a.promptId)).resolves.toMatchObject({ phase: 'cancelled' });
    expect((await pair.client.getQueue()).running).toEqual([]);
  });

  it('interrupt with no id stops whatever runs', async () => {
    const a = await pair.client.submit(samplerWorkflow({ steps: 200, delayMs: 1000, seed: 201 }), { clientId: pair.socket.clientId });
    await waitFor(() => pair.events.some((e) => e.type === 'execution_start' && e.promptId === a.promptId), 'the job to start');
    await pair.client.interrupt();
    expect((await terminalEvent(pair, a.promptId)).type).toBe('execution_interrupted');
  });

  it('a client-chosen prompt_id is used, and a second send of it is refused', async () => {
    const id = '6f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b'.replace('6f1c', kind === 'cloud' ? '7f1c' : '6f1c');
    const result = await pair.client.submit(samplerWorkflow({ seed: 5 }), { clientId: pair.socket.clientId, promptId: id });
    expect(result.promptId).toBe(id);
    await terminalEvent(pair, id);
    await expect(pair.client.submit(samplerWorkflow({ seed: 5 }), { clientId: pair.socket.clientId, promptId: id })).rejects.toBeInstanceOf(
      WorkflowRejectedError,
    );
    expect(demo.stats.submissions.get(id)).toBe(1);
  });
});
