// Which widget owns which `widgets_values` slot, as the editor builds its widgets from a node
// definition: one per widget input in definition order, plus editor-only companions that keep a
// slot but are never sent (a seed's "control after generate", a controlled combo's filter string,
// an upload button), and widgets whose value the editor computes only when it queues.
import { isJsonObject, type JsonObject, type JsonValue } from '@shared/json';
import type { InputSpec, NodeDefinition } from '@main/service/object-info';
import { dynamicComboOf } from './dynamic-combo';
import type { ValueOrigin } from './model';

/** computed: the editor fills it when it queues (a 3D scene's picture); no file holds what it sends. */
export type SlotRole = 'value' | 'control' | 'filter' | 'upload' | 'computed';

export interface WidgetSlot {
  name: string;
  role: SlotRole;
  /** The definition's input for a value slot. */
  spec: InputSpec | null;
  /** A dynamic combo's: the slots that follow it for the value it takes. */
  children?: (value: JsonValue | undefined) => WidgetSlot[];
  /** A computed slot's: why no file can hold its value. */
  why?: string;
}

/** The words a control widget holds; early files stored a boolean instead. */
const CONTROL_WORDS: ReadonlySet<string> = new Set(['fixed', 'increment', 'decrement', 'randomize', 'increment-wrap']);

export function isControlValue(value: JsonValue | undefined): boolean {
  return typeof value === 'boolean' || (typeof value === 'string' && CONTROL_WORDS.has(value));
}

/**
 * Input types the editor draws as a widget of its own (a recorder) rather than a socket: they hold a
 * widgets_values slot like any widget, and their stored value is sent.
 */
const EDITOR_WIDGET_TYPES: ReadonlySet<string> = new Set(['AUDIO_RECORD']);

const SCENE_PICTURE = {
  buttons: ['upload 3d model', 'upload extra resources', 'clear'],
  why: 'it is a picture of the 3D scene (with its mask, normals and camera) that the editor renders and uploads when it queues; no file holds it',
};

/**
 * Input types whose widget the editor fills when it queues, each holding a slot: the 3D viewer
 * renders the scene and uploads the pictures (its three buttons come first, each with a slot of its
 * own); the camera widget takes a picture and uploads it.
 */
const QUEUE_TIME_WIDGETS: ReadonlyMap<string, { buttons: readonly string[]; why: string }> = new Map([
  ['LOAD_3D', SCENE_PICTURE],
  ['LOAD_3D_ANIMATION', SCENE_PICTURE],
  ['WEBCAM', { buttons: [], why: 'it is a picture the editor takes from the camera and uploads when it queues; no file holds it' }],
]);

/** Seed inputs get a control widget even when the definition does not ask for one (older servers). */
const SEED_NAMES: ReadonlySet<string> = new Set(['seed', 'noise_seed']);

function hasControl(spec: InputSpec): boolean {
  const flag = spec.config.control_after_generate;
  if (flag !== undefined && flag !== false && flag !== null) return spec.kind === 'int' || spec.kind === 'combo';
  return spec.kind === 'int' && SEED_NAMES.has(spec.name);
}

function hasUpload(spec: InputSpec): boolean {
  const c = spec.config;
  // file_upload (a 3D model) gets no upload widget of its own: the 3D viewer's buttons do that.
  return c.image_upload === true || c.video_upload === true || c.audio_upload === true;
}

/** Names of the node's sockets that the file records as belonging to a widget. */
export interface SocketInfo {
  name: string;
  widgetName: string | null;
}

/**
 * The widget slots of a node of this definition. Connection inputs own none. A `forceInput` input
 * owns one only when the file shows it as a converted widget (older editors made it a widget and
 * converted it at once; newer ones make a bare socket).
 */
export function widgetSlots(definition: NodeDefinition, sockets: readonly SocketInfo[]): WidgetSlot[] {
  return slotsForInputs(definition.inputs, sockets);
}

function slotsForInputs(inputs: readonly InputSpec[], sockets: readonly SocketInfo[]): WidgetSlot[] {
  const slots: WidgetSlot[] = [];
  const uploads: WidgetSlot[] = [];
  let section: string | null = null;
  const flushUploads = (): void => {
    slots.push(...uploads);
    uploads.length = 0;
  };
  for (const spec of inputs) {
    if (spec.section === 'hidden') continue;
    const dynamic = dynamicComboOf(spec);
    const computed = spec.kind === 'link' ? QUEUE_TIME_WIDGETS.get(spec.type) : undefined;
    if (!dynamic && !computed && spec.kind === 'link' && !EDITOR_WIDGET_TYPES.has(spec.type)) continue;
    // Upload buttons come after the last required widget (the editor appends them to "required").
    if (section !== spec.section) {
      if (section === 'required') flushUploads();
      section = spec.section;
    }
    if (dynamic) {
      slots.push({ name: spec.name, role: 'value', spec: dynamic.combo, children: (value) => slotsForInputs(dynamic.inputsFor(value), sockets) });
      continue;
    }
    if (computed) {
      for (const button of computed.buttons) slots.push({ name: button, role: 'upload', spec: null });
      slots.push({ name: spec.name, role: 'computed', spec, why: computed.why });
      continue;
    }
    if (spec.config.forceInput === true && !sockets.some((s) => s.widgetName === spec.name || (s.widgetName !== null && s.name === spec.name))) continue;
    slots.push({ name: spec.name, role: 'value', spec });
    if (hasControl(spec)) {
      slots.push({ name: `${spec.name}:control_after_generate`, role: 'control', spec: null });
      if (spec.kind === 'combo') slots.push({ name: `${spec.name}:control_filter_list`, role: 'filter', spec: null });
    }
    if (hasUpload(spec)) uploads.push({ name: 'upload', role: 'upload', spec: null });
  }
  flushUploads();
  return slots;
}

