// Summarises V8 .cpuprofile files (from `node --cpu-prof`, e.g. a benchmark run with
// FLOWDECK_BENCH_CPU_PROF=DIR): the functions with the most self time, and self time by file.
//   npx tsx bench/support/cpu-profile-top.ts FILE.cpuprofile... [--top N] [--until MS]
// --until MS: only the first MS milliseconds of each profile (e.g. a process's start-up).
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
  children?: number[];
}

interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

const args = process.argv.slice(2);
const topAt = args.indexOf('--top');
const top = topAt >= 0 ? Number(args[topAt + 1]) : 25;
const untilAt = args.indexOf('--until');
const untilUs = untilAt >= 0 ? Number(args[untilAt + 1]) * 1000 : Infinity;
const valueAt = new Set([topAt, untilAt].filter((at) => at >= 0).map((at) => at + 1));
const files = args.filter((a, i) => a.endsWith('.cpuprofile') && !valueAt.has(i));
if (files.length === 0) {
  console.error('usage: cpu-profile-top FILE.cpuprofile... [--top N]');
  process.exit(2);
}

const byFunction = new Map<string, number>();
// Inclusive: time a function was anywhere on the stack (counted once per sample), which finds the
// operation (a hash, a copy, a store write) that a flat self-time list scatters over its helpers.
const inclusive = new Map<string, number>();
const byFile = new Map<string, number>();
let totalUs = 0;
for (const file of files) {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const child of n.children ?? []) parent.set(child, n.id);
  const keyOf = (n: ProfileNode): string => {
    const { functionName, url, lineNumber } = n.callFrame;
    return `${functionName || '(anonymous)'} ${url ? `${basename(url)}:${lineNumber + 1}` : ''}`.trim();
  };
  // A sample's time is the delta that follows it (the V8 convention: timeDeltas[i+1] ends sample i).
  let elapsedUs = 0;
  for (let i = 0; i < profile.samples.length; i += 1) {
    const us = profile.timeDeltas[i + 1] ?? 0;
    elapsedUs += profile.timeDeltas[i] ?? 0;
    if (elapsedUs > untilUs) break;
    const node = nodes.get(profile.samples[i]!)!;
    const { functionName, url } = node.callFrame;
    const key = keyOf(node);
    byFunction.set(key, (byFunction.get(key) ?? 0) + us);
    const onStack = new Set<string>();
    for (let id: number | undefined = node.id; id !== undefined; id = parent.get(id)) onStack.add(keyOf(nodes.get(id)!));
    for (const k of onStack) inclusive.set(k, (inclusive.get(k) ?? 0) + us);
    const fileKey = url ? basename(url) : functionName;
    byFile.set(fileKey, (byFile.get(fileKey) ?? 0) + us);
    totalUs += us;
  }
}

const ms = (us: number): string => `${(us / 1000).toFixed(0).padStart(7)} ms ${((100 * us) / totalUs).toFixed(1).padStart(5)}%`;
console.log(`${files.length} profile(s), ${(totalUs / 1000).toFixed(0)} ms sampled`);
console.log(`top ${top} functions by self time:`);
for (const [key, us] of [...byFunction].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`  ${ms(us)}  ${key}`);
console.log(`top ${top} functions by inclusive time (on the stack):`);
const roots = new Set(['(root)', '(idle)', '(program)', '(garbage collector)']);
for (const [key, us] of [...inclusive]
  .filter(([k]) => !roots.has(k))
  .sort((a, b) => b[1] - a[1])
  .slice(0, top))
  console.log(`  ${ms(us)}  ${key}`);
console.log('self time by file:');
for (const [key, us] of [...byFile].sort((a, b) => b[1] - a[1]).slice(0, 12)) console.log(`  ${ms(us)}  ${key}`);
