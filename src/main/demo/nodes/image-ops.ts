// Pixel operations on RgbaImage / Mask. IMAGE values are opaque RGB carried as RGBA (alpha 255):
// operations work on the colour channels and leave alpha as it is.
import type { Mask, RgbaImage } from '../node-api';

export function createImage(width: number, height: number): RgbaImage {
  const data = new Uint8Array(width * height * 4);
  for (let i = 3; i < data.length; i += 4) data[i] = 255;
  return { width, height, data };
}

export function cloneImage(image: RgbaImage): RgbaImage {
  return { width: image.width, height: image.height, data: new Uint8Array(image.data) };
}

export function invertImage(image: RgbaImage): RgbaImage {
  const out = cloneImage(image);
  const d = out.data;
  for (let i = 0; i < d.length; i += 4) {
    d[i] = 255 - d[i]!;
    d[i + 1] = 255 - d[i + 1]!;
    d[i + 2] = 255 - d[i + 2]!;
  }
  return out;
}

/** Mirror index for 'reflect' padding (edge pixel not repeated), valid for any overshoot. */
export function reflectIndex(i: number, n: number): number {
  if (n === 1) return 0;
  const period = 2 * (n - 1);
  const m = ((i % period) + period) % period;
  return m < n ? m : period - m;
}

export function gaussianKernel(radius: number, sigma: number): Float64Array {
  const k = new Float64Array(2 * radius + 1);
  let sum = 0;
  for (let i = -radius; i <= radius; i++) {
    const w = Math.exp(-(i * i) / (2 * sigma * sigma));
    k[i + radius] = w;
    sum += w;
  }
  for (let i = 0; i < k.length; i++) k[i] = k[i]! / sum;
  return k;
}

/**
 * Separable Gaussian blur of the colour channels, kernel size 2*radius+1, reflect padding (as the
 * real ImageBlur node). A flat image stays exactly flat: the kernel is normalised.
 */
export function gaussianBlur(image: RgbaImage, radius: number, sigma: number): RgbaImage {
  const { width: w, height: h, data } = image;
  const kernel = gaussianKernel(radius, sigma);
  const tmp = new Float32Array(w * h * 3);
  // Horizontal pass into tmp (3 floats per pixel).
  const xs = new Int32Array(w + 2 * radius);
  for (let i = 0; i < xs.length; i++) xs[i] = reflectIndex(i - radius, w);
  for (let y = 0; y < h; y++) {
    const row = y * w;
    for (let x = 0; x < w; x++) {
      let r = 0;
      let g = 0;
      let b = 0;
      for (let k = 0; k < kernel.length; k++) {
        const wgt = kernel[k]!;
        const p = (row + xs[x + k]!) * 4;
        r += wgt * data[p]!;
        g += wgt * data[p + 1]!;
        b += wgt * data[p + 2]!;
      }
      const t = (row + x) * 3;
      tmp[t] = r;
      tmp[t + 1] = g;
      tmp[t + 2] = b;
    }
  }
  // Vertical pass from tmp into the output.
  const out = cloneImage(image);
  const ys = new Int32Array(h + 2 * radius);
  for (let i = 0; i < ys.length; i++) ys[i] = reflectIndex(i - radius, h);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      let r = 0;
      let g = 0;
      let b = 0;
      for (let k = 0; k < kernel.length; k++) {
        const wgt = kernel[k]!;
        const t = (ys[y + k]! * w + x) * 3;
        r += wgt * tmp[t]!;
        g += wgt * tmp[t + 1]!;
        b += wgt * tmp[t + 2]!;
      }
      const p = (y * w + x) * 4;
      out.data[p] = clampByte(r);
      out.data[p + 1] = clampByte(g);
      out.data[p + 2] = clampByte(b);
    }
  }
  return out;
}

export function clampByte(v: number): number {
  return v <= 0 ? 0 : v >= 255 ? 255 : Math.round(v);
}

