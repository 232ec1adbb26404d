// The demo service as a child process of the built CLI (`flowdeck demo --local`), so that a test
// can kill it with SIGKILL mid-job, as a crashed or unplugged server would go.
import { spawn } from 'node:child_process';
import { CLI } from './cli';

export interface DemoProcess {
  url: string;
  /** SIGKILL; resolves once it has exited (at once when it already has). */
  kill(): Promise<void>;
}

/** Starts it on `port` (0: any free one) at real speed (time scale 1); resolves once it listens. */
export function startDemoProcess(port = 0): Promise<DemoProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, 'demo', '--local', '--time-scale', '1', '--port', String(port)], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' },
    });
    const kill = (): Promise<void> =>
      child.exitCode !== null || child.signalCode !== null
        ? Promise.resolve()
        : new Promise((done) => {
            child.once('exit', () => done());
            child.kill('SIGKILL');
          });
    let out = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      const url = /listening on (http:\/\/\S+)/.exec(out)?.[1];
      if (url) resolve({ url, kill });
    });
    child.once('exit', (code) => reject(new Error(`the demo exited (${code}) before listening: ${out}`)));
  });
}

/** A job that runs for about 80 s on the demo at real speed (200 steps of 400 ms): long enough to kill the server under it. */
export function slowWorkflow(prefix: string): string {
  return JSON.stringify({
    '1': { class_type: 'DemoSampler', inputs: { prompt: 'slow', seed: 1, steps: 200, width: 64, height: 48, cfg: 7, sampler_name: 'euler', delay_ms: 400 } },
    '2': { class_type: 'SaveImage', inputs: { images: ['1', 0], filename_prefix: prefix } },
  });
}
