// Workflow validation as the local server does it (execution.py validate_prompt/validate_inputs),
// with its error types, messages, details and node_errors structure (traces/invalid_prompts.json).
// Where the real server would crash with a Python TypeError (a prompt that is a string, a node
// that is a number) the result is `crash`, which the route answers with its 500 page.
import { isJsonObject, type JsonObject, type JsonValue } from '@shared/json';
import type { DemoNode } from './node-api';
import { comboOptions, inputSpecs, isOutputNode, isUploadCombo, outputTypes, type InputSpec } from './node-defs';
import { pyRepr, pyStr } from './py-format';
import { compareNumbers, convertWidgetValue, formatNumberFor } from './validate-convert';

export interface PromptError {
  type: string;
  message: string;
  details: string;
  extra_info: Record<string, unknown>;
}

export interface NodeErrors {
  errors: PromptError[];
  dependent_outputs: string[];
  class_type: string;
}

export type ValidationResult =
  | { kind: 'ok'; outputs: string[]; nodeErrors: Record<string, NodeErrors>; prompt: JsonObject }
  | { kind: 'rejected'; error: PromptError; nodeErrors: Record<string, NodeErrors> }
  | { kind: 'crash' };

export interface FileCheck {
  inputExists(name: string): boolean;
}

/** A Python exception raised inside validation (KeyError, IndexError, TypeError). */
class PyException extends Error {
  constructor(
    readonly pyType: string,
    readonly text: string,
  ) {
    super(text);
  }
}

class Crash extends Error {}

// Python-like frames for exception reports, in the shape the real server sends them.
const OUTER_TRACEBACK = [
  '  File "/srv/demo/execution.py", line 1010, in validate_prompt\n    m = await validate_inputs(prompt_id, prompt, o, validated)\n',
  '  File "/srv/demo/execution.py", line 788, in validate_inputs\n    o_class_type = prompt[o_id][\'class_type\']\n',
];

type Verdict = { valid: boolean; errors: PromptError[] };

class Validator {
  readonly validated = new Map<string, Verdict>();
  /** Nodes whose validation is under way: reaching one again means a cycle. */
  private readonly visiting = new Set<string>();
  /** Converted widget values per node, written back like the real server does. */
  readonly converted = new Map<string, JsonObject>();

  constructor(
    private readonly prompt: JsonObject,
    private readonly nodes: Map<string, DemoNode>,
    private readonly files: FileCheck,
  ) {}

  private classOf(nodeId: string): { classType: string; node: DemoNode } {
    const entry = this.prompt[nodeId] as JsonObject;
    const classType = entry.class_type as string;
    return { classType, node: this.nodes.get(classType)! };
  }

  /** prompt[id] as Python indexes it: a missing key is a KeyError. */
  private lookup(id: unknown): string {
    if (typeof id === 'string' && Object.hasOwn(this.prompt, id)) return id;
    if (Array.isArray(id) || isJsonObject(id)) throw new PyException('TypeError', `unhashable type: '${Array.isArray(id) ? 'list' : 'dict'}'`);
    throw new PyException('KeyError', pyRepr(id));
  }

  validateInputs(nodeId: string): Verdict {
    const known = this.validated.get(nodeId);
    if (known) return known;
    // The real server recurses without a guard and fails with RecursionError on a cycle.
    if (this.visiting.has(nodeId)) throw new PyException('RecursionError', 'maximum recursion depth exceeded');
    this.visiting.add(nodeId);
    try {
      return this.validateNode(nodeId);
    } finally {
      this.visiting.delete(nodeId);
    }
  }

