// Regenerates example.png and example-mask.png (run from the project root:
// `node resources/demo/make-examples.mjs`). Output is deterministic.
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PNG } from 'pngjs';

const here = dirname(fileURLToPath(import.meta.url));
const SIZE = 256;

function hsv(h, s, v) {
  const i = Math.floor(h * 6);
  const f = h * 6 - i;
  const p = v * (1 - s);
  const q = v * (1 - f * s);
  const t = v * (1 - (1 - f) * s);
  const [r, g, b] = [[v, t, p], [q, v, p], [p, v, t], [p, q, v], [t, p, v], [v, p, q]][((i % 6) + 6) % 6];
  return [Math.round(r * 255), Math.round(g * 255), Math.round(b * 255)];
}

// example.png: a hue sweep left to right, darker towards the bottom, with a white square and a
// black disc so that inversion, blur and inpainting are easy to see. Opaque RGB.
const image = new PNG({ width: SIZE, height: SIZE });
for (let y = 0; y < SIZE; y++) {
  for (let x = 0; x < SIZE; x++) {
    let [r, g, b] = hsv(x / SIZE, 0.85, 1 - (y / SIZE) * 0.6);
    if (x >= 24 && x < 72 && y >= 24 && y < 72) [r, g, b] = [255, 255, 255];
    if ((x - 200) ** 2 + (y - 200) ** 2 < 26 ** 2) [r, g, b] = [0, 0, 0];
    const p = (y * SIZE + x) * 4;
    image.data[p] = r;
    image.data[p + 1] = g;
    image.data[p + 2] = b;
    image.data[p + 3] = 255;
  }
}
writeFileSync(join(here, 'example.png'), PNG.sync.write(image, { colorType: 2 }));

// example-mask.png: opaque everywhere except a transparent circle in the middle (radius 64, with a
// one-pixel soft edge). Transparent = masked: that circle is the region to inpaint.
const mask = new PNG({ width: SIZE, height: SIZE });
for (let y = 0; y < SIZE; y++) {
  for (let x = 0; x < SIZE; x++) {
    const d = Math.hypot(x + 0.5 - SIZE / 2, y + 0.5 - SIZE / 2);
    const inside = Math.min(1, Math.max(0, 64.5 - d)); // 1 inside, 0 outside, soft at the edge
    const p = (y * SIZE + x) * 4;
    mask.data[p] = 0;
    mask.data[p + 1] = 0;
    mask.data[p + 2] = 0;
    mask.data[p + 3] = Math.round(255 * (1 - inside));
  }
}
writeFileSync(join(here, 'example-mask.png'), PNG.sync.write(mask, { colorType: 6 }));
