// The demo "sampler"'s picture: a small procedural landscape (sky gradient, sun or moon, layered
// ridges, optional water with a rippled reflection, stars at night) whose palette and layout come
// from the prompt's words and the seed. Coordinates are normalised, so the same scene renders at any
// resolution: previews are rendered small, the output at full size, and they match.
import type { RgbaImage } from '../node-api';
import { clampByte, createImage } from './image-ops';
import { deriveSeed32, hashText, hashUnit, mulberry32 } from './random';

type Rgb = [number, number, number];

interface Ridge {
  base: number;
  waves: { freq: number; phase: number; amp: number }[];
  color: Rgb;
}

export interface Scene {
  skyTop: Rgb;
  skyHorizon: Rgb;
  sun: { x: number; y: number; radius: number; color: Rgb };
  ridges: Ridge[];
  waterLevel: number | null;
  stars: boolean;
  saturation: number;
  seed32: number;
}

interface Mood {
  words: string[];
  /** Hue of the sky at the horizon, of the sky overhead, and of the land. */
  hue: number;
  skyHue: number;
  landHue: number;
  night?: boolean;
  bright?: boolean;
}

// Words in the prompt steer the palette, so "a lighthouse at dusk" looks like dusk by the sea.
const MOODS: Mood[] = [
  { words: ['night', 'moon', 'star', 'midnight', 'dark', 'galaxy'], hue: 225, skyHue: 235, landHue: 230, night: true },
  { words: ['dusk', 'sunset', 'evening', 'twilight', 'dawn', 'sunrise', 'autumn', 'fire'], hue: 22, skyHue: 265, landHue: 255 },
  { words: ['snow', 'winter', 'ice', 'frozen', 'arctic', 'glacier'], hue: 195, skyHue: 210, landHue: 205, bright: true },
  { words: ['desert', 'sand', 'dune', 'canyon', 'savanna'], hue: 42, skyHue: 205, landHue: 28, bright: true },
  { words: ['forest', 'jungle', 'green', 'meadow', 'spring', 'garden', 'valley'], hue: 55, skyHue: 200, landHue: 115 },
];
const WATER_WORDS = ['sea', 'ocean', 'lake', 'lighthouse', 'harbor', 'harbour', 'beach', 'river', 'coast', 'bay', 'island', 'water'];

function hsl(h: number, s: number, l: number): Rgb {
  const hue = (((h % 360) + 360) % 360) / 360;
  const q = l < 0.5 ? l * (1 + s) : l + s - l * s;
  const p = 2 * l - q;
  const channel = (t: number) => {
    const x = t < 0 ? t + 1 : t > 1 ? t - 1 : t;
    if (x < 1 / 6) return p + (q - p) * 6 * x;
    if (x < 1 / 2) return q;
    if (x < 2 / 3) return p + (q - p) * (2 / 3 - x) * 6;
    return p;
  };
  return [channel(hue + 1 / 3) * 255, channel(hue) * 255, channel(hue - 1 / 3) * 255];
}

function mixRgb(a: Rgb, b: Rgb, t: number): Rgb {
  return [a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t, a[2] + (b[2] - a[2]) * t];
}

function wordsOf(prompt: string): string[] {
  return prompt
    .toLowerCase()
    .split(/[^a-z]+/)
    .filter(Boolean);
}

