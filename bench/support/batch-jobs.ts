// What the two plain batch clients (bench/batch-client.ts over fetch, bench/lean-client.ts over
// node:http) share besides their requests: the jobs' ends as the server's WebSocket tells them,
// and the loop over a folder's images, so the two differ only in how they talk HTTP.
import { mkdirSync, readdirSync } from 'node:fs';
import WebSocket from 'ws';

export interface FileRef {
  filename: string;
  subfolder: string;
  type: string;
}

interface Waiter {
  outputs: FileRef[];
  done: Promise<void>;
  finish(error?: Error): void;
}

function isRef(value: unknown): value is FileRef {
  return typeof value === 'object' && value !== null && typeof (value as FileRef).filename === 'string';
}

/**
 * One socket for every job. Events of instant jobs can arrive before the submit's answer, so a
 * job's waiter exists from before its submit (its id is chosen by the client) and events are kept per id.
 */
export class JobEnds {
  readonly #waiters = new Map<string, Waiter>();
  readonly #socket: WebSocket;

  private constructor(socket: WebSocket) {
    this.#socket = socket;
    socket.on('message', (data, isBinary) => {
      if (isBinary) return; // previews
      const message = JSON.parse(data.toString()) as {
        type: string;
        data: { prompt_id?: string; output?: Record<string, unknown>; exception_message?: string };
      };
      const promptId = message.data?.prompt_id;
      if (!promptId) return;
      const waiter = this.#waiterFor(promptId);
      if (message.type === 'executed' && message.data.output) {
        for (const value of Object.values(message.data.output)) if (Array.isArray(value)) waiter.outputs.push(...value.filter(isRef));
      } else if (message.type === 'execution_success') waiter.finish();
      else if (message.type === 'execution_error') waiter.finish(new Error(`job ${promptId} failed: ${message.data.exception_message ?? ''}`));
      else if (message.type === 'execution_interrupted') waiter.finish(new Error(`job ${promptId} was interrupted`));
    });
  }

  static async open(server: string, clientId: string): Promise<JobEnds> {
    const socket = new WebSocket(`${server.replace(/^http/, 'ws')}/ws?clientId=${clientId}`);
    await new Promise<void>((resolve, reject) => {
      socket.once('open', () => resolve());
      socket.once('error', reject);
    });
    return new JobEnds(socket);
  }

  /** Call before submitting the job: its outputs once it has ended. */
  expect(promptId: string): () => Promise<FileRef[]> {
    const waiter = this.#waiterFor(promptId);
    return async () => {
      await waiter.done;
      this.#waiters.delete(promptId);
      return waiter.outputs;
    };
  }

  close(): void {
    this.#socket.close();
  }

  #waiterFor(promptId: string): Waiter {
    let waiter = this.#waiters.get(promptId);
    if (!waiter) {
      let finish!: (error?: Error) => void;
      const done = new Promise<void>((resolve, reject) => (finish = (error) => (error ? reject(error) : resolve())));
      waiter = { outputs: [], done, finish };
      this.#waiters.set(promptId, waiter);
    }
    return waiter;
  }
}

/** Runs `runOne` over the folder's images, `concurrency` at a time; prints {jobs, outputs, seconds}. */
export async function runFolder(inDir: string, outDir: string, concurrency: number, runOne: (name: string) => Promise<number>): Promise<void> {
  const names = readdirSync(inDir)
    .filter((n) => /\.(png|jpe?g|webp)$/i.test(n))
    .sort();
  mkdirSync(outDir, { recursive: true });
  const started = performance.now();
  let next = 0;
  let outputs = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < names.length) outputs += await runOne(names[next++]!);
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  process.stdout.write(`${JSON.stringify({ jobs: names.length, outputs, seconds })}\n`);
}
