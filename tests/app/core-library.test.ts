// The app keeps every output in the library: a job run through the app core (on the built-in demo
// profile) ends with its file downloaded into <data>/library and indexed with its provenance.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import type { EventPayload } from '@shared/ipc/contract';
import { Store } from '@main/store/store';
import { Library } from '../../src/main/library';
import { demoCoreInTemp, type DemoCore } from '../support/demo-core';

const WORKFLOW = `{
  "3": {"class_type": "DemoSampler", "inputs": {"prompt": "a lighthouse in the library", "seed": 18446744073709551615, "steps": 2, "width": 64, "height": 48, "cfg": 7, "sampler_name": "euler", "delay_ms": 20}},
  "9": {"class_type": "SaveImage", "inputs": {"images": ["3", 0], "filename_prefix": "Flowdeck"}}
}`;

let demo: DemoCore | null = null;

afterEach(async () => {
  await demo?.close();
  demo = null;
});

function filesUnder(dir: string): string[] {
  try {
    return readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.png') && !f.includes('.thumbnails'));
  } catch {
    return [];
  }
}

it('downloads and indexes the outputs of a job run in the app', async () => {
  demo = demoCoreInTemp('flowdeck-core-library-');
  const { core, dataDir } = demo;
  const ended = new Promise<EventPayload<'job.update'>>((resolve) => {
    core.onEvent((event) => {
      if (event.name === 'job.update' && (event.payload as EventPayload<'job.update'>).phase === 'succeeded')
        resolve(event.payload as EventPayload<'job.update'>);
    });
  });
  await core.start();
  await core.invoke('renderer.ready', undefined);
  const submitted = await core.invoke('run.submit', { workflowJson: WORKFLOW, label: 'library.json' });
  expect(submitted.ok).toBe(true);
  const job = await ended;

  const libraryDir = join(dataDir, 'library');
  const deadline = Date.now() + 15_000;
  while (filesUnder(libraryDir).length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  expect(filesUnder(libraryDir)).toHaveLength(1);
  await core.dispose();

  // The index, read back from the same store: provenance and the prompt text are searchable.
  const store = await Store.open(join(dataDir, 'flowdeck.sqlite'));
  const library = await Library.open({ store, root: libraryDir, source: () => null });
  try {
    const found = await library.search('lighthouse', {});
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({ promptId: job.promptId });
  } finally {
    await library.dispose();
    await store.close();
  }
});
