// Starts the built-in demo service (cloud flavour) on 127.0.0.1 with a free port and the key the
// core made up for it, for the demo profile.
import { DemoService } from '../demo';
import type { StartDemo } from './core';

export function createDemoStarter(options: { timeScale?: number } = {}): StartDemo {
  return async ({ apiKey }) => {
    const demo = new DemoService({ flavour: 'cloud', host: '127.0.0.1', port: 0, apiKey, ...(options.timeScale !== undefined ? { timeScale: options.timeScale } : {}) });
    await demo.start();
    return { url: demo.url, stop: () => demo.stop() };
  };
}
