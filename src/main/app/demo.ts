// Starts the built-in demo service (cloud flavour) on 127.0.0.1 with a free port and the key the
// core made up for it, for the demo profile; and settles the demo's jobs left from an earlier run.
import type { SettingsStore } from '@main/config/settings';
import { DemoService } from '../demo';
import { clientSideError } from '@main/jobs/error-explanations';
import type { JobStore } from '@main/jobs/job-store';
import type { StartDemo } from './ports';

export function createDemoStarter(options: { timeScale?: number } = {}): StartDemo {
  return async ({ apiKey }) => {
    const demo = new DemoService({
      flavour: 'cloud',
      host: '127.0.0.1',
      port: 0,
      apiKey,
      ...(options.timeScale !== undefined ? { timeScale: options.timeScale } : {}),
    });
    await demo.start();
    return { url: demo.url, stop: () => demo.stop() };
  };
}

/** Demo jobs die with the demo service: at start, any left in flight are settled as lost. */
export async function settleDemoJobs(settings: SettingsStore, store: JobStore): Promise<void> {
  const demoIds = new Set(
    settings
      .read()
      .profiles.filter((p) => p.kind === 'demo')
      .map((p) => p.id),
  );
  for (const record of await store.listInFlight()) {
    if (!record.profileId || !demoIds.has(record.profileId)) continue;
    await store.updatePhase(record.promptId, 'failed', 'lost');
    await store.setError(
      record.promptId,
      clientSideError(
        'The built-in demo service was restarted, and its jobs ended with it. Run the workflow again.',
        'The demo service no longer knows this job.',
      ),
    );
  }
}
