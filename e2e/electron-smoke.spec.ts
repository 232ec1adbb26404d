// The real Electron app, where the Electron binary exists: the window opens on the app's own page
// and the preload's window.flowdeck answers. Where the binary cannot be fetched (this project's
// machines), the spec is skipped and says why.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { _electron as electron } from '@playwright/test';
import { expect, test } from './fixtures/index';
import { probeElectron } from './fixtures/electron';
import './fixtures/page-globals';
import { ROOT } from './fixtures/harness';

const probe = probeElectron();

test.describe('Electron app', () => {
  test.skip(!probe.available, `Electron binary not installed here: ${probe.available ? '' : probe.reason}`);

  test('opens the window with a sandboxed page and a working window.flowdeck', async ({ pageErrors }) => {
    const dataDir = mkdtempSync(join(tmpdir(), 'flowdeck-electron-'));
    const app = await electron.launch({
      args: [join(ROOT, 'out/main/index.js')],
      cwd: ROOT,
      env: { ...process.env, FLOWDECK_DATA_DIR: dataDir } as Record<string, string>,
    });
    try {
      const page = await app.firstWindow();
      pageErrors.watch(page);
      await page.waitForFunction(() => typeof (window as { flowdeck?: unknown }).flowdeck === 'object');
      expect(page.url()).toMatch(/^app:\/\/flowdeck\//);
      const answer = await page.evaluate(() => window.flowdeck.invoke('profiles.list'));
      expect(answer.ok).toBe(true);
      // Context isolation and the sandbox: no Node, no raw ipcRenderer in the page.
      const exposed = await page.evaluate(() => ({
        require: typeof (window as { require?: unknown }).require,
        process: typeof (window as { process?: unknown }).process,
        ipc: typeof (window as { ipcRenderer?: unknown }).ipcRenderer,
      }));
      expect(exposed).toEqual({ require: 'undefined', process: 'undefined', ipc: 'undefined' });
    } finally {
      await app.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
