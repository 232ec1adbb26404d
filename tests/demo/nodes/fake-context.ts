// A DemoNodeContext for calling node run() directly: records progress, previews, texts and sleeps,
// and keeps files in a temp folder with <dir>/{input,output,temp} like the demo server.
import { mkdtemp, mkdir, readFile, rm, writeFile, readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve, sep } from 'node:path';
import type { JsonObject } from '@shared/json';
import { InterruptedError, type DemoNodeContext, type RgbaImage, type SavedFile } from '@main/demo/node-api';

export interface FakeContext extends DemoNodeContext {
  readonly dir: string;
  progressCalls: [number, number][];
  previews: RgbaImage[];
  texts: string[];
  sleeps: number[];
  saved: { file: SavedFile; bytes: Uint8Array; path: string }[];
  /** Makes the next sleep()/checkInterrupted() throw InterruptedError. */
  interrupt(): void;
  /** Puts a file into the input folder (name may carry a subfolder). */
  addInput(name: string, bytes: Uint8Array): Promise<void>;
  pathOf(file: SavedFile): string;
  cleanup(): Promise<void>;
}

function inside(base: string, target: string): boolean {
  return target === base || target.startsWith(base + sep);
}

export async function createFakeContext(options: { extraData?: JsonObject; accountKey?: string | null; nodeId?: string } = {}): Promise<FakeContext> {
  const dir = await mkdtemp(join(tmpdir(), 'flowdeck-nodes-'));
  for (const area of ['input', 'output', 'temp']) await mkdir(join(dir, area));
  let interrupted = false;
  const ctx: FakeContext = {
    dir,
    promptId: '00000000-0000-4000-8000-000000000001',
    nodeId: options.nodeId ?? '1',
    extraData: options.extraData ?? {},
    accountKey: options.accountKey ?? null,
    timeScale: 0,
    progressCalls: [],
    previews: [],
    texts: [],
    sleeps: [],
    saved: [],
    progress(value, max) {
      ctx.progressCalls.push([value, max]);
    },
    preview(image) {
      ctx.previews.push(image);
    },
    text(message) {
      ctx.texts.push(message);
    },
    async sleep(ms) {
      ctx.sleeps.push(ms);
      if (interrupted) throw new InterruptedError();
    },
    checkInterrupted() {
      if (interrupted) throw new InterruptedError();
    },
    interrupt() {
      interrupted = true;
    },
    async readFile(filename, subfolder, type) {
      const base = join(dir, type);
      const full = resolve(base, subfolder, filename);
      if (!inside(base, full)) throw new Error(`path escapes the ${type} folder`);
      return new Uint8Array(await readFile(full));
    },
    async saveFile(prefix, extension, bytes, type) {
      const slash = prefix.lastIndexOf('/');
      const subfolder = slash < 0 ? '' : prefix.slice(0, slash);
      const stem = slash < 0 ? prefix : prefix.slice(slash + 1);
      const folder = join(dir, type, subfolder);
      await mkdir(folder, { recursive: true });
      const count = (await readdir(folder)).filter((n) => n.startsWith(`${stem}_`)).length + 1;
      const file: SavedFile = { filename: `${stem}_${String(count).padStart(5, '0')}_.${extension}`, subfolder, type };
      const path = join(folder, file.filename);
      await writeFile(path, bytes);
      ctx.saved.push({ file, bytes, path });
      return file;
    },
    async addInput(name, bytes) {
      const path = join(dir, 'input', name);
      await mkdir(dirname(path), { recursive: true });
      await writeFile(path, bytes);
    },
    pathOf(file) {
      return join(dir, file.type, file.subfolder, file.filename);
    },
    async cleanup() {
      await rm(dir, { recursive: true, force: true });
    },
  };
  return ctx;
}

/** A solid or patterned test image. */
export function makeImage(width: number, height: number, pixel: (x: number, y: number) => [number, number, number, number?]): RgbaImage {
  const data = new Uint8Array(width * height * 4);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const [r, g, b, a] = pixel(x, y);
      data.set([r, g, b, a ?? 255], (y * width + x) * 4);
    }
  }
  return { width, height, data };
}
