// `npm start` without an Electron binary says why plainly, never the electron package's
// "failed to install correctly ... delete node_modules/electron" advice.
import { describe, expect, it } from 'vitest';
import { electronProblem } from '../../scripts/start-messages.mjs';

// What `require('electron')` prints on a machine that reaches only the npm registry (Electron 45).
const OFFLINE = `Downloading Electron binary...
TypeError: fetch failed
    at node:internal/deps/undici/undici:14976:13
Error: Electron failed to install correctly. Please delete \`node_modules/electron\` and run "npx install-electron --no" manually.
    at getElectronPath (/work/main/node_modules/electron/index.js:43:13)`;

describe('electronProblem', () => {
  it('says the first-launch download could not reach its server, without the reinstall advice', () => {
    const reason = electronProblem(OFFLINE);
    expect(reason).toMatch(/download could not reach its server/);
    expect(reason).not.toMatch(/failed to install|delete|node_modules/);
  });

  it('names a missing package, and otherwise gives a plain general reason', () => {
    expect(electronProblem("Error: Cannot find module 'electron'")).toMatch(/not installed/);
    const other = electronProblem('Error: Electron failed to install correctly. Please delete node_modules/electron');
    expect(other).not.toMatch(/failed to install|delete/);
  });
});
