// Node definitions from GET /api/object_info, parsed exactly (the seed's INT max is 2^64-1, beyond
// a JavaScript number) into typed input specs. The list comes from servers with arbitrary custom
// nodes installed, so one malformed entry or input is skipped with a warning instead of failing
// the whole list, and fields this client does not model are kept in `config`.
import { isJsonObject, parseJsonExact, type JsonObject, type JsonValue } from '@shared/json';
import { ServiceError } from './errors';

export type InputSection = 'required' | 'optional' | 'hidden';
export type IntValue = number | bigint;

export type InputKind =
  | { kind: 'int'; default: IntValue | null; min: IntValue | null; max: IntValue | null; step: IntValue | null }
  | { kind: 'float'; default: number | null; min: number | null; max: number | null; step: number | null; round: number | false | null }
  | { kind: 'string'; default: string | null; multiline: boolean }
  | { kind: 'boolean'; default: boolean | null }
  | { kind: 'combo'; options: Array<string | number>; default: string | number | null; multiselect: boolean }
  /** A connection from another node's output (IMAGE, MODEL, LATENT, ...), or a hidden value (PROMPT, UNIQUE_ID). */
  | { kind: 'link'; type: string };

export type InputSpec = InputKind & {
  section: InputSection;
  name: string;
  tooltip: string | null;
  /** LoadImage-style inputs whose value is an uploaded file name. */
  imageUpload: boolean;
  /** The spec's options object exactly as sent (flags not modelled above: display, control_after_generate, ...). */
  config: JsonObject;
};

export interface OutputSpec {
  type: string;
  name: string;
  isList: boolean;
}

export interface NodeDefinition {
  name: string;
  displayName: string;
  category: string;
  description: string;
  outputNode: boolean;
  /** Partner node: calls an external service and needs extra_data.api_key_comfy_org. */
  apiNode: boolean;
  deprecated: boolean;
  experimental: boolean;
  inputs: InputSpec[];
  outputs: OutputSpec[];
}

export type NodeDefinitions = Map<string, NodeDefinition>;

export interface NodeDefinitionsReport {
  definitions: NodeDefinitions;
  /** One line per skipped entry or input. */
  warnings: string[];
}

const SECTIONS: readonly InputSection[] = ['required', 'optional', 'hidden'];

function str(value: JsonValue | undefined, fallback: string): string {
  return typeof value === 'string' ? value : fallback;
}

function bool(value: JsonValue | undefined): boolean {
  return value === true;
}

function intValue(value: JsonValue | undefined): IntValue | null {
  if (typeof value === 'bigint') return value;
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  return null;
}

function floatValue(value: JsonValue | undefined): number | null {
  if (typeof value === 'bigint') return Number(value);
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  return null;
}

function comboOption(value: JsonValue): string | number | null {
  if (typeof value === 'string' || typeof value === 'number') return value;
  if (typeof value === 'bigint') return Number(value);
  return null;
}

function comboKind(list: JsonValue[], options: JsonObject): InputKind {
  const values = list.map(comboOption).filter((v): v is string | number => v !== null);
  const def = options.default;
  const multiselect = options.multiselect === true || (options.multi_select !== undefined && options.multi_select !== false && options.multi_select !== null);
  return {
    kind: 'combo',
    options: values,
    default: typeof def === 'string' || typeof def === 'number' ? def : null,
    multiselect,
  };
}

/** Turns one `[TYPE, options?]` tuple (or a bare "TYPE" string, as hidden inputs use) into a kind. */
function parseKind(spec: JsonValue): { kind: InputKind; options: JsonObject } | string {
  let head: JsonValue | undefined;
  let options: JsonObject = {};
  if (typeof spec === 'string') head = spec;
  else if (Array.isArray(spec) && spec.length >= 1) {
    head = spec[0];
    const second = spec[1];
    if (second !== undefined && second !== null) {
      if (!isJsonObject(second)) return 'options is not an object';
      options = second;
    }
  } else return 'not a [TYPE, options] tuple';

  // Legacy combo: the first element is the list of choices itself.
  if (Array.isArray(head)) return { kind: comboKind(head, options), options };
  if (typeof head !== 'string' || head === '') return 'type is not a string';
  switch (head) {
    case 'INT':
      return {
        kind: { kind: 'int', default: intValue(options.default), min: intValue(options.min), max: intValue(options.max), step: intValue(options.step) },
        options,
      };
    case 'FLOAT': {
      const round = options.round === false ? false : floatValue(options.round);
      return {
        kind: {
          kind: 'float',
          default: floatValue(options.default),
          min: floatValue(options.min),
          max: floatValue(options.max),
          step: floatValue(options.step),
          round,
        },
        options,
      };
    }
    case 'STRING':
      return { kind: { kind: 'string', default: typeof options.default === 'string' ? options.default : null, multiline: bool(options.multiline) }, options };
    case 'BOOLEAN':
      return { kind: { kind: 'boolean', default: typeof options.default === 'boolean' ? options.default : null }, options };
    case 'COMBO': {
      // Newer form: ["COMBO", {options: [...]}]; a remote combo may list none until fetched.
      const list = options.options;
      if (list !== undefined && !Array.isArray(list)) return 'COMBO options is not a list';
      return { kind: comboKind(list ?? [], options), options };
    }
    default:
      return { kind: { kind: 'link', type: head }, options };
  }
}

