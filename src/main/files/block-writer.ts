// Writes one stream of bytes into one or more new files (a download and its tee copies) in large
// blocks, each block written to every file from the same memory: the bytes are read from the
// network once whatever the number of files, and each file gets one write call per block.
//
// Big files bypass the page cache (O_DIRECT, Linux): their bytes go to the disk straight from the
// block, without the kernel copying them into page-cache pages first. Every download is fsynced
// before it is published anyway, so the page cache would only add that copy (for a 1 GiB output
// and its --out copy, 2 GiB of memcpy into freshly allocated pages: 2-3 s of system CPU on the
// benchmark VM, ~0.4 s on bare metal) and a long fsync at the end. O_DIRECT wants the memory,
// the file offset and the length aligned, so blocks are page-aligned memory (a WebAssembly.Memory:
// V8 maps it on its own pages) and the last block is padded to the alignment, then the file is
// truncated to its real size. A file system or platform without O_DIRECT (tmpfs before Linux 6.6,
// some FUSE file systems, macOS, Windows) gets ordinary buffered writes of the same blocks; so does
// a file whose direct write is refused.
import { constants as fsConstants } from 'node:fs';
import * as fs from 'node:fs/promises';
import { blockDigest, type BlockDigest } from './block-digest';

/**
 * One block: the unit of a write call. 1 GiB alone, O_DIRECT, 4 writes in flight: 2 MiB blocks
 * 0.57-0.64 s, 4 MiB 0.58-0.71 s (same within noise); a 1 GiB download's peak RSS growth
 * (bench/support/download-child.ts) 48-58 MB with 2 MiB, 59-71 MB with 4 MiB (target < 64 MB).
 */
export const BLOCK_BYTES = 2 << 20;
/** Blocks one writer fills and writes at once (in flight + the one filling): 8 MiB per download. */
const BLOCKS_PER_WRITER = 4;
/** O_DIRECT offsets and lengths: the largest logical block size in use (4Kn disks). */
const DIRECT_ALIGN = 4096;
/** Below this size a file is written through the page cache: too small for O_DIRECT to pay. */
export const DIRECT_MIN_BYTES = 8 << 20;
/** The largest block of a file written through the page cache. */
const SMALL_BLOCK_BYTES = 1 << 20;
/**
 * Writers with aligned blocks at once; more concurrent big downloads are written buffered. Each
 * WebAssembly.Memory reserves ~10 GiB of address space (V8's guard region; not memory), so their
 * number stays small and fixed.
 */
const DIRECT_WRITERS = 2;

const O_DIRECT: number = (fsConstants as { O_DIRECT?: number }).O_DIRECT ?? 0;
/** The one WebAssembly API used here (the main process's TypeScript lib has no WebAssembly values). */
const { Memory } = (
  globalThis as unknown as {
    WebAssembly: { Memory: new (size: { initial: number; maximum: number; shared: boolean }) => { readonly buffer: SharedArrayBuffer } };
  }
).WebAssembly;

/** Sets of aligned blocks made so far (in use or kept). */
let alignedSets = 0;
/** A freed set kept for the next big download (hot folders download many in a row): 8 MiB once touched. */
let keptSet: Buffer[] | null = null;

/** BLOCKS_PER_WRITER page-aligned blocks, or null when DIRECT_WRITERS writers have theirs. */
function takeAlignedSet(): Buffer[] | null {
  const kept = keptSet;
  keptSet = null;
  if (kept) return kept;
  if (alignedSets >= DIRECT_WRITERS) return null;
  alignedSets += 1;
  // A WebAssembly.Memory's bytes start on a page boundary of their own mapping (mmap'ed lazily:
  // only the blocks a download fills take memory). Shared, so the hashing thread reads the blocks
  // in place (block-digest.ts).
  const pages = (BLOCKS_PER_WRITER * BLOCK_BYTES) / 65536;
  const memory = new Memory({ initial: pages, maximum: pages, shared: true });
  return Array.from({ length: BLOCKS_PER_WRITER }, (_, i) => Buffer.from(memory.buffer, i * BLOCK_BYTES, BLOCK_BYTES));
}

function releaseAlignedSet(set: Buffer[]): void {
  if (keptSet === null) keptSet = set;
  else alignedSets -= 1; // dropped: the garbage collector unmaps it
}

const roundUp = (n: number, to: number): number => Math.ceil(n / to) * to;

/** One new file being written; switches itself to buffered writes when a direct one is refused. */
class TargetFile {
  /** Set once the file goes on buffered (several blocks may be in flight when that happens). */
  #toBuffered: Promise<void> | null = null;

