// Failures: a burst of 500s is retried with backoff (each file still submitted once), a file that
// keeps failing ends failed with its reason and runs again on "retry failed", and 401/429 pause
// the folder with the reason shown until resume() or the automatic re-check finds it fixed.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DemoService } from '../../src/main/demo';
import { folderInput, makePng, openHarness, totalSubmissions, until, type Harness } from './helpers';

let local: DemoService;
let cloud: DemoService;
let h: Harness | null = null;

beforeAll(async () => {
  local = new DemoService({ flavour: 'local', timeScale: 0.05 });
  cloud = new DemoService({ flavour: 'cloud', timeScale: 0.05 });
  await Promise.all([local.start(), cloud.start()]);
});

afterAll(async () => {
  await Promise.all([local.stop(), cloud.stop()]);
});

afterEach(async () => {
  await h?.close();
  h = null;
  local.faults.reset();
  cloud.faults.reset();
  cloud.setKeyState(cloud.apiKey!, 'active');
});

function drop(dir: string, count: number, seedBase: number): void {
  mkdirSync(dir, { recursive: true });
  for (let i = 0; i < count; i += 1) writeFileSync(join(dir, `f${seedBase + i}.png`), makePng(seedBase + i));
}

describe('network and server errors', () => {
  it('retries a burst of 500s with backoff, and still submits each file exactly once', async () => {
    h = await openHarness(local);
    drop(h.inDir, 3, 100);
    const before = new Map(local.stats.submissions);
    local.faults.fail500(10);
    local.faults.fail500(3, '/prompt');
    const config = await h.hot.add(folderInput(h));
    await until(() => h!.hot.counters(config.id).done === 3, 'three files done despite the 500s', 15_000);
    await h.hot.whenIdle(config.id);
    const rows = h.hot.files(config.id);
    expect(rows.every((r) => r.state === 'done')).toBe(true);
    expect(rows.reduce((n, r) => n + r.attempts, 0)).toBeGreaterThan(0); // the folder itself retried
    const added = [...local.stats.submissions].filter(([id]) => !before.has(id));
    expect(added.length).toBe(3);
    expect(added.every(([, n]) => n === 1)).toBe(true);
    expect(new Set(rows.map((r) => r.promptId)).size).toBe(3);
  });

  it('fails a file after its last attempt with the reason, and runs it again on retryFailed()', async () => {
    h = await openHarness(local);
    drop(h.inDir, 1, 200);
    local.faults.fail500(1000, '/prompt');
    const config = await h.hot.add(folderInput(h, { retry: { maxAttempts: 2, baseDelayMs: 20, maxDelayMs: 40 } }));
    await until(() => h!.hot.counters(config.id).failed === 1, 'the file failed');
    const failed = h.hot.files(config.id)[0]!;
    expect(failed.attempts).toBe(2);
    expect(failed.reason).toMatch(/HTTP 500.*gave up after 2 attempts/s);
    local.faults.reset();
    const before = totalSubmissions(local);
    expect(await h.hot.retryFailed(config.id)).toBe(1);
    await until(() => h!.hot.counters(config.id).done === 1, 'the retried file done');
    expect(totalSubmissions(local) - before).toBe(1);
  });
});

describe('account problems pause the folder', () => {
  it('pauses on 429 (inactive subscription) with the reason, and resumes on resume()', async () => {
    h = await openHarness(cloud);
    cloud.setKeyState(cloud.apiKey!, 'inactive');
    drop(h.inDir, 2, 300);
    const config = await h.hot.add(folderInput(h));
    expect(await h.hot.whenIdle(config.id)).toBe('paused');
    const status = h.hot.status(config.id);
    expect(status.paused).toBe(true);
    expect(status.pauseKind).toBe('subscription_inactive');
    expect(status.pauseReason).toMatch(/subscription is not active.*Renew/);
    expect(status.counters).toMatchObject({ waiting: 2, done: 0, failed: 0 });
    expect(h.hot.files(config.id).every((r) => r.attempts === 0)).toBe(true); // not counted against the file
    cloud.setKeyState(cloud.apiKey!, 'active');
    h.hot.resume(config.id);
    await until(() => h!.hot.counters(config.id).done === 2, 'both files done after resume');
    expect(h.hot.status(config.id).paused).toBe(false);
  });

  it('pauses on 401 and resumes by itself once the key works (automatic re-check)', async () => {
    let key = 'not-the-right-key';
    h = await openHarness(cloud, { apiKey: () => key });
    drop(h.inDir, 2, 400);
    const config = await h.hot.add(folderInput(h, { pauseRecheckMs: 200 }));
    await until(() => h!.hot.status(config.id).pauseKind === 'unauthorized', 'paused for the key');
    expect(h.hot.status(config.id).pauseReason).toMatch(/API key/);
    expect(JSON.stringify(h.events)).not.toContain(cloud.apiKey!);
    key = cloud.apiKey!;
    await until(() => h!.hot.counters(config.id).done === 2, 'both files done after the re-check');
    expect(h.hot.status(config.id).paused).toBe(false);
  });
});
