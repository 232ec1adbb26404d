// Reading a node's object_info definition (input specs, return types, output flag), and the
// definition as served: upload combos list the files in the input folder, as on the real server.
import { isJsonObject, type JsonObject, type JsonValue } from '@shared/json';

export interface InputSpec {
  name: string;
  category: 'required' | 'optional';
  /** "INT", "IMAGE", "COMBO", ... or, for a legacy combo, the list of choices. */
  type: JsonValue;
  /** The spec's options object ({} when the spec has none). */
  options: JsonObject;
}

function section(def: JsonObject, name: 'required' | 'optional' | 'hidden'): JsonObject {
  const input = def.input;
  if (!isJsonObject(input)) return {};
  const part = input[name];
  return isJsonObject(part) ? part : {};
}

/** Required inputs, then optional ones, each in definition order. */
export function inputSpecs(def: JsonObject): InputSpec[] {
  const specs: InputSpec[] = [];
  for (const category of ['required', 'optional'] as const) {
    for (const [name, raw] of Object.entries(section(def, category))) {
      if (!Array.isArray(raw) || raw.length === 0) continue;
      const options = raw[1];
      specs.push({ name, category, type: raw[0] ?? null, options: isJsonObject(options) ? options : {} });
    }
  }
  return specs;
}

/** Hidden inputs, e.g. { unique_id: "UNIQUE_ID" }. */
export function hiddenInputs(def: JsonObject): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, kind] of Object.entries(section(def, 'hidden'))) if (typeof kind === 'string') out[name] = kind;
  return out;
}

export function outputTypes(def: JsonObject): JsonValue[] {
  return Array.isArray(def.output) ? def.output : [];
}

export function isOutputNode(def: JsonObject): boolean {
  return def.output_node === true;
}

/** The choices of a combo input (legacy list or newer COMBO), or null for other inputs. */
export function comboOptions(spec: InputSpec): JsonValue[] | null {
  if (Array.isArray(spec.type)) return spec.type;
  if (spec.type === 'COMBO') return Array.isArray(spec.options.options) ? spec.options.options : [];
  return null;
}

/** A combo whose choices are the uploaded files (image_upload, video_upload, ...). */
export function isUploadCombo(spec: InputSpec): boolean {
  return comboOptions(spec) !== null && Object.entries(spec.options).some(([k, v]) => /(^|_)upload$/.test(k) && v === true);
}

/** The definition as /object_info serves it: upload combos list the current input files. */
export function servedDefinition(def: JsonObject, inputFiles: () => string[]): JsonObject {
  const input = def.input;
  if (!isJsonObject(input)) return def;
  let files: string[] | null = null;
  const servedInput: JsonObject = {};
  for (const [category, part] of Object.entries(input)) {
    if (!isJsonObject(part) || category === 'hidden') {
      servedInput[category] = part;
      continue;
    }
    const servedPart: JsonObject = {};
    for (const [name, raw] of Object.entries(part)) {
      const options = Array.isArray(raw) ? raw[1] : undefined;
      const spec: InputSpec | null =
        Array.isArray(raw) && raw.length > 0 ? { name, category: 'required', type: raw[0] ?? null, options: isJsonObject(options) ? options : {} } : null;
      if (spec && isUploadCombo(spec)) {
        files ??= inputFiles();
        servedPart[name] = Array.isArray(spec.type) ? [[...files], spec.options] : ['COMBO', { ...spec.options, options: [...files] }];
      } else {
        servedPart[name] = raw ?? null;
      }
    }
    servedInput[category] = servedPart;
  }
  return { ...def, input: servedInput };
}
