// Runs one job through its graph and sends its events in the real server's order:
// execution_start, execution_cached, then per node progress_state, executing, (node's progress,
// previews, text), executed (nodes with UI output), progress_state; then execution_success,
// execution_error or execution_interrupted. Returns the job's history entry.
import type { EventsHub } from './events-hub';
import { formatCurrentInputs, reportError } from './exec-errors';
import type { FaultState } from './faults';
import type { DataDirs } from './files';
import { malformedFrames } from './frames-encode';
import { asLink, classTypeOf, CycleError, executionOrder, nodeInputs } from './graph';
import { JobEmitter } from './job-emitter';
import { InterruptedError, type DemoNode, type NodeResult, type NodeValue } from './node-api';
import type { NodeCache } from './node-cache';
import { createNodeContext } from './node-context';
import { hiddenInputs, inputSpecs } from './node-defs';
import type { HistoryEntry, Job, NodeMeta } from './queue';
import type { DemoFlavour } from './types';

export interface ExecutorDeps {
  flavour: DemoFlavour;
  hub: EventsHub;
  faults: FaultState;
  files: DataDirs;
  nodes: Map<string, DemoNode>;
  timeScale: number;
  cache: NodeCache | null;
}

type Outcome =
  { kind: 'success' } | { kind: 'interrupted'; nodeId: string } | { kind: 'error'; nodeId: string; error: unknown; inputs: Record<string, NodeValue> };

/**
 * The inputs a node's run() receives: its defined inputs (links resolved) and the hidden ones the
 * server fills: UNIQUE_ID (the node id), PROMPT (the workflow, for PNG metadata) and
 * EXTRA_PNGINFO. Credentials are never passed as inputs (they could end up in current_inputs).
 */
function resolveInputs(
  job: Job,
  nodeId: string,
  node: DemoNode,
  results: Map<string, NodeResult>,
): { inputs: Record<string, NodeValue>; shown: Record<string, NodeValue> } {
  const raw = nodeInputs(job.prompt, nodeId);
  const inputs: Record<string, NodeValue> = {};
  for (const spec of inputSpecs(node.definition)) {
    if (!Object.hasOwn(raw, spec.name)) continue;
    const value = raw[spec.name]!;
    const link = asLink(value);
    if (link) inputs[spec.name] = results.get(link.node)?.outputs[link.slot] ?? null;
    else inputs[spec.name] = value as NodeValue;
  }
  const shown = { ...inputs };
  for (const [name, kind] of Object.entries(hiddenInputs(node.definition))) {
    if (kind === 'UNIQUE_ID') {
      inputs[name] = nodeId;
      shown[name] = nodeId;
    } else if (kind === 'PROMPT') {
      inputs[name] = job.prompt as unknown as NodeValue;
    } else if (kind === 'EXTRA_PNGINFO') {
      inputs[name] = (job.execExtraData.extra_pnginfo ?? null) as unknown as NodeValue;
    }
  }
  return { inputs, shown };
}

function metaFor(nodeId: string): NodeMeta {
  return { node_id: nodeId, display_node: nodeId, parent_node: null, real_node_id: nodeId };
}