  private validateNode(nodeId: string): Verdict {
    const entry = this.prompt[nodeId] as JsonObject;
    const rawInputs = entry.inputs;
    if (rawInputs === undefined) throw new PyException('KeyError', "'inputs'");
    if (!isJsonObject(rawInputs))
      throw new PyException('AttributeError', `'${Array.isArray(rawInputs) ? 'list' : typeof rawInputs}' object has no attribute 'get'`);
    const inputs: JsonObject = { ...rawInputs };
    const { node } = this.classOf(nodeId);
    const errors: PromptError[] = [];
    let valid = true;
    const widgetValues: Record<string, unknown> = {};

    for (const spec of inputSpecs(node.definition)) {
      const x = spec.name;
      const info: [JsonValue, JsonObject] = [spec.type, spec.options];
      if (!Object.hasOwn(inputs, x)) {
        if (spec.category === 'required') {
          errors.push({ type: 'required_input_missing', message: 'Required input is missing', details: x, extra_info: { input_name: x } });
        }
        continue;
      }
      let val: JsonValue = inputs[x]!;
      if (Array.isArray(val)) {
        if (val.length !== 2) {
          errors.push({
            type: 'bad_linked_input',
            message: 'Bad linked input, must be a length-2 list of [node_id, slot_index]',
            details: x,
            extra_info: { input_name: x, input_config: info, received_value: val },
          });
          continue;
        }
        const upstream = this.lookup(val[0]);
        const receivedType = this.returnType(upstream, val[1]);
        if (!typesMatch(receivedType, spec.type)) {
          errors.push({
            type: 'return_type_mismatch',
            message: 'Return type mismatch between linked nodes',
            details: `${x}, received_type(${pyStr(receivedType)}) mismatch input_type(${pyStr(spec.type)})`,
            extra_info: { input_name: x, input_config: info, received_type: receivedType, linked_node: val },
          });
          continue;
        }
        try {
          if (!this.validateInputs(upstream).valid) valid = false;
        } catch (error) {
          if (!(error instanceof PyException)) throw error;
          valid = false;
          this.validated.set(upstream, {
            valid: false,
            errors: [
              {
                type: 'exception_during_inner_validation',
                message: 'Exception when validating inner node',
                details: error.text,
                extra_info: {
                  input_name: x,
                  input_config: info,
                  exception_message: error.text,
                  exception_type: error.pyType,
                  traceback: OUTER_TRACEBACK.slice(1),
                  linked_node: val,
                },
              },
            ],
          });
        }
        continue;
      }
      // List values are links, so a list widget value travels wrapped as {"__value__": [...]}.
      if (isJsonObject(val) && Object.hasOwn(val, '__value__')) val = val.__value__ ?? null;
      const conversion = convertWidgetValue(spec.type, val);
      if (!conversion.ok) {
        errors.push({
          type: 'invalid_input_type',
          message: `Failed to convert an input value to a ${pyStr(spec.type)} value`,
          details: `${x}, ${pyStr(val)}, ${conversion.message}`,
          extra_info: { input_name: x, input_config: info, received_value: val, exception_message: conversion.message },
        });
        continue;
      }
      const value = conversion.value;
      widgetValues[x] = value;
      inputs[x] = value as JsonValue;
      const error = this.checkWidget(node, spec, info, value);
      if (error) errors.push(error);
    }

    if (node.validate && errors.length === 0) {
      const reason = node.validate(widgetValues, this.files);
      if (reason !== null) {
        const inputName = customValidationInput(node, widgetValues);
        const details = reason.startsWith(`${inputName} - `) ? reason : `${inputName} - ${reason}`;
        errors.push({ type: 'custom_validation_failed', message: 'Custom validation failed for node', details, extra_info: { input_name: inputName } });
      }
    }

    this.converted.set(nodeId, inputs);
    const verdict = { valid: valid && errors.length === 0, errors };
    this.validated.set(nodeId, verdict);
    return verdict;
  }

  private returnType(upstream: string, slot: unknown): JsonValue {
    const types = outputTypes(this.classOf(upstream).node.definition);
    if (typeof slot !== 'number' || !Number.isInteger(slot)) {
      throw new PyException(
        'TypeError',
        `tuple indices must be integers or slices, not ${slot === null ? 'NoneType' : typeof slot === 'string' ? 'str' : 'float'}`,
      );
    }
    const index = slot < 0 ? types.length + slot : slot;
    if (index < 0 || index >= types.length) throw new PyException('IndexError', 'tuple index out of range');
    return types[index]!;
  }

