#!/usr/bin/env node
// Draws the app icon (a small node graph on a rounded tile) into resources/icon.png (1024 px,
// which electron-builder turns into .ico and .icns) and resources/linux/icons/NxN.png.
// Run once after changing the design: node resources/icon.make.mjs
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PNG } from 'pngjs';

const here = import.meta.dirname;
const SS = 4; // supersampling per axis, for smooth edges

function draw(size) {
  const png = new PNG({ width: size, height: size });
  const s = size / 1024; // design units are for 1024 px
  const tile = { x: 64 * s, y: 64 * s, w: 896 * s, h: 896 * s, r: 200 * s };
  const nodes = [
    { x: 300, y: 330, r: 110, c: [56, 189, 248] },
    { x: 300, y: 700, r: 110, c: [167, 139, 250] },
    { x: 730, y: 512, r: 140, c: [52, 211, 153] },
  ].map((n) => ({ x: n.x * s, y: n.y * s, r: n.r * s, c: n.c }));
  const links = [
    [nodes[0], nodes[2]],
    [nodes[1], nodes[2]],
  ];
  const linkWidth = 46 * s;

  const inTile = (x, y) => {
    const cx = Math.min(Math.max(x, tile.x + tile.r), tile.x + tile.w - tile.r);
    const cy = Math.min(Math.max(y, tile.y + tile.r), tile.y + tile.h - tile.r);
    return (x - cx) ** 2 + (y - cy) ** 2 <= tile.r ** 2;
  };
  const nearSegment = (x, y, a, b, w) => {
    const dx = b.x - a.x;
    const dy = b.y - a.y;
    const t = Math.max(0, Math.min(1, ((x - a.x) * dx + (y - a.y) * dy) / (dx * dx + dy * dy)));
    return (x - (a.x + t * dx)) ** 2 + (y - (a.y + t * dy)) ** 2 <= (w / 2) ** 2;
  };

  const colourAt = (x, y) => {
    if (!inTile(x, y)) return null;
    for (const n of nodes) {
      const d2 = (x - n.x) ** 2 + (y - n.y) ** 2;
      if (d2 <= (n.r * 0.45) ** 2) return [15, 23, 42];
      if (d2 <= n.r ** 2) return n.c;
    }
    for (const [a, b] of links) if (nearSegment(x, y, a, b, linkWidth)) return [148, 163, 184];
    // A soft vertical gradient for the tile.
    const t = (y - tile.y) / tile.h;
    return [Math.round(30 - 12 * t), Math.round(41 - 14 * t), Math.round(59 - 17 * t)];
  };

  for (let py = 0; py < size; py += 1) {
    for (let px = 0; px < size; px += 1) {
      let r = 0;
      let g = 0;
      let b = 0;
      let a = 0;
      for (let sy = 0; sy < SS; sy += 1) {
        for (let sx = 0; sx < SS; sx += 1) {
          const c = colourAt(px + (sx + 0.5) / SS, py + (sy + 0.5) / SS);
          if (!c) continue;
          r += c[0];
          g += c[1];
          b += c[2];
          a += 1;
        }
      }
      const i = (py * size + px) * 4;
      png.data[i] = a ? Math.round(r / a) : 0;
      png.data[i + 1] = a ? Math.round(g / a) : 0;
      png.data[i + 2] = a ? Math.round(b / a) : 0;
      png.data[i + 3] = Math.round((255 * a) / (SS * SS));
    }
  }
  return PNG.sync.write(png);
}

writeFileSync(join(here, 'icon.png'), draw(1024));
const linuxDir = join(here, 'linux', 'icons');
mkdirSync(linuxDir, { recursive: true });
for (const size of [16, 32, 48, 64, 128, 256, 512]) writeFileSync(join(linuxDir, `${size}x${size}.png`), draw(size));
console.log('icons written');