/** One class's inputs (`entry.input`, ordered by `entry.input_order`); also serves the inputs a dynamic combo's option brings. */
export function parseInputs(className: string, entry: JsonObject, warnings: string[]): InputSpec[] | string {
  const input = entry.input;
  if (!isJsonObject(input)) return 'has no input object';
  const order = isJsonObject(entry.input_order) ? entry.input_order : {};
  const inputs: InputSpec[] = [];
  for (const section of SECTIONS) {
    const specs = input[section];
    if (specs === undefined || specs === null) continue;
    if (!isJsonObject(specs)) {
      warnings.push(`${className}: input.${section} is not an object; skipped`);
      continue;
    }
    // input_order gives the display order; names it misses follow in object order.
    const listed = order[section];
    const names = Array.isArray(listed) ? listed.filter((n): n is string => typeof n === 'string' && n in specs) : [];
    for (const name of Object.keys(specs)) if (!names.includes(name)) names.push(name);
    for (const name of names) {
      const spec = specs[name];
      if (spec === undefined) continue;
      const parsed = parseKind(spec);
      if (typeof parsed === 'string') {
        warnings.push(`${className}: input "${name}" skipped (${parsed})`);
        continue;
      }
      inputs.push({
        ...parsed.kind,
        section,
        name,
        tooltip: typeof parsed.options.tooltip === 'string' ? parsed.options.tooltip : null,
        imageUpload: parsed.options.image_upload === true,
        config: parsed.options,
      });
    }
  }
  return inputs;
}

function parseOutputs(entry: JsonObject): OutputSpec[] {
  const types = Array.isArray(entry.output) ? entry.output : [];
  const names = Array.isArray(entry.output_name) ? entry.output_name : [];
  const lists = Array.isArray(entry.output_is_list) ? entry.output_is_list : [];
  return types.map((t, i) => {
    // A combo output lists its choices instead of a type name.
    const type = typeof t === 'string' ? t : Array.isArray(t) ? 'COMBO' : String(t);
    const name = names[i];
    return { type, name: typeof name === 'string' ? name : type, isList: lists[i] === true };
  });
}

function parseEntry(className: string, entry: JsonValue, warnings: string[]): NodeDefinition | null {
  if (!isJsonObject(entry)) {
    warnings.push(`${className}: not an object; skipped`);
    return null;
  }
  const inputs = parseInputs(className, entry, warnings);
  if (typeof inputs === 'string') {
    warnings.push(`${className}: ${inputs}; skipped`);
    return null;
  }
  const name = str(entry.name, className);
  return {
    name,
    displayName: str(entry.display_name, name) || name,
    category: str(entry.category, ''),
    description: str(entry.description, ''),
    outputNode: bool(entry.output_node),
    apiNode: bool(entry.api_node),
    deprecated: bool(entry.deprecated),
    experimental: bool(entry.experimental),
    inputs,
    outputs: parseOutputs(entry),
  };
}

/** Parses an object_info answer, reporting what was skipped. */
export function parseNodeDefinitionsReport(text: string): NodeDefinitionsReport {
  let root: JsonValue;
  try {
    root = parseJsonExact(text);
  } catch (error) {
    throw new ServiceError('protocol', 'The server sent node definitions that are not valid JSON.', { cause: error, retryable: false });
  }
  if (!isJsonObject(root)) throw new ServiceError('protocol', 'The server sent node definitions that are not a JSON object.', { retryable: false });
  const definitions: NodeDefinitions = new Map();
  const warnings: string[] = [];
  for (const [className, entry] of Object.entries(root)) {
    const definition = parseEntry(className, entry, warnings);
    if (definition) definitions.set(className, definition);
  }
  return { definitions, warnings };
}

/** Parses an object_info answer; malformed entries are skipped (see parseNodeDefinitionsReport). */
export function parseNodeDefinitions(text: string): NodeDefinitions {
  return parseNodeDefinitionsReport(text).definitions;
}
