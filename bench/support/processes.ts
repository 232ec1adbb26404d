// Child processes for benchmarks: the demo service, a client measured in isolation, and curl.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createInterface } from 'node:readline';
import { dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const TSX = resolve(import.meta.dirname, '../../node_modules/.bin/tsx');
/** What `node --import tsx` loads (the package's export), as a URL, so it does not depend on the cwd. */
const TSX_LOADER = pathToFileURL(resolve(import.meta.dirname, '../../node_modules/tsx/dist/loader.mjs')).href;

export interface DemoChild {
  url: string;
  apiKey: string | null;
  ref: { filename: string; subfolder: string; type: string } | null;
  /** SIGTERM: the service closes its listeners and jobs. */
  stop(): Promise<void>;
  /** SIGKILL, as a crashed or unplugged server goes; resolves once it has exited (at once when it already has). */
  kill(): Promise<void>;
}

function firstLine(child: ChildProcess): Promise<string> {
  return new Promise((resolveLine, reject) => {
    const rl = createInterface({ input: child.stdout! });
    rl.once('line', (line) => {
      rl.close();
      resolveLine(line);
    });
    child.once('exit', (code) => reject(new Error(`child exited (${code}) before answering`)));
  });
}

/**
 * The demo in its own process (demo-child.ts). `bigFile`: see there. `{ledger}`: a service with
 * FixedDelay jobs that notes its prompts in that file (tests/support/ledger-demo.ts).
 */
export async function startDemoChild(flavour: 'cloud' | 'local', extra?: string | { ledger: string }): Promise<DemoChild> {
  const args = extra === undefined ? [] : typeof extra === 'string' ? [extra] : ['--ledger', extra.ledger];
  // node --import tsx, not the tsx command: that runs the script in a grandchild, which a SIGKILL of
  // the command would leave running.
  const child = spawn(process.execPath, ['--import', TSX_LOADER, resolve(import.meta.dirname, 'demo-child.ts'), flavour, ...args], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const info = JSON.parse(await firstLine(child)) as Pick<DemoChild, 'url' | 'apiKey' | 'ref'>;
  const signal = (name: NodeJS.Signals): Promise<void> =>
    child.exitCode !== null || child.signalCode !== null
      ? Promise.resolve()
      : new Promise((resolveStop) => {
          child.once('exit', () => resolveStop());
          child.kill(name);
        });
  return { ...info, stop: () => signal('SIGTERM'), kill: () => signal('SIGKILL') };
}

/** Runs a script under tsx and returns the JSON it prints on its last stdout line. */
export function runJsonChild<T>(script: string, args: string[]): Promise<T> {
  return new Promise((resolveRun, reject) => {
    const child = spawn(TSX, [resolve(import.meta.dirname, script), ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.on('exit', (code) => {
      if (code !== 0) return reject(new Error(`${script} exited with ${code}`));
      const lines = out.trim().split('\n');
      resolveRun(JSON.parse(lines[lines.length - 1]!) as T);
    });
  });
}

/** curl's arguments for the upload the transfer benchmarks compare against: `file` as the image part to the demo's /api/upload/image. */
export function curlUploadArgs(file: string, server: string): string[] {
  return ['-s', '-f', '-o', '/dev/null', '-F', `image=@${file}`, '-F', 'type=input', '-F', 'overwrite=true', `${server}/api/upload/image`];
}

/** Times a command; resolves with seconds, rejects on a non-zero exit. */
export function timeCommand(command: string, args: string[]): Promise<number> {
  return new Promise((resolveTime, reject) => {
    const start = process.hrtime.bigint();
    const child = spawn(command, args, { stdio: ['ignore', 'ignore', 'inherit'] });
    child.on('exit', (code) => {
      if (code !== 0) return reject(new Error(`${command} exited with ${code}`));
      resolveTime(Number(process.hrtime.bigint() - start) / 1e9);
    });
  });
}

export interface MeasuredRun {
  /** Wall time, seconds. */
  seconds: number;
  /** CPU time of the process and every descendant it waited for (user + system), seconds. */
  cpuSeconds: number;
  /** Peak resident set size of the largest single process, MB (2^20 bytes). */
  maxRssMb: number;
  stdout: string;
}

const GNU_TIME = '/usr/bin/time';

/**
 * Runs a command under GNU time (its rusage covers the whole waited-for process tree, and its
 * peak RSS is the kernel's high-water mark, which no sampling would catch); rejects on a non-zero
 * exit. stderr passes through unless `quiet`, or goes line by line, with the time since the
 * start, to `onStderrLine`.
 */
export function measureCommand(
  command: string,
  args: string[],
  options: { env?: NodeJS.ProcessEnv; cwd?: string; quiet?: boolean; onStderrLine?: (line: string, atSeconds: number) => void } = {},
): Promise<MeasuredRun> {
  if (!existsSync(GNU_TIME)) return Promise.reject(new Error(`${GNU_TIME} (GNU time, Debian package "time") is needed to measure CPU time and peak RSS.`));
  const report = join(mkdtempSync(join(tmpdir(), 'flowdeck-bench-time-')), 'time.txt');
  return new Promise((resolveRun, reject) => {
    const start = process.hrtime.bigint();
    const child = spawn(GNU_TIME, ['-f', '%U %S %M', '-o', report, command, ...args], {
      stdio: ['ignore', 'pipe', options.onStderrLine ? 'pipe' : options.quiet ? 'ignore' : 'inherit'],
      env: options.env ?? process.env,
      cwd: options.cwd,
    });
    const onLine = options.onStderrLine;
    if (onLine && child.stderr) createInterface({ input: child.stderr }).on('line', (line) => onLine(line, Number(process.hrtime.bigint() - start) / 1e9));
    let stdout = '';
    child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
    child.on('exit', (code) => {
      const seconds = Number(process.hrtime.bigint() - start) / 1e9;
      const fields = readFileSync(report, 'utf8').trim().split('\n').pop()!.split(' ').map(Number);
      rmSync(dirname(report), { recursive: true, force: true });
      if (code !== 0) return reject(new Error(`${command} ${args.join(' ')} exited with ${code}\n${stdout.slice(-2000)}`));
      const [user, sys, maxRssKb] = fields as [number, number, number];
      resolveRun({ seconds, cpuSeconds: user + sys, maxRssMb: maxRssKb / 1024, stdout });
    });
  });
}
