// What the plain batch clients (bench/batch-client.ts over fetch, bench/lean-client.ts over
// node:http, bench/sdk-batch-client.ts on the community SDK) share besides their requests: the
// jobs' ends as the server's messages tell them, and the loop over a folder's images, so they
// differ only in how they talk to the server.
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

/** A server message as the WebSocket carries it (JSON text). */
export interface ServerMessage {
  type: string;
  data?: { prompt_id?: string; output?: Record<string, unknown>; exception_message?: string };
}

/**
 * The jobs' ends as the server's messages tell them, whoever carries the messages (a plain
 * WebSocket here, the community SDK's socket in bench/sdk-batch-client.ts). Events of instant jobs
 * can arrive before the submit's answer, so a job's waiter is made by whichever comes first, its
 * `expect` or its first event, and events are kept per id.
 */
export class JobEndBook {
  readonly #waiters = new Map<string, Waiter>();

  /** One message from the server; messages without a job are ignored. */
  accept(message: ServerMessage): void {
    const promptId = message.data?.prompt_id;
    if (!promptId || !message.data) return;
    const waiter = this.#waiterFor(promptId);
    if (message.type === 'executed' && message.data.output) {
      for (const value of Object.values(message.data.output)) if (Array.isArray(value)) waiter.outputs.push(...value.filter(isRef));
    } else if (message.type === 'execution_success') waiter.finish();
    else if (message.type === 'execution_error') waiter.finish(new Error(`job ${promptId} failed: ${message.data.exception_message ?? ''}`));
    else if (message.type === 'execution_interrupted') waiter.finish(new Error(`job ${promptId} was interrupted`));
  }

  /** Call before the job's answer can be missed: its outputs once it has ended. */
  expect(promptId: string): () => Promise<FileRef[]> {
    const waiter = this.#waiterFor(promptId);
    return async () => {
      await waiter.done;
      this.#waiters.delete(promptId);
      return waiter.outputs;
    };
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

/** One plain WebSocket for every job (the id of each is chosen by the client before its submit). */
export class JobEnds {
  readonly #book = new JobEndBook();
  readonly #socket: WebSocket;

  private constructor(socket: WebSocket) {
    this.#socket = socket;
    socket.on('message', (data, isBinary) => {
      if (isBinary) return; // previews
      this.#book.accept(JSON.parse(data.toString()) as ServerMessage);
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
    return this.#book.expect(promptId);
  }

  close(): void {
    this.#socket.close();
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
