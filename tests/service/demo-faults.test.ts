// Failure paths against the demo service: 401/402/429 (never retried), 500 (idempotent requests
// retried, a submit not), a socket dropped mid-job and reconnected, a silent socket detected,
// malformed binary frames counted and survived.
import { afterEach, describe, expect, it } from 'vitest';
import { DemoService } from '../../src/main/demo';
import { ServiceClient } from '@main/service/client';
import { EventsSocket } from '@main/service/events-socket';
import type { ConnectionState, ServerKind } from '@main/service/types';
import { pairFor, samplerWorkflow, terminalEvent, waitFor, type Pair } from './support/demo-jobs';

const demos: DemoService[] = [];
const pairs: Pair[] = [];

afterEach(async () => {
  for (const pair of pairs.splice(0)) await pair.socket.dispose();
  for (const demo of demos.splice(0)) {
    expect(demo.stats.storageRequestsWithKey).toBe(0);
    await demo.stop();
  }
});

async function startDemo(kind: ServerKind): Promise<DemoService> {
  const demo = new DemoService({ flavour: kind, timeScale: 0.05 });
  demos.push(demo);
  await demo.start();
  return demo;
}

function track(pair: Pair): Pair {
  pairs.push(pair);
  return pair;
}

describe('HTTP failures (cloud)', () => {
  it('401 for a wrong key, on REST and on the socket (offline, lastError), never retried', async () => {
    const demo = await startDemo('cloud');
    const pair = track(pairFor('cloud', demo.url, 'sk-wrong-key'));
    await expect(pair.client.getQueue()).rejects.toMatchObject({ kind: 'unauthorized', status: 401 });
    expect(pair.delays).toEqual([]);
    pair.socket.start();
    await waitFor(() => pair.socket.state === 'offline', 'offline');
    expect(pair.socket.lastError).toMatchObject({ kind: 'unauthorized' });
    expect(pair.logs.join('\n')).not.toContain('sk-wrong-key');
    expect([...demo.stats.keysSeen]).toContain('sk-wrong-key');
  });

  it('402 (no credits) and 429 (inactive subscription) on submit: one request each, clear kinds', async () => {
    const demo = await startDemo('cloud');
    const poor = 'sk-no-credits-0001';
    const lapsed = 'sk-inactive-0002';
    demo.setKeyState(poor, 'no_credits');
    demo.setKeyState(lapsed, 'inactive');
    const before = demo.stats.promptRequests;
    await expect(track(pairFor('cloud', demo.url, poor)).client.submit(samplerWorkflow(), { clientId: 'c' })).rejects.toMatchObject({
      kind: 'insufficient_credits',
      status: 402,
    });
    await expect(track(pairFor('cloud', demo.url, lapsed)).client.submit(samplerWorkflow(), { clientId: 'c' })).rejects.toMatchObject({
      kind: 'subscription_inactive',
      status: 429,
      retryable: false,
    });
    expect(demo.stats.promptRequests).toBe(before + 2);
  });

  it('500: an idempotent GET is retried until it succeeds; a submit is not retried', async () => {
    const demo = await startDemo('cloud');
    const pair = track(pairFor('cloud', demo.url, demo.apiKey));
    demo.faults.fail500(2, '/api/queue');
    await expect(pair.client.getQueue()).resolves.toEqual({ running: [], pending: [] });
    expect(pair.delays).toHaveLength(2);
    demo.faults.fail500(1, '/api/prompt');
    const before = demo.stats.promptRequests;
    await expect(pair.client.submit(samplerWorkflow(), { clientId: 'c' })).rejects.toMatchObject({ kind: 'server', status: 500 });
    expect(demo.stats.promptRequests - before).toBeLessThanOrEqual(1);
    expect(pair.delays).toHaveLength(2);
    expect(demo.stats.submissions.size).toBe(0);
  });

  it('a 500 from the storage host is retried without the key', async () => {
    const demo = await startDemo('cloud');
    const pair = track(pairFor('cloud', demo.url, demo.apiKey));
    pair.socket.start();
    await waitFor(() => pair.socket.state === 'connected', 'connected');
    const { promptId } = await pair.client.submit(samplerWorkflow(), { clientId: pair.socket.clientId });
    await terminalEvent(pair, promptId);
    const file = (await pair.client.getHistory(promptId))?.outputs[0];
    if (!file) throw new Error('no output');
    demo.faults.fail500(1, '/b/');
    const { mkdtemp, rm } = await import('node:fs/promises');
    const dir = await mkdtemp((await import('node:path')).join((await import('node:os')).tmpdir(), 'flowdeck-faults-'));
    try {
      const result = await pair.client.download(file, dir);
      expect(result.redirected).toBe(true);
      expect(demo.stats.storageRequests).toBe(2);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe.each(['cloud', 'local'] as ServerKind[])('socket faults (%s)', (kind) => {
  it('sockets dropped mid-job: the socket reconnects and the job still ends', async () => {
    const demo = await startDemo(kind);
    const pair = track(pairFor(kind, demo.url, demo.apiKey));
    const states: ConnectionState[] = [];
    pair.socket.onStateChange((s) => states.push(s));
    pair.socket.start();
    await waitFor(() => pair.socket.state === 'connected', 'connected');
    demo.faults.dropSocketsMidJob(2);
    const { promptId } = await pair.client.submit(samplerWorkflow({ steps: 8, delayMs: 400 }), { clientId: pair.socket.clientId });
    await waitFor(() => states.includes('reconnecting'), 'the drop');
    await waitFor(() => pair.socket.state === 'connected', 'the reconnect');
    // Events after the reconnect still arrive (the clientId is the same), or the status tells.
    await waitFor(() => pair.events.some((e) => e.type === 'execution_success' && e.promptId === promptId), 'the end of the job');
    await expect(pair.client.getJobStatus(promptId)).resolves.toMatchObject({ phase: 'succeeded' });
  });

  it('a silent socket during a job is noticed and replaced', async () => {
    const demo = await startDemo(kind);
    const pair = track(pairFor(kind, demo.url, demo.apiKey, { silenceTimeoutMs: 300 }));
    const states: ConnectionState[] = [];
    pair.socket.onStateChange((s) => states.push(s));
    pair.socket.start();
    await waitFor(() => pair.socket.state === 'connected', 'connected');
    demo.faults.goSilent(2000);
    pair.socket.setExpectingActivity(true);
    await waitFor(() => states.includes('silent'), 'silence detected');
    await waitFor(() => states.lastIndexOf('connected') > states.indexOf('silent'), 'reconnected');
    pair.socket.setExpectingActivity(false);
  });

  it('malformed binary frames are counted and the job goes on', async () => {
    const demo = await startDemo(kind);
    const pair = track(pairFor(kind, demo.url, demo.apiKey));
    pair.socket.start();
    await waitFor(() => pair.socket.state === 'connected', 'connected');
    demo.faults.sendMalformedFrames(true);
    const { promptId } = await pair.client.submit(samplerWorkflow(), { clientId: pair.socket.clientId });
    expect((await terminalEvent(pair, promptId)).type).toBe('execution_success');
    expect(pair.socket.droppedFrames).toBeGreaterThan(0);
    const reasons = Object.keys(pair.socket.dropReasons());
    expect(reasons.every((r) => r.startsWith('binary:'))).toBe(true);
    expect(pair.events.some((e) => e.type === 'preview' && e.promptId === promptId)).toBe(true);
    expect(pair.socket.state).toBe('connected');
  });
});

describe('local server specifics', () => {
  it('no key is sent anywhere, even when the provider has one', async () => {
    const demo = await startDemo('local');
    const client = new ServiceClient({ kind: 'local', baseUrl: demo.url }, { apiKey: () => 'sk-should-not-travel' });
    await client.getQueue();
    const socket = new EventsSocket({ kind: 'local', baseUrl: demo.url }, { apiKey: () => 'sk-should-not-travel' });
    socket.start();
    try {
      await waitFor(() => socket.state === 'connected', 'connected');
    } finally {
      await socket.dispose();
    }
    expect([...demo.stats.keysSeen]).toEqual([]);
  });
});
