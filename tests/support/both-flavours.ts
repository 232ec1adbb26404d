// A demo service of each flavour (cloud and local), started before a file's tests and stopped
// after them, for tests that must hold on both server kinds.
import { afterAll, beforeAll } from 'vitest';
import { DemoService } from '../../src/main/demo';

export function demosOfBothFlavours(timeScale: number): Record<'cloud' | 'local', DemoService> {
  const services = {
    cloud: new DemoService({ flavour: 'cloud', timeScale }),
    local: new DemoService({ flavour: 'local', timeScale }),
  };
  beforeAll(async () => {
    await Promise.all([services.cloud.start(), services.local.start()]);
  });
  afterAll(async () => {
    await Promise.all([services.cloud.stop(), services.local.stop()]);
  });
  return services;
}
