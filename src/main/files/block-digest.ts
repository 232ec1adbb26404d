// The sha256 of the blocks a BlockWriter writes, taken on the one pass over the bytes.
//
// A big download's blocks live in shared memory and are hashed on a worker thread, while the main
// thread goes on reading the socket and copying chunks into the next block: for a 1 GiB output,
// sha256 alone is ~0.65 s of CPU (SHA-NI) and, on the main thread, it made the client the
// bottleneck of the transfer (main thread ~100 % busy; see bench/PROFILE-issue12.md). Small files
// are hashed inline: a worker's round trip would cost more than their hash.
import { createHash, type Hash } from 'node:crypto';
import { Worker } from 'node:worker_threads';

/** The digest of one stream of blocks, fed in file order. */
export interface BlockDigest {
  /** Takes `block`'s first `length` bytes; the block must not change until the answer settles. */
  update(block: Buffer, length: number): Promise<void> | null;
  /** The hex sha256 of everything fed; call once, after every update has settled. */
  digest(): Promise<string>;
  /** Forgets the stream (a failed download). */
  drop(): void;
}

class InlineDigest implements BlockDigest {
  readonly #hash: Hash = createHash('sha256');

  update(block: Buffer, length: number): null {
    this.#hash.update(block.subarray(0, length));
    return null;
  }

  digest(): Promise<string> {
    return Promise.resolve(this.#hash.digest('hex'));
  }

  drop(): void {}
}

// The worker keeps one hash per stream id; each message answers with its own sequence number.
// Plain CommonJS evaluated as a string: no file of its own to bundle or find at run time.
const WORKER_SOURCE = `
const { parentPort } = require('node:worker_threads');
const { createHash } = require('node:crypto');
const hashes = new Map();
parentPort.on('message', (m) => {
  try {
    if (m.op === 'update') {
      let hash = hashes.get(m.stream);
      if (!hash) hashes.set(m.stream, (hash = createHash('sha256')));
      hash.update(new Uint8Array(m.buffer, m.offset, m.length));
      parentPort.postMessage({ seq: m.seq });
    } else if (m.op === 'digest') {
      const hash = hashes.get(m.stream) || createHash('sha256');
      hashes.delete(m.stream);
      parentPort.postMessage({ seq: m.seq, hex: hash.digest('hex') });
    } else if (m.op === 'drop') {
      hashes.delete(m.stream);
    }
  } catch (error) {
    parentPort.postMessage({ seq: m.seq, error: String((error && error.message) || error) });
  }
});`;

interface Answer {
  seq: number;
  hex?: string;
  error?: string;
}

/** The one hashing thread of the process, made at the first big download and kept (unreferenced when idle). */
class HashThread {
  readonly #worker: Worker;
  readonly #waiting = new Map<number, { resolve: (answer: Answer) => void; reject: (error: Error) => void }>();
  #seq = 0;
  #streams = 0;
  #failure: Error | null = null;

  constructor() {
    this.#worker = new Worker(WORKER_SOURCE, { eval: true });
    this.#worker.on('message', (answer: Answer) => {
      const waiter = this.#waiting.get(answer.seq);
      if (!waiter) return;
      this.#waiting.delete(answer.seq);
      this.#idle();
      if (answer.error !== undefined) waiter.reject(new Error(`Could not hash the download: ${answer.error}`));
      else waiter.resolve(answer);
    });
    const fail = (error: Error): void => {
      this.#failure ??= error;
      if (thread === this) thread = null; // the next download starts a new one
      for (const waiter of this.#waiting.values()) waiter.reject(this.#failure);
      this.#waiting.clear();
    };
    this.#worker.on('error', (error) => fail(new Error(`The hashing thread failed: ${error.message}`, { cause: error })));
    this.#worker.on('exit', (code) => fail(new Error(`The hashing thread stopped (exit ${code}).`)));
    // After the listeners: adding a 'message' listener references the worker's port again, and an
    // idle hashing thread must never keep the process alive.
    this.#worker.unref();
  }

  newStream(): number {
    this.#streams += 1;
    return this.#streams;
  }

  /** Sends one message and waits for its answer; the worker holds the process open meanwhile. */
  ask(message: { op: 'update' | 'digest'; stream: number; buffer?: ArrayBufferLike; offset?: number; length?: number }): Promise<Answer> {
    if (this.#failure) return Promise.reject(this.#failure);
    const seq = ++this.#seq;
    return new Promise<Answer>((resolve, reject) => {
      this.#waiting.set(seq, { resolve, reject });
      if (this.#waiting.size === 1) this.#worker.ref();
      this.#worker.postMessage({ ...message, seq });
    });
  }

  tell(message: { op: 'drop'; stream: number }): void {
    if (!this.#failure) this.#worker.postMessage({ ...message, seq: 0 });
  }

  #idle(): void {
    if (this.#waiting.size === 0) this.#worker.unref();
  }
}

let thread: HashThread | null = null;

class ThreadDigest implements BlockDigest {
  readonly #thread: HashThread;
  readonly #stream: number;

  constructor(hashThread: HashThread) {
    this.#thread = hashThread;
    this.#stream = hashThread.newStream();
  }

  update(block: Buffer, length: number): Promise<void> {
    // The block is shared memory: the worker reads the very bytes the file writes take.
    return this.#thread.ask({ op: 'update', stream: this.#stream, buffer: block.buffer, offset: block.byteOffset, length }).then(() => undefined);
  }

  async digest(): Promise<string> {
    const answer = await this.#thread.ask({ op: 'digest', stream: this.#stream });
    return answer.hex ?? '';
  }

  drop(): void {
    this.#thread.tell({ op: 'drop', stream: this.#stream });
  }
}

/**
 * A digest for a stream of blocks. `sharedBlocks`: the blocks are views of a SharedArrayBuffer, so
 * the hashing thread can read them where they are; otherwise the hash is taken inline.
 */
export function blockDigest(sharedBlocks: boolean): BlockDigest {
  if (!sharedBlocks) return new InlineDigest();
  try {
    thread ??= new HashThread();
  } catch {
    return new InlineDigest(); // no worker threads here: hashing inline is slower, not wrong
  }
  return new ThreadDigest(thread);
}
