// Child processes for benchmarks: the demo service, a client measured in isolation, and curl.
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { resolve } from 'node:path';

const TSX = resolve(import.meta.dirname, '../../node_modules/.bin/tsx');

export interface DemoChild {
  url: string;
  apiKey: string | null;
  ref: { filename: string; subfolder: string; type: string } | null;
  stop(): Promise<void>;
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

export async function startDemoChild(flavour: 'cloud' | 'local', bigFile?: string): Promise<DemoChild> {
  const child = spawn(TSX, [resolve(import.meta.dirname, 'demo-child.ts'), flavour, ...(bigFile ? [bigFile] : [])], { stdio: ['ignore', 'pipe', 'inherit'] });
  const info = JSON.parse(await firstLine(child)) as Omit<DemoChild, 'stop'>;
  return {
    ...info,
    stop: () =>
      new Promise((resolveStop) => {
        child.once('exit', () => resolveStop());
        child.kill('SIGTERM');
      }),
  };
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
