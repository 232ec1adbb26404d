// Demo services for the v2 tests, each stopped after the test that started it.
import { createServer } from 'node:net';
import { afterEach } from 'vitest';
import { DemoService, type DemoServiceOptions } from '../../src/main/demo';

const started: DemoService[] = [];

afterEach(async () => {
  for (const svc of started.splice(0)) await svc.stop();
});

export async function startDemo(options: Partial<DemoServiceOptions> & { flavour: 'cloud' | 'local' }, timeScale = 0.02): Promise<DemoService> {
  const svc = new DemoService({ timeScale, ...options });
  started.push(svc);
  await svc.start();
  return svc;
}

/** A port nothing listens on now (a server to be started there later). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const port = (server.address() as { port: number }).port;
      server.close(() => resolve(port));
    });
  });
}
