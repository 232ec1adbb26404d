// Big input files for the transfer benchmarks.
import { closeSync, openSync, writeSync } from 'node:fs';

/** Writes `bytes` of non-repeating content in 1 MiB blocks (nothing on the path compresses, but be fair anyway). */
export function writeIncompressibleFile(path: string, bytes: number): void {
  const fd = openSync(path, 'w');
  const block = Buffer.alloc(1024 * 1024);
  for (let written = 0, n = 0; written < bytes; written += block.length, n += 1) {
    block.writeUInt32BE(n, 0);
    for (let i = 4; i < block.length; i += 4096) block.writeUInt32BE((n * 2654435761 + i) >>> 0, i);
    writeSync(fd, block);
  }
  closeSync(fd);
}
