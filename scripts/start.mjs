#!/usr/bin/env node
// `npm start`: opens the app. Electron fetches its binary on first launch; where it cannot (an
// offline machine, a locked-down CI box), the same app runs in the browser through the harness,
// and this says so plainly rather than failing.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { electronProblem } from './start-messages.mjs';

const root = new URL('..', import.meta.url).pathname;
const require = createRequire(import.meta.url);

function electronBinary() {
  // A child process, because requiring electron may download it (and throw when it cannot).
  const probe = spawnSync(process.execPath, ['-e', "process.stdout.write(String(require('electron')))"], {
    cwd: root,
    encoding: 'utf8',
    timeout: 300_000,
  });
  const path = probe.status === 0 ? probe.stdout.trim() : '';
  if (path && existsSync(path)) return { path };
  return { reason: electronProblem(`${probe.stdout ?? ''}\n${probe.stderr ?? ''}`) };
}

const electron = electronBinary();
if (electron.path) {
  const child = spawn(process.execPath, [require.resolve('electron-vite/bin/electron-vite.js'), 'preview'], { cwd: root, stdio: 'inherit' });
  child.on('exit', (code) => process.exit(code ?? 0));
} else {
  console.log('The Electron binary is not available on this machine, so the app window cannot open here.');
  console.log(`(${electron.reason})`);
  console.log('Starting the same app in your browser instead (the browser harness, on the built-in demo service):');
  const child = spawn(process.execPath, ['out/main/harness.js', ...process.argv.slice(2)], { cwd: root, stdio: 'inherit' });
  const stop = () => child.kill('SIGTERM');
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  child.on('exit', (code) => process.exit(code ?? 0));
}