  /** Range and list checks for one converted widget value. */
  private checkWidget(node: DemoNode, spec: InputSpec, info: [JsonValue, JsonObject], value: unknown): PromptError | null {
    const x = spec.name;
    const { min, max } = spec.options;
    if (min !== undefined && compareNumbers(value, min) === -1) {
      return {
        type: 'value_smaller_than_min',
        message: `Value ${formatNumberFor(spec.type, value)} smaller than min of ${formatNumberFor(spec.type, min)}`,
        details: x,
        extra_info: { input_name: x, input_config: info, received_value: value },
      };
    }
    if (max !== undefined && compareNumbers(value, max) === 1) {
      return {
        type: 'value_bigger_than_max',
        message: `Value ${formatNumberFor(spec.type, value)} bigger than max of ${formatNumberFor(spec.type, max)}`,
        details: x,
        extra_info: { input_name: x, input_config: info, received_value: value },
      };
    }
    const options = comboOptions(spec);
    // An upload combo of a node with its own validation is checked by that validation (as
    // LoadImage's VALIDATE_INPUTS replaces the list check on the real server).
    if (options === null || (node.validate && isUploadCombo(spec))) return null;
    if (options.some((o) => sameValue(o, value))) return null;
    const long = options.length > 20;
    return {
      type: 'value_not_in_list',
      message: 'Value not in list',
      details: `${x}: '${pyStr(value)}' not in ${long ? `(list of length ${options.length})` : pyRepr(options)}`,
      extra_info: { input_name: x, input_config: long ? null : info, received_value: value },
    };
  }
}

/** Python `==` between a choice and a value (1 == 1.0 == True). */
function sameValue(a: unknown, b: unknown): boolean {
  const num = (v: unknown): number | bigint | null => (typeof v === 'boolean' ? (v ? 1 : 0) : typeof v === 'number' || typeof v === 'bigint' ? v : null);
  const na = num(a);
  const nb = num(b);
  if (na !== null && nb !== null) return compareNumbers(na, nb) === 0;
  return a === b;
}

/** validate_node_input: equal types, "*", or a comma-separated union that covers the received type. */
function typesMatch(received: JsonValue, expected: JsonValue): boolean {
  if (typeof received !== 'string' || typeof expected !== 'string') return pyRepr(received) === pyRepr(expected);
  if (received === expected || received === '*' || expected === '*') return true;
  const want = new Set(expected.split(',').map((s) => s.trim()));
  return received.split(',').every((t) => want.has(t.trim()));
}

/** The input a node's own validation speaks about: its upload combo, else its first widget value. */
function customValidationInput(node: DemoNode, values: Record<string, unknown>): string {
  const specs = inputSpecs(node.definition);
  const upload = specs.find((s) => isUploadCombo(s) && Object.hasOwn(values, s.name));
  return upload?.name ?? specs.find((s) => Object.hasOwn(values, s.name))?.name ?? specs[0]?.name ?? '';
}

function invalidPrompt(message: string, nodeId: string): ValidationResult {
  return { kind: 'rejected', error: { type: 'invalid_prompt', message, details: `Node ID '#${nodeId}'`, extra_info: {} }, nodeErrors: {} };
}

const NO_OUTPUTS: ValidationResult = {
  kind: 'rejected',
  error: { type: 'prompt_no_outputs', message: 'Prompt has no outputs', details: '', extra_info: {} },
  nodeErrors: {},
};

