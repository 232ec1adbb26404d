// The app's lazily made connection (src/main/app/lazy-connection.ts) against the real demo: until
// discovery has answered it says what the profile says, then the client discovery chose answers;
// a server that is not there yet is tried again by the started event stream, which says 'offline'
// meanwhile and follows the real stream once the server is up.
import { afterEach, describe, expect, it } from 'vitest';
import { LazyConnection } from '@main/app/lazy-connection';
import type { ConnectionState } from '@main/service/types';
import { freePort, startDemo } from '../v2/support';

const open: LazyConnection[] = [];
afterEach(async () => {
  for (const c of open.splice(0)) await c.events.dispose();
});

function lazy(baseUrl: string, hints: ConstructorParameters<typeof LazyConnection>[1]['hints'] = {}): LazyConnection {
  const c = new LazyConnection({ kind: 'local', baseUrl }, { apiKey: () => null, hints });
  open.push(c);
  return c;
}

describe('a lazily made connection', () => {
  it("says the profile's word until discovery answers, then the server's", async () => {
    const only = await startDemo({ flavour: 'local', v2: 'only' });
    const bare = lazy(only.url);
    expect(bare.api.capabilities.contract).toBe('v1');
    await bare.api.discover();
    expect(bare.api.capabilities).toMatchObject({ contract: 'v2', nodeDefinitions: false, needsApiKey: false });
    // A proxy profile says v2 from the start, and its server's own API decides node definitions.
    const local = await startDemo({ flavour: 'local' });
    const proxy = lazy(only.url, { contract: 'v2', v1BaseUrl: local.url });
    expect(proxy.api.capabilities).toMatchObject({ contract: 'v2', nodeDefinitions: true });
    expect((await proxy.api.getNodeDefinitions()).has('DemoSampler')).toBe(true);
    // Asking creates nothing on the server.
    expect(only.v2!.stats.submitRequests + only.v2!.stats.assetUploads).toBe(0);
  });

  it('keeps trying a server that is not up yet, then follows its stream', async () => {
    const port = await freePort();
    const c = lazy(`http://127.0.0.1:${port}`);
    const states: ConnectionState[] = [];
    c.events.onStateChange((s) => states.push(s));
    c.events.start();
    const until = async (test: () => boolean, ms: number): Promise<void> => {
      const deadline = Date.now() + ms;
      while (!test()) {
        if (Date.now() > deadline) throw new Error(`not within ${ms} ms; states ${states.join(', ')}`);
        await new Promise((r) => setTimeout(r, 25));
      }
    };
    await until(() => states.includes('offline'), 10_000);
    await expect(c.api.getQueue()).rejects.toThrow();
    await startDemo({ flavour: 'local', v2: 'only', port, host: '127.0.0.1' });
    await until(() => c.events.state === 'connected', 15_000);
    expect(c.api.capabilities.contract).toBe('v2');
  });
});
