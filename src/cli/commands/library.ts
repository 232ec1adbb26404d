// flowdeck library list|search: the outputs library from the command line (the same index the app
// shows). Read-only: it downloads nothing, so it needs no server and no key.
import { stringifyJsonExact } from '@shared/json';
import { Library, MEDIA_KINDS, type LibraryItem, type ListFilter, type MediaKind } from '../../main/library';
import { parseCommandArgs } from '../args';
import { openCliStore } from '../open-store';
import { libraryDirOf, type CliEnvironment } from '../connection';
import { ExitCode, UsageError } from '../errors';
import { LIBRARY_USAGE } from '../usage';
import type { CliIo } from './run';

const FILTER_OPTIONS = {
  type: { type: 'string' },
  since: { type: 'string' },
  until: { type: 'string' },
  workflow: { type: 'string' },
  server: { type: 'string' },
  all: { type: 'boolean' },
  limit: { type: 'string' },
  offset: { type: 'string' },
  json: { type: 'boolean' },
} as const;

const UNITS: Record<string, number> = { m: 60_000, h: 3_600_000, d: 86_400_000, w: 7 * 86_400_000 };

/** "2026-11-21" (local midnight, as the date folders), a full ISO time, or "7d" / "12h" / "30m" / "2w" ago. */
export function parseDateOption(name: string, text: string, now = Date.now()): number {
  const trimmed = text.trim();
  const relative = /^(\d+)\s*([mhdw])$/i.exec(trimmed);
  if (relative) return now - Number(relative[1]) * UNITS[relative[2]!.toLowerCase()]!;
  const day = /^(\d{4})-(\d{2})-(\d{2})$/.exec(trimmed);
  if (day) {
    const date = new Date(Number(day[1]), Number(day[2]) - 1, Number(day[3]));
    if (date.getMonth() === Number(day[2]) - 1) return date.getTime();
  } else {
    const ms = Date.parse(trimmed);
    if (Number.isFinite(ms) && /^\d{4}-\d{2}-\d{2}T/.test(trimmed)) return ms;
  }
  throw new UsageError(`--${name} takes a date (2026-11-21), a time (2026-11-21T18:30:00Z) or an age (7d, 12h, 30m, 2w); got "${text}".`);
}

function parseCount(name: string, text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  if (!/^\d+$/.test(text.trim())) throw new UsageError(`--${name} takes a whole number (got "${text}").`);
  return Number(text);
}

function parseKind(text: string | undefined): MediaKind | undefined {
  if (text === undefined) return undefined;
  const kind = MEDIA_KINDS.find((k) => k === text.trim().toLowerCase());
  if (!kind) throw new UsageError(`--type takes one of ${MEDIA_KINDS.join(', ')} (got "${text}").`);
  return kind;
}

/** One item as printed by --json: snake_case, times in ISO 8601, the file's absolute path. */
function itemJson(item: LibraryItem): Record<string, unknown> {
  return {
    id: item.id,
    prompt_id: item.promptId,
    path: item.path,
    media_type: item.mediaKind,
    mime: item.mime,
    created_at: new Date(item.createdAt).toISOString(),
    status: item.status,
    error: item.error,
    attempts: item.attempts,
    workflow_name: item.workflowName,
    node_id: item.nodeId,
    node_class: item.nodeClass,
    filename: item.file.filename,
    size: item.size,
    width: item.width,
    height: item.height,
    duration_ms: item.durationMs,
    sha256: item.sha256,
    prompt: item.promptText,
    inputs: item.inputs,
    server: item.server.baseUrl,
    profile_id: item.server.profileId,
    // The hot-folder input the output was made from; null for outputs of the app and `flowdeck run`.
    source_file: item.sourceFile,
  };
}

function pad2(n: number): string {
  return String(n).padStart(2, '0');
}

function localTime(ms: number): string {
  const d = new Date(ms);
  return `${d.getFullYear()}-${pad2(d.getMonth() + 1)}-${pad2(d.getDate())} ${pad2(d.getHours())}:${pad2(d.getMinutes())}`;
}

function itemLine(item: LibraryItem): string {
  const size = item.width && item.height ? `${item.width}x${item.height}` : item.durationMs !== null ? `${(item.durationMs / 1000).toFixed(1)} s` : '';
  const where = item.path ?? `[${item.status}${item.error ? `: ${item.error.split('\n')[0]}` : ''}] ${item.file.filename}`;
  const prompt = item.promptText ? `  "${item.promptText.split('\n')[0]!.slice(0, 60)}"` : '';
  const source = item.sourceFile ? `  from ${item.sourceFile}` : '';
  return `${localTime(item.createdAt)}  ${item.mediaKind.padEnd(5)}  ${size.padEnd(9)}  ${where}${item.workflowName ? `  (${item.workflowName})` : ''}${source}${prompt}`;
}

export async function libraryCommand(argv: string[], io: CliIo, environment: CliEnvironment): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub !== 'list' && sub !== 'search') throw new UsageError(`Usage:\n  ${LIBRARY_USAGE}`);
  const { values, positionals } = parseCommandArgs(`library ${sub}`, rest, FILTER_OPTIONS);
  if (sub === 'list' && positionals.length > 0)
    throw new UsageError(`flowdeck library list takes no words; to search, use: flowdeck library search ${positionals.join(' ')}`);
  if (sub === 'search' && positionals.length === 0) throw new UsageError('Say what to search for: flowdeck library search QUERY');
  const filter: ListFilter = {
    type: parseKind(values.type),
    since: values.since === undefined ? undefined : parseDateOption('since', values.since),
    until: values.until === undefined ? undefined : parseDateOption('until', values.until),
    workflow: values.workflow,
    server: values.server,
    limit: parseCount('limit', values.limit) ?? 100,
    offset: parseCount('offset', values.offset),
    // By default only files that are in the library: a path to open for every line.
    status: values.all ? undefined : 'done',
  };

  const store = await openCliStore(environment.dataDir, (line) => io.stderr.write(`${line}\n`));
  try {
    // No downloads from here: the source is never available, and the library is not started.
    const library = await Library.open({ store, root: libraryDirOf(environment), source: () => null });
    const items = sub === 'search' ? await library.search(positionals.join(' '), filter) : await library.list(filter);
    if (values.json) {
      io.stdout.write(`${stringifyJsonExact(items.map(itemJson))}\n`);
      return ExitCode.ok;
    }
    for (const item of items) io.stdout.write(`${itemLine(item)}\n`);
    if (items.length === 0) io.stderr.write(sub === 'search' ? 'Nothing in the library matches.\n' : 'No outputs in the library match.\n');
    if (!values.all) {
      const waiting = await library.count({ ...filter, status: ['pending', 'downloading', 'failed'], limit: undefined, offset: undefined });
      if (waiting > 0 && sub === 'list')
        io.stderr.write(`${waiting} more output${waiting === 1 ? ' is' : 's are'} not downloaded yet (pending or failed); --all shows them.\n`);
    }
    return ExitCode.ok;
  } finally {
    await store.close();
  }
}
