// What a job was run with, read from the API-format workflow it was submitted with: its prompt,
// seed (as exact decimal text: a 2^64-1 seed keeps every digit), steps, size, model, sampler and
// cfg. The stage shows them as chips and the jobs list names a job by its prompt and seed. Pure
// data, so it is tested without a DOM.
import { isJsonObject, type JsonObject, type JsonValue } from '@shared/json';

export interface JobParams {
  prompt: string | null;
  seed: string | null;
  steps: string | null;
  width: string | null;
  height: string | null;
  model: string | null;
  sampler: string | null;
  cfg: string | null;
}

const SEED_NAMES = ['seed', 'noise_seed'];
const PROMPT_NAMES = ['text', 'prompt', 'positive', 'text_g'];
const MODEL_NAMES = ['ckpt_name', 'unet_name', 'model_name', 'checkpoint'];

function nodeIds(workflow: JsonObject): string[] {
  return Object.keys(workflow).sort((a, b) => {
    const na = Number(a);
    const nb = Number(b);
    return Number.isInteger(na) && Number.isInteger(nb) ? na - nb : a.localeCompare(b);
  });
}

function inputsOf(workflow: JsonObject, id: string): JsonObject | null {
  const node = workflow[id];
  return isJsonObject(node) && isJsonObject(node['inputs']) ? node['inputs'] : null;
}

function linkTarget(value: JsonValue | undefined): string | null {
  return Array.isArray(value) && value.length === 2 && typeof value[0] === 'string' && typeof value[1] === 'number' ? value[0] : null;
}

function scalarText(value: JsonValue | undefined): string | null {
  if (typeof value === 'number' || typeof value === 'bigint') return String(value);
  if (typeof value === 'string' && value.trim() !== '') return value;
  return null;
}

/** A value, following a link one or two nodes back to a primitive node's value (a seed node, a text node). */
function resolve(workflow: JsonObject, value: JsonValue | undefined, names: readonly string[], depth = 0): JsonValue | undefined {
  const target = linkTarget(value);
  if (target === null) return value;
  if (depth > 2) return undefined;
  const inputs = inputsOf(workflow, target);
  if (!inputs) return undefined;
  for (const name of [...names, 'value', 'text', 'string', 'seed', 'int']) {
    if (name in inputs) return resolve(workflow, inputs[name], names, depth + 1);
  }
  return undefined;
}

/** The sampler: the first node with a seed and steps (else the first with a seed). */
function samplerOf(workflow: JsonObject): JsonObject | null {
  let withSeed: JsonObject | null = null;
  for (const id of nodeIds(workflow)) {
    const inputs = inputsOf(workflow, id);
    if (!inputs) continue;
    const hasSeed = SEED_NAMES.some((n) => n in inputs);
    if (hasSeed && 'steps' in inputs) return inputs;
    if (hasSeed) withSeed ??= inputs;
  }
  return withSeed;
}

function firstInput(workflow: JsonObject, names: readonly string[], accept: (v: JsonValue | undefined) => string | null): string | null {
  for (const id of nodeIds(workflow)) {
    const inputs = inputsOf(workflow, id);
    if (!inputs) continue;
    for (const name of names) {
      const text = accept(resolve(workflow, inputs[name], [name]));
      if (text !== null) return text;
    }
  }
  return null;
}

function promptOf(workflow: JsonObject, sampler: JsonObject | null): string | null {
  // The sampler's positive conditioning, followed back to its text; else the first prompt-like text.
  const positive = sampler ? resolve(workflow, sampler['positive'] ?? sampler['prompt'], PROMPT_NAMES) : undefined;
  if (typeof positive === 'string' && positive.trim() !== '') return positive.trim();
  const text = firstInput(workflow, PROMPT_NAMES, (v) => (typeof v === 'string' && v.trim() !== '' ? v.trim() : null));
  return text;
}

export function jobParams(workflow: JsonObject | null): JobParams {
  const empty: JobParams = { prompt: null, seed: null, steps: null, width: null, height: null, model: null, sampler: null, cfg: null };
  if (!workflow) return empty;
  const sampler = samplerOf(workflow);
  const fromSampler = (names: readonly string[]): string | null => {
    if (!sampler) return null;
    for (const name of names) {
      const text = scalarText(resolve(workflow, sampler[name], [name]));
      if (text !== null) return text;
    }
    return null;
  };
  const numeric = (v: JsonValue | undefined): string | null => (typeof v === 'number' || typeof v === 'bigint' ? String(v) : null);
  const text = (v: JsonValue | undefined): string | null => (typeof v === 'string' && v !== '' ? v : null);
  return {
    prompt: promptOf(workflow, sampler),
    seed: fromSampler(SEED_NAMES) ?? firstInput(workflow, SEED_NAMES, numeric),
    steps: fromSampler(['steps']),
    width: fromSampler(['width']) ?? firstInput(workflow, ['width'], numeric),
    height: fromSampler(['height']) ?? firstInput(workflow, ['height'], numeric),
    model: firstInput(workflow, MODEL_NAMES, text),
    sampler: fromSampler(['sampler_name']),
    cfg: fromSampler(['cfg']),
  };
}

/** The first words of a prompt, cut at a word near `max` characters, with an ellipsis when cut. */
export function firstWords(text: string, max = 40): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  if (flat.length <= max) return flat;
  const cut = flat.slice(0, max);
  const space = cut.lastIndexOf(' ');
  return `${(space > max / 2 ? cut.slice(0, space) : cut).replace(/[\s,.;:]+$/, '')}…`;
}

/** A workflow file name as a title: "text-to-image.json" -> "text-to-image". */
export function workflowTitle(label: string): string {
  return label.replace(/(\.app)?\.json$/i, '') || label;
}

/** How a job is named: its prompt's first words (else its workflow's title) and its seed. */
export function jobName(label: string, params: Pick<JobParams, 'prompt' | 'seed'>): string {
  const head = params.prompt ? firstWords(params.prompt) : workflowTitle(label);
  return params.seed !== null ? `${head} · seed ${params.seed}` : head;
}
