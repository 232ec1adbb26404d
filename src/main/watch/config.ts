// A hot folder's configuration: the schema (configurations come from IPC and from the store, so
// they are validated), the defaults, and the checks that need more than a schema (the bound node
// exists, the naming rules are usable, folders do not overlap in a harmful way).
import { isAbsolute, join, relative, resolve } from 'node:path';
import { z } from 'zod';
import { isJsonObject } from '@shared/json';
import type { Workflow } from '@main/service/types';
import { parseInputRef } from '@main/workflow/edit';
import { checkOutputNameRule } from './naming';
import { checkMaskRule } from './mask-rule';
import { normalisePatterns } from './patterns';
import { systemFolderReason } from '@main/files/system-folders';

export const DEFAULT_PATTERNS = ['*.png', '*.jpg', '*.jpeg', '*.webp'] as const;
export const DEFAULT_MASK_RULE = '{stem}.mask.png';
export const DEFAULT_OUTPUT_NAME = '{stem}_{node}_{index}.{ext}';

const workflowSchema = z.custom<Workflow>((value) => isJsonObject(value), { message: 'The workflow must be a JSON object keyed by node id.' });

export const retryPolicySchema = z.object({
  /** Attempts in all (the first one included) before a file fails for network or server errors. */
  maxAttempts: z.number().int().min(1).max(100).default(5),
  baseDelayMs: z.number().int().min(0).max(3_600_000).default(2_000),
  maxDelayMs: z.number().int().min(0).max(86_400_000).default(60_000),
});
export type RetryPolicyConfig = z.infer<typeof retryPolicySchema>;

/** What a caller gives; everything with a default may be left out. */
export const hotFolderInputSchema = z.object({
  id: z.string().min(1).max(200).optional(),
  name: z.string().max(200).optional(),
  inputDir: z.string().min(1),
  recursive: z.boolean().default(false),
  patterns: z
    .array(z.string().min(1))
    .min(1)
    .default([...DEFAULT_PATTERNS]),
  workflow: workflowSchema,
  workflowName: z.string().nullable().default(null),
  /** NODE.INPUT that receives each file's uploaded name. */
  bind: z.string().min(3),
  /** Name of the mask beside an image, with {stem}; null: no masks. */
  maskRule: z.string().min(1).nullable().default(DEFAULT_MASK_RULE),
  outputDir: z.string().min(1),
  outputName: z.string().min(1).default(DEFAULT_OUTPUT_NAME),
  /** Jobs in flight at once (uploading, submitted, running). */
  concurrency: z.number().int().min(1).max(64).default(2),
  retry: retryPolicySchema.default({ maxAttempts: 5, baseDelayMs: 2_000, maxDelayMs: 60_000 }),
  /** What happens to an input once it has been processed. */
  processed: z.enum(['leave', 'move']).default('leave'),
  /** How long size and modification time must stay unchanged before a file is taken (ms). */
  settleMs: z.number().int().min(0).max(600_000).default(1_000),
  /** A full rescan at this interval catches events a watcher missed (network shares); 0 = never. */
  rescanMs: z.number().int().min(0).max(86_400_000).default(60_000),
  /** Poll the file system instead of using native events (network shares). */
  usePolling: z.boolean().default(false),
  /** A folder paused for the key, credits or subscription tries again at this interval (ms). */
  pauseRecheckMs: z.number().int().min(100).max(86_400_000).default(60_000),
  enabled: z.boolean().default(true),
  /** Where its files run: the active server, or the pool of servers set in Servers (the app's hosts decide what the pool is). */
  runOn: z.enum(['active', 'pool']).default('active'),
});
export type HotFolderInput = z.input<typeof hotFolderInputSchema>;

export interface HotFolderConfig extends Omit<z.output<typeof hotFolderInputSchema>, 'id' | 'name'> {
  id: string;
  name: string;
  /** Where processed inputs go with `processed: 'move'`. */
  doneDir: string;
  failedDir: string;
}

export class HotFolderConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'HotFolderConfigError';
  }
}

function describeIssues(error: z.ZodError): string {
  return error.issues.map((issue) => `${issue.path.join('.') || 'configuration'}: ${issue.message}`).join('; ');
}

/** Validates and completes a configuration; throws HotFolderConfigError with every problem named. */
export function resolveHotFolderConfig(input: unknown, makeId: () => string): HotFolderConfig {
  const parsed = hotFolderInputSchema.safeParse(input);
  if (!parsed.success) throw new HotFolderConfigError(`Invalid hot folder: ${describeIssues(parsed.error)}`);
  const value = parsed.data;
  if (!isAbsolute(value.inputDir)) throw new HotFolderConfigError(`The input folder must be an absolute path (got "${value.inputDir}").`);
  if (!isAbsolute(value.outputDir)) throw new HotFolderConfigError(`The output folder must be an absolute path (got "${value.outputDir}").`);
  const inputDir = resolve(value.inputDir);
  const outputDir = resolve(value.outputDir);
  for (const [what, folder] of [
    ['input', inputDir],
    ['output', outputDir],
  ] as const) {
    const system = systemFolderReason(folder);
    if (system) throw new HotFolderConfigError(`The ${what} folder: ${system}`);
  }
  if (inputDir === outputDir) throw new HotFolderConfigError('The output folder must differ from the input folder, or outputs would be taken as new inputs.');
  if (isInside(inputDir, outputDir)) throw new HotFolderConfigError('The input folder must not lie inside the output folder.');

  let ref;
  try {
    ref = parseInputRef(value.bind);
  } catch (error) {
    throw new HotFolderConfigError(error instanceof Error ? error.message : String(error));
  }
  const node = value.workflow[ref.nodeId];
  if (!isJsonObject(node)) {
    throw new HotFolderConfigError(`The workflow has no node "${ref.nodeId}" for ${value.bind} (its nodes are: ${Object.keys(value.workflow).join(', ')}).`);
  }
  const nameProblem = checkOutputNameRule(value.outputName);
  if (nameProblem) throw new HotFolderConfigError(nameProblem);
  if (value.maskRule !== null) {
    const maskProblem = checkMaskRule(value.maskRule);
    if (maskProblem) throw new HotFolderConfigError(maskProblem);
  }
  let patterns: string[];
  try {
    patterns = normalisePatterns(value.patterns);
  } catch (error) {
    throw new HotFolderConfigError(error instanceof Error ? error.message : String(error));
  }
  if (value.retry.maxDelayMs < value.retry.baseDelayMs) throw new HotFolderConfigError('retry.maxDelayMs must be at least retry.baseDelayMs.');

  const id = value.id ?? makeId();
  return {
    ...value,
    id,
    name: value.name && value.name.trim() !== '' ? value.name.trim() : (inputDir.split(/[/\\]/).filter(Boolean).pop() ?? inputDir),
    inputDir,
    outputDir,
    patterns,
    doneDir: join(inputDir, 'done'),
    failedDir: join(inputDir, 'failed'),
  };
}

/** Whether `child` is `parent` or lies below it. */
export function isInside(child: string, parent: string): boolean {
  const rel = relative(parent, child);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}