  private constructor(
    readonly path: string,
    private handle: fs.FileHandle,
    private direct: boolean,
    /** Opened O_DIRECT: its last direct block may carry padding, cut by finish(). */
    private readonly openedDirect: boolean,
  ) {}

  /** Creates `path` (it must not exist: 'wx'), directly written when `direct` and possible. */
  static async create(path: string, direct: boolean): Promise<TargetFile> {
    if (direct && O_DIRECT !== 0) {
      try {
        const flags = fsConstants.O_WRONLY | fsConstants.O_CREAT | fsConstants.O_EXCL | O_DIRECT;
        return new TargetFile(path, await fs.open(path, flags, 0o666), true, true);
      } catch (error) {
        // EINVAL: this file system has no O_DIRECT (older tmpfs, some FUSE). Anything else is real.
        if ((error as NodeJS.ErrnoException).code !== 'EINVAL') throw error;
      }
    }
    return new TargetFile(path, await fs.open(path, 'wx'), false, false);
  }

  /** Writes `length` bytes of `block` at `position`; `length` is padded to the alignment when direct. */
  async write(block: Buffer, length: number, position: number): Promise<void> {
    if (this.direct) {
      try {
        await writeAll(this.handle, this.path, block, roundUp(length, DIRECT_ALIGN), position);
        return;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EINVAL') throw error;
        // The file system took the O_DIRECT open but not this write (alignment): go on buffered.
        this.#toBuffered ??= this.#reopenBuffered();
        await this.#toBuffered;
      }
    }
    await writeAll(this.handle, this.path, block, length, position);
  }

  async #reopenBuffered(): Promise<void> {
    const direct = this.handle;
    this.handle = await fs.open(this.path, 'r+');
    this.direct = false;
    // FileHandle.close() waits for the writes still under way on it.
    await direct.close().catch(() => {});
  }

  /** Cuts the padding of a direct last block and fsyncs, once, on the descriptor that wrote. */
  async finish(size: number): Promise<void> {
    if (this.openedDirect) await this.handle.truncate(size);
    await this.handle.sync();
  }

  get isDirect(): boolean {
    return this.direct;
  }

  async close(): Promise<void> {
    await this.#toBuffered?.catch(() => {});
    await this.handle.close();
  }
}

/** A positioned write of `length` bytes, looping over short writes. */
async function writeAll(handle: fs.FileHandle, path: string, block: Buffer, length: number, position: number): Promise<void> {
  for (let done = 0; done < length;) {
    const { bytesWritten } = await handle.write(block, done, length - done, position + done);
    if (bytesWritten <= 0) throw new Error(`Could not write ${path}: no progress.`);
    done += bytesWritten;
  }
}

/**
 * Takes the chunks of one stream in order (write), copies them into blocks and writes every full
 * block to all files at its offset; end() writes the rest and fsyncs each file once. At most
 * BLOCKS_PER_WRITER blocks are in use: write() answers a promise when the caller must wait.
 */
export class BlockWriter {
  readonly #files: TargetFile[];
  /** This writer's aligned blocks (takeAlignedSet), or null: blocks of its own, written buffered. */
  readonly #alignedSet: Buffer[] | null;
  readonly #blockBytes: number;
  readonly #free: Buffer[] = [];
  #allocated = 0;
  #current: Buffer | null = null;
  #filled = 0;
  /** File offset of the current block's first byte. */
  #offset = 0;
  readonly #inFlight = new Set<Promise<void>>();
  #failure: unknown = null;
  #waiting: { resolve: () => void; reject: (error: unknown) => void } | null = null;
  #closed = false;
  #digestTaken = false;
  /** The sha256 of the bytes written, when asked for. */
  readonly #digest: BlockDigest | null;

  private constructor(files: TargetFile[], alignedSet: Buffer[] | null, blockBytes: number, digest: boolean) {
    this.#files = files;
    this.#alignedSet = alignedSet;
    this.#blockBytes = blockBytes;
    this.#digest = digest ? blockDigest(alignedSet !== null) : null;
  }

