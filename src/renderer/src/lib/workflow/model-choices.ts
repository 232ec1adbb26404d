// Choices that are model files (checkpoints, LoRAs, VAEs, ...) and long choice lists, for the
// searchable picker: which inputs get it, how a file name is shown (its name without the model
// extension, its sub-folder apart), and the list filtered by what is typed and grouped by
// sub-folder. Pure, so it is tested without a DOM.

/** Extensions of model files as the server's model folders hold them. */
const MODEL_EXTENSION = /\.(safetensors|sft|ckpt|pt|pth|bin|gguf|onnx|pkl|engine)$/i;

/**
 * Inputs that name a file in a model folder (the editor's loaders): ckpt_name, lora_name,
 * lora_name_2, vae_name, unet_name, clip_name1, control_net_name, upscale_model_name, ...
 */
const MODEL_INPUT =
  /^(ckpt|checkpoint|lora|vae|unet|clip|clip_vision|control_net|controlnet|upscale_model|style_model|gligen|hypernetwork|model|ipadapter|embedding|diffusers?|taesd|photomaker|instantid|pulid)_?name(_?\d+)?$|^lora_\d+$/i;

/** Above this many options a plain select is hard to use: the picker with search takes over. */
export const LONG_LIST = 12;

/** Whether the input names a model file: by its name, or by most of its options being model files. */
export function isModelChoice(inputName: string, options: readonly string[]): boolean {
  if (MODEL_INPUT.test(inputName)) return true;
  if (options.length === 0) return false;
  const files = options.filter((o) => MODEL_EXTENSION.test(o)).length;
  return files * 2 > options.length;
}

/** The searchable picker is for model files and for long lists; short lists stay plain selects. */
export function wantsSearchPicker(inputName: string, options: readonly string[]): boolean {
  return options.length > LONG_LIST || isModelChoice(inputName, options);
}

export interface ChoiceParts {
  /** The exact value, as the workflow holds it. */
  value: string;
  /** The sub-folder ("SDXL/realistic" for "SDXL/realistic/xyz.safetensors"); "" at the top. */
  folder: string;
  /** The file name without a model extension ("xyz"). */
  name: string;
  /** The model extension taken off (".safetensors"), or "". */
  extension: string;
}

/** "SDXL\\xyz.safetensors" (servers on Windows use backslashes) -> folder "SDXL", name "xyz". */
export function choiceParts(value: string): ChoiceParts {
  const normalised = value.replace(/\\/g, '/');
  const cut = normalised.lastIndexOf('/');
  const folder = cut < 0 ? '' : normalised.slice(0, cut);
  const file = cut < 0 ? normalised : normalised.slice(cut + 1);
  const extension = MODEL_EXTENSION.exec(file)?.[0] ?? '';
  const name = extension !== '' && file.length > extension.length ? file.slice(0, file.length - extension.length) : file;
  return { value, folder, name, extension: name === file ? '' : extension };
}

export interface ChoiceGroup {
  /** "" for the files at the top of the folder. */
  folder: string;
  choices: ChoiceParts[];
}

/** Lower case, with separators as spaces, so "sdxl base" finds "SDXL/sd_xl_base_1.0". */
function searchText(text: string): string {
  return text.toLowerCase().replace(/[\\/_\-.]+/g, ' ');
}

/** Whether every word typed is found in the choice's path (any order, any case). */
export function matchesQuery(value: string, query: string): boolean {
  const words = searchText(query)
    .split(/\s+/)
    .filter((w) => w !== '');
  if (words.length === 0) return true;
  const haystack = searchText(value);
  return words.every((word) => haystack.includes(word));
}

/**
 * The options that match `query`, grouped by sub-folder: the top folder's files first, then each
 * sub-folder in alphabetical order; files keep the server's order inside their group.
 */
export function groupChoices(options: readonly string[], query = ''): ChoiceGroup[] {
  const groups = new Map<string, ChoiceParts[]>();
  for (const option of options) {
    if (!matchesQuery(option, query)) continue;
    const parts = choiceParts(option);
    const list = groups.get(parts.folder);
    if (list) list.push(parts);
    else groups.set(parts.folder, [parts]);
  }
  return [...groups.entries()]
    .sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a.localeCompare(b, undefined, { sensitivity: 'base', numeric: true })))
    .map(([folder, choices]) => ({ folder, choices }));
}

/**
 * At most `max` choices of `groups`, in order (a server may hold thousands of LoRAs: the list
 * stays quick, and typing narrows it), with how many were left out.
 */
export function firstChoices(groups: readonly ChoiceGroup[], max: number): { groups: ChoiceGroup[]; hidden: number } {
  const kept: ChoiceGroup[] = [];
  let room = max;
  let hidden = 0;
  for (const group of groups) {
    if (room <= 0) {
      hidden += group.choices.length;
      continue;
    }
    const choices = group.choices.slice(0, room);
    hidden += group.choices.length - choices.length;
    room -= choices.length;
    kept.push(choices.length === group.choices.length ? group : { folder: group.folder, choices });
  }
  return { groups: kept, hidden };
}

/** The choices in the order the list shows them (for arrow keys). */
export function flatChoices(groups: readonly ChoiceGroup[]): ChoiceParts[] {
  return groups.flatMap((g) => g.choices);
}

/** The next option for an arrow key, Home or End, from `index` (-1: none yet) in a list of `count`. */
export function stepIndex(index: number, count: number, key: 'ArrowDown' | 'ArrowUp' | 'Home' | 'End' | 'PageDown' | 'PageUp', page = 8): number {
  if (count === 0) return -1;
  switch (key) {
    case 'ArrowDown':
      return index < 0 ? 0 : Math.min(count - 1, index + 1);
    case 'ArrowUp':
      return index < 0 ? count - 1 : Math.max(0, index - 1);
    case 'Home':
      return 0;
    case 'End':
      return count - 1;
    case 'PageDown':
      return Math.min(count - 1, Math.max(0, index) + page);
    case 'PageUp':
      return Math.max(0, index - page);
  }
}
