// run.submit with target 'pool': the repeat count's runs dispatched over the app's pool with the
// shared dispatcher (pool/repeat-dispatch.ts), each job journaled with origin 'window' and the
// profile of the server that took it, followed by that server's own tracker (so its card is live
// and its outputs reach the library as the active server's do). The call answers once every run
// is accepted, or as soon as one must wait for room (the rest are sent as servers free up and
// appear through job.update), or when none could be sent (the first refusal is thrown, so a
// server's rejection still marks the form's inputs).
import { mkdirSync } from 'node:fs';
import type { JobStore } from '@main/jobs/job-store';
import { RepeatDispatcher, type RunOutcome } from '@main/pool/repeat-dispatch';
import type { Workflow } from '@main/service/types';
import { trackerFollower } from '@main/jobs/job-follower';
import type { JsonObject } from '@shared/json';
import { AppFailure } from './errors';
import type { LivePool } from './live-pool';
import { copyInputsTo, uploadedImageRefs } from './pool-inputs';
import type { ProfileSession } from './session';
import { describeError } from '@shared/describe-error';

/** How long the active server's definitions are waited for, to tell which inputs are uploaded images. */
const DEFINITIONS_WAIT_MS = 5_000;

export interface PoolRunRequest {
  pool: LivePool;
  active: ProfileSession;
  jobs: JobStore;
  workflow: Workflow;
  workflowName: string | null;
  editorGraph: JsonObject | null;
  repeat: number;
  /** Where images are copied through on their way to another pool server. */
  tempDir: string;
  log(level: 'info' | 'warn', message: string): void;
  /** A run that failed after the call answered (the user is told; its card, if any, shows it too). */
  notify(message: string): void;
}

export async function submitToPool(request: PoolRunRequest): Promise<{ promptIds: string[]; waiting?: number }> {
  const { pool, active, repeat } = request;
  const definitions = await active.definitionsWithin(DEFINITIONS_WAIT_MS);
  const uploadedRefs = definitions ? uploadedImageRefs(request.workflow, definitions) : [];
  const promptIds: string[] = [];
  // Each run is being sent until it is accepted, waits for room, or ends; the call answers once
  // no run is being sent.
  const state = new Map<number, 'sending' | 'waiting' | 'accepted' | 'ended'>(Array.from({ length: repeat }, (_, i) => [i + 1, 'sending']));
  const ended: RunOutcome<null>[] = [];
  let answered = false;
  let answer!: () => void;
  const settled = new Promise<void>((resolve) => (answer = resolve));
  const note = (run: number, now: 'waiting' | 'accepted' | 'ended'): void => {
    state.set(run, now);
    if (![...state.values()].includes('sending')) answer();
  };
  const dispatcher = new RepeatDispatcher<null>({
    pool: pool.pool,
    jobs: request.jobs,
    repeat,
    workflow: request.workflow,
    workflowName: request.workflowName,
    origin: 'window',
    editorGraph: request.editorGraph,
    uploadedRefs,
    prepare: (member, workflow) => {
      mkdirSync(request.tempDir, { recursive: true });
      return copyInputsTo(member, active.api, workflow, uploadedRefs, request.tempDir);
    },
    followerFor: (member) => {
      const tracker = pool.trackerFor(member.baseUrl);
      if (!tracker) throw new Error(`${member.name} has no connection in the pool.`);
      return trackerFollower(tracker, { giveUpWhenUnreachable: !pool.pool.isSingle, origin: 'window' });
    },
    accepted: (run, _member, promptId) => {
      promptIds.push(promptId);
      note(run, 'accepted');
    },
    waiting: (run) => {
      if (state.get(run) === 'sending') note(run, 'waiting');
    },
    ended: (outcome) => {
      if (outcome.status !== 'succeeded') report(outcome, request, repeat, answered);
      if (outcome.status !== 'succeeded' && outcome.promptId === null) ended.push(outcome);
      if (state.get(outcome.run) !== 'accepted') note(outcome.run, 'ended');
    },
    // Its outputs reach the library through its server's connection (core's recordOutputs).
    succeeded: async () => null,
    log: (message) => request.log('info', message),
    signal: pool.closed,
  });
  void dispatcher.runAll().catch((error: unknown) => request.log('warn', `The pool's runs stopped: ${describeError(error)}`));
  await settled;
  answered = true;
  if (promptIds.length === 0 && ended.length === repeat) {
    const first = ended[0];
    if (first?.status === 'failed' || first?.status === 'unknown') {
      if (first.cause !== undefined) throw first.cause;
      throw new AppFailure(first.status === 'unknown' ? 'network' : 'invalid_input', first.error);
    }
  }
  const waiting = [...state.values()].filter((s) => s === 'waiting').length;
  return waiting > 0 ? { promptIds, waiting } : { promptIds };
}

/** A run that failed, logged; told to the user when it never became a job and the call had answered (a job's card shows its own end). */
function report(outcome: RunOutcome<null>, request: PoolRunRequest, repeat: number, afterAnswer: boolean): void {
  if (outcome.status === 'succeeded') return;
  const message = `Run ${outcome.run} of ${repeat} on the pool ${outcome.promptId ? `(job ${outcome.promptId})` : 'was not run'}: ${outcome.error}`;
  request.log('warn', message);
  if (afterAnswer && outcome.promptId === null) request.notify(message);
}