/** In-place box blur of one float plane (running sums, clamped edges): O(1) per pixel for any radius. */
export function boxBlurPlane(plane: Float32Array, w: number, h: number, r: number): void {
  const line = new Float32Array(Math.max(w, h));
  const span = 2 * r + 1;
  for (let y = 0; y < h; y++) {
    const base = y * w;
    let acc = 0;
    for (let i = -r; i <= r; i++) acc += plane[base + Math.min(w - 1, Math.max(0, i))]!;
    for (let x = 0; x < w; x++) {
      line[x] = acc / span;
      acc += plane[base + Math.min(w - 1, x + r + 1)]! - plane[base + Math.max(0, x - r)]!;
    }
    plane.set(line.subarray(0, w), base);
  }
  for (let x = 0; x < w; x++) {
    let acc = 0;
    for (let i = -r; i <= r; i++) acc += plane[Math.min(h - 1, Math.max(0, i)) * w + x]!;
    for (let y = 0; y < h; y++) {
      line[y] = acc / span;
      acc += plane[Math.min(h - 1, y + r + 1) * w + x]! - plane[Math.max(0, y - r) * w + x]!;
    }
    for (let y = 0; y < h; y++) plane[y * w + x] = line[y]!;
  }
}

/** Width and height scaled down (never up) to fit within `max` on the longer edge. */
export function fitWithin(width: number, height: number, max: number): { width: number; height: number } {
  const scale = Math.min(1, max / Math.max(width, height));
  return { width: Math.max(1, Math.round(width * scale)), height: Math.max(1, Math.round(height * scale)) };
}

/** Bilinear resample of a mask to another size (the inpaint node fits a mask to its image). */
export function resizeMask(mask: Mask, width: number, height: number): Mask {
  if (mask.width === width && mask.height === height) return mask;
  const out = new Float32Array(width * height);
  for (let y = 0; y < height; y++) {
    const fy = Math.min(mask.height - 1, Math.max(0, ((y + 0.5) * mask.height) / height - 0.5));
    const y0 = Math.floor(fy);
    const y1 = Math.min(mask.height - 1, y0 + 1);
    const ty = fy - y0;
    for (let x = 0; x < width; x++) {
      const fx = Math.min(mask.width - 1, Math.max(0, ((x + 0.5) * mask.width) / width - 0.5));
      const x0 = Math.floor(fx);
      const x1 = Math.min(mask.width - 1, x0 + 1);
      const tx = fx - x0;
      const a = mask.data[y0 * mask.width + x0]! * (1 - tx) + mask.data[y0 * mask.width + x1]! * tx;
      const b = mask.data[y1 * mask.width + x0]! * (1 - tx) + mask.data[y1 * mask.width + x1]! * tx;
      out[y * width + x] = a * (1 - ty) + b * ty;
    }
  }
  return { width, height, data: out };
}

/** White where masked (1.0), black where not, grey in between. */
export function maskToImage(mask: Mask): RgbaImage {
  const out = createImage(mask.width, mask.height);
  for (let i = 0; i < mask.data.length; i++) {
    const v = clampByte(mask.data[i]! * 255);
    out.data[i * 4] = v;
    out.data[i * 4 + 1] = v;
    out.data[i * 4 + 2] = v;
  }
  return out;
}

/** Splits an RGBA image into the opaque colour IMAGE and MASK = 1 - alpha (the real loader's rule). */
export function splitAlpha(rgba: RgbaImage): { image: RgbaImage; mask: Mask } {
  const image = cloneImage(rgba);
  const mask = new Float32Array(rgba.width * rgba.height);
  for (let i = 0; i < mask.length; i++) {
    mask[i] = 1 - rgba.data[i * 4 + 3]! / 255;
    image.data[i * 4 + 3] = 255;
  }
  return { image, mask: { width: rgba.width, height: rgba.height, data: mask } };
}
