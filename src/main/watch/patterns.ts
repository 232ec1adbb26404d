// Which names a hot folder takes: file patterns (simple globs on the base name, case-insensitive),
// and the names it never takes because something is still writing them (temporary download and
// copy names) or because they are hidden.

/** Suffixes browsers, download managers, copy tools and editors write to until a file is complete. */
const TEMPORARY_SUFFIXES = ['.part', '.partial', '.tmp', '.temp', '.crdownload', '.download', '.opdownload', '.filepart', '.swp', '.!ut', '.~tmp'];

/**
 * Whether a name belongs to a file still being written or not meant for us: the suffixes above,
 * a trailing "~" (backups), and hidden names starting with "." (rsync writes ".name.XXXXXX", many
 * tools do the same) or "~$" (office lock files). Such a file is taken once renamed to its real name.
 */
export function isTemporaryName(baseName: string): boolean {
  const lower = baseName.toLowerCase();
  if (lower.startsWith('.') || lower.startsWith('~$') || lower.endsWith('~')) return true;
  return TEMPORARY_SUFFIXES.some((suffix) => lower.endsWith(suffix));
}

/** "png" and ".png" become "*.png"; a glob may use * and ? only, and no path separators. */
export function normalisePatterns(patterns: readonly string[]): string[] {
  const out: string[] = [];
  for (const raw of patterns) {
    const p = raw.trim();
    if (p === '') continue;
    if (/[/\\]/.test(p)) throw new Error(`File pattern "${raw}" must match a file name, without folders.`);
    const glob = /[*?]/.test(p) ? p : `*.${p.replace(/^\.+/, '')}`;
    if (!out.includes(glob.toLowerCase())) out.push(glob.toLowerCase());
  }
  if (out.length === 0) throw new Error('At least one file pattern is needed (for example *.png).');
  return out;
}

function globToRegExp(glob: string): RegExp {
  let source = '';
  for (const ch of glob) {
    if (ch === '*') source += '.*';
    else if (ch === '?') source += '.';
    else source += ch.replace(/[\\^$.|+()[\]{}]/g, '\\$&');
  }
  return new RegExp(`^${source}$`, 'i');
}

export class PatternSet {
  private readonly expressions: RegExp[];

  constructor(patterns: readonly string[]) {
    this.expressions = normalisePatterns(patterns).map(globToRegExp);
  }

  matches(baseName: string): boolean {
    return this.expressions.some((re) => re.test(baseName));
  }
}
