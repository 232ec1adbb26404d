// What a CLI test runs in: a temp work folder for its workflow files, data folder and outputs, and
// a local-flavour demo service to run against.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DemoService } from '../../src/main/demo';

/** The smallest workflow that makes an image on the demo service: DemoSampler -> SaveImage (prefix "t"). */
export const TINY_IMAGE_WORKFLOW = JSON.stringify({
  '1': { class_type: 'DemoSampler', inputs: { prompt: 'x', seed: 1, steps: 1, width: 16, height: 16, cfg: 7, sampler_name: 'euler', delay_ms: 0 } },
  '2': { class_type: 'SaveImage', inputs: { images: ['1', 0], filename_prefix: 't' } },
});

export interface CliWork {
  /** The work folder. */
  dir: string;
  local: DemoService;
  /** Writes a file into the work folder and answers its path. */
  write(name: string, content: string | Uint8Array): string;
  /** Stops the service and removes the work folder. */
  close(): Promise<void>;
}

/** A fresh work folder (named from `prefix`) and a started local demo service (time scale 0.2). */
export async function startCliWork(prefix: string): Promise<CliWork> {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const local = new DemoService({ flavour: 'local', timeScale: 0.2 });
  await local.start();
  return {
    dir,
    local,
    write(name, content) {
      const path = join(dir, name);
      writeFileSync(path, content);
      return path;
    },
    async close() {
      await local.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