  /**
   * Creates every path (fresh: none may exist) for a stream of `expectedBytes` (null: unknown).
   * `digest`: end() also gives the sha256 of the bytes. On failure the files made so far are
   * closed and removed.
   */
  static async create(paths: readonly string[], expectedBytes: number | null, options: { digest?: boolean } = {}): Promise<BlockWriter> {
    const big = expectedBytes === null || expectedBytes >= DIRECT_MIN_BYTES;
    const alignedSet = big && O_DIRECT !== 0 ? takeAlignedSet() : null;
    const files: TargetFile[] = [];
    try {
      for (const file of paths) files.push(await TargetFile.create(file, alignedSet !== null));
    } catch (error) {
      if (alignedSet) releaseAlignedSet(alignedSet);
      await Promise.all(files.map((f) => f.close().catch(() => {})));
      await Promise.all(files.map((f) => fs.rm(f.path, { force: true }).catch(() => {})));
      throw error;
    }
    // A small file's blocks: its size, at most 1 MiB (hot folders download 8 at once).
    const blockBytes = big ? BLOCK_BYTES : Math.max(1, Math.min(SMALL_BLOCK_BYTES, expectedBytes ?? 0));
    return new BlockWriter(files, alignedSet, blockBytes, options.digest ?? false);
  }

  /** Whether every file is still written past the page cache (O_DIRECT). */
  get direct(): boolean {
    return this.#files.every((f) => f.isDirect);
  }

  #takeBlock(): Buffer | null {
    const free = this.#free.pop();
    if (free) return free;
    if (this.#allocated >= BLOCKS_PER_WRITER) return null;
    const block = this.#alignedSet?.[this.#allocated] ?? Buffer.allocUnsafeSlow(this.#blockBytes);
    this.#allocated += 1;
    return block;
  }

  /** Sends the current block (its first `#filled` bytes) to every file. */
  #flush(): void {
    const block = this.#current!;
    const length = this.#filled;
    const offset = this.#offset;
    this.#current = null;
    this.#filled = 0;
    this.#offset += length;
    // The block is free again once every file has it and the digest has taken it.
    const writes = this.#files.map((f) => f.write(block, length, offset));
    const hashed = this.#digest?.update(block, length);
    if (hashed) writes.push(hashed);
    const written = Promise.all(writes).then(
      () => {
        this.#inFlight.delete(written);
        this.#free.push(block);
        const waiting = this.#waiting;
        this.#waiting = null;
        waiting?.resolve();
      },
      (error: unknown) => {
        this.#inFlight.delete(written);
        this.#failure ??= error;
        const waiting = this.#waiting;
        this.#waiting = null;
        waiting?.reject(error);
      },
    );
    this.#inFlight.add(written);
  }

  /**
   * Takes `chunk`. Returns null when it is all taken, or a promise to wait for before the next
   * chunk (a block is being written and none is free; rejects when a write failed).
   */
  write(chunk: Buffer): Promise<void> | null {
    if (this.#failure) return Promise.reject(this.#failure);
    let at = 0;
    while (at < chunk.length) {
      if (!this.#current) {
        const block = this.#takeBlock();
        if (!block) return this.#waitThenWrite(chunk.subarray(at));
        this.#current = block;
      }
      const copied = chunk.copy(this.#current, this.#filled, at);
      this.#filled += copied;
      at += copied;
      if (this.#filled === this.#blockBytes) this.#flush();
    }
    return null;
  }

  #waitThenWrite(rest: Buffer): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.#waiting = { resolve, reject };
    }).then(() => this.write(rest) ?? undefined);
  }

  /**
   * Writes what is left, waits for every write, and fsyncs each file (in parallel). Returns the
   * size, and the sha256 when create() asked for it (else null).
   */
  async end(): Promise<{ bytes: number; sha256: string | null }> {
    if (this.#current && this.#filled > 0) {
      // A direct write of the last block is padded to the alignment: zeros, not an earlier file's bytes.
      if (this.#alignedSet) this.#current.fill(0, this.#filled, Math.min(roundUp(this.#filled, DIRECT_ALIGN), this.#blockBytes));
      this.#flush();
    }
    await Promise.all(this.#inFlight);
    if (this.#failure) throw this.#failure;
    const [sha256] = await Promise.all([this.#digest ? this.#digest.digest() : null, ...this.#files.map((f) => f.finish(this.#offset))]);
    this.#digestTaken = true;
    return { bytes: this.#offset, sha256 };
  }

  /** Closes every file (after end() or a failure) and gives the blocks back. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await Promise.allSettled(this.#inFlight);
    if (!this.#digestTaken) this.#digest?.drop();
    await Promise.all(this.#files.map((f) => f.close().catch(() => {})));
    // Every write has settled: no block of the set is in use any more.
    if (this.#alignedSet) releaseAlignedSet(this.#alignedSet);
    this.#free.length = 0;
    this.#current = null;
  }
}
