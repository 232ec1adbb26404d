// scripts/install.mjs: the nodedir decision (pure), and the script's --dry-run on this machine.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { chooseNodedir, headerVersion } from '../../scripts/install-decision.mjs';

const SCRIPT = resolve(import.meta.dirname, '../../scripts/install.mjs');

describe('headerVersion', () => {
  it('reads the version from node_version.h text', () => {
    expect(headerVersion('#define NODE_MAJOR_VERSION 20\n#define NODE_MINOR_VERSION 20\n#define NODE_PATCH_VERSION 2\n')).toBe('20.20.2');
    expect(headerVersion('#define NODE_MAJOR_VERSION 20\n')).toBeNull();
    expect(headerVersion('')).toBeNull();
  });
});

describe('chooseNodedir', () => {
  it('uses local headers only when they match this Node exactly', () => {
    expect(
      chooseNodedir({
        env: {},
        nodeVersion: '20.20.2',
        candidates: [
          { prefix: '/opt/node', version: null },
          { prefix: '/usr', version: '20.20.2' },
        ],
      }).nodedir,
    ).toBe('/usr');
    const other = chooseNodedir({ env: {}, nodeVersion: '22.1.0', candidates: [{ prefix: '/usr', version: '20.20.2' }] });
    expect(other.nodedir).toBeNull();
    expect(other.reason).toMatch(/would not match/);
    expect(chooseNodedir({ env: {}, nodeVersion: '20.20.2', candidates: [{ prefix: '/usr', version: null }] }).nodedir).toBeNull();
  });

  it('prefers the first matching prefix (this Node’s own)', () => {
    const both = [
      { prefix: '/home/me/.nvm/versions/node/v20.20.2', version: '20.20.2' },
      { prefix: '/usr', version: '20.20.2' },
    ];
    expect(chooseNodedir({ env: {}, nodeVersion: '20.20.2', candidates: both }).nodedir).toBe('/home/me/.nvm/versions/node/v20.20.2');
  });

  it('never overrides a nodedir the user set', () => {
    for (const env of [{ npm_config_nodedir: '/custom' }, { NPM_CONFIG_NODEDIR: '/custom' }]) {
      const decision = chooseNodedir({ env, nodeVersion: '20.20.2', candidates: [{ prefix: '/usr', version: '20.20.2' }] });
      expect(decision.nodedir).toBeNull();
      expect(decision.reason).toMatch(/already set \(\/custom\)/);
    }
  });
});

describe('node scripts/install.mjs --dry-run', () => {
  const clean = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' };
  // Run from an empty folder: were --dry-run ever ignored, npm would find no project here and
  // could not touch the shared dependencies.
  const cwd = mkdtempSync(join(tmpdir(), 'flowdeck-install-dry-'));
  afterAll(() => rmSync(cwd, { recursive: true, force: true }));
  function dryRun(args: string[], env: NodeJS.ProcessEnv = clean): { nodedir: string | null; command: string[] } {
    const run = spawnSync(process.execPath, [SCRIPT, '--dry-run', ...args], { env, encoding: 'utf8', cwd, timeout: 10_000 });
    expect(run.status, run.stderr).toBe(0);
    return JSON.parse(run.stdout) as { nodedir: string | null; command: string[] };
  }

  it('on this machine, with nothing set, points npm at the system headers exactly when they match this Node', () => {
    let system: string | null = null;
    try {
      system = headerVersion(readFileSync('/usr/include/node/node_version.h', 'utf8'));
    } catch {
      // no system headers here
    }
    const decision = dryRun([]);
    if (system === process.versions.node) expect(decision.nodedir).not.toBeNull();
    expect(decision.command).toEqual(['npm', 'install']);
  });

  it('--ci runs npm ci, arguments after -- go to npm, a set nodedir is kept, unknown options are refused', () => {
    expect(dryRun(['--ci', '--', '--ignore-scripts']).command).toEqual(['npm', 'ci', '--no-audit', '--no-fund', '--ignore-scripts']);
    expect(dryRun([], { ...clean, npm_config_nodedir: '/custom' }).nodedir).toBeNull();
    const bad = spawnSync(process.execPath, [SCRIPT, '--dry-run', '--frobnicate'], { env: clean, encoding: 'utf8', cwd, timeout: 10_000 });
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('unknown option --frobnicate');
  });
});
