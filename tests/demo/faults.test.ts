// Each fault switch, on both flavours: dropped sockets mid-job, silence, slow answers, injected
// 500s, malformed binary frames, expired signed URLs, and reset.
import { describe, expect, it } from 'vitest';
import { api, startDemo, submit, TestSocket, waitForHistory } from './helpers';
import { loopWorkflow } from './trace-nodes';

const flavours = ['local', 'cloud'] as const;

describe.each(flavours)('%s flavour: faults', (flavour) => {
  it('dropSocketsMidJob closes every socket at the given progress step, once; the job still finishes', async () => {
    const svc = await startDemo({ flavour });
    const a = await TestSocket.open(svc, { clientId: 'a' });
    const b = await TestSocket.open(svc, { clientId: 'b' });
    svc.faults.dropSocketsMidJob(2);
    const { json } = await submit(svc, { prompt: loopWorkflow(4, 0), client_id: 'a' });
    await a.waitClosed();
    await b.waitClosed();
    // Step 1 arrived, step 2 did not.
    expect(a.json('progress').map((p) => p.value)).toEqual([1]);
    const entry = await waitForHistory(svc, json.prompt_id as string);
    expect((entry.status as { status_str: string }).status_str).toBe('success');
    // Only once: a new socket follows the next job to its end.
    const c = await TestSocket.open(svc, { clientId: 'a' });
    const next = await submit(svc, { prompt: loopWorkflow(4, 0, {}, 2), client_id: 'a' });
    await c.waitForEnd(next.json.prompt_id as string);
    expect(c.closed).toBe(false);
  });

  it('goSilent keeps sockets open but loses every frame for a while', async () => {
    const svc = await startDemo({ flavour });
    const socket = await TestSocket.open(svc, { clientId: 'a' });
    const before = socket.frames.length;
    svc.faults.goSilent(400);
    const { json } = await submit(svc, { prompt: loopWorkflow(2, 0), client_id: 'a' });
    await waitForHistory(svc, json.prompt_id as string);
    expect(socket.frames.length).toBe(before);
    expect(socket.closed).toBe(false);
    await new Promise((r) => setTimeout(r, 450));
    const after = await submit(svc, { prompt: loopWorkflow(2, 0, {}, 5), client_id: 'a' });
    await socket.waitForEnd(after.json.prompt_id as string);
    expect(socket.json('execution_start').map((d) => d.prompt_id)).toEqual([after.json.prompt_id]);
  });

  it('setResponseDelay holds every answer back; 0 stops it', async () => {
    const svc = await startDemo({ flavour });
    svc.faults.setResponseDelay(250);
    const started = Date.now();
    expect((await api(svc, '/api/queue')).status).toBe(200);
    expect(Date.now() - started).toBeGreaterThanOrEqual(240);
    svc.faults.setResponseDelay(0);
    expect((await api(svc, '/api/queue')).status).toBe(200);
  });

  it('fail500 answers the next N matching requests with 500, others untouched', async () => {
    const svc = await startDemo({ flavour });
    svc.faults.fail500(2, '/queue');
    expect((await api(svc, '/api/prompt')).status).toBe(200);
    const first = await api(svc, '/api/queue');
    expect(first.status).toBe(500);
    if (flavour === 'local') expect(await first.text()).toBe('500 Internal Server Error\n\nServer got itself in trouble');
    else expect(await first.json()).toEqual({ code: 'internal_error', message: expect.any(String) });
    expect((await api(svc, '/api/queue')).status).toBe(500);
    expect((await api(svc, '/api/queue')).status).toBe(200);
    svc.faults.fail500(1);
    expect((await api(svc, '/api/features')).status).toBe(500);
    expect((await api(svc, '/api/features')).status).toBe(200);
  });

  it('sendMalformedFrames sends a short, an overrunning and an unknown-type frame during the next job only', async () => {
    const svc = await startDemo({ flavour });
    const socket = await TestSocket.open(svc, { clientId: 'a' });
    svc.faults.sendMalformedFrames(true);
    const first = await submit(svc, { prompt: loopWorkflow(1, 0), client_id: 'a' });
    await socket.waitForEnd(first.json.prompt_id as string);
    const bad = socket
      .binaries()
      .filter((b) => b.length < 4 || ![1, 3, 4].includes(b.readUInt32BE(0)) || (b.readUInt32BE(0) === 3 && 8 + b.readUInt32BE(4) > b.length));
    expect(bad).toHaveLength(3);
    expect(bad.some((b) => b.length < 4)).toBe(true);
    expect(bad.some((b) => b.length >= 8 && b.readUInt32BE(0) === 3)).toBe(true);
    expect(bad.some((b) => b.length >= 4 && b.readUInt32BE(0) === 99)).toBe(true);
    const count = socket.binaries().length;
    const second = await submit(svc, { prompt: loopWorkflow(1, 0, {}, 2), client_id: 'a' });
    await socket.waitForEnd(second.json.prompt_id as string);
    // The second job sends only its own well-formed frames (one preview, one text).
    expect(socket.binaries().length - count).toBe(2);
  });

  it('reset clears every switch', async () => {
    const svc = await startDemo({ flavour });
    svc.faults.fail500(5);
    svc.faults.setResponseDelay(5000);
    svc.faults.goSilent(60_000);
    svc.faults.sendMalformedFrames(true);
    svc.faults.dropSocketsMidJob(1);
    svc.faults.reset();
    expect((await api(svc, '/api/queue')).status).toBe(200);
    const socket = await TestSocket.open(svc, { clientId: 'a' });
    const { json } = await submit(svc, { prompt: loopWorkflow(2, 0), client_id: 'a' });
    await socket.waitForEnd(json.prompt_id as string);
    expect(socket.closed).toBe(false);
    expect(socket.binaries().every((b) => [1, 3, 4].includes(b.readUInt32BE(0)))).toBe(true);
  });
});

describe('cloud flavour: expireSignedUrls', () => {
  it('makes URLs handed out so far answer 403 expired; a fresh /api/view gives one that works', async () => {
    const svc = await startDemo({ flavour: 'cloud' });
    const { json } = await submit(svc, { prompt: loopWorkflow(1, 0) });
    const entry = await waitForHistory(svc, json.prompt_id as string);
    const image = (entry.outputs as Record<string, { images: Array<{ filename: string; type: string }> }>)['6']!.images[0]!;
    const path = `/api/view?filename=${encodeURIComponent(image.filename)}&type=${image.type}`;
    const old = (await api(svc, path)).headers.get('location')!;
    expect((await fetch(old)).status).toBe(200);
    svc.faults.expireSignedUrls();
    const expired = await fetch(old);
    expect(expired.status).toBe(403);
    expect(await expired.text()).toContain('Request has expired');
    const fresh = (await api(svc, path)).headers.get('location')!;
    expect((await fetch(fresh)).status).toBe(200);
    expect(svc.stats.storageRequestsWithKey).toBe(0);
  });
});