/** The scene for a prompt and seed; `cfg` sets the colour intensity (higher = more saturated, as guidance "burns"). */
export function buildScene(prompt: string, seed: bigint, cfg: number, salt = 'scene'): Scene {
  const words = wordsOf(prompt);
  const has = (list: string[]) => words.some((w) => list.some((k) => w.startsWith(k)));
  const mood = MOODS.find((m) => has(m.words));
  const rand = mulberry32(deriveSeed32(seed, salt, prompt));
  const baseHue = mood ? mood.hue : Number(hashText(prompt) % 360n);
  const skyHue = mood ? mood.skyHue : baseHue + 180;
  const jitter = (rand() - 0.5) * 30;
  const night = mood?.night === true;
  const bright = mood?.bright === true;

  const skyTop = hsl(skyHue + jitter, 0.55, night ? 0.07 : bright ? 0.55 : 0.3);
  const skyHorizon = hsl(baseHue + jitter, night ? 0.45 : 0.85, night ? 0.22 : bright ? 0.85 : 0.68);
  const sunColor: Rgb = night ? [235, 235, 215] : hsl(baseHue + jitter + 12, 0.95, 0.86);
  const ridgeHue = (mood ? mood.landHue : baseHue + 150) + jitter + (rand() - 0.5) * 30;
  const ridges: Ridge[] = [];
  for (let layer = 0; layer < 3; layer++) {
    const near = layer / 2; // 0 far .. 1 near
    const waves = [1, 3, 7, 17].map((f, i) => ({
      freq: f * (0.7 + rand() * 0.6),
      phase: rand() * Math.PI * 2,
      amp: (0.06 / (i + 1)) * (0.6 + rand() * 0.8) * (1 + near * 0.5),
    }));
    const lightness = night ? 0.16 - near * 0.1 : bright ? 0.7 - near * 0.3 : 0.42 - near * 0.28;
    const own = hsl(ridgeHue + layer * 8, night ? 0.25 : 0.4, lightness);
    // Far ridges fade into the horizon colour (aerial perspective).
    ridges.push({ base: 0.48 + layer * 0.09 + rand() * 0.04, waves, color: mixRgb(own, skyHorizon, 0.55 * (1 - near)) });
  }
  return {
    skyTop,
    skyHorizon,
    sun: { x: 0.2 + rand() * 0.6, y: 0.18 + rand() * 0.25, radius: 0.05 + rand() * 0.05, color: sunColor },
    ridges,
    waterLevel: has(WATER_WORDS) ? 0.7 + rand() * 0.06 : null,
    stars: night,
    saturation: Math.min(2.2, Math.max(0.3, 0.3 + cfg / 8)),
    seed32: deriveSeed32(seed, salt, prompt, 'grain'),
  };
}

function ridgeHeights(ridge: Ridge, width: number): Float32Array {
  const out = new Float32Array(width);
  for (let x = 0; x < width; x++) {
    const u = (x + 0.5) / width;
    let h = ridge.base;
    for (const w of ridge.waves) h -= w.amp * (0.5 + 0.5 * Math.sin(2 * Math.PI * w.freq * u + w.phase));
    out[x] = h;
  }
  return out;
}

/**
 * Renders the scene at width x height. `grain` adds deterministic per-pixel noise of that amplitude
 * (0-255 units): the sampler leaves a little at low step counts, as a real sampler would.
 */
