// Distinct small PNGs for the benchmarks that run many image jobs.
import { PNG } from 'pngjs';

/** A `size`x`size` opaque PNG whose pixels depend on `seed`: no two seeds give the same file. */
export function distinctPng(seed: number, size = 32): Buffer {
  const image = new PNG({ width: size, height: size });
  for (let i = 0; i < size * size; i += 1) {
    image.data.writeUInt32BE((Math.imul(seed + 1, 2654435761) ^ Math.imul(i + 7, 40503)) >>> 0, i * 4);
    image.data[i * 4 + 3] = 255;
  }
  return PNG.sync.write(image);
}
