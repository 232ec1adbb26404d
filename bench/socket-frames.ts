// The events socket's text frames: CPU per job of validating them with the zod schemas alone and
// with the hand-checked fast path in front (src/main/service/message-fast-path.ts), side by side in
// one process, alternating. The frames are a real local server's recording of one job
// (tests/demo/traces/simple_prompt_ws.jsonl: status, execution_start/cached, executing,
// progress_state, executed, execution_success). "First 200 jobs" is what a 200-image
// `watch --once` sees (code not yet optimised: each side in a fresh child process, alternating),
// "steady" the same after 5,000 more (alternating rounds in this process).
//   npx tsx bench/socket-frames.ts [rounds]
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { parseServerMessage, parseWithSchemas, type MessageParseResult } from '@main/service/messages';

const ROUNDS = Math.max(1, Number(process.argv[2] ?? 3));
const frames = readFileSync(new URL('../tests/demo/traces/simple_prompt_ws.jsonl', import.meta.url), 'utf8')
  .split('\n')
  .filter((l) => l.trim() !== '');

function cpuMsPerJob(parse: (text: string) => MessageParseResult, jobs: number): number {
  const start = process.cpuUsage();
  for (let i = 0; i < jobs; i += 1) for (const f of frames) if (!parse(f).ok) throw new Error(`rejected: ${f.slice(0, 120)}`);
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000 / jobs;
}

const schemasOnly = (text: string): MessageParseResult => parseWithSchemas(JSON.parse(text) as unknown);
const med = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

if (process.argv[2] === '--cold') {
  // A child: one side's first 200 jobs in a fresh process, printed for the parent.
  console.log(cpuMsPerJob(process.argv[3] === 'fast' ? parseServerMessage : schemasOnly, 200));
  process.exit(0);
}
const cold = (side: 'schemas' | 'fast'): number =>
  Number(execFileSync(process.execPath, [...process.execArgv, import.meta.filename, '--cold', side], { encoding: 'utf8' }).trim());
const first = { schemas: [] as number[], fast: [] as number[] };
for (let round = 0; round < ROUNDS; round += 1) {
  const order = round % 2 === 0 ? (['schemas', 'fast'] as const) : (['fast', 'schemas'] as const);
  for (const side of order) first[side].push(cold(side));
}
const steady = { schemas: [] as number[], fast: [] as number[] };
for (let round = 0; round < ROUNDS; round += 1) {
  const order = round % 2 === 0 ? (['schemas', 'fast'] as const) : (['fast', 'schemas'] as const);
  for (const side of order) steady[side].push(cpuMsPerJob(side === 'fast' ? parseServerMessage : schemasOnly, 5000));
}
console.log(`${frames.length} text frames per job (a real server's recording), JSON.parse included on both sides:`);
console.log(
  `  first 200 jobs (median of ${ROUNDS} fresh processes each)  schemas ${med(first.schemas).toFixed(3)} ms/job, fast path ${med(first.fast).toFixed(3)} ms/job: ${(med(first.fast) / med(first.schemas)).toFixed(2)}x`,
);
console.log(
  `  steady (median)  schemas ${med(steady.schemas).toFixed(4)} ms/job, fast path ${med(steady.fast).toFixed(4)} ms/job: ${(med(steady.fast) / med(steady.schemas)).toFixed(2)}x`,
);
console.log(
  `  load average ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')} (2 cores, shared)`,
);
