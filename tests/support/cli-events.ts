// Runs the built CLI with --json and hands each stdout line to the caller as it comes, so a test
// or benchmark can act mid-run (kill a server after the Nth `done`), then checks what a watch left
// in its --out folder. Used by tests/pool and bench/pool.ts.
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { basename, extname } from 'node:path';
import { createInterface } from 'node:readline';

/** One --json line of `flowdeck watch`: `event` and whatever fields that event has. */
export type CliEvent = { event: string } & Record<string, unknown>;

export interface EventRun {
  code: number | null;
  events: CliEvent[];
  stderr: string;
  /** Wall time from spawn to exit. */
  seconds: number;
}

/**
 * `node CLI ...args` with `env` (added to PATH and HOME only, so no setting of the caller's leaks
 * in); each stdout line that is a JSON object goes to `onEvent` at once. Killed with SIGKILL after
 * `timeoutMs` (the run then resolves with code null).
 */
export function runCliEvents(
  cli: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  onEvent: (event: CliEvent, atSeconds: number) => void,
  timeoutMs: number,
): Promise<EventRun> {
  return new Promise((resolveRun, reject) => {
    const start = process.hrtime.bigint();
    const since = (): number => Number(process.hrtime.bigint() - start) / 1e9;
    const child = spawn(process.execPath, [cli, ...args], {
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const events: CliEvent[] = [];
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const lines = createInterface({ input: child.stdout });
    lines.on('line', (line) => {
      let parsed: unknown;
      try {
        parsed = JSON.parse(line);
      } catch {
        return; // not an event (the CLI prints only JSON lines with --json; a stray line is ignored)
      }
      if (typeof parsed !== 'object' || parsed === null || typeof (parsed as { event?: unknown }).event !== 'string') return;
      const event = parsed as CliEvent;
      events.push(event);
      onEvent(event, since());
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    // 'close' (not 'exit'): every stdout line has been read by then.
    child.on('close', (code) => {
      clearTimeout(timer);
      resolveRun({ code, events, stderr, seconds: since() });
    });
  });
}

/**
 * How many outputs (sidecars `*.json` aside) each input has in `outDir`. Outputs are named after
 * their input (`STEM_NODE_N.ext`), so two deliveries of one input show as a count of 2.
 */
export function outputsPerInput(outDir: string, inputNames: string[]): Map<string, number> {
  const counts = new Map(inputNames.map((name) => [basename(name, extname(name)), 0]));
  const stems = [...counts.keys()].sort((a, b) => b.length - a.length);
  for (const name of readdirSync(outDir)) {
    if (name.endsWith('.json')) continue;
    const stem = stems.find((s) => name.startsWith(`${s}_`));
    if (stem !== undefined) counts.set(stem, counts.get(stem)! + 1);
  }
  return counts;
}

/** The base URL without a trailing slash, for comparing a `done` event's `server` with a service's url. */
export const sameServer = (a: string, b: string): boolean => a.replace(/\/+$/, '') === b.replace(/\/+$/, '');
