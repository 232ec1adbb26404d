// Dynamic combos (`COMFY_DYNAMICCOMBO_V3`, e.g. ResizeImageMaskNode's resize_type): a combo whose
// chosen option brings inputs of its own. The editor puts the chosen option's widgets right after the
// combo's, named `COMBO.INPUT` (sockets likewise), and queues them under those names. Which slots
// follow the combo in `widgets_values` therefore depends on the value stored for the combo itself:
// the converter asks for them once that value is known.
import { isJsonObject, type JsonValue } from '@shared/json';
import { parseInputs, type InputSpec } from '@main/service/object-info';

export const DYNAMIC_COMBO_TYPE = 'COMFY_DYNAMICCOMBO_V3';

export interface DynamicCombo {
  /** The combo itself, as a plain combo of the option keys. */
  combo: InputSpec;
  /** Each option's inputs, names already prefixed with the combo's. */
  inputsFor(key: JsonValue | undefined): InputSpec[];
}

const parsed = new WeakMap<InputSpec, DynamicCombo | null>();

function read(spec: InputSpec): DynamicCombo | null {
  const list = spec.config.options;
  if (!Array.isArray(list)) return null;
  const byKey = new Map<string, InputSpec[]>();
  for (const option of list) {
    if (!isJsonObject(option) || typeof option.key !== 'string') continue;
    const inputs = isJsonObject(option.inputs) ? parseInputs(spec.name, { input: option.inputs }, []) : [];
    byKey.set(option.key, typeof inputs === 'string' ? [] : inputs.map((input) => ({ ...input, name: `${spec.name}.${input.name}` })));
  }
  const keys = [...byKey.keys()];
  const def = spec.config.default;
  const combo: InputSpec = {
    kind: 'combo',
    options: keys,
    default: typeof def === 'string' && byKey.has(def) ? def : (keys[0] ?? null),
    multiselect: false,
    section: spec.section,
    name: spec.name,
    tooltip: spec.tooltip,
    imageUpload: false,
    config: spec.config,
  };
  return { combo, inputsFor: (key) => (typeof key === 'string' ? (byKey.get(key) ?? []) : []) };
}

/** The dynamic combo this input is, or null for any other input. */
export function dynamicComboOf(spec: InputSpec): DynamicCombo | null {
  if (spec.kind !== 'link' || spec.type !== DYNAMIC_COMBO_TYPE) return null;
  let known = parsed.get(spec);
  if (known === undefined) {
    known = read(spec);
    parsed.set(spec, known);
  }
  return known;
}
