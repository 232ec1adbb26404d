// The demo service's file areas: <root>/{input,output,temp}, plus <root>/.incoming where uploads
// stream before they get their final name. Path checks follow the local server's: a subfolder
// that resolves outside its area is refused, names never carry directories.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { mkdir, open, readFile, readdir, rm, type FileHandle } from 'node:fs/promises';
import { basename, dirname, extname, isAbsolute, join, normalize, relative, resolve } from 'node:path';
import type { SavedFile } from './node-api';
import type { DemoFlavour } from './types';

export type FileArea = 'input' | 'output' | 'temp';

export function isFileArea(value: unknown): value is FileArea {
  return value === 'input' || value === 'output' || value === 'temp';
}

/** True when `target` is `base` or lies inside it. */
export function isInside(base: string, target: string): boolean {
  const rel = relative(base, target);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

const CONTENT_TYPES: Record<string, string> = {
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.webp': 'image/webp',
  '.gif': 'image/gif',
  '.bmp': 'image/bmp',
  '.tif': 'image/tiff',
  '.tiff': 'image/tiff',
  '.mp4': 'video/mp4',
  '.webm': 'video/webm',
  '.mov': 'video/quicktime',
  '.mkv': 'video/x-matroska',
  '.wav': 'audio/x-wav',
  '.mp3': 'audio/mpeg',
  '.flac': 'audio/flac',
  '.ogg': 'audio/ogg',
  '.opus': 'audio/ogg',
  '.json': 'application/json',
  '.txt': 'text/plain',
  '.glb': 'model/gltf-binary',
  '.gltf': 'model/gltf+json',
  '.obj': 'model/obj',
  '.svg': 'image/svg+xml',
};

/** Content type by extension (the map holds no markup types, which the local server serves as downloads). */
export function contentTypeFor(filename: string): string {
  return CONTENT_TYPES[extname(filename).toLowerCase()] ?? 'application/octet-stream';
}

export class DataDirs {
  readonly root: string;
  readonly incoming: string;
  private readonly flavour: DemoFlavour;

  constructor(root: string, flavour: DemoFlavour) {
    this.root = resolve(root);
    this.incoming = join(this.root, '.incoming');
    this.flavour = flavour;
  }

  async init(): Promise<void> {
    for (const area of ['input', 'output', 'temp'] as const) await mkdir(this.dirFor(area), { recursive: true });
    await mkdir(this.incoming, { recursive: true });
  }

  dirFor(area: FileArea): string {
    return join(this.root, area);
  }

  /** The folder `subfolder` names inside `base`, or null when it escapes (os.path.join semantics: an absolute subfolder replaces base). */
  resolveSubfolder(base: string, subfolder: string): string | null {
    const full = resolve(base, subfolder);
    return isInside(base, full) ? full : null;
  }

  /** For a node's validate(): whether an input file exists (the name may carry a subfolder, locally). */
  inputExists(name: string): boolean {
    if (!name || name.includes('\0')) return false;
    const base = this.dirFor('input');
    const full = resolve(base, name);
    if (!isInside(base, full) || full === base) return false;
    try {
      return statSync(full).isFile();
    } catch {
      return false;
    }
  }

  /** Top-level input files, sorted: what the local server lists in LoadImage's combo. */
  listInputFiles(): string[] {
    const dir = this.dirFor('input');
    try {
      return readdirSync(dir, { withFileTypes: true })
        .filter((e) => e.isFile())
        .map((e) => e.name)
        .sort();
    } catch {
      return [];
    }
  }

  /** size:mtime of an input file, or '' when missing: a cache signature changes when the file does. */
  inputStamp(name: string): string {
    if (!this.inputExists(name)) return '';
    const st = statSync(resolve(this.dirFor('input'), name));
    return `${st.size}:${st.mtimeMs}`;
  }

  /** Absolute path of a file reference, or null when the reference is unsafe. */
  pathOf(filename: string, subfolder: string, area: FileArea): string | null {
    if (!filename || filename.includes('\0') || filename.includes('/') || filename.includes('\\') || filename === '..' || filename === '.') return null;
    const base = this.dirFor(area);
    const folder = this.flavour === 'cloud' ? base : this.resolveSubfolder(base, subfolder);
    if (folder === null) return null;
    return join(folder, filename);
  }

  async readFile(filename: string, subfolder: string, area: FileArea): Promise<Uint8Array> {
    // Accept "sub/name.png" as the name (how a workflow refers to an upload in a subfolder).
    let name = filename;
    let sub = subfolder;
    if (this.flavour === 'local' && (name.includes('/') || name.includes('\\'))) {
      const norm = normalize(name.replace(/\\/g, '/'));
      name = basename(norm);
      sub = join(subfolder, dirname(norm));
    }
    const path = this.pathOf(name, sub, area);
    if (path === null) throw new Error(`refused file reference outside the ${area} folder: ${filename}`);
    return new Uint8Array(await readFile(path));
  }

  /**
   * Saves bytes as `<prefix>_00001_.<ext>` with the next free counter, as the local server names
   * outputs. A directory part of the prefix becomes the subfolder locally; the cloud is flat.
   */
  async saveFile(prefix: string, extension: string, bytes: Uint8Array, area: 'output' | 'temp'): Promise<SavedFile> {
    return this.saveChunks(prefix, extension, [bytes], area);
  }

  /** Like saveFile, writing chunks as they come (large outputs are never held whole). */
  async saveChunks(prefix: string, extension: string, chunks: Iterable<Uint8Array> | AsyncIterable<Uint8Array>, area: 'output' | 'temp'): Promise<SavedFile> {
    const { handle, path, saved } = await this.reserveName(prefix, extension, area);
    try {
      for await (const chunk of chunks) await handle.write(chunk);
      await handle.close();
      return saved;
    } catch (error) {
      await handle.close().catch(() => undefined);
      await rm(path, { force: true });
      throw error;
    }
  }

  /** Creates the next free `<stem>_NNNNN_.<ext>` exclusively, so two saves never share a name. */
  private async reserveName(prefix: string, extension: string, area: 'output' | 'temp'): Promise<{ handle: FileHandle; path: string; saved: SavedFile }> {
    const ext = extension.replace(/^\./, '');
    const norm = normalize((prefix || 'ComfyUI').replace(/\\/g, '/'));
    const stem = basename(norm);
    const base = this.dirFor(area);
    const folder = resolve(base, this.flavour === 'cloud' || dirname(norm) === '.' ? '' : dirname(norm));
    if (!isInside(base, folder) || stem === '..' || stem === '') throw new Error('Saving image outside the output folder is not allowed.');
    const subfolder = relative(base, folder).split('\\').join('/');
    await mkdir(folder, { recursive: true });
    let counter = (await this.highestCounter(folder, stem)) + 1;
    for (;;) {
      const filename = `${stem}_${String(counter).padStart(5, '0')}_.${ext}`;
      const path = join(folder, filename);
      try {
        const handle = await open(path, 'wx');
        return { handle, path, saved: { filename, subfolder, type: area } };
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
        counter += 1;
      }
    }
  }

  private async highestCounter(folder: string, stem: string): Promise<number> {
    let highest = 0;
    const lowerStem = stem.toLowerCase();
    for (const name of await readdir(folder)) {
      // The local server's map_filename: "<stem>_" then digits up to the next "_".
      if (name.length <= stem.length || name.slice(0, stem.length).toLowerCase() !== lowerStem || name[stem.length] !== '_') continue;
      const digits = name.slice(stem.length + 1).split('_')[0] ?? '';
      if (/^\d+$/.test(digits)) highest = Math.max(highest, Number(digits));
    }
    return highest;
  }

  fileExists(path: string): boolean {
    return existsSync(path);
  }
}