export async function executeJob(job: Job, deps: ExecutorDeps): Promise<HistoryEntry> {
  const emitter = new JobEmitter(deps.hub, job, deps.faults);
  const messages: Array<[string, unknown]> = [];
  const message = (type: string, data: Record<string, unknown>): void => {
    messages.push([type, data]);
    emitter.jobEvent(type, data);
  };
  const outputs: Record<string, Record<string, unknown>> = {};
  const meta: Record<string, NodeMeta> = {};
  const executed: string[] = [];
  const results = new Map<string, NodeResult>();

  message('execution_start', { prompt_id: job.promptId, timestamp: Date.now() });

  let order: string[] = [];
  let outcome: Outcome = { kind: 'success' };
  try {
    order = executionOrder(job.prompt, job.outputs);
  } catch (error) {
    if (!(error instanceof CycleError)) throw error;
    outcome = { kind: 'error', nodeId: job.outputs[0] ?? '', error, inputs: {} };
  }
  const sigs = deps.cache ? deps.cache.signatures(job.prompt, order, deps.nodes, (name) => deps.files.inputStamp(name)) : new Map<string, string>();
  const cachedIds = new Set(order.filter((id) => deps.cache?.get(sigs.get(id) ?? '') !== undefined));
  const cachedInPromptOrder = Object.keys(job.prompt).filter((id) => cachedIds.has(id));
  message('execution_cached', { nodes: cachedInPromptOrder, prompt_id: job.promptId, timestamp: Date.now() });
  if (deps.faults.takeMalformedFrames()) emitter.raw(malformedFrames());

  const recordUi = (nodeId: string, result: NodeResult): void => {
    if (!result.ui) return;
    emitter.jobEvent('executed', { node: nodeId, display_node: nodeId, output: result.ui, prompt_id: job.promptId });
    outputs[nodeId] = result.ui;
    meta[nodeId] = metaFor(nodeId);
  };

  for (const nodeId of outcome.kind === 'success' ? order : []) {
    const node = deps.nodes.get(classTypeOf(job.prompt, nodeId));
    if (!node) throw new Error(`node class of ${nodeId} vanished after validation`);
    const cached = cachedIds.has(nodeId) ? deps.cache?.get(sigs.get(nodeId) ?? '') : undefined;
    if (cached) {
      // A cached node is not run: only its UI output is replayed, with no `executing`.
      results.set(nodeId, cached);
      executed.push(nodeId);
      if (cached.ui) {
        recordUi(nodeId, cached);
        emitter.nodeFinished(nodeId);
      }
      continue;
    }
    if (job.abort.signal.aborted) {
      outcome = { kind: 'interrupted', nodeId };
      break;
    }
    emitter.nodeStarted(nodeId);
    job.currentNode = nodeId;
    emitter.jobEvent('executing', { node: nodeId, display_node: nodeId, prompt_id: job.promptId });
    const { inputs, shown } = resolveInputs(job, nodeId, node, results);
    let result: NodeResult;
    try {
      const context = createNodeContext({
        promptId: job.promptId,
        nodeId,
        extraData: job.execExtraData,
        accountKey: job.owner,
        timeScale: deps.timeScale,
        signal: job.abort.signal,
        emitter,
        files: deps.files,
      });
      result = await node.run(context, inputs);
      if (typeof result !== 'object' || result === null || !Array.isArray(result.outputs)) {
        throw new Error(`node ${classTypeOf(job.prompt, nodeId)} returned no outputs list`);
      }
    } catch (error) {
      outcome =
        error instanceof InterruptedError || job.abort.signal.aborted ? { kind: 'interrupted', nodeId } : { kind: 'error', nodeId, error, inputs: shown };
      break;
    }
    results.set(nodeId, result);
    deps.cache?.set(sigs.get(nodeId) ?? '', result);
    recordUi(nodeId, result);
    emitter.nodeFinished(nodeId);
    executed.push(nodeId);
  }
  deps.cache?.retainOnly(sigs.values());
  delete job.currentNode;

  const base = { prompt_id: job.promptId };
  if (outcome.kind === 'success') {
    message('execution_success', { ...base, timestamp: Date.now() });
  } else if (outcome.kind === 'interrupted') {
    job.state = 'cancelled';
    job.cancelReason = 'interrupted';
    message('execution_interrupted', {
      ...base,
      node_id: outcome.nodeId,
      node_type: classTypeOf(job.prompt, outcome.nodeId),
      executed: [...executed],
      timestamp: Date.now(),
    });
  } else {
    const reported = reportError(outcome.error, deps.flavour);
    job.errorMessage = reported.exceptionMessage.trim();
    message('execution_error', {
      ...base,
      node_id: outcome.nodeId,
      node_type: classTypeOf(job.prompt, outcome.nodeId),
      executed: [...executed],
      exception_message: reported.exceptionMessage,
      exception_type: reported.exceptionType,
      traceback: reported.traceback,
      current_inputs: formatCurrentInputs(outcome.inputs),
      current_outputs: [...order].reverse(),
      timestamp: Date.now(),
    });
  }
  job.state = outcome.kind === 'success' ? 'success' : outcome.kind === 'error' ? 'error' : 'cancelled';
  job.updatedAt = Date.now();
  return {
    prompt: [job.number, job.promptId, job.prompt, job.extraData, [...job.outputs]],
    outputs,
    status: { status_str: outcome.kind === 'success' ? 'success' : 'error', completed: outcome.kind === 'success', messages },
    meta,
  };
}
