// Without any D-Bus session (a bare Linux box), storing a key says exactly why and how to fix it,
// and nothing is written in plain text.
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { DemoService } from '../../src/main/demo';
import { runCli } from '../support/cli';

let work: string;
let demo: DemoService;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'flowdeck-nokeychain-'));
  demo = new DemoService({ flavour: 'cloud' });
  await demo.start();
});

afterAll(async () => {
  await demo?.stop();
  rmSync(work, { recursive: true, force: true });
});

it('login explains that no keychain is available and keeps no plaintext copy', async () => {
  const run = await runCli(['login', '--server', demo.url], {
    env: { FLOWDECK_DATA_DIR: join(work, 'data'), DBUS_SESSION_BUS_ADDRESS: '', DISPLAY: '' },
    input: `${demo.apiKey}\n`,
  });
  expect(run.code).toBe(3);
  expect(run.stderr).toContain('No OS keychain is available');
  expect(run.stderr).toContain('FLOWDECK_API_KEY');
  expect(run.stderr).not.toContain(demo.apiKey!);
  for (const name of readdirSync(join(work, 'data'))) expect(name).not.toMatch(/key|secret/i);
});
