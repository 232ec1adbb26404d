// The state of one followed job and the rules that fold server events into it. Kept apart from
// the tracker (which decides when to poll, end and persist) so these rules stay small and plain.
import type { JobPhase, OutputFile, ServerEvent, Workflow } from '@main/service/types';
import { mergeOutputs, type JobErrorInfo, type JobOrigin, type JobPreview, type JobSnapshot, type NodeState, type ProgressSummary } from './types';

export class JobState {
  readonly promptId: string;
  phase: JobPhase = 'pending';
  rawStatus = 'submitted';
  readonly trackedAt: number;
  startedAt: number | null = null;
  endedAt: number | null = null;
  readonly nodes = new Map<string, NodeState>();
  currentNode: string | null = null;
  nodesTotal: number | null;
  readonly cachedNodes: string[] = [];
  readonly progressText: Record<string, string> = {};
  latestPreview: JobPreview | null = null;
  readonly outputs: OutputFile[] = [];
  error: JobErrorInfo | null = null;
  workflowName: string | null;
  origin: JobOrigin | null;

  /** Last time an event for this job arrived (polls do not count: they are what staleness triggers). */
  lastActivityAt: number;
  /** The socket was not connected at some point while the job was followed: events may be missing. */
  sawGap = false;
  /** Events for this job are not expected on this socket (e.g. resumed with another client id). */
  pollAlways = false;
  /** A terminal signal was seen and the end is being settled (history fetch); further ones only merge. */
  finishing = false;
  ended = false;
  pollInFlight = false;
  /** Journaled as `submitting` and not yet confirmed by the server (restart reconciliation). */
  unconfirmed = false;
  /** The server could not be asked whether it knows the job; the next poll asks that first. */
  needsCheck = false;
  /** The user asked the server to cancel it: a server that then has no record of it cancelled it. */
  cancelRequested = false;
  /** Since when every attempt to reach the server about this job failed (socket down too); null while it answers. */
  unreachableSince: number | null = null;
  unreachableReason: string | null = null;
  /** Unreachable for longer than the tracker's limit: shown as "unknown — server unreachable". */
  unreachable = false;
  /** The server was seen holding it in its queue (a waiting job that later vanishes was deleted). */
  seenQueued = false;

  constructor(promptId: string, now: number, meta: { workflow?: Workflow | null; workflowName?: string | null; origin?: JobOrigin | null } = {}) {
    this.promptId = promptId;
    this.trackedAt = now;
    this.lastActivityAt = now;
    this.nodesTotal = meta.workflow ? countNodes(meta.workflow) : null;
    this.workflowName = meta.workflowName ?? null;
    this.origin = meta.origin ?? null;
  }

  get active(): boolean {
    return !this.ended;
  }

  /** Moves forward to running; a job is never moved back to pending by a late word. */
  markRunning(now: number, rawStatus?: string): boolean {
    if (this.ended) return false;
    const changed = this.phase !== 'running';
    this.phase = 'running';
    this.startedAt ??= now;
    if (rawStatus) this.rawStatus = rawStatus;
    return changed;
  }

  /**
   * Folds one non-terminal event for this job into the state. Returns the files it added.
   * Terminal events are handled by the tracker, which settles the end.
   */
  apply(event: ServerEvent, now: number, collect: (node: string, output: unknown) => OutputFile[]): OutputFile[] {
    this.lastActivityAt = now;
    switch (event.type) {
      case 'execution_start':
        this.markRunning(now, 'execution_start');
        return [];
      case 'execution_cached':
        this.markRunning(now);
        for (const node of event.nodes) {
          if (!this.cachedNodes.includes(node)) this.cachedNodes.push(node);
          this.nodes.set(node, { state: 'cached', value: 1, max: 1 });
        }
        return [];
      case 'executing':
        if (event.node === null) {
          // The workflow's trailing "executing null": not an end signal (the cloud may omit it).
          this.finishCurrentNode();
          this.currentNode = null;
          return [];
        }
        this.markRunning(now);
        if (this.currentNode !== event.node) this.finishCurrentNode();
        this.currentNode = event.node;
        this.setNode(event.node, (prev) => ({ state: 'running', value: prev?.value ?? 0, max: prev?.max ?? 1 }));
        return [];
      case 'progress':
        this.markRunning(now);
        if (event.node !== null) {
          this.currentNode = event.node;
          this.setNode(event.node, () => ({ state: 'running', value: event.value, max: event.max }));
        }
        return [];
      case 'progress_state':
        this.markRunning(now);
        for (const [id, p] of Object.entries(event.nodes)) {
          // A cached node stays "cached" even when progress_state calls it finished.
          this.setNode(id, (prev) => ({ state: prev?.state === 'cached' && p.state === 'finished' ? 'cached' : p.state, value: p.value, max: p.max }));
        }
        return [];
      case 'executed': {
        this.markRunning(now);
        this.setNode(event.node, (prev) => ({ state: prev?.state === 'cached' ? 'cached' : 'finished', value: prev?.max ?? 1, max: prev?.max ?? 1 }));
        if (this.currentNode === event.node) this.currentNode = null;
        return this.addOutputs(collect(event.node, event.output));
      }
      case 'progress_text':
        this.progressText[event.nodeId] = event.text;
        return [];
      default:
        return [];
    }
  }

