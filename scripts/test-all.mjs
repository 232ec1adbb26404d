#!/usr/bin/env node
// The README's test command: build, type checks, lint, unit and integration tests (vitest), keychain
// tests under a private D-Bus session, and the Playwright end-to-end specs in Chromium. Prints one
// closing line "N passed, N failed, N skipped" over every stage and exits non-zero on any failure.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const results = join(root, '.test-results');
rmSync(results, { recursive: true, force: true });
mkdirSync(results, { recursive: true });
const totals = { passed: 0, failed: 0, skipped: 0 };
const failures = [];

function run(label, command, args, env = {}) {
  process.stdout.write(`\n=== ${label}: ${command} ${args.join(' ')}\n`);
  const child = spawnSync(command, args, { cwd: root, stdio: 'inherit', env: { ...process.env, ...env } });
  const ok = child.status === 0;
  if (!ok) failures.push(`${label} (exit ${child.status ?? child.signal})`);
  return ok;
}

function addVitest(label, file) {
  if (!existsSync(file)) {
    failures.push(`${label}: no results were written`);
    totals.failed += 1;
    return;
  }
  const report = JSON.parse(readFileSync(file, 'utf8'));
  totals.passed += report.numPassedTests ?? 0;
  totals.failed += report.numFailedTests ?? 0;
  totals.skipped += (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
}

function addPlaywright(label, file) {
  if (!existsSync(file)) {
    failures.push(`${label}: no results were written`);
    totals.failed += 1;
    return;
  }
  const report = JSON.parse(readFileSync(file, 'utf8'));
  const stats = report.stats ?? {};
  totals.passed += (stats.expected ?? 0) + (stats.flaky ?? 0);
  totals.failed += stats.unexpected ?? 0;
  totals.skipped += stats.skipped ?? 0;
}

const stages = new Set((process.env.FLOWDECK_TEST_STAGES ?? 'build,typecheck,lint,unit,keychain,e2e').split(','));

if (stages.has('build') && !run('build', 'npx', ['electron-vite', 'build'])) {
  // Nothing else can run against a broken build.
  console.log(`\n0 passed, 1 failed, 0 skipped`);
  process.exit(1);
}
if (stages.has('typecheck')) run('typecheck', 'npm', ['run', '--silent', 'typecheck']);
// The linter, the layer rule (no import against the layers' order, no cycle) and unused exports.
if (stages.has('lint')) run('lint (eslint, layers, unused exports)', 'npm', ['run', '--silent', 'lint']);
if (stages.has('unit')) {
  const file = join(results, 'vitest.json');
  run('unit and integration tests', 'npx', ['vitest', 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${file}`], { FLOWDECK_BUILT: '1' });
  addVitest('unit and integration tests', file);
}
if (stages.has('keychain')) {
  const file = join(results, 'keychain.json');
  const vitest = join(root, 'node_modules', 'vitest', 'vitest.mjs');
  run('keychain tests (private D-Bus session)', join(root, 'scripts', 'with-keyring.sh'), [
    process.execPath,
    vitest,
    'run',
    '--config',
    'tests/keychain/vitest.config.ts',
    '--reporter=default',
    '--reporter=json',
    `--outputFile.json=${file}`,
  ]);
  addVitest('keychain tests', file);
}
if (stages.has('e2e')) {
  const file = join(results, 'playwright.json');
  run('end-to-end (Playwright, Chromium)', 'npx', ['playwright', 'test', '--reporter=list,json'], {
    PLAYWRIGHT_JSON_OUTPUT_NAME: file,
    FLOWDECK_PW_JSON: file,
  });
  addPlaywright('end-to-end', file);
}

if (failures.length > 0) console.log(`\nFailed stages: ${failures.join('; ')}`);
console.log(`\n${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped`);
process.exit(failures.length > 0 || totals.failed > 0 ? 1 : 0);
