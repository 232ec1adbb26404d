#!/usr/bin/env node
// Commit subjects stay under 72 characters (details go in the body): checked for every commit
// after the one that brought this check in (earlier history is left as it was written). Part of
// `npm run lint`. Outside a git checkout, or in a shallow clone without that commit, it says so
// and passes: there is no history to check.
import { spawnSync } from 'node:child_process';

const LIMIT = 72;
const MARK = '^Lint: commit subjects under 72 characters, checked$';
const git = (args) => spawnSync('git', args, { encoding: 'utf8' });

const base = git(['log', '-1', '--format=%H', `--grep=${MARK}`]);
const since = base.status === 0 ? base.stdout.trim() : '';
if (since === '') {
  console.log('commit subjects: this history does not hold the commit that introduced the check; nothing to check');
  process.exit(0);
}
const log = git(['log', '--format=%h %s', `${since}..HEAD`]);
if (log.status !== 0) {
  console.log(`commit subjects: git log failed (${log.stderr.trim()}); nothing checked`);
  process.exit(0);
}
const long = log.stdout
  .split('\n')
  .filter(Boolean)
  .filter((line) => line.slice(line.indexOf(' ') + 1).length >= LIMIT);
if (long.length > 0) {
  console.error(`commit subjects of ${LIMIT} characters or more (put the details in the body):\n${long.join('\n')}`);
  process.exit(1);
}