function checkNodesExist(prompt: JsonObject, nodes: Map<string, DemoNode>): { result: ValidationResult | null; outputs: string[] } {
  const outputs: string[] = [];
  for (const [id, entry] of Object.entries(prompt)) {
    // `'class_type' not in entry`: a dict checks keys, a string or list checks membership, others crash.
    if (typeof entry === 'string' || Array.isArray(entry)) {
      if (typeof entry === 'string' ? entry.includes('class_type') : entry.includes('class_type')) throw new Crash();
      return { result: invalidPrompt('Cannot execute because a node is missing the class_type property.', id), outputs };
    }
    if (!isJsonObject(entry)) throw new Crash();
    if (!Object.hasOwn(entry, 'class_type')) return { result: invalidPrompt('Cannot execute because a node is missing the class_type property.', id), outputs };
    const classType = entry.class_type;
    if (Array.isArray(classType) || isJsonObject(classType)) throw new Crash();
    const node = typeof classType === 'string' ? nodes.get(classType) : undefined;
    if (!node) return { result: invalidPrompt(`Cannot execute because node ${pyStr(classType)} does not exist.`, id), outputs };
    if (isOutputNode(node.definition)) outputs.push(id);
  }
  return { result: null, outputs };
}

export function validatePrompt(prompt: JsonValue, nodes: Map<string, DemoNode>, files: FileCheck): ValidationResult {
  try {
    return validate(prompt, nodes, files);
  } catch (error) {
    if (error instanceof Crash) return { kind: 'crash' };
    throw error;
  }
}

function validate(prompt: JsonValue, nodes: Map<string, DemoNode>, files: FileCheck): ValidationResult {
  if (typeof prompt === 'string' || Array.isArray(prompt)) {
    // Iterating an empty string or list finds no outputs; indexing a non-empty one crashes.
    if (prompt.length === 0) return NO_OUTPUTS;
    throw new Crash();
  }
  if (!isJsonObject(prompt)) throw new Crash();
  const { result, outputs } = checkNodesExist(prompt, nodes);
  if (result) return result;
  if (outputs.length === 0) return NO_OUTPUTS;

  const validator = new Validator(prompt, nodes, files);
  const good: string[] = [];
  const failed: Array<[string, PromptError[]]> = [];
  const nodeErrors: Record<string, NodeErrors> = {};
  const validated = validator.validated;

  for (const o of outputs) {
    let verdict: Verdict;
    try {
      verdict = validator.validateInputs(o);
    } catch (error) {
      if (!(error instanceof PyException)) throw error;
      verdict = {
        valid: false,
        errors: [
          {
            type: 'exception_during_validation',
            message: 'Exception when validating node',
            details: error.text,
            extra_info: { exception_type: error.pyType, traceback: OUTER_TRACEBACK },
          },
        ],
      };
      validated.set(o, verdict);
    }
    if (verdict.valid) {
      good.push(o);
      continue;
    }
    failed.push([o, verdict.errors]);
    // As on the real server: every node validated so far that has errors of its own lists this output.
    for (const [nodeId, v] of validated) {
      if (v.valid || v.errors.length === 0) continue;
      nodeErrors[nodeId] ??= { errors: v.errors, dependent_outputs: [], class_type: String((prompt[nodeId] as JsonObject).class_type) };
      nodeErrors[nodeId].dependent_outputs.push(o);
    }
  }

  if (good.length === 0) {
    const details = failed.flatMap(([, errors]) => errors.map((e) => `${e.message}: ${e.details}`)).join('\n');
    return {
      kind: 'rejected',
      error: { type: 'prompt_outputs_failed_validation', message: 'Prompt outputs failed validation', details, extra_info: {} },
      nodeErrors,
    };
  }

  // The prompt as the real server keeps it: widget values replaced by their converted values.
  const converted: JsonObject = {};
  for (const [id, entry] of Object.entries(prompt)) {
    const inputs = validator.converted.get(id);
    converted[id] = inputs && isJsonObject(entry) ? { ...entry, inputs } : entry;
  }
  return { kind: 'ok', outputs: good, nodeErrors, prompt: converted };
}
