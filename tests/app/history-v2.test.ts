// History's "Open in Run" of Comfy API v2 jobs: the server keeps a job's workflow as the API prompt
// (`format: "api"`) or as the editor graph it was made from (`format: "save"`), which is converted
// as any UI file. Against a small v2 server that answers `save`, and the app core on a v2-only demo
// (whose job list is GET /api/v2/jobs).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { parseJsonExact, type JsonObject } from '@shared/json';
import { workflowOfEditorGraph } from '@main/app/history-handlers';
import { ServiceClient } from '@main/service/client';
import { V2Client } from '@main/service/v2/client';
import { startHostileServer, type HostileServer } from '../support/hostile-server';
import { demoCoreInTemp, ok, type DemoCore } from '../support/demo-core';
import { startDemo } from '../v2/support';

const JOB = '3e1f0c2a-5b6d-4e7f-8a9b-0c1d2e3f4a5b';
const UI_GRAPH = parseJsonExact(readFileSync(join(import.meta.dirname, '../fixtures/ui-demo-sampler.json'), 'utf8')) as JsonObject;

const servers: HostileServer[] = [];
const cores: DemoCore[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
  for (const c of cores.splice(0)) await c.close();
});

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

describe('the workflow of a v2 job', () => {
  it('reads a `save` answer as the editor graph and converts it with the definitions, or says it cannot', async () => {
    const server = await startHostileServer({
      [`GET /api/v2/jobs/${JOB}`]: (_req, res) =>
        json(res, 200, { id: JOB, status: 'succeeded', created_at: '2026-11-28T10:00:00Z', expires_at: '2026-11-29T10:00:00Z', outputs: [] }),
      [`GET /api/v2/jobs/${JOB}/workflow`]: (_req, res) => json(res, 200, { format: 'save', workflow: UI_GRAPH }),
    });
    servers.push(server);
    const v2 = new V2Client({ kind: 'local', baseUrl: server.url }, { apiKey: () => null, v1: null, retry: { retries: 0 } });
    const detail = await v2.getJob(JOB);
    expect(detail.workflow).toBeNull();
    expect(detail.editorGraph).toEqual(UI_GRAPH);

    const local = await startDemo({ flavour: 'local' });
    const definitions = await new ServiceClient({ kind: 'local', baseUrl: local.url }, { apiKey: () => null }).getNodeDefinitions();
    const converted = await workflowOfEditorGraph(detail.editorGraph!, async () => definitions);
    expect(converted).toMatchObject({
      '3': { class_type: 'DemoSampler', inputs: { prompt: 'a lighthouse from a UI file', seed: 42, steps: 2 } },
      '9': { class_type: 'SaveImage', inputs: { images: ['3', 0], filename_prefix: 'FromUi' } },
    });
    // Without definitions this old-style graph does not say which widget is which: no guess.
    expect(await workflowOfEditorGraph(detail.editorGraph!, async () => null)).toBeNull();
  });

  it('lists a v2-only server\'s jobs in History with the workflow that ran, ready for "Open in Run"', async () => {
    const svc = await startDemo({ flavour: 'local', v2: 'only' }, 0.05);
    const c = demoCoreInTemp('flowdeck-history-v2-');
    cores.push(c);
    await c.core.start();
    await ok(c.core, 'profiles.save', { name: 'Deployment', kind: 'proxy', baseUrl: svc.url, select: true });
    // Written as text: the seed is 2^64-1, which a JavaScript number cannot hold.
    const text = `{"3": {"class_type": "DemoSampler", "inputs": {"prompt": "history", "seed": 18446744073709551615, "steps": 2, "width": 32,
      "height": 32, "cfg": 7, "sampler_name": "euler", "delay_ms": 10, "fail_at_step": 0}},
      "9": {"class_type": "SaveImage", "inputs": {"images": ["3", 0], "filename_prefix": "hist"}}}`;
    const { promptIds } = await ok(c.core, 'run.submit', { workflowJson: text, label: 'history.json' });
    const deadline = Date.now() + 15_000;
    let entry;
    while (Date.now() < deadline) {
      entry = (await ok(c.core, 'history.list', { source: 'server', offset: 0, limit: 20 })).entries.find((e) => e.promptId === promptIds[0]);
      if (entry?.phase === 'succeeded') break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(entry).toMatchObject({ phase: 'succeeded', label: 'history.json' });
    expect(entry!.outputs.length).toBeGreaterThan(0);
    // The workflow as the server ran it, the 64-bit seed exact.
    expect(entry!.workflowJson).toContain('"seed":18446744073709551615');
    expect(parseJsonExact(entry!.workflowJson!)).toMatchObject({ '3': { class_type: 'DemoSampler' } });
  });
});
