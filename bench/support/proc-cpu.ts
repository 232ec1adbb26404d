// CPU time and memory of processes as the operating system counts them (Linux /proc): a process's
// own user + system time (/proc/PID/stat fields 14 and 15, in clock ticks), its RSS, and the
// descendants of a process by walking every /proc/PID/stat's parent id.
import { readdirSync, readFileSync } from 'node:fs';

/** Clock ticks per second of /proc/PID/stat (USER_HZ, 100 on Linux for every architecture in use). */
const TICKS_PER_SECOND = 100;

interface StatFields {
  pid: number;
  comm: string;
  ppid: number;
  cpuSeconds: number;
}

function readStat(pid: number): StatFields | null {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null; // gone
  }
  // comm is in parentheses and may itself hold spaces or parentheses: split after the last ')'.
  const close = text.lastIndexOf(')');
  const comm = text.slice(text.indexOf('(') + 1, close);
  const rest = text.slice(close + 2).split(' ');
  // rest[0] is field 3 (state); utime and stime are fields 14 and 15.
  return { pid, comm, ppid: Number(rest[1]), cpuSeconds: (Number(rest[11]) + Number(rest[12])) / TICKS_PER_SECOND };
}

/** User + system CPU seconds of one process (not its children); 0 once it has gone. */
export function cpuSecondsOf(pid: number): number {
  return readStat(pid)?.cpuSeconds ?? 0;
}

/** Resident set size in bytes (VmRSS), 0 once it has gone. */
export function rssOf(pid: number): number {
  try {
    const match = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

/** Every living descendant of `root` (not root itself), with its command name. */
export function descendantsOf(root: number): { pid: number; comm: string }[] {
  const all: StatFields[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const stat = readStat(Number(name));
    if (stat) all.push(stat);
  }
  const found: { pid: number; comm: string }[] = [];
  const frontier = [root];
  while (frontier.length > 0) {
    const parent = frontier.pop()!;
    for (const stat of all) {
      if (stat.ppid !== parent) continue;
      found.push({ pid: stat.pid, comm: stat.comm });
      frontier.push(stat.pid);
    }
  }
  return found;
}

/** Chromium's process kind from its command line (--type=renderer, gpu-process, ...); "browser" without one. */
export function chromiumKind(pid: number): string {
  try {
    const args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split(/[\0 ]/); // Chromium rewrites its argv with spaces
    const type = args.find((a) => a.startsWith('--type='))?.slice('--type='.length);
    if (!type) return 'browser';
    const service = args.find((a) => a.startsWith('--utility-sub-type='))?.slice('--utility-sub-type='.length);
    return service ? `${type}:${service.split('.').pop()}` : type;
  } catch {
    return 'gone';
  }
}

/** CPU seconds summed over a set of processes, read at the start and the end of a window. */
export class CpuWindow {
  readonly #start = new Map<number, number>();
  readonly #startedAt = performance.now();

  constructor(readonly pids: readonly number[]) {
    for (const pid of pids) this.#start.set(pid, cpuSecondsOf(pid));
  }

  /** CPU seconds each process used in the window so far. */
  perProcess(): Map<number, number> {
    const out = new Map<number, number>();
    for (const [pid, start] of this.#start) out.set(pid, Math.max(0, cpuSecondsOf(pid) - start));
    return out;
  }

  /** Seconds of CPU used in the window, and the window's wall seconds. */
  read(): { cpuSeconds: number; wallSeconds: number; percentOfCore: number } {
    let cpu = 0;
    for (const [pid, start] of this.#start) cpu += Math.max(0, cpuSecondsOf(pid) - start);
    const wall = (performance.now() - this.#startedAt) / 1000;
    return { cpuSeconds: cpu, wallSeconds: wall, percentOfCore: (100 * cpu) / wall };
  }
}

/** The 1-minute load average (to say how loaded the shared machine was). */
export function loadAverage(): number {
  return Number(readFileSync('/proc/loadavg', 'utf8').split(' ')[0]);
}
