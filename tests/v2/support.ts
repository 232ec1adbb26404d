// Demo services for the v2 tests, each stopped after the test that started it.
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
