// Summarises a Chromium trace (CDP Tracing, JSON array of events, as bench/app-cost.ts writes with
// FLOWDECK_BENCH_TRACE=DIR): busy time per process/thread (top-level RunTask slices) and the
// longest-running event names (inclusive durations of complete events; nested names overlap).
//   npx tsx bench/support/trace-top.ts FILE.json [--top N]
import { readFileSync } from 'node:fs';

interface TraceEvent {
  name: string;
  ph: string;
  pid: number;
  tid: number;
  dur?: number;
  args?: { name?: string };
}

const args = process.argv.slice(2);
const topAt = args.indexOf('--top');
const top = topAt >= 0 ? Number(args[topAt + 1]) : 30;
const file = args.find((a) => a.endsWith('.json'));
if (!file) {
  console.error('usage: trace-top FILE.json [--top N]');
  process.exit(2);
}
const parsed = JSON.parse(readFileSync(file, 'utf8')) as TraceEvent[] | { traceEvents: TraceEvent[] };
const events = Array.isArray(parsed) ? parsed : parsed.traceEvents;
const threadNames = new Map<string, string>();
const processNames = new Map<number, string>();
for (const e of events) {
  if (e.ph === 'M' && e.name === 'thread_name') threadNames.set(`${e.pid}:${e.tid}`, e.args?.name ?? '?');
  if (e.ph === 'M' && e.name === 'process_name') processNames.set(e.pid, e.args?.name ?? '?');
}
const thread = (e: TraceEvent): string => `${processNames.get(e.pid) ?? e.pid}/${threadNames.get(`${e.pid}:${e.tid}`) ?? e.tid}`;
const busy = new Map<string, number>();
const byName = new Map<string, number>();
for (const e of events) {
  if (e.ph !== 'X' || e.dur === undefined) continue;
  if (e.name === 'ThreadControllerImpl::RunTask' || e.name === 'RunTask') busy.set(thread(e), (busy.get(thread(e)) ?? 0) + e.dur);
  else byName.set(`${e.name} [${thread(e)}]`, (byName.get(`${e.name} [${thread(e)}]`) ?? 0) + e.dur);
}
console.log('busy time per thread (top-level tasks), ms:');
for (const [name, us] of [...busy].sort((a, b) => b[1] - a[1]).slice(0, 15)) console.log(`  ${(us / 1000).toFixed(1).padStart(9)}  ${name}`);
console.log(`event names by inclusive time, ms (top ${top}):`);
for (const [name, us] of [...byName].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`  ${(us / 1000).toFixed(1).padStart(9)}  ${name}`);
