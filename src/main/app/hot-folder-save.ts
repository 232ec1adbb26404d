// hotFolders.save's input checked and turned into a hot folder configuration: the workflow is
// exact JSON in API format, and the bound input is the file input of a LoadImage-like node (by the
// server's node definitions when they are known: `image_upload`; by the class name otherwise).
import { randomUUID } from 'node:crypto';
import type { HotFolderSaveInput } from '@shared/ipc/hot-folders-contract';
import { isJsonObject, parseJsonExact } from '@shared/json';
import type { NodeDefinitions } from '@main/service/object-info';
import type { Workflow } from '@main/service/types';
import { resolveHotFolderConfig, type HotFolderConfig, type HotFolderInput } from '../watch';
import { isInside } from '@main/watch/config';
import { parseInputRef } from '@main/workflow/edit';
import { interpretWorkflow, isLink } from '@main/workflow/parse';
import { AppFailure } from './errors';

/** The workflow of a save, parsed exactly (a 64-bit seed stays exact); invalid_input says why not. */
export function parseSaveWorkflow(text: string): Workflow {
  let value: unknown;
  try {
    value = parseJsonExact(text);
  } catch (error) {
    throw new AppFailure('invalid_input', `The workflow is not valid JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
  const parsed = interpretWorkflow(value);
  if (!parsed.ok) throw new AppFailure('invalid_input', parsed.message);
  return parsed.workflow;
}

/** Node classes taken for image loaders when the server's definitions are not at hand. */
const LOAD_IMAGE_CLASS = /LoadImage/i;

/** Checks that `bind` names the image file input of a LoadImage-like node of `workflow`. */
export function checkImageBind(workflow: Workflow, bind: string, definitions: NodeDefinitions | null): void {
  let ref;
  try {
    ref = parseInputRef(bind);
  } catch (error) {
    throw new AppFailure('invalid_input', error instanceof Error ? error.message : String(error));
  }
  const node = workflow[ref.nodeId];
  if (!isJsonObject(node)) {
    throw new AppFailure('invalid_input', `The workflow has no node "${ref.nodeId}" for ${bind} (its nodes are: ${Object.keys(workflow).join(', ')}).`);
  }
  const classType = typeof node.class_type === 'string' ? node.class_type : '?';
  const current = isJsonObject(node.inputs) ? node.inputs[ref.input] : undefined;
  if (current !== undefined && isLink(current)) {
    throw new AppFailure(
      'invalid_input',
      `${bind} is connected to node ${String(current[0])}'s output, so it cannot receive a file; choose the image input of a LoadImage node.`,
    );
  }
  const definition = definitions?.get(classType);
  if (definition) {
    const spec = definition.inputs.find((i) => i.name === ref.input);
    if (!spec) {
      const names = definition.inputs.filter((i) => i.section !== 'hidden').map((i) => i.name);
      throw new AppFailure('invalid_input', `Node ${ref.nodeId} (${classType}) has no input "${ref.input}" (its inputs are: ${names.join(', ') || 'none'}).`);
    }
    if (!spec.imageUpload) {
      throw new AppFailure(
        'invalid_input',
        `${bind} is not an image input: hot folders feed each file to the image input of a LoadImage-like node (${classType}.${ref.input} is not one).`,
      );
    }
    return;
  }
  if (definitions && !definition) {
    throw new AppFailure('invalid_input', `The server has no node class "${classType}" (node ${ref.nodeId}), so ${bind} cannot receive the files.`);
  }
  // No definitions (no server connected): the class name and a file-name value are what is known.
  if (!LOAD_IMAGE_CLASS.test(classType) || (current !== undefined && typeof current !== 'string')) {
    throw new AppFailure(
      'invalid_input',
      `${bind} is not an image input: hot folders feed each file to the image input of a LoadImage-like node (node ${ref.nodeId} is ${classType}).`,
    );
  }
}

/** The configuration fields a save sets; absent fields keep their current value (edit) or default (add). */
export function configFromSave(input: HotFolderSaveInput, workflow: Workflow, current: HotFolderConfig | null): HotFolderInput {
  const out: HotFolderInput = {
    ...(current ? { id: current.id } : {}),
    inputDir: input.inputDir,
    outputDir: input.outputDir,
    workflow,
    bind: input.bind,
  };
  if (input.name !== undefined) out.name = input.name;
  if (input.workflowName !== undefined) out.workflowName = input.workflowName;
  if (input.recursive !== undefined) out.recursive = input.recursive;
  if (input.patterns !== undefined) out.patterns = input.patterns;
  if (input.maskRule !== undefined) out.maskRule = input.maskRule;
  if (input.outputName !== undefined) out.outputName = input.outputName;
  if (input.concurrency !== undefined) out.concurrency = input.concurrency;
  if (input.processed !== undefined) out.processed = input.processed;
  if (input.settleMs !== undefined) out.settleMs = input.settleMs;
  if (input.runOn !== undefined) out.runOn = input.runOn;
  if (input.maxAttempts !== undefined) {
    const base = current?.retry ?? { baseDelayMs: 2_000, maxDelayMs: 60_000 };
    out.retry = { baseDelayMs: base.baseDelayMs, maxDelayMs: base.maxDelayMs, maxAttempts: input.maxAttempts };
  }
  return out;
}

/**
 * Two folders must not watch the same files (one inside the other's input folder), and no folder
 * may take another's outputs as its inputs by accident of nesting with its own output folder.
 */
export function checkOverlap(
  config: Pick<HotFolderConfig, 'id' | 'inputDir' | 'outputDir'>,
  others: readonly Pick<HotFolderConfig, 'id' | 'name' | 'inputDir' | 'outputDir'>[],
): void {
  for (const other of others) {
    if (other.id === config.id) continue;
    if (isInside(config.inputDir, other.inputDir) || isInside(other.inputDir, config.inputDir)) {
      throw new AppFailure(
        'invalid_input',
        `The input folder ${config.inputDir} overlaps the hot folder "${other.name}" (${other.inputDir}): a file would be taken by both.`,
      );
    }
    if (isInside(config.outputDir, other.inputDir) && isInside(other.outputDir, config.inputDir)) {
      throw new AppFailure('invalid_input', `The hot folders "${other.name}" and this one would feed each other's outputs back as inputs forever.`);
    }
  }
}

/** A saved configuration read back (the journal's text); null when it cannot be read. */
export function parseSaved(id: string, text: string): HotFolderConfig | null {
  try {
    const value = parseJsonExact(text);
    return resolveHotFolderConfig(isJsonObject(value) ? { ...value, id } : value, randomUUID);
  } catch {
    return null;
  }
}

/** A configuration without the fields derived from it (so it can be resolved again). */
export function stripDerived(config: HotFolderConfig): Omit<HotFolderConfig, 'doneDir' | 'failedDir'> {
  const { doneDir: _d, failedDir: _f, ...rest } = config;
  return rest;
}
