// Resolves a request path to a file inside the built renderer folder, refusing anything that
// would leave it (.., encoded separators, absolute paths, NUL) -- shared by the Electron app://
// protocol and the browser harness.
import { realpathSync, statSync } from 'node:fs';
import { resolve, sep } from 'node:path';

export function resolveStaticFile(root: string, urlPath: string): string | null {
  let decoded: string;
  try {
    decoded = decodeURIComponent(urlPath);
  } catch {
    return null;
  }
  if (decoded.includes('\0') || decoded.includes('\\')) return null;
  const relative = decoded.replace(/^\/+/, '') || 'index.html';
  if (relative.split('/').some((part) => part === '..')) return null;
  const base = realpathSync(root);
  const candidate = resolve(base, relative);
  if (candidate !== base && !candidate.startsWith(base + sep)) return null;
  try {
    // Symlinks pointing outside the folder are refused too.
    const real = realpathSync(candidate);
    if (!real.startsWith(base + sep)) return null;
    return statSync(real).isFile() ? real : null;
  } catch {
    return null;
  }
}
