// The app core on a Comfy API v2-only server (the real demo), for what depends on the server's
// first answer. A self-hosted proxy without a token takes no key: the app never says one is
// missing; with a token, it says "no key" only once the server answered 401, "key rejected" for a
// wrong one, and runs once the right one is saved. A plain local profile pointing at a v2 address
// whose server starts after the app settles the journal's left-over sends only once discovery
// has answered (under their Idempotency-Key, once each), never with v1 assumptions.
import { afterEach, describe, expect, it } from 'vitest';
import type { ConnectionStateView } from '@shared/ipc/contract';
import { dataPaths } from '@main/config/data-dir';
import { JobStore } from '@main/jobs/job-store';
import { Store } from '@main/store/store';
import { demoCoreInTemp, ok, type DemoCore } from '../support/demo-core';
import { until } from '../watch/helpers';
import { freePort, startDemo } from '../v2/support';

const TOKEN = 'proxy-token-7d1f0c9a';
const cores: DemoCore[] = [];
afterEach(async () => {
  for (const c of cores.splice(0)) await c.close();
});

const SAMPLER = {
  '3': {
    class_type: 'DemoSampler',
    inputs: { prompt: 'left over', seed: 7, steps: 2, width: 32, height: 32, cfg: 7, sampler_name: 'euler', delay_ms: 20, fail_at_step: 0 },
  },
  '9': { class_type: 'SaveImage', inputs: { images: ['3', 0], filename_prefix: 'v2start' } },
};

function states(c: DemoCore, profileId: string): ConnectionStateView[] {
  return c.events
    .filter((e) => e.name === 'connection.state')
    .map((e) => e.payload as ConnectionStateView)
    .filter((s) => s.profileId === profileId);
}

/** A run sent on the active server succeeds. */
async function runsThrough(c: DemoCore): Promise<void> {
  const { promptIds } = await ok(c.core, 'run.submit', { workflowJson: JSON.stringify(SAMPLER) });
  const succeeded = (e: DemoCore['events'][number]): boolean => {
    const job = e.payload as { promptId?: string; phase?: string };
    return e.name === 'job.update' && job.promptId === promptIds[0] && job.phase === 'succeeded';
  };
  await until(() => c.events.some(succeeded), 'the run succeeded', 20_000);
}

async function proxyCore(baseUrl: string): Promise<DemoCore & { profileId: string }> {
  const c = demoCoreInTemp('flowdeck-v2-key-');
  cores.push(c);
  await c.core.start();
  const profile = await ok(c.core, 'profiles.save', { name: 'Proxy', kind: 'proxy', baseUrl, select: true });
  await until(() => states(c, profile.id).some((s) => s.state === 'connected'), 'the proxy connected', 20_000);
  return { ...c, profileId: profile.id };
}

describe('the key of a self-hosted proxy', () => {
  it('is never asked for when the proxy has no token', async () => {
    const svc = await startDemo({ flavour: 'local', v2: 'only' }, 0.05);
    const c = await proxyCore(svc.url);
    // The key status says none is set, and nothing calls that a problem.
    expect((await ok(c.core, 'key.status', { profileId: c.profileId })).isSet).toBe(false);
    const test = await ok(c.core, 'connection.test');
    expect(test).toMatchObject({ reachable: true, problem: null, keyAccepted: null });
    await runsThrough(c);
    expect(states(c, c.profileId).map((s) => s.problem ?? null)).not.toContain('no_key');
    expect(states(c, c.profileId).every((s) => (s.problem ?? null) === null)).toBe(true);
  });

  it('is asked for only after the proxy answered 401; a wrong one is rejected, the right one runs', async () => {
    const svc = await startDemo({ flavour: 'local', v2: 'only', v2Token: TOKEN }, 0.05);
    const c = await proxyCore(svc.url);
    // The first answer was a 401: only now does the connection say a key is needed.
    await until(() => states(c, c.profileId).at(-1)?.problem === 'no_key', 'the connection says no key', 10_000);
    const first = states(c, c.profileId).findIndex((s) => s.problem === 'no_key');
    expect(
      states(c, c.profileId)
        .slice(0, first)
        .some((s) => s.state === 'connecting'),
    ).toBe(true);
    expect(await ok(c.core, 'connection.test')).toMatchObject({ problem: 'no_key', keyAccepted: null });

    await ok(c.core, 'key.save', { profileId: c.profileId, key: 'not-the-token', sessionOnly: true });
    await until(() => states(c, c.profileId).at(-1)?.problem === 'key_rejected', 'the wrong key is rejected', 10_000);

    await ok(c.core, 'key.save', { profileId: c.profileId, key: TOKEN, sessionOnly: true });
    await until(
      () => {
        const last = states(c, c.profileId).at(-1);
        return last?.state === 'connected' && (last.problem ?? null) === null;
      },
      'the right key is taken',
      10_000,
    );
    await runsThrough(c);
    expect(c.logs.join('\n')).not.toContain(TOKEN);
  });
});

describe('a plain local profile on a v2 address whose server starts after the app', () => {
  it('settles the left-over sends once discovery answered: one job per key, followed to its end', async () => {
    const port = await freePort();
    const baseUrl = `http://127.0.0.1:${port}`;
    const keys = ['left-over-key-0001', 'left-over-key-0002'];
    const c = demoCoreInTemp('flowdeck-v2-late-', {
      prepare: () => undefined,
    });
    cores.push(c);
    // The journal as a process killed between send and answer left it, on this address.
    const store = await Store.open(dataPaths(c.dataDir).database);
    const jobs = await JobStore.open(store);
    for (const key of keys)
      await jobs.recordSubmitting({
        promptId: key,
        serverKind: 'local',
        baseUrl,
        clientId: null,
        workflow: SAMPLER,
        workflowName: 'left over.json',
        origin: 'window',
      });
    await store.close();

    await c.core.start();
    const profile = await ok(c.core, 'profiles.save', { name: 'Late', kind: 'local', baseUrl, select: true });
    await until(() => states(c, profile.id).some((s) => s.state === 'offline'), 'the server is not up yet', 15_000);
    // Nothing settled with v1 assumptions meanwhile: the sends are still unconfirmed.
    for (const key of keys) expect((await ok(c.core, 'jobs.list')).jobs.find((j) => j.promptId === key)).toBeDefined();

    const svc = await startDemo({ flavour: 'local', v2: 'only', port, host: '127.0.0.1' }, 0.05);
    await until(() => keys.every((key) => svc.v2!.stats.jobsByKey.get(key) === 1), 'each key sent again once', 30_000);
    const settled = async (): Promise<boolean> => {
      const list = (await ok(c.core, 'jobs.list')).jobs.filter((j) => j.label === 'left over.json');
      return list.length === 2 && list.every((j) => j.phase === 'succeeded');
    };
    await until(settled, 'both left-over runs ended', 30_000);
    expect(keys.map((key) => svc.v2!.stats.jobsByKey.get(key))).toEqual([1, 1]);
    // The rows named by their keys became the jobs the server made (no "never submitted" left behind).
    const all = (await ok(c.core, 'jobs.list')).jobs.filter((j) => j.label === 'left over.json');
    expect(all.map((j) => j.phase)).toEqual(['succeeded', 'succeeded']);
  });
});
