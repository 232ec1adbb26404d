// flowdeck login / logout against a real keyring, and a run that takes its key from the keychain.
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DemoService } from '../../src/main/demo';
import { runCli } from '../support/cli';

let work: string;
let demo: DemoService;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'flowdeck-login-'));
  demo = new DemoService({ flavour: 'cloud', timeScale: 0.1 });
  await demo.start();
});

afterAll(async () => {
  await demo?.stop();
  rmSync(work, { recursive: true, force: true });
});

function env(): NodeJS.ProcessEnv {
  // The keyring lives under the HOME that scripts/with-keyring.sh set up, reached over D-Bus.
  return { FLOWDECK_DATA_DIR: join(work, 'data'), DBUS_SESSION_BUS_ADDRESS: process.env.DBUS_SESSION_BUS_ADDRESS ?? '' };
}

describe('flowdeck login and logout with the OS keychain', () => {
  it('refuses a key the server rejects and stores nothing', async () => {
    const run = await runCli(['login', '--server', demo.url], { env: env(), input: 'not-the-key-0000\n' });
    expect(run.code).toBe(3);
    expect(run.stderr).toContain('rejected');
  });

  it('stores the key, runs with it, never writes it to the data folder, and removes it', async () => {
    const key = demo.apiKey!;
    const login = await runCli(['login', '--server', demo.url], { env: env(), input: `${key}\n` });
    expect(login.code, login.stderr).toBe(0);
    expect(login.stdout).toContain(`ending in …${key.slice(-4)}`);
    expect(login.stdout).not.toContain(key);

    const wf = join(work, 'wf.json');
    const { writeFileSync } = await import('node:fs');
    writeFileSync(
      wf,
      JSON.stringify({
        '1': {
          class_type: 'DemoSampler',
          inputs: { prompt: 'keychain', seed: 1, steps: 2, width: 32, height: 32, cfg: 7, sampler_name: 'euler', delay_ms: 10 },
        },
        '2': { class_type: 'SaveImage', inputs: { images: ['1', 0], filename_prefix: 'kc' } },
      }),
    );
    const run = await runCli(['run', wf, '--server', demo.url, '--out', join(work, 'out')], { env: env() });
    expect(run.code, run.stderr).toBe(0);

    // The key is in the keychain, not in any file of the data folder.
    for (const name of readdirSync(join(work, 'data'))) {
      if (name.endsWith('.json')) expect(readFileSync(join(work, 'data', name), 'utf8')).not.toContain(key);
    }

    const logout = await runCli(['logout', '--server', demo.url], { env: env() });
    expect(logout.code).toBe(0);
    expect(logout.stdout).toContain('Removed');
    const after = await runCli(['run', wf, '--server', demo.url], { env: env() });
    expect(after.code).toBe(3);
  });
});
