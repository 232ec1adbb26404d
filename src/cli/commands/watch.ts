// flowdeck watch DIR: a hot folder, headless. Every image in DIR (and, with --recursive, below it)
// runs through the workflow with its file bound to NODE.INPUT; outputs go to --out, named after
// their inputs, each with a sidecar JSON. The journal lives in the data folder's store, so a
// restart (even after kill -9) settles what was in flight and runs nothing twice.
// --once processes what is there and exits 0 when every file succeeded, 1 when any failed.
// Without it the command runs until Ctrl+C, which lets uploads under way finish, then exits.
import { heldUnconfirmedSends } from '@main/watch/journal';
import { createHash } from 'node:crypto';
import { existsSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { JobStore } from '@main/jobs/job-store';
import type { Store } from '@main/store/store';
import { JobTracker } from '@main/jobs/tracker';
import type { Library } from '../../main/library';
import { openCliLibrary } from '../cli-library';
import { ServiceClient } from '@main/service/client';
import { EventsSocket } from '@main/service/events-socket';
import {
  HotFolderConfigError,
  HotFolderService,
  librarySink,
  trackerFollower,
  type HotFileRow,
  type HotFolderConfig,
  type HotFolderEvent,
  type PauseKind,
} from '../../main/watch';
import { systemFolderReason } from '@main/files/system-folders';
import { isInside } from '@main/watch/config';
import { acquireFolderLock, FolderLockedError } from '@main/watch/lock';
import { parseCommandArgs, parseWholeNumber } from '../args';
import { openCliStore } from '../open-store';
import { fetchNodeDefinitions, libraryDirOf, lookupKey, missingKeyError, resolveServer, type CliEnvironment } from '../connection';
import type { EventStream, ServiceApi } from '@main/service/ports';
import { connectService } from '@main/service/v2/connect';
import { answersNow } from '@main/pool/server-pool';
import { openPool, resolvePoolServers, type PoolConnections } from '../pool-connections';
import type { NodeDefinitions } from '@main/service/object-info';
import { ExitCode, UsageError } from '../errors';
import { WATCH_USAGE } from '../usage';
import type { CliIo } from './run-outputs';
import { removeStalePartials } from '../stale-partials';
import { readWorkflowFile } from '../workflow-file';
import { stringifyJsonExact } from '@shared/json';
import type { Workflow } from '@main/service/types';
import { parseInputRef, unknownInputProblem, type InputRef } from '@main/workflow/edit';
import { definitionsForInputs } from '../input-definitions';

/** Waits for Ctrl+C or SIGTERM; injectable so tests and the entry point decide. */
export type SignalWaiter = () => Promise<void>;

/** The lock of an input folder: one watch at a time per folder, whatever its workflow. */
function lockIdFor(inputDir: string): string {
  return `cli-${createHash('sha256').update(inputDir).digest('hex').slice(0, 16)}`;
}

/**
 * The CLI's folder id, which keys its journal: the input folder, the workflow and the bound input.
 * The journal knows files by their content, so with the folder alone a file done once stays done
 * for any workflow; with the workflow in the id, `watch --once` with a changed workflow runs the
 * files again, and the same workflow finds its journal again (and runs nothing twice).
 */
function folderIdFor(inputDir: string, workflow: Workflow, bind: string): string {
  const hash = createHash('sha256').update(inputDir).update('\0').update(stringifyJsonExact(workflow)).update('\0').update(bind);
  return `cli-${hash.digest('hex').slice(0, 16)}`;
}

/** A bound input the node's class lacks would leave every file unused: refused before the first file. */
async function checkBind(
  readDefinitions: (ref: InputRef) => Promise<NodeDefinitions>,
  workflow: Workflow,
  bind: string,
  note: (message: string) => void,
): Promise<void> {
  let ref;
  try {
    ref = parseInputRef(bind);
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  let definitions;
  try {
    definitions = await readDefinitions(ref);
  } catch (error) {
    note(`warning: could not read the node definitions to check --bind ${bind} (${error instanceof Error ? error.message : String(error)})`);
    return;
  }
  const problem = unknownInputProblem(workflow, ref, definitions);
  if (problem) throw new UsageError(`--bind ${bind}: ${problem}`);
}

function exitCodeForPause(kind: PauseKind | null): number {
  if (kind === 'unauthorized') return ExitCode.auth;
  if (kind === 'insufficient_credits' || kind === 'subscription_inactive') return ExitCode.account;
  return ExitCode.server;
}

export async function watchCommand(argv: string[], io: CliIo, environment: CliEnvironment, waitForSignal: SignalWaiter): Promise<number> {
  const { values, positionals } = parseCommandArgs('watch', argv, {
    workflow: { type: 'string' },
    bind: { type: 'string' },
    server: { type: 'string', multiple: true },
    local: { type: 'boolean' },
    out: { type: 'string' },
    concurrency: { type: 'string' },
    once: { type: 'boolean' },
    json: { type: 'boolean' },
    recursive: { type: 'boolean' },
    move: { type: 'boolean' },
    name: { type: 'string' },
    settle: { type: 'string' },
    'retry-failed': { type: 'boolean' },
  });
  if (positionals.length !== 1) throw new UsageError(`Expected one folder to watch.\nUsage: ${WATCH_USAGE}`);
  if (!values.workflow) throw new UsageError(`--workflow WF.json is required.\nUsage: ${WATCH_USAGE}`);
  if (!values.bind) throw new UsageError(`--bind NODE.INPUT is required (the input that receives each file, e.g. 1.image).\nUsage: ${WATCH_USAGE}`);
  const inputDir = resolve(positionals[0]!);
  if (!existsSync(inputDir)) throw new UsageError(`The folder ${positionals[0]} does not exist.`);
  if (!statSync(inputDir).isDirectory()) throw new UsageError(`${inputDir} is a file, not a folder. Give the folder to watch.`);
  const workflowPath = resolve(values.workflow);
  const concurrency = parseWholeNumber('concurrency', values.concurrency, 1, 64);
  const settleMs = parseWholeNumber('settle', values.settle, 0, 600_000);
  const once = values.once === true;
  const json = values.json === true;
  const outputDir = resolve(values.out ?? join(inputDir, 'output'));
  // Checked again with the whole configuration; here too, so nothing connects or locks first.
  for (const [what, folder] of [
    ['input', inputDir],
    ['output', outputDir],
  ] as const) {
    const system = systemFolderReason(folder);
    if (system) throw new UsageError(`The ${what} folder: ${system}`);
  }

  const servers = values.server ?? [];
  // One --server (or none) is today's single server; several make a pool, checked before anything connects.
  const poolServers = servers.length > 1 ? resolvePoolServers(servers, values.local, environment) : null;
  const resolved = poolServers ? poolServers[0]! : resolveServer({ server: servers[0], local: values.local }, environment);
  // As for run: an API file, an editor graph, or an output image (its prompt, else its graph converted
  // with this server's node definitions).
  const { prompt: workflow } = await readWorkflowFile(workflowPath, () => fetchNodeDefinitions(resolved, environment));
  // No key is asked for before the server says it needs one (after discovery, below).
  const { key, problem: keyProblem } = poolServers ? { key: null, problem: null } : await lookupKey(resolved, environment);
  const folderId = folderIdFor(inputDir, workflow, values.bind);
  let release: () => void;
  try {
    release = await acquireFolderLock(join(environment.dataDir, 'watch-locks', `${lockIdFor(inputDir)}.lock`), inputDir);
  } catch (error) {
    if (error instanceof FolderLockedError) throw new UsageError(error.message);
    throw error;
  }

  const out = (line: object | string): void => {
    io.stdout.write(typeof line === 'string' ? `${line}\n` : `${JSON.stringify(line)}\n`);
  };
  const note = (message: string): void => {
    io.stderr.write(`${message}\n`);
  };

  const apiKey = (): string | null => key;
  // One server: the contract it speaks is found out first (v1, or Comfy API v2); a server that
  // cannot be asked now starts as v1, as before. A pool connects each member in openPool.
  const v1 = (): { api: ServiceApi; events: EventStream } => ({
    api: new ServiceClient(resolved.server, { apiKey, onWait: note }),
    events: new EventsSocket(resolved.server, { apiKey }),
  });
  const { api, events } = poolServers ? v1() : await connectService(resolved.server, { apiKey, onWait: note, ...(resolved.connection ?? {}) }).catch(v1);
  if (!poolServers && !key && api.capabilities.needsApiKey) {
    release();
    throw missingKeyError(resolved, keyProblem);
  }
  if (!poolServers) {
    try {
      await checkBind((ref) => definitionsForInputs(api, workflow, [ref]), workflow, values.bind, note);
    } catch (error) {
      release();
      throw error;
    }
  }
  let store: Store;
  try {
    store = await openCliStore(environment.dataDir, note);
  } catch (error) {
    release();
    throw error;
  }
  let hot: HotFolderService | null = null;
  let tracker: JobTracker | null = null;
  let library: Library | null = null;
  let pool: PoolConnections | null = null;
  try {
    const jobs = await JobStore.open(store, { heldSends: () => heldUnconfirmedSends(store) });
    if (poolServers) {
      pool = await openPool(poolServers, environment, { jobs, concurrency, requireAnswer: once, note, onWait: note });
      const readable = pool.pool.members.find((m) => m.definitions !== null);
      await checkBind(
        async () => readable?.definitions ?? Promise.reject(new Error('no server of the pool gave its node definitions')),
        workflow,
        values.bind,
        note,
      );
    }
    tracker = new JobTracker({ api, events, jobs, pollIntervalMs: 1000, staleAfterMs: 1000 });
    // Outputs enter the library too (by copy, with their input as source), as `flowdeck run`'s do.
    library = await openLibrary(store, libraryDirOf(environment), note);
    // --once must end: a server that does not answer fails the command within the answer deadline
    // (limits.ts) instead of pausing and retrying files for minutes; a long-running watch rides
    // outages out by design. (A pool asked each of its servers in openPool.)
    if (once && !pool) await answersNow(api);
    if (!pool) events.start();
    const poolOfServers = pool?.pool ?? null;
    hot = new HotFolderService({
      store,
      api,
      clientId: events.clientId,
      follower: trackerFollower(tracker),
      sink: library ? librarySink(library, null) : null,
      ...(poolOfServers ? { poolFor: () => poolOfServers } : {}),
    });
    await hot.start();

    const changedThisRun = new Set<string>();
    const lastState = new Map<string, string>();
    let lastPause: string | null = null;
    hot.on((event: HotFolderEvent) => report(event));
    function report(event: HotFolderEvent): void {
      if (event.folderId !== folderId) return;
      if (event.type === 'warning') {
        if (json) out({ event: 'warning', message: event.message });
        else note(`warning: ${event.message}`);
        return;
      }
      if (event.type === 'folder') {
        const pause = event.status.paused && event.status.pauseKind !== 'user' ? (event.status.pauseReason ?? 'paused') : null;
        if (pause !== lastPause) {
          lastPause = pause;
          if (json) out({ event: pause ? 'paused' : 'resumed', reason: pause });
          else note(pause ? `paused: ${pause}` : 'resumed');
        }
        return;
      }
      if (event.type !== 'file') return;
      const row = event.row;
      const id = `${row.relPath}|${row.contentKey ?? ''}`;
      if (lastState.get(id) === row.state) return;
      lastState.set(id, row.state);
      changedThisRun.add(row.path);
      if (row.state === 'done') {
        if (json) out({ event: 'done', file: row.path, prompt_id: row.promptId, server: row.server, outputs: row.outputs });
        else {
          note(`done: ${row.relPath} (job ${row.promptId ?? '?'}${pool ? ` on ${row.server ?? '?'}` : ''})`);
          for (const path of row.outputs) out(path);
        }
      } else if (row.state === 'failed') {
        if (json) out({ event: 'failed', file: row.path, prompt_id: row.promptId, reason: row.reason, attempts: row.attempts });
        else note(`failed: ${row.relPath}: ${row.reason ?? 'no reason given'}`);
      } else if (row.state === 'duplicate') {
        if (json) out({ event: 'duplicate', file: row.path, same_as: row.duplicateOf });
        else note(`duplicate: ${row.relPath} has the same content as ${row.duplicateOf ?? 'another file'}; it runs once`);
      } else if (row.state === 'waiting' && row.retryAt !== null) {
        if (!json) note(`retrying: ${row.relPath}: ${row.reason ?? ''}`);
      } else if (row.state === 'submitting' || row.state === 'running') {
        if (!json && row.state === 'running') note(`running: ${row.relPath} (job ${row.promptId ?? '?'})`);
      }
    }

    let config: HotFolderConfig;
    try {
      config = await hot.add(
        {
          id: folderId,
          name: inputDir,
          inputDir,
          outputDir,
          workflow,
          workflowName: workflowPath.split(/[/\\]/).pop() ?? null,
          bind: values.bind,
          recursive: values.recursive === true,
          processed: values.move ? 'move' : 'leave',
          ...(values.name ? { outputName: values.name } : {}),
          ...(concurrency !== undefined && !poolServers ? { concurrency } : {}),
          ...(settleMs !== undefined ? { settleMs } : {}),
        },
        { persist: false, watch: !once },
      );
    } catch (error) {
      if (error instanceof HotFolderConfigError) throw new UsageError(error.message);
      throw error;
    }
    if (values['retry-failed']) {
      const count = await hot.retryFailed(folderId);
      if (!json) note(`retrying ${count} failed file${count === 1 ? '' : 's'}`);
    }
    await removeStalePartials(outputDir, note);
    const where = pool ? `a pool of ${pool.pool.members.length} servers (${pool.pool.members.map((m) => m.baseUrl).join(', ')})` : resolved.server.baseUrl;
    if (!json) note(`watching ${inputDir} -> ${outputDir} on ${where}${once ? ' (once)' : '; Ctrl+C stops'}`);

    if (once) {
      const reason = await hot.whenIdle(folderId);
      const status = hot.status(folderId);
      const rows = hot.files(folderId);
      const failed = rows.filter((r) => r.state === 'failed' && (changedThisRun.has(r.path) || stillThere(r, config)));
      // Files that failed in an earlier run and are still there count too: say so, and how to retry.
      for (const row of failed.filter((r) => !changedThisRun.has(r.path))) {
        if (json) out({ event: 'failed', file: row.path, prompt_id: row.promptId, reason: row.reason, attempts: row.attempts, earlier: true });
        else note(`failed earlier: ${row.relPath}: ${row.reason ?? 'no reason given'} (--retry-failed tries it again)`);
      }
      summarise(status.counters, failed.length);
      if (pool) reportPool(pool);
      if (reason === 'paused') {
        note(`stopped: ${status.pauseReason ?? 'the folder is paused'}`);
        return exitCodeForPause(status.pauseKind);
      }
      return failed.length > 0 ? ExitCode.jobFailed : ExitCode.ok;
    }

    await waitForSignal();
    if (!json) note('stopping: finishing uploads in progress (Ctrl+C again to quit at once)');
    const again = (): void => process.exit(130);
    process.once('SIGINT', again);
    try {
      await hot.dispose();
    } finally {
      process.removeListener('SIGINT', again);
    }
    const status = hot.list().find((f) => f.config.id === folderId)?.status;
    if (status) summarise(status.counters, status.counters.failed);
    const running = hot.files(folderId).filter((r) => r.state === 'running').length;
    if (running > 0 && !json) note(`${running} job${running === 1 ? '' : 's'} still on the server; their results are collected on the next start.`);
    return ExitCode.ok;

    function reportPool(connections: PoolConnections): void {
      const members = connections.pool.status().members;
      if (json)
        out({
          event: 'pool',
          servers: members.map((m) => ({ server: m.baseUrl, done: m.done, failed: m.failed, in_rotation: m.inRotation, reason: m.reason })),
        });
      else
        for (const m of members)
          note(`${m.baseUrl}: ${m.done} done, ${m.failed} failed${m.inRotation ? '' : `, out of rotation (${m.reason ?? 'not answering'})`}`);
    }

    function summarise(counters: { done: number; failed: number; duplicates: number; waiting: number; running: number }, failedCount: number): void {
      if (json)
        out({
          event: 'summary',
          done: counters.done,
          failed: failedCount,
          duplicates: counters.duplicates,
          waiting: counters.waiting,
          running: counters.running,
        });
      else note(`${counters.done} done, ${failedCount} failed, ${counters.duplicates} duplicate${counters.duplicates === 1 ? '' : 's'}`);
    }
  } finally {
    await hot?.dispose().catch(() => undefined);
    await tracker?.dispose().catch(() => undefined);
    await events.dispose().catch(() => undefined);
    await pool?.close().catch(() => undefined);
    await library?.dispose().catch(() => undefined);
    await store.close().catch(() => undefined);
    release();
  }
}

/** The outputs library, or null (with a warning) when its folder cannot be used: the outputs still reach --out. */
/** No downloads here: a hot folder's outputs are on disk already and are imported by copy. */
function openLibrary(store: Store, root: string, note: (message: string) => void): Promise<Library | null> {
  return openCliLibrary({ store, root, source: () => null }, (reason) =>
    note(`warning: the outputs library cannot be used (${reason}); outputs are saved to the output folder only.`),
  );
}

/** A failed file still in the input folder (not moved to failed/): it is "there", so --once counts it. */
function stillThere(row: HotFileRow, config: HotFolderConfig): boolean {
  return existsSync(row.path) && isInside(row.path, config.inputDir) && !isInside(row.path, config.failedDir);
}
