// The built CLI against hostile servers (tests/support/hostile-server.ts): endless bodies must be
// cut at their cap with flat memory, a server that never answers must be given up within the
// documented deadline (with a word on stderr about what is awaited), and odd redirects fail at once.
// Bounds are asserted as limits (an RSS ceiling, a deadline), not measured as benchmarks.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CLI } from '../support/cli';
import { blackHole, drip, endlessBody, finishedJobRoutes, redirect, runMeasured, startHostileServer, type HostileServer } from '../support/hostile-server';

const MiB = 1024 * 1024;
/** Node with the CLI's modules loaded stays well under this; reading a body whole goes far above. */
const RSS_CEILING = 250 * MiB;

let work: string;
let server: HostileServer | null = null;

function workflowFile(): string {
  const path = join(work, 'wf.json');
  writeFileSync(
    path,
    JSON.stringify({ '1': { class_type: 'LoadImage', inputs: { image: 'x.png' } }, '9': { class_type: 'SaveImage', inputs: { images: ['1', 0] } } }),
  );
  return path;
}

function env(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return { FLOWDECK_DATA_DIR: join(work, `data-${Math.random().toString(36).slice(2)}`), ...extra };
}

beforeAll(() => {
  expect(existsSync(CLI), `${CLI} (the build runs in tests/support/build.ts)`).toBe(true);
  work = mkdtempSync(join(tmpdir(), 'flowdeck-hostile-'));
});

afterEach(async () => {
  await server?.close();
  server = null;
});

afterAll(() => {
  rmSync(work, { recursive: true, force: true });
});

describe('bounded reads', { timeout: 90_000 }, () => {
  it('a 404 with an endless body fails cleanly, in seconds, with flat memory', async () => {
    server = await startHostileServer({ 'POST /api/prompt': endlessBody(404, 'text/plain', 1024 * MiB) });
    const run = await runMeasured(CLI, ['run', workflowFile(), '--server', server.url, '--local', '--out', join(work, 'o1')], env(), 60_000);
    expect(run.code, run.stderr).toBe(5);
    expect(run.stderr).toContain('HTTP 404');
    expect(run.ms).toBeLessThan(20_000);
    expect(run.peakRssBytes).toBeGreaterThan(0);
    expect(run.peakRssBytes).toBeLessThan(RSS_CEILING);
  });

  it('a 3 GB answer to /api/prompt is cut at the JSON cap', async () => {
    server = await startHostileServer({ 'POST /api/prompt': endlessBody(200, 'application/json', 3072 * MiB) });
    const run = await runMeasured(CLI, ['run', workflowFile(), '--server', server.url, '--local', '--out', join(work, 'o2'), '--json'], env(), 60_000);
    expect(run.code, run.stderr).toBe(5);
    expect(run.stderr).toMatch(/the server sent more than 8 MiB for the workflow submission/i);
    expect(JSON.parse(run.stdout)).toMatchObject({ status: 'error' });
    expect(run.ms).toBeLessThan(20_000);
    expect(run.peakRssBytes).toBeLessThan(RSS_CEILING);
  });
});

