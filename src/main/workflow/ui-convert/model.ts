// The flat graph the converter works on: every node with a full id (`12`, `12:5`, `12:5:3`), each
// input already pointing at its source node and slot. Group nodes and subgraphs are expanded into
// it (expand.ts); virtual nodes stay in it and are resolved away later (resolve.ts).
import type { JsonObject, JsonValue } from '@shared/json';

/**
 * Where in the file a value is stored: an entry of a node's `widgets_values` (a list position or an
 * object key). Kept so the values that ran can be written back where the editor reads them.
 */
export interface ValueOrigin {
  holder: JsonValue[] | JsonObject;
  key: number | string;
}

/** Where an input's value comes from, before virtual nodes and modes are resolved. */
export type InputSource =
  | { kind: 'link'; nodeId: string; slot: number }
  /** A value promoted onto a subgraph instance (its widget), standing in for a link. */
  | { kind: 'value'; value: JsonValue; origin?: ValueOrigin };

export interface FlatInput {
  name: string;
  type: string;
  source: InputSource | null;
  /** The widget this socket belongs to (`inputs[].widget.name`), when the file records one. */
  widgetName: string | null;
}

/**
 * normal: a node the server runs. reroute/passthrough: forwards input `slot` (reroute: always 0) to
 * output `slot`; passthrough is what an expanded group node or subgraph instance leaves behind so
 * links to its outputs reach the inner nodes. primitive: its first widget value feeds its targets.
 * note: nothing.
 */
export type FlatNodeKind = 'normal' | 'reroute' | 'passthrough' | 'primitive' | 'note';

export interface FlatNode {
  id: string;
  type: string;
  kind: FlatNodeKind;
  /** 0 always, 2 muted (never runs), 4 bypassed; others behave as 0. */
  mode: number;
  title: string | null;
  inputs: FlatInput[];
  /** Output count as the file records it (-1 when the file lists none). */
  outputCount: number;
  widgetsValues: JsonValue[] | JsonObject | null;
  /** Widget values set from outside, by widget name: a subgraph instance's promoted widgets (`properties.proxyWidgets`). */
  widgetOverrides: Map<string, ValueOrigin> | null;
}

export const MODE_MUTED = 2;
export const MODE_BYPASS = 4;

/** Editor-only node types that never reach the server. */
export const NOTE_TYPES: ReadonlySet<string> = new Set(['Note', 'MarkdownNote']);

/** The value stored at an origin. */
export function valueAt(origin: ValueOrigin): JsonValue | undefined {
  return Array.isArray(origin.holder) ? origin.holder[origin.key as number] : origin.holder[origin.key as string];
}
