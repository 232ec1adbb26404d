// flowdeck run WF --repeat N [--server URL]...: the workflow N times, on one server or dispatched
// over a pool (repeating --server). Each run goes to the least-loaded server that can run it (the
// pool's choice, as for hot folders), with the inputs uploaded once per server. A server that stops
// answering leaves the rotation: a run it had not accepted goes elsewhere at once; a run it had
// accepted waits for it up to the pool's reconcile deadline (FLOWDECK_POOL_RECONCILE_AFTER), is
// collected from it if it comes back, and otherwise runs on another server, the late one being
// cancelled there should it come back with it. Each run prints its own result line (--json: one
// object per run, with the server that ran it).
import { heldUnconfirmedSends } from '@main/watch/journal';
import { basename } from 'node:path';
import { JobStore } from '@main/jobs/job-store';
import type { Library } from '../../main/library';
import type { Store } from '@main/store/store';
import type { PoolMember, ServerPool } from '@main/pool/server-pool';
import type { Workflow } from '@main/service/types';
import type { InputRef } from '@main/workflow/edit';
import type { JsonObject } from '@shared/json';
import { CLI_LIBRARY_RETRY, openCliLibrary } from '../cli-library';
import { libraryDirOf, type CliEnvironment, type ResolvedServer } from '../connection';
import { ExitCode } from '../errors';
import { openCliStore } from '../open-store';
import { openPool } from '../pool-connections';
import { RepeatDispatcher, type RunOutcome } from '@main/pool/repeat-dispatch';
import { safeBaseName } from '@main/service/filenames';
import { downloadOutputs, type CliIo, type RunResultJson } from './run-outputs';

export interface RepeatRequest {
  servers: ResolvedServer[];
  repeat: number;
  /** Jobs per server at once (a pool); default: the server's own limit, else 1. A single server takes them all at once. */
  concurrency: number | undefined;
  workflow: Workflow;
  workflowPath: string;
  editorGraph: JsonObject | null;
  /** Inputs set by uploads: not judged against a server's lists (the upload is made on the server that runs it). */
  uploadedRefs: InputRef[];
  /** Uploads the run's files to one server and sets them into `workflow` (run.ts applyUploads). */
  applyUploads(member: PoolMember, workflow: Workflow): Promise<void>;
  checkSetInputs(definitions: PoolMember['definitions']): void | Promise<void>;
  outDir: string;
  json: boolean;
  signal: AbortSignal | undefined;
  log(message: string): void;
}

type RunLine = RunResultJson & { server: string | null; run: number };

export async function runRepeated(request: RepeatRequest, io: CliIo, environment: CliEnvironment): Promise<number> {
  const { log } = request;
  const store = await openCliStore(environment.dataDir, log);
  let pool: Awaited<ReturnType<typeof openPool>> | null = null;
  let library: Library | null = null;
  try {
    const jobs = await JobStore.open(store, { heldSends: () => heldUnconfirmedSends(store) });
    pool = await openPool(request.servers, environment, { jobs, concurrency: request.concurrency, requireAnswer: true, note: log, onWait: log, origin: 'cli' });
    const servers = pool.pool;
    // A pool read every server's definitions; a single server is asked here, as a single run asks it.
    const readable = servers.members.find((m) => m.definitions !== null)?.definitions ?? (await servers.members[0]!.api.getNodeDefinitions().catch(() => null));
    if (!readable) log('could not read the node definitions to check --set names');
    await request.checkSetInputs(readable);
    library = await openLibrary(store, servers, environment, log);
    const lines = (await repeatDispatcher(servers, jobs, library, request).runAll()).map(lineOf);
    for (const line of lines) {
      if (request.json) io.stdout.write(`${JSON.stringify(line)}\n`);
      else for (const o of line.outputs) io.stdout.write(`${o.path}\n`);
    }
    const failed = lines.filter((l) => l.status !== 'succeeded');
    for (const line of failed) if (!request.json) io.stderr.write(`run ${line.run}: ${line.error ?? line.status}\n`);
    log(
      `${lines.length - failed.length} of ${lines.length} runs succeeded${servers.isSingle ? '' : ` on ${new Set(lines.map((l) => l.server)).size} servers`}`,
    );
    if (failed.some((l) => l.status === 'unknown')) return ExitCode.server;
    return failed.length > 0 ? ExitCode.jobFailed : ExitCode.ok;
  } finally {
    await pool?.close().catch(() => undefined);
    await library?.dispose().catch(() => undefined);
    await store.close().catch(() => undefined);
  }
}

/** The library the runs' outputs go into, downloaded through the pool's member that ran each job. */
function openLibrary(store: Store, pool: ServerPool, environment: CliEnvironment, log: (m: string) => void): Promise<Library | null> {
  return openCliLibrary(
    { store, root: libraryDirOf(environment), source: (server) => pool.memberFor(server.baseUrl)?.api ?? null, retry: CLI_LIBRARY_RETRY },
    (reason) => log(`The outputs library cannot be used (${reason}); outputs are saved to the output folder only.`),
  );
}

/** The shared dispatcher with the CLI's parts: uploads per server, outputs downloaded into --out (and the library). */
function repeatDispatcher(pool: ServerPool, jobs: JobStore, library: Library | null, request: RepeatRequest): RepeatDispatcher<RunResultJson['outputs']> {
  const workflowName = basename(request.workflowPath);
  /** Output names taken in --out by any run, so two runs never pick the same one. */
  const taken = new Set<string>();
  return new RepeatDispatcher({
    pool,
    jobs,
    repeat: request.repeat,
    workflow: request.workflow,
    workflowName,
    origin: 'cli',
    editorGraph: request.editorGraph,
    uploadedRefs: request.uploadedRefs,
    prepare: (member, workflow) => request.applyUploads(member, workflow),
    succeeded: (_run, member, promptId, outcome, workflow) => {
      const source = { api: member.api, library, profileId: member.server.profileId ?? null, safeName: (name: string) => safeBaseName(name, 'output') };
      const libraryRun = { promptId, workflow, workflowName, createdAt: Date.now(), server: member.api.profile };
      return downloadOutputs(source, outcome.outputs, request.outDir, request.log, libraryRun, request.signal, taken);
    },
    log: request.log,
  });
}

function lineOf(outcome: RunOutcome<RunResultJson['outputs']>): RunLine {
  const server = outcome.member?.baseUrl ?? null;
  // Which contract the run's server spoke (v1, or Comfy API v2), when a server took it.
  const contract = outcome.member ? { contract: outcome.member.server.api.capabilities.contract } : {};
  if (outcome.status === 'succeeded')
    return { run: outcome.run, server, prompt_id: outcome.promptId, ...contract, status: 'succeeded', outputs: outcome.value, error: null };
  return { run: outcome.run, server, prompt_id: outcome.promptId, ...contract, status: outcome.status, outputs: [], error: outcome.error };
}