describe('downloads', { timeout: 90_000 }, () => {
  it('an endless output body is refused at the size cap', async () => {
    server = await startHostileServer(finishedJobRoutes(endlessBody(200, 'image/png', 4096 * MiB)));
    const out = join(work, 'o3');
    const run = await runMeasured(CLI, ['run', workflowFile(), '--server', server.url, '--local', '--out', out], env({ FLOWDECK_MAX_OUTPUT_MB: '20' }), 60_000);
    expect(run.code, run.stderr).toBe(5);
    expect(run.stderr).toMatch(/more than 20 MiB for the output file out\.png/);
    expect(run.ms).toBeLessThan(30_000);
    expect(run.peakRssBytes).toBeLessThan(RSS_CEILING);
    expect(existsSync(out) ? readdirSync(out) : []).toEqual([]);
  });

  it('a 20 B/s drip is aborted by the throughput watchdog', async () => {
    server = await startHostileServer(finishedJobRoutes(drip(20)));
    const run = await runMeasured(
      CLI,
      ['run', workflowFile(), '--server', server.url, '--local', '--out', join(work, 'o4')],
      env({ FLOWDECK_MIN_DOWNLOAD_WINDOW: '3' }),
      60_000,
    );
    expect(run.code, run.stderr).toBe(5);
    expect(run.stderr).toMatch(/slower than 16 KiB\/s/);
    // Three library attempts (the CLI's library retry policy) and the direct one, 3 s each at most.
    expect(run.ms).toBeLessThan(40_000);
  });

  it('--timeout covers the downloads too', async () => {
    server = await startHostileServer(finishedJobRoutes(drip(20)));
    const run = await runMeasured(CLI, ['run', workflowFile(), '--server', server.url, '--local', '--out', join(work, 'o5'), '--timeout', '3'], env(), 60_000);
    expect(run.code, run.stderr).toBe(1);
    expect(run.stderr).toMatch(/3 s/);
    expect(run.ms).toBeLessThan(12_000);
  });

  it('a redirect to a file: URL fails at once, naming the scheme, without retrying', async () => {
    server = await startHostileServer(finishedJobRoutes(redirect('file:///etc/passwd')));
    const run = await runMeasured(CLI, ['run', workflowFile(), '--server', server.url, '--local', '--out', join(work, 'o6')], env(), 60_000);
    expect(run.code, run.stderr).toBe(5);
    expect(run.stderr).toMatch(/file:/);
    expect(run.stderr).not.toContain('Could not reach null');
    // One try by the library, which gives up at once, and one direct download: no retries.
    expect(server.requests.filter((r) => r === 'GET /api/view').length).toBeLessThanOrEqual(2);
  });
});

describe('a server that accepts connections and never answers', { timeout: 150_000 }, () => {
  const deadline = { FLOWDECK_ANSWER_TIMEOUT: '4' };

  it('run fails within the answer deadline and says what it waits for after 2 s', async () => {
    server = await startHostileServer({ 'POST /api/prompt': blackHole });
    const run = await runMeasured(CLI, ['run', workflowFile(), '--server', server.url, '--local', '--out', join(work, 'o7')], env(deadline), 60_000);
    expect(run.code, run.stderr).toBe(5);
    expect(run.stderr).toContain(`waiting for ${server.url} to answer /api/prompt`);
    expect(run.stderr).toMatch(/did not answer .* within 4 s/);
    expect(run.ms).toBeLessThan(12_000);
  });

  it('run on a cloud profile fails within the node definitions deadline, naming /api/object_info', async () => {
    server = await startHostileServer({ '/api/object_info': blackHole, 'POST /api/prompt': blackHole });
    const run = await runMeasured(
      CLI,
      ['run', workflowFile(), '--server', server.url, '--out', join(work, 'o8')],
      env({ ...deadline, FLOWDECK_API_KEY: 'k-0123456789' }),
      60_000,
    );
    expect(run.code, run.stderr).toBe(5);
    expect(run.stderr).toContain(`waiting for ${server.url} to answer /api/object_info`);
    // object_info gets twice the answer deadline (8 s here), and the submit is not tried after it
    // (which took one more deadline before); the bound leaves room for a slow start of node.
    expect(run.ms).toBeLessThan(14_000);
    expect(server.requests).not.toContain('POST /api/prompt');
  });

  it('queue fails within the answer deadline', async () => {
    server = await startHostileServer({ '/api/queue': blackHole });
    const run = await runMeasured(CLI, ['queue', '--server', server.url, '--local'], env(deadline), 60_000);
    expect(run.code, run.stderr).toBe(5);
    expect(run.stderr).toContain(`waiting for ${server.url} to answer /api/queue`);
    expect(run.ms).toBeLessThan(12_000);
  });

  it('watch --once fails within the answer deadline', async () => {
    server = await startHostileServer({
      '/api/queue': blackHole,
      '/api/object_info': blackHole,
      'POST /api/upload/image': blackHole,
      'POST /api/prompt': blackHole,
    });
    const folder = join(work, 'hot');
    mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, 'a.png'), Buffer.from('89504e470d0a1a0a', 'hex'));
    const run = await runMeasured(
      CLI,
      ['watch', folder, '--workflow', workflowFile(), '--bind', '1.image', '--server', server.url, '--local', '--once', '--settle', '0'],
      env(deadline),
      120_000,
    );
    expect(run.code, run.stderr).toBe(5);
    expect(run.stderr).toMatch(/waiting for http:\/\/127\.0\.0\.1:\d+ to answer \/api\//);
    expect(run.ms).toBeLessThan(15_000);
  });
});