/** The value a fresh widget starts with, which a file too old to store this widget keeps. */
export function widgetDefault(spec: InputSpec): JsonValue | undefined {
  switch (spec.kind) {
    case 'int':
      return spec.default ?? spec.min ?? 0;
    case 'float':
      return spec.default ?? spec.min ?? 0;
    case 'string':
      return spec.default ?? '';
    case 'boolean':
      return spec.default ?? false;
    case 'combo':
      return spec.default ?? spec.options[0];
    default:
      return undefined;
  }
}

export interface AssignOptions {
  /** Where in a list the node's values start (a group node's list holds several nodes'). */
  from?: number;
  /** Slots that take no value from the list (a group node's inner widget fed by an inner link). */
  skip?: (slot: WidgetSlot) => boolean;
  /** Give slots the list has no value for the widget's default (false: leave them out). */
  defaults?: boolean;
  /** Told where each value taken from the file is stored. */
  origin?: (name: string, origin: ValueOrigin) => void;
}

/**
 * Assigns stored values to the value slots: positional for a list, by name for an object. A control
 * slot takes its value only when the stored value is one (a file saved before the control widget
 * existed has none there); a filter slot only after a control value. Slots the file has no value
 * for get the widget's default, as the editor would show them. Returns where the next node's values
 * would start in the list.
 */
export function assignWidgetValues(
  slots: readonly WidgetSlot[],
  stored: JsonValue[] | JsonObject | null,
  out: JsonObject,
  options: AssignOptions = {},
): number {
  const defaults = options.defaults ?? true;
  const fallbackFor = (slot: WidgetSlot): void => {
    const fallback = defaults && slot.spec ? widgetDefault(slot.spec) : undefined;
    if (fallback !== undefined) out[slot.name] = fallback;
  };
  // A dynamic combo's slots are known once its value is: they are put in right after it.
  const queue = [...slots];
  const expand = (at: number, slot: WidgetSlot): void => {
    if (slot.children) queue.splice(at, 0, ...slot.children(out[slot.name]));
  };
  if (isJsonObject(stored)) {
    for (let at = 0; at < queue.length; at += 1) {
      const slot = queue[at]!;
      if (slot.role !== 'value') continue;
      const value = stored[slot.name];
      if (value !== undefined) {
        out[slot.name] = value;
        options.origin?.(slot.name, { holder: stored, key: slot.name });
      } else fallbackFor(slot);
      expand(at + 1, slot);
    }
    return options.from ?? 0;
  }
  const values = stored ?? [];
  let next = options.from ?? 0;
  let controlTaken = false;
  for (let at = 0; at < queue.length; at += 1) {
    const slot = queue[at]!;
    if (options.skip?.(slot)) continue;
    const value = next < values.length ? values[next] : undefined;
    if (slot.role === 'control') {
      controlTaken = isControlValue(value);
      if (controlTaken) next += 1;
      continue;
    }
    if (slot.role === 'filter') {
      if (controlTaken && typeof value === 'string') next += 1;
      continue;
    }
    if (slot.role === 'upload' || slot.role === 'computed') {
      if (value !== undefined) next += 1;
      continue;
    }
    if (value !== undefined) {
      out[slot.name] = value;
      options.origin?.(slot.name, { holder: values, key: next });
      next += 1;
    } else fallbackFor(slot);
    expand(at + 1, slot);
  }
  return next;
}

/**
 * For a class the server lacks: the widget names the file itself records (`inputs[].widget.name`),
 * in socket order, when they account for every stored value (control values after a number aside);
 * null when they do not, and then the node cannot be converted without guessing.
 */
export function slotsFromFile(sockets: readonly SocketInfo[], stored: JsonValue[] | JsonObject | null): WidgetSlot[] | null {
  if (stored === null) return [];
  if (isJsonObject(stored)) return Object.keys(stored).map((name) => ({ name, role: 'value' as const, spec: null }));
  const names = sockets.filter((s) => s.widgetName !== null).map((s) => s.widgetName!);
  const slots: WidgetSlot[] = [];
  let name = 0;
  for (let i = 0; i < stored.length; i += 1) {
    const previous = i > 0 ? stored[i - 1] : undefined;
    if (isControlValue(stored[i]) && (typeof previous === 'number' || typeof previous === 'bigint') && typeof stored[i] === 'string') {
      slots.push({ name: `${names[name - 1] ?? '?'}:control_after_generate`, role: 'control', spec: null });
      continue;
    }
    if (name >= names.length) return null;
    slots.push({ name: names[name]!, role: 'value', spec: null });
    name += 1;
  }
  return slots;
}
