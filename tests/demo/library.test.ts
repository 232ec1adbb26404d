// The service with its default node library (src/main/demo/nodes), as the app and the CLI run it:
// the sample workflows run end to end on both flavours, previews stream, large outputs are written
// through the streaming save, and partner nodes get the platform key from extra_data.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DemoService } from '../../src/main/demo';
import { api, submit, TestSocket, waitForHistory } from './helpers';

function sampleWorkflow(name: string): Record<string, unknown> {
  return JSON.parse(readFileSync(new URL(`../../resources/workflows/${name}`, import.meta.url), 'utf8')) as Record<string, unknown>;
}

describe.each(['local', 'cloud'] as const)('%s flavour with the default node library', (flavour) => {
  it('runs text-to-image with previews and serves the saved PNG', async () => {
    const svc = new DemoService({ flavour, timeScale: 0.01 });
    await svc.start();
    try {
      const socket = await TestSocket.open(svc, { clientId: 'lib' });
      const workflow = sampleWorkflow('text-to-image.json');
      (workflow['3'] as { inputs: Record<string, unknown> }).inputs.steps = 3;
      const { status, json } = await submit(svc, { prompt: workflow, client_id: 'lib' });
      expect(status).toBe(200);
      const end = await socket.waitForEnd(json.prompt_id as string, 20_000);
      expect(end.kind === 'json' && end.type).toBe('execution_success');
      expect(socket.json('progress').map((p) => p.value)).toEqual([1, 2, 3]);
      expect(socket.binaries().filter((b) => b.readUInt32BE(0) === 1)).toHaveLength(3);
      const entry = await waitForHistory(svc, json.prompt_id as string);
      const image = (entry.outputs as Record<string, { images: Array<{ filename: string; subfolder: string; type: string }> }>)['9']!.images[0]!;
      const view = await api(svc, `/api/view?filename=${encodeURIComponent(image.filename)}&subfolder=${image.subfolder}&type=${image.type}`);
      const file = view.status === 302 ? await fetch(view.headers.get('location')!) : view;
      expect(file.status).toBe(200);
      expect(
        Buffer.from(await file.arrayBuffer())
          .subarray(0, 4)
          .toString('hex'),
      ).toBe('89504e47');
    } finally {
      await svc.stop();
    }
  });
});

describe('default node library: special nodes', () => {
  it('streams a large output to disk through saveFileStream', async () => {
    const svc = new DemoService({ flavour: 'local', timeScale: 0.01 });
    await svc.start();
    try {
      const socket = await TestSocket.open(svc, { clientId: 'big' });
      const { json } = await submit(svc, { prompt: { '1': { class_type: 'DemoLargeOutput', inputs: { megabytes: 3 } } }, client_id: 'big' });
      await socket.waitForEnd(json.prompt_id as string, 20_000);
      const entry = await waitForHistory(svc, json.prompt_id as string);
      const ref = (entry.outputs as Record<string, { files: Array<{ filename: string; subfolder: string; type: string }> }>)['1']!.files[0]!;
      const res = await api(svc, `/view?filename=${encodeURIComponent(ref.filename)}&subfolder=${ref.subfolder}&type=${ref.type}`);
      expect(res.headers.get('content-length')).toBe(String(3 * 1024 * 1024));
      expect((await res.arrayBuffer()).byteLength).toBe(3 * 1024 * 1024);
    } finally {
      await svc.stop();
    }
  });

  it('gives partner nodes the platform key from extra_data on the cloud, and fails them without it', async () => {
    const svc = new DemoService({ flavour: 'cloud', timeScale: 0.01 });
    await svc.start();
    try {
      const socket = await TestSocket.open(svc, { clientId: 'p' });
      const workflow = sampleWorkflow('partner-node.json');
      const info = (await (await api(svc, '/api/object_info/DemoPartnerNode')).json()) as Record<string, { api_node?: boolean }>;
      expect(info.DemoPartnerNode!.api_node).toBe(true);
      const ok = await submit(svc, { prompt: workflow, extra_data: { api_key_comfy_org: svc.apiKey } });
      const okEnd = await socket.waitForEnd(ok.json.prompt_id as string, 20_000);
      expect(okEnd.kind === 'json' && okEnd.type).toBe('execution_success');
      const without = await submit(svc, { prompt: workflow });
      const failed = await socket.waitForEnd(without.json.prompt_id as string, 20_000);
      expect(failed.kind === 'json' && failed.type).toBe('execution_error');
      expect(JSON.stringify(socket.frames.filter((f) => f.kind === 'json'))).not.toContain(svc.apiKey!);
    } finally {
      await svc.stop();
    }
  });
});
