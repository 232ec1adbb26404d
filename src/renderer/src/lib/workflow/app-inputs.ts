// The form as an app: which inputs a workflow's app shows, in which order, and what they are
// called. An app comes from the UI file's `extra.linearData` (the editor's App mode: inputs as
// [nodeId, widgetName, options]), from the user's own pins (kept by ./app-store), or is proposed:
// the inputs people change (prompt texts, seed, steps, cfg, denoise, size, sampler, scheduler,
// models, images, masks) first, in that order. Pure data, so it is tested without a DOM.
import { isJsonObject, parseJsonExact, type JsonObject, type JsonValue } from '@shared/json';
import type { FormField, NodeGroup } from './form-model';
import { isModelChoice } from './model-choices';

export interface AppInput {
  nodeId: string;
  name: string;
}

/** The order of the proposed app: each input's kind, first match wins. */
const PROPOSED: { kind: string; test: (field: FormField) => boolean }[] = [
  { kind: 'image', test: (f) => f.spec?.kind === 'combo' && f.spec.imageUpload },
  { kind: 'prompt', test: (f) => f.spec?.kind === 'string' && (f.spec.multiline || /^(text|prompt|positive|negative)(_\w+)?$/i.test(f.name)) },
  { kind: 'seed', test: (f) => f.spec?.kind === 'int' && f.spec.seed },
  { kind: 'steps', test: (f) => f.name === 'steps' },
  { kind: 'cfg', test: (f) => f.name === 'cfg' || f.name === 'guidance' },
  { kind: 'denoise', test: (f) => f.name === 'denoise' },
  { kind: 'size', test: (f) => f.name === 'width' || f.name === 'height' },
  { kind: 'sampler', test: (f) => f.name === 'sampler_name' },
  { kind: 'scheduler', test: (f) => f.name === 'scheduler' },
  // The picker's own rule (model-choices.ts): by the input's name, or by its options being model files.
  { kind: 'model', test: (f) => isModelChoice(f.name, f.spec?.kind === 'combo' && !f.spec.imageUpload ? f.spec.options : []) },
  { kind: 'mask', test: (f) => /mask/i.test(f.name) && f.source.kind !== 'link' },
];

/** The inputs a proposed app shows: those people change, grouped by kind, in node order within a kind. */
export function proposeApp(groups: readonly NodeGroup[]): AppInput[] {
  const fields = groups.flatMap((g) => g.fields).filter((f) => f.source.kind !== 'link' && f.spec?.kind !== 'connection');
  const picked: AppInput[] = [];
  for (const { test } of PROPOSED) {
    for (const field of fields) {
      if (test(field) && !picked.some((p) => p.nodeId === field.nodeId && p.name === field.name)) picked.push({ nodeId: field.nodeId, name: field.name });
    }
  }
  return picked;
}

/** `extra.linearData` of a UI file's text, when it has one. */
function linearDataOf(uiWorkflowJson: string | null): JsonObject | null {
  if (uiWorkflowJson === null) return null;
  let graph: JsonValue;
  try {
    graph = parseJsonExact(uiWorkflowJson);
  } catch {
    return null;
  }
  const extra = isJsonObject(graph) ? graph['extra'] : null;
  const linear = isJsonObject(extra) ? extra['linearData'] : null;
  return isJsonObject(linear) ? linear : null;
}

/** `extra.linearData.inputs` of a UI file, when it has one: [[nodeId, widgetName, {...}], ...]. */
export function linearDataInputs(uiWorkflowJson: string | null): AppInput[] | null {
  const inputs = linearDataOf(uiWorkflowJson)?.['inputs'];
  if (!Array.isArray(inputs)) return null;
  const out: AppInput[] = [];
  for (const entry of inputs) {
    if (!Array.isArray(entry) || entry.length < 2) continue;
    const [nodeId, name] = entry;
    if ((typeof nodeId === 'string' || typeof nodeId === 'number') && typeof name === 'string') out.push({ nodeId: String(nodeId), name });
  }
  return out;
}

/** `extra.linearData.outputs` of a UI file: the nodes whose outputs the app shows; null (or empty): every output. */
export function linearDataOutputs(uiWorkflowJson: string | null): string[] | null {
  const outputs = linearDataOf(uiWorkflowJson)?.['outputs'];
  if (!Array.isArray(outputs)) return null;
  const ids = outputs.flatMap((id) => (typeof id === 'string' || typeof id === 'number' ? [String(id)] : []));
  return ids.length > 0 ? ids : null;
}

/**
 * The outputs an app shows: those of the nodes it lists (linearData.outputs), in their order;
 * every output when it lists none, or when none of the listed nodes made one (an empty stage
 * would say less than the rest).
 */
export function appOutputsOf<T extends { file: { node: string } }>(outputs: readonly T[], listed: readonly string[] | null): T[] {
  if (listed === null) return [...outputs];
  const shown = outputs.filter((o) => listed.includes(o.file.node));
  return shown.length > 0 ? shown : [...outputs];
}

/** The fields of an app, in its order; inputs the workflow does not have (any more) are left out. */
export function appFields(groups: readonly NodeGroup[], inputs: readonly AppInput[]): FormField[] {
  const byKey = new Map(groups.flatMap((g) => g.fields).map((f) => [`${f.nodeId}\u0000${f.name}`, f]));
  return inputs.flatMap((i) => byKey.get(`${i.nodeId}\u0000${i.name}`) ?? []);
}

/** "sampler_name" -> "Sampler", "ckpt_name" -> "Checkpoint", "noise_seed" -> "Noise seed". */
export function plainName(name: string): string {
  const known: Record<string, string> = {
    ckpt_name: 'Checkpoint',
    unet_name: 'Diffusion model',
    lora_name: 'LoRA',
    vae_name: 'VAE',
    clip_name: 'Text encoder',
    sampler_name: 'Sampler',
    cfg: 'CFG',
    denoise: 'Denoise',
    text: 'Prompt',
    image: 'Image',
    width: 'Width',
    height: 'Height',
    batch_size: 'Images per run',
    filename_prefix: 'File name prefix',
  };
  if (known[name]) return known[name];
  const words = name.replace(/_ms$/, ' (ms)').replace(/_/g, ' ').trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/**
 * The label of an app input: its plain name, and the node's title when another input of the app
 * has the same name (two prompts: "Prompt · Positive", "Prompt · Negative").
 */
export function appLabel(field: FormField, fields: readonly FormField[], groups: readonly NodeGroup[]): string {
  const name = plainName(field.name);
  const twins = fields.filter((f) => f.name === field.name);
  if (twins.length < 2) return name;
  const group = groups.find((g) => g.id === field.nodeId);
  return `${name} · ${group?.title ?? group?.displayName ?? field.nodeId}`;
}