export function renderScene(scene: Scene, width: number, height: number, grain = 0): RgbaImage {
  const image = createImage(width, height);
  const out = image.data;
  const aspect = width / height;
  const heights = scene.ridges.map((r) => ridgeHeights(r, width));
  const colors = scene.ridges.map((r) => r.color);
  const rgb = new Float64Array(3);
  const { sun, skyTop, skyHorizon } = scene;
  const horizon = scene.ridges[0]?.base ?? 0.5;
  // Beyond this distance the sun's glow is below a hundredth of a level: skip the exp.
  const glowReach = sun.radius + 0.3;

  // Colour of the land or sky at (u, v) into rgb; used directly and for the water's reflection.
  const landOrSky = (col: number, u: number, v: number) => {
    for (let i = heights.length - 1; i >= 0; i--) {
      const top = heights[i]![col]!;
      if (v >= top) {
        const c = colors[i]!;
        const shade = 1 - Math.min(0.35, (v - top) * 0.9);
        rgb[0] = c[0] * shade;
        rgb[1] = c[1] * shade;
        rgb[2] = c[2] * shade;
        return;
      }
    }
    const t = Math.min(1, Math.max(0, v / horizon)) ** 1.4;
    rgb[0] = skyTop[0] + (skyHorizon[0] - skyTop[0]) * t;
    rgb[1] = skyTop[1] + (skyHorizon[1] - skyTop[1]) * t;
    rgb[2] = skyTop[2] + (skyHorizon[2] - skyTop[2]) * t;
    const dx = (u - sun.x) * aspect;
    const dy = v - sun.y;
    let glow = 0;
    if (Math.abs(dx) < glowReach && Math.abs(dy) < glowReach) {
      const d = Math.sqrt(dx * dx + dy * dy);
      glow = d < sun.radius ? 1 : Math.exp(-((d - sun.radius) * (d - sun.radius)) / 0.012) * 0.55;
      rgb[0] += (sun.color[0] - rgb[0]) * glow;
      rgb[1] += (sun.color[1] - rgb[1]) * glow;
      rgb[2] += (sun.color[2] - rgb[2]) * glow;
    }
    if (scene.stars && glow < 0.05 && hashUnit(Math.floor(u * 400), Math.floor(v * 400), 7, scene.seed32) > 0.996) {
      rgb[0] = rgb[1] = rgb[2] = 230;
    }
  };

  const sat = scene.saturation;
  const wl = scene.waterLevel;
  for (let y = 0; y < height; y++) {
    const v = (y + 0.5) / height;
    const cy = v - 0.5;
    for (let x = 0; x < width; x++) {
      const u = (x + 0.5) / width;
      if (wl !== null && v > wl) {
        const depth = v - wl;
        const ripple = Math.sin(depth * 260 + Math.sin(u * 40) * 2) * 0.006 * (1 + depth * 8);
        const col = Math.min(width - 1, Math.max(0, Math.round((u + ripple) * width - 0.5)));
        landOrSky(col, u + ripple, Math.max(0, wl - depth * 1.3));
        const dim = 0.72 - depth * 0.6;
        rgb[0] = rgb[0]! * dim + 10;
        rgb[1] = rgb[1]! * dim + 22;
        rgb[2] = rgb[2]! * dim + 40;
      } else {
        landOrSky(x, u, v);
      }
      // Colour intensity around the pixel's grey, then a soft vignette.
      const r = rgb[0]!;
      const g = rgb[1]!;
      const b = rgb[2]!;
      const grey = 0.299 * r + 0.587 * g + 0.114 * b;
      const cx = u - 0.5;
      const vignette = 1 - 0.35 * (cx * cx + cy * cy);
      const p = (y * width + x) * 4;
      let vr = (grey + (r - grey) * sat) * vignette;
      let vg = (grey + (g - grey) * sat) * vignette;
      let vb = (grey + (b - grey) * sat) * vignette;
      if (grain > 0) {
        vr += (hashUnit(x, y, 0, scene.seed32) - 0.5) * 2 * grain;
        vg += (hashUnit(x, y, 1, scene.seed32) - 0.5) * 2 * grain;
        vb += (hashUnit(x, y, 2, scene.seed32) - 0.5) * 2 * grain;
      }
      out[p] = clampByte(vr);
      out[p + 1] = clampByte(vg);
      out[p + 2] = clampByte(vb);
    }
  }
  return image;
}

/** The starting noise of the "sampler": per-pixel colour noise over coarse blotches, like a latent. */
export function renderNoise(seed32: number, width: number, height: number): RgbaImage {
  const image = createImage(width, height);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const p = (y * width + x) * 4;
      for (let c = 0; c < 3; c++) {
        const fine = hashUnit(x, y, c, seed32);
        const coarse = hashUnit(x >> 3, y >> 3, c + 3, seed32);
        image.data[p + c] = clampByte(30 + 195 * (0.55 * fine + 0.45 * coarse));
      }
    }
  }
  return image;
}

/** noise * (1 - amount) + picture * amount, per colour channel. */
export function blendImages(noise: RgbaImage, picture: RgbaImage, amount: number): RgbaImage {
  const out = createImage(picture.width, picture.height);
  const keep = 1 - amount;
  for (let i = 0; i < out.data.length; i += 4) {
    out.data[i] = Math.round(noise.data[i]! * keep + picture.data[i]! * amount);
    out.data[i + 1] = Math.round(noise.data[i + 1]! * keep + picture.data[i + 1]! * amount);
    out.data[i + 2] = Math.round(noise.data[i + 2]! * keep + picture.data[i + 2]! * amount);
  }
  return out;
}
