// Starting and stopping: stop() closes both listeners and every socket, ends a running job,
// removes the temporary data folder (but never a folder it was given), and can be called twice.
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DemoService } from '../../src/main/demo';
import { submit, tempDir, TestSocket } from './helpers';
import { loopWorkflow, traceNodes } from './trace-nodes';

function listeners(): number {
  return process.getActiveResourcesInfo().filter((r) => r === 'TCPServerWrap').length;
}

describe('DemoService lifecycle', () => {
  it('stop() closes listeners and sockets, ends the running job, removes its temp folder; twice is fine', async () => {
    const before = listeners();
    const svc = new DemoService({ flavour: 'local', nodes: traceNodes(), timeScale: 1 });
    expect(() => svc.url).toThrow(/not running/);
    await svc.start();
    expect(svc.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(svc.storageUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(svc.storageUrl).not.toBe(svc.url);
    expect(listeners()).toBe(before + 2);
    const url = svc.url;
    const socket = await TestSocket.open(svc, { clientId: 'x' });
    const { json } = await submit(svc, { prompt: loopWorkflow(1000, 1), client_id: 'x' });
    await socket.waitFor((f) => f.kind === 'json' && f.type === 'executing' && f.data.prompt_id === json.prompt_id);
    const dataDir = svc.dataDir;
    expect(existsSync(`${dataDir}/output`)).toBe(true);

    await svc.stop();
    await svc.stop();
    await socket.waitClosed();
    expect(listeners()).toBe(before);
    await expect(fetch(`${url}/queue`)).rejects.toThrow();
    expect(existsSync(dataDir)).toBe(false);
    await expect(svc.start()).rejects.toThrow(/stopped/);
  });

  it('keeps a data folder it was given, with the files in it', async () => {
    const dir = await tempDir();
    const svc = new DemoService({ flavour: 'cloud', nodes: traceNodes(), dataDir: dir });
    await svc.start();
    expect(svc.dataDir).toBe(dir);
    await svc.stop();
    expect(existsSync(`${dir}/input`)).toBe(true);
    expect(existsSync(`${dir}/output`)).toBe(true);
  });

  it('reports a port in use as EADDRINUSE and leaves nothing open', async () => {
    const before = listeners();
    const first = new DemoService({ flavour: 'local', nodes: traceNodes() });
    await first.start();
    const port = Number(new URL(first.url).port);
    const second = new DemoService({ flavour: 'local', nodes: traceNodes(), port });
    await expect(second.start()).rejects.toMatchObject({ code: 'EADDRINUSE' });
    await second.stop();
    await first.stop();
    expect(listeners()).toBe(before);
  });
});
