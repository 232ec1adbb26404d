// Finding the project's resources folder (bundled demo files). The sources run from
// src/main/demo/nodes/ under vitest and the built code from out/main/, so we walk up from this
// module to the package.json named "flowdeck". FLOWDECK_RESOURCES_DIR overrides it (packaged app,
// unusual layouts); it may name the resources folder itself or its demo/ subfolder.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { z } from 'zod';

const PackageJson = z.object({ name: z.string() });

function isFlowdeckRoot(dir: string): boolean {
  try {
    const parsed = PackageJson.safeParse(JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')));
    return parsed.success && parsed.data.name === 'flowdeck';
  } catch {
    return false;
  }
}

function findUp(start: string): string | null {
  let dir = resolve(start);
  for (;;) {
    if (isFlowdeckRoot(dir)) return dir;
    const parent = dirname(dir);
    if (parent === dir) return null;
    dir = parent;
  }
}

/** The project root (folder of the flowdeck package.json), or null when not found. */
export function findProjectRoot(from: string = import.meta.dirname ?? process.cwd()): string | null {
  return findUp(from) ?? findUp(process.cwd());
}

/**
 * Absolute path of a file under resources/demo/. Throws an Error naming where it looked when the
 * file cannot be found, so a broken installation is obvious.
 */
export function demoResourcePath(name: string, env: NodeJS.ProcessEnv = process.env): string {
  const tried: string[] = [];
  const override = env.FLOWDECK_RESOURCES_DIR;
  if (override) {
    for (const candidate of [join(override, 'demo', name), join(override, name)]) {
      if (existsSync(candidate)) return candidate;
      tried.push(candidate);
    }
  }
  const root = findProjectRoot();
  if (root) {
    const candidate = join(root, 'resources', 'demo', name);
    if (existsSync(candidate)) return candidate;
    tried.push(candidate);
  }
  throw new Error(
    `The demo resource "${name}" was not found (looked in: ${tried.join(', ') || 'no flowdeck project folder above ' + import.meta.dirname}). Set FLOWDECK_RESOURCES_DIR to the resources folder.`,
  );
}
