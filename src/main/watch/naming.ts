// The naming rule for outputs, e.g. "{stem}_{node}_{index}.{ext}" -> photo_9_1.png. Values come
// from the input's name and from the server (node id, extension), so each rendered path segment is
// reduced to a safe file name; the rule may hold "/" to sort outputs into subfolders.
import { extname } from 'node:path';
import { safeBaseName } from '@main/service/filenames';

export const NAME_TOKENS = ['stem', 'ext', 'node', 'index', 'hash', 'job', 'date'] as const;
export type NameToken = (typeof NAME_TOKENS)[number];
export type NameValues = Record<NameToken, string>;

const TOKEN = /\{([^{}]*)\}/g;

/** Why a rule cannot be used, or null. */
export function checkOutputNameRule(rule: string): string | null {
  for (const match of rule.matchAll(TOKEN)) {
    const name = match[1] ?? '';
    if (!(NAME_TOKENS as readonly string[]).includes(name)) {
      return `The output naming rule "${rule}" uses {${name}}, which is not one of ${NAME_TOKENS.map((t) => `{${t}}`).join(', ')}.`;
    }
  }
  if (/^[/\\]/.test(rule) || /^[a-zA-Z]:/.test(rule)) return `The output naming rule "${rule}" must be relative to the output folder.`;
  if (rule.split(/[/\\]/).some((part) => part === '..' || part === '.'))
    return `The output naming rule "${rule}" must not climb out of the output folder ("..").`;
  if (!['{stem}', '{hash}', '{job}'].some((token) => rule.includes(token))) {
    return `The output naming rule "${rule}" must name the input or the job ({stem}, {hash} or {job}), or the outputs of every input would compete for the same names.`;
  }
  return null;
}

/** Values for one output: its input's stem, the server's extension, node, position (from 1). */
export function nameValues(input: {
  stem: string;
  contentKey: string;
  promptId: string;
  node: string;
  index: number;
  serverFilename: string;
  at: number;
}): NameValues {
  const ext = extname(input.serverFilename).replace(/^\./, '') || 'bin';
  const date = new Date(input.at);
  const pad = (n: number): string => String(n).padStart(2, '0');
  return {
    stem: input.stem,
    ext,
    node: input.node,
    index: String(input.index),
    hash: input.contentKey.slice(0, 8),
    job: input.promptId.slice(0, 8),
    date: `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`,
  };
}

/**
 * Renders the rule into a relative path (segments joined with "/"). A token's value never adds a
 * folder: separators inside values are replaced, so only the rule's own "/" make subfolders.
 */
export function renderOutputName(rule: string, values: NameValues): string {
  const rendered = rule.replace(TOKEN, (_all, name: string) => (values[name as NameToken] ?? '').replace(/[/\\]/g, '_'));
  const parts = rendered.split(/[/\\]/).filter((part) => part !== '');
  const safe = parts.map((part, i) => safeBaseName(part, i === parts.length - 1 ? `${values.stem}.${values.ext}` : '_'));
  return safe.length > 0 ? safe.join('/') : safeBaseName(`${values.stem}.${values.ext}`, 'output');
}
