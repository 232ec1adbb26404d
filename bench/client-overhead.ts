// Client overhead per job against the demo service (instant nodes), side by side in one run:
// the full client stack (ServiceClient + EventsSocket + JobTracker, with validation and journal-free
// tracking) vs a bare baseline (fetch + one WebSocket waiting for execution_success), at
// concurrency 1 and 8. The server's own cost is in both; the ratio is what the client adds.
import { randomUUID } from 'node:crypto';
import WebSocket from 'ws';
import { JobTracker } from '@main/jobs/tracker';
import { ServiceClient } from '@main/service/client';
import { EventsSocket } from '@main/service/events-socket';
import { startDemoChild } from './support/processes';

const JOBS = 120;

const WORKFLOW = {
  '1': { class_type: 'DemoSampler', inputs: { prompt: 'bench', seed: 1, steps: 1, width: 16, height: 16, cfg: 1, sampler_name: 'euler', delay_ms: 0 } },
  '2': { class_type: 'PreviewImage', inputs: { images: ['1', 0] } },
};

async function pool(total: number, concurrency: number, job: () => Promise<void>): Promise<number> {
  let started = 0;
  const start = process.hrtime.bigint();
  const worker = async (): Promise<void> => {
    while (started < total) {
      started += 1;
      await job();
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return total / (Number(process.hrtime.bigint() - start) / 1e9);
}

async function flowdeckJobsPerSecond(url: string, key: string, concurrency: number): Promise<number> {
  const profile = { kind: 'cloud' as const, baseUrl: url };
  const api = new ServiceClient(profile, { apiKey: () => key });
  const events = new EventsSocket(profile, { apiKey: () => key });
  const tracker = new JobTracker({ api, events });
  events.start();
  await new Promise<void>((r) => (events.state === 'connected' ? r() : events.onStateChange((s) => s === 'connected' && r())));
  try {
    return await pool(JOBS, concurrency, async () => {
      const { promptId } = await api.submit(WORKFLOW, { clientId: events.clientId });
      const ended = await tracker.track(promptId, { workflow: WORKFLOW }).waitForEnd();
      if (ended.phase !== 'succeeded') throw new Error(`job ${promptId} ended ${ended.phase}`);
    });
  } finally {
    await tracker.dispose();
    await events.dispose();
  }
}

async function bareJobsPerSecond(url: string, key: string, concurrency: number): Promise<number> {
  const clientId = randomUUID();
  const ws = new WebSocket(`${url.replace(/^http/, 'ws')}/ws?clientId=${clientId}&token=${encodeURIComponent(key)}`);
  const waiting = new Map<string, () => void>();
  const done = new Set<string>();
  ws.on('message', (data, isBinary) => {
    if (isBinary) return;
    const message = JSON.parse(String(data)) as { type: string; data?: { prompt_id?: string } };
    if (message.type === 'execution_success' && message.data?.prompt_id) {
      const id = message.data.prompt_id;
      done.add(id);
      waiting.get(id)?.();
    }
  });
  await new Promise((r) => ws.once('open', r));
  try {
    return await pool(JOBS, concurrency, async () => {
      const response = await fetch(`${url}/api/prompt`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'X-API-Key': key },
        body: JSON.stringify({ prompt: WORKFLOW, client_id: clientId }),
      });
      const { prompt_id: id } = (await response.json()) as { prompt_id: string };
      if (!done.has(id)) await new Promise<void>((r) => waiting.set(id, r));
    });
  } finally {
    ws.close();
  }
}

export async function runClientOverheadBench(): Promise<Record<string, number>> {
  const demo = await startDemoChild('cloud');
  const figures: Record<string, number> = {};
  try {
    const key = demo.apiKey!;
    await bareJobsPerSecond(demo.url, key, 4); // warm-up
    console.log(`client overhead per job, ${JOBS} instant jobs (DemoSampler 1 step -> PreviewImage):`);
    for (const concurrency of [1, 8]) {
      const bare = await bareJobsPerSecond(demo.url, key, concurrency);
      const ours = await flowdeckJobsPerSecond(demo.url, key, concurrency);
      figures[`jobsPerSecond${concurrency}`] = ours;
      figures[`bareJobsPerSecond${concurrency}`] = bare;
      figures[`ratio${concurrency}`] = ours / bare;
      console.log(
        `  concurrency ${concurrency}: flowdeck ${ours.toFixed(1)} jobs/s, bare fetch+ws ${bare.toFixed(1)} jobs/s, ratio ${(ours / bare).toFixed(2)}x`,
      );
    }
  } finally {
    await demo.stop();
  }
  return figures;
}

if (import.meta.url === `file://${process.argv[1]}`) await runClientOverheadBench();
