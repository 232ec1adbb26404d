#!/usr/bin/env node
// The first command of the README: installs the dependencies (`npm install`; `npm ci` with --ci),
// first pointing native module builds at Node's local headers when this machine has them for this
// very Node (see install-decision.mjs), so a machine without internet beyond the npm registry
// installs as well as one with it. --dry-run prints the decision and the command, and runs nothing.
// Arguments after `--` go to npm. Exits with npm's exit code.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { chooseNodedir, headerVersion } from './install-decision.mjs';

function headersAt(prefix) {
  try {
    return headerVersion(readFileSync(join(prefix, 'include', 'node', 'node_version.h'), 'utf8'));
  } catch {
    return null;
  }
}

const args = process.argv.slice(2);
const extra = args.includes('--') ? args.slice(args.indexOf('--') + 1) : [];
const own = args.includes('--') ? args.slice(0, args.indexOf('--')) : args;
const unknown = own.filter((a) => a !== '--ci' && a !== '--dry-run');
if (unknown.length > 0) {
  process.stderr.write(`install: unknown option ${unknown.join(' ')}\nUsage: node scripts/install.mjs [--ci] [--dry-run] [-- NPM ARGS]\n`);
  process.exit(2);
}

// This Node's own prefix first (nvm, official tarballs ship include/node), then the system's.
const prefixes = [...new Set([dirname(dirname(process.execPath)), '/usr', '/usr/local'])];
const decision = chooseNodedir({
  env: process.env,
  nodeVersion: process.versions.node,
  candidates: prefixes.map((prefix) => ({ prefix, version: headersAt(prefix) })),
});
const npmArgs = own.includes('--ci') ? ['ci', '--no-audit', '--no-fund', ...extra] : ['install', ...extra];
const env = decision.nodedir ? { ...process.env, npm_config_nodedir: decision.nodedir } : process.env;

if (own.includes('--dry-run')) {
  process.stdout.write(`${JSON.stringify({ nodedir: decision.nodedir, reason: decision.reason, command: ['npm', ...npmArgs] })}\n`);
  process.exit(0);
}
process.stdout.write(`install: ${decision.reason}\n`);
const child = spawn('npm', npmArgs, { stdio: 'inherit', env, shell: process.platform === 'win32' });
child.on('error', (error) => {
  process.stderr.write(`install: could not run npm (${error.message}). Is npm on the PATH?\n`);
  process.exit(1);
});
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