  addOutputs(files: readonly OutputFile[]): OutputFile[] {
    return mergeOutputs(this.outputs, files);
  }

  setPreview(preview: JobPreview): void {
    // Replacing (not appending) is what keeps a long job's memory flat.
    this.latestPreview = preview;
  }

  /** Marks the end: the phase, the time, and node states that follow from it. */
  end(phase: JobPhase, rawStatus: string, now: number): void {
    this.phase = phase;
    this.rawStatus = rawStatus;
    this.endedAt = now;
    this.ended = true;
    if (phase === 'succeeded') {
      for (const [id, node] of this.nodes) if (node.state === 'running') this.nodes.set(id, { ...node, state: 'finished', value: node.max });
    } else if (phase === 'failed' && this.error?.nodeId) {
      const prev = this.nodes.get(this.error.nodeId);
      this.nodes.set(this.error.nodeId, { state: 'error', value: prev?.value ?? 0, max: prev?.max ?? 1 });
    }
    this.currentNode = null;
  }

  nodesDone(): number {
    let done = 0;
    for (const node of this.nodes.values()) if (node.state === 'finished' || node.state === 'cached') done += 1;
    return this.nodesTotal === null ? done : Math.min(done, this.nodesTotal);
  }

  progressSummary(): ProgressSummary {
    return { nodesDone: this.nodesDone(), nodesTotal: this.nodesTotal, currentNode: this.currentNode };
  }

  snapshot(): JobSnapshot {
    const nodes: Record<string, NodeState> = {};
    for (const [id, node] of this.nodes) nodes[id] = { ...node };
    return {
      promptId: this.promptId,
      phase: this.phase,
      rawStatus: this.rawStatus,
      trackedAt: this.trackedAt,
      startedAt: this.startedAt,
      endedAt: this.endedAt,
      nodes,
      currentNode: this.currentNode,
      nodesTotal: this.nodesTotal,
      nodesDone: this.nodesDone(),
      cachedNodes: [...this.cachedNodes],
      progressText: { ...this.progressText },
      latestPreview: this.latestPreview ? { ...this.latestPreview } : null,
      outputs: this.outputs.map((o) => ({ ...o })),
      error: this.error ? { ...this.error, traceback: [...this.error.traceback] } : null,
      workflowName: this.workflowName,
      unreachable: this.unreachable && this.unreachableSince !== null ? { since: this.unreachableSince, reason: this.unreachableReason ?? 'no answer' } : null,
      origin: this.origin,
    };
  }

  private finishCurrentNode(): void {
    if (this.currentNode === null) return;
    const node = this.nodes.get(this.currentNode);
    if (node && node.state === 'running') this.nodes.set(this.currentNode, { ...node, state: 'finished', value: node.max });
  }

  private setNode(id: string, next: (prev: NodeState | undefined) => NodeState): void {
    this.nodes.set(id, next(this.nodes.get(id)));
  }
}

/** Nodes in an API-format workflow: the top-level entries that are node objects. */
export function countNodes(workflow: Workflow): number {
  let count = 0;
  for (const value of Object.values(workflow)) if (typeof value === 'object' && value !== null && !Array.isArray(value)) count += 1;
  return count;
}
