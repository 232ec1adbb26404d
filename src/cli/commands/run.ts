// flowdeck run WORKFLOW.json: edit inputs, upload files and masks, submit, follow the job with
// progress on stderr, download every output into --out, print the paths (or one JSON object).
import { mkdir, writeFile } from 'node:fs/promises';
import { basename, extname, join, resolve } from 'node:path';
import { checkUploadFile, LocalFileError } from '@main/files/local-input';
import { MaskFileError } from '@main/images/mask-file';
import { uploadInput } from '@main/jobs/upload-input';
import type { ServiceApi } from '@main/service/ports';
import type { NodeDefinitions } from '@main/service/object-info';
import { extensionForMime } from '@shared/media-types';
import type { Workflow } from '@main/service/types';
import { parseAssignment, parseCliValue, setInput, unknownInputProblem, type InputRef } from '@main/workflow/edit';
import { editorGraphForRun } from '@main/workflow/values-that-ran';
import { parseCommandArgs, parsePositiveNumber, parseWholeNumber } from '../args';
import { fetchNodeDefinitions, libraryDirOf, lookupKey, missingKeyError, resolveServer, type CliEnvironment } from '../connection';
import { ExitCode, JobFailedError, UsageError } from '../errors';
import { RUN_USAGE } from '../usage';
import { createProgressReporter } from '../progress';
import { openSession, type JobOutcome } from '../session';
import { readWorkflowFile } from '../workflow-file';
import { definitionsForInputs } from '../input-definitions';
import { removeStalePartials } from '../stale-partials';
import { resolvePoolServers } from '../pool-connections';
import { runRepeated } from './run-repeat';
import { downloadOutputs, type CliIo, type RunResultJson } from './run-outputs';

export type { CliIo } from './run-outputs';

/** A regular, non-empty, readable file (its absolute path); anything else is a usage problem, exit 2. */
function requireReadableFile(path: string, what: string): string {
  try {
    return checkUploadFile(path, what);
  } catch (error) {
    if (error instanceof LocalFileError) throw new UsageError(error.message);
    throw error;
  }
}

/**
 * A --set naming an input its node's class lacks would be dropped silently by the server (an
 * unknown input is ignored): fail with the inputs it does have. When the definitions cannot be
 * read, the check is skipped and said so; the server still validates the rest.
 */
async function checkSetInputs(api: ServiceApi, workflow: Workflow, refs: InputRef[], log: (m: string) => void): Promise<void> {
  if (refs.length === 0) return;
  let definitions;
  try {
    definitions = await definitionsForInputs(api, workflow, refs);
  } catch (error) {
    log(`could not read the node definitions to check --set names (${error instanceof Error ? error.message : String(error)})`);
    return;
  }
  requireKnownInputs(workflow, refs, definitions);
}

/** Fails (exit 2) naming each --set input its node's class lacks, with the inputs it has. */
function requireKnownInputs(workflow: Workflow, refs: InputRef[], definitions: NodeDefinitions): void {
  const problems = refs.map((ref) => unknownInputProblem(workflow, ref, definitions)).filter((p): p is string => p !== null);
  if (problems.length > 0) throw new UsageError(problems.join('\n'));
}

interface UploadPlan {
  uploads: { ref: InputRef; file: string }[];
  masks: { ref: InputRef; image: string; mask: string }[];
}

/** Parses --upload and --mask and checks every file they name, before any connection is made. */
function planUploads(uploads: string[], masks: string[]): UploadPlan {
  return {
    uploads: uploads.map((spec) => {
      const { ref, value } = parseAssignment(spec);
      return { ref, file: requireReadableFile(value, 'file to upload') };
    }),
    masks: masks.map((spec) => {
      const { ref, value } = parseAssignment(spec);
      const parts = value.split(',');
      if (parts.length !== 2 || !parts[0] || !parts[1]) throw new UsageError(`--mask ${spec}: expected NODE.INPUT=IMAGE,MASK.`);
      return { ref, image: requireReadableFile(parts[0], 'image'), mask: requireReadableFile(parts[1], 'mask') };
    }),
  };
}

export async function applyUploads(api: ServiceApi, workflow: Workflow, plan: UploadPlan, log: (m: string) => void): Promise<void> {
  // The server's own upload limit (max_upload_size) when it says one; a server without
  // /api/features keeps its kind's limits, and any other failure shows on the upload itself.
  if (plan.uploads.length + plan.masks.length > 0) await api.discover().catch(() => undefined);
  for (const { ref, file } of plan.uploads) {
    const { value } = await uploadInput(api, { image: file });
    setInput(workflow, ref, value);
    log(`uploaded ${basename(file)} as ${value} -> ${ref.nodeId}.${ref.input}`);
  }
  for (const { ref, image, mask } of plan.masks) {
    let uploaded;
    try {
      uploaded = await uploadInput(api, { image, mask: { path: mask, name: `${basename(image, extname(image))}-mask.png` } });
    } catch (error) {
      if (error instanceof MaskFileError) throw new UsageError(error.message);
      throw error;
    }
    setInput(workflow, ref, uploaded.value);
    log(
      `uploaded ${basename(image)} with mask ${basename(mask)}${uploaded.maskConverted ? ' (white = masked, converted to alpha)' : ''} as ${uploaded.value} -> ${ref.nodeId}.${ref.input}`,
    );
  }
}

export async function runCommand(argv: string[], io: CliIo, environment: CliEnvironment): Promise<number> {
  const { values, positionals } = parseCommandArgs('run', argv, {
    server: { type: 'string', multiple: true },
    local: { type: 'boolean' },
    repeat: { type: 'string' },
    concurrency: { type: 'string' },
    set: { type: 'string', multiple: true },
    upload: { type: 'string', multiple: true },
    mask: { type: 'string', multiple: true },
    out: { type: 'string' },
    json: { type: 'boolean' },
    timeout: { type: 'string' },
    'save-previews': { type: 'boolean' },
  });
  if (positionals.length !== 1) throw new UsageError(`Expected one workflow file.\nUsage: ${RUN_USAGE}`);
  const timeoutSeconds = parsePositiveNumber('timeout', values.timeout);
  // --timeout bounds the whole run: following the job and downloading its outputs.
  const runDeadline = timeoutSeconds === undefined ? null : Date.now() + timeoutSeconds * 1000;
  const deadlineSignal = timeoutSeconds === undefined ? undefined : AbortSignal.timeout(timeoutSeconds * 1000);
  const workflowPath = requireReadableFile(positionals[0]!, 'workflow file');
  const repeat = parseWholeNumber('repeat', values.repeat, 1, 10_000) ?? 1;
  const perServer = parseWholeNumber('concurrency', values.concurrency, 1, 64);
  const servers = values.server ?? [];
  // Several --server make a pool (checked before anything connects); one names today's single server.
  const poolServers = servers.length > 1 ? resolvePoolServers(servers, values.local, environment) : null;
  const resolved = poolServers ? poolServers[0]! : resolveServer({ server: servers[0], local: values.local }, environment);
  // A UI graph (or an image carrying only one) is converted with this server's node definitions,
  // asked for once: the graph sent with the run needs them again to carry the values that ran.
  let definitionsOnce: Promise<NodeDefinitions> | null = null;
  const serverDefinitions = (): Promise<NodeDefinitions> => (definitionsOnce ??= fetchNodeDefinitions(resolved, environment));
  const file = await readWorkflowFile(workflowPath, serverDefinitions);
  const workflow = file.prompt;
  const setRefs: InputRef[] = [];
  for (const spec of values.set ?? []) {
    const { ref, value } = parseAssignment(spec);
    setInput(workflow, ref, parseCliValue(value));
    setRefs.push(ref);
  }
  const uploadPlan = planUploads(values.upload ?? [], values.mask ?? []);
  const outDir = resolve(values.out ?? 'flowdeck-output');
  const json = values.json === true;
  const progress = createProgressReporter(io.stderr);
  const log = (message: string): void => progress.line(message);
  for (const warning of file.warnings) log(`warning: ${warning}`);
  if (poolServers || repeat > 1) {
    if (values['save-previews']) throw new UsageError('--save-previews follows one job; it cannot be used with --repeat or several --server.');
    return runRepeated(
      {
        servers: poolServers ?? [resolved],
        repeat,
        concurrency: perServer,
        workflow,
        workflowPath,
        editorGraph: await editorGraphForRun(file.uiWorkflow, workflow, serverDefinitions, log),
        uploadedRefs: [...uploadPlan.uploads.map((u) => u.ref), ...uploadPlan.masks.map((m) => m.ref)],
        applyUploads: (member, target) => applyUploads(member.api, target, uploadPlan, log),
        checkSetInputs: (definitions) => {
          if (definitions) requireKnownInputs(workflow, setRefs, definitions);
        },
        outDir,
        json,
        signal: deadlineSignal,
        log,
      },
      io,
      environment,
    );
  }

  // No key is asked for before the server says it needs one: a self-hosted v2 proxy without a
  // token takes none; the cloud (v1 or v2) and a proxy with a token answer 401 to a keyless probe.
  const { key, problem } = await lookupKey(resolved, environment);
  const session = await openSession(resolved.server, key, environment.dataDir, {
    libraryDir: libraryDirOf(environment),
    profileId: resolved.profile?.id ?? null,
    warn: log,
    onWait: log,
    connection: resolved.connection,
  });
  if (!key && session.api.capabilities.needsApiKey) {
    await session.close();
    throw missingKeyError(resolved, problem);
  }
  const contract = session.api.capabilities.contract;
  let outcome: JobOutcome | null = null;
  let promptId: string | null = null;
  const onSigint = (): void => {
    progress.line(promptId ? `Stopped following job ${promptId}; it goes on on the server (flowdeck cancel ${promptId} stops it).` : 'Interrupted.');
    void session.close().finally(() => process.exit(130));
  };
  process.once('SIGINT', onSigint);
  try {
    await removeStalePartials(outDir, log);
    await checkSetInputs(session.api, workflow, setRefs, log);
    await applyUploads(session.api, workflow, uploadPlan, log);
    const previewDir = values['save-previews'] ? join(outDir, 'previews') : null;
    if (previewDir) await mkdir(previewDir, { recursive: true });
    const submittedAt = Date.now();
    const submitted = await session.submit(workflow, basename(workflowPath), await editorGraphForRun(file.uiWorkflow, workflow, serverDefinitions, log));
    promptId = submitted;
    log(`submitted job ${promptId} to ${resolved.server.baseUrl}`);
    outcome = await session.follow(promptId, {
      timeoutMs: runDeadline === null ? null : Math.max(1, runDeadline - Date.now()),
      onProgress: (view) => progress.update(view),
      onPreview: previewDir
        ? async (index, mime, bytes) => {
            await writeFile(join(previewDir, `${promptId}-${String(index).padStart(3, '0')}.${extensionForMime(mime) ?? 'jpg'}`), bytes);
          }
        : undefined,
    });
    progress.done();
    const libraryRun = { promptId, workflow, workflowName: basename(workflowPath), createdAt: submittedAt, server: resolved.server };
    let downloaded: RunResultJson['outputs'] = [];
    try {
      if (outcome.phase === 'succeeded') downloaded = await downloadOutputs(session, outcome.outputs, outDir, log, libraryRun, deadlineSignal);
    } catch (error) {
      if (!deadlineSignal?.aborted) throw error;
      throw new JobFailedError(
        `The run did not finish within ${timeoutSeconds} s (--timeout): the job ${promptId} succeeded, but downloading its outputs took too long.`,
      );
    }
    // How long the server keeps the job's outputs, where it says: they can be fetched again until then.
    const retention = await session.api.retentionOf?.(promptId).catch(() => null);
    const expiresAt = retention ? new Date(retention).toISOString() : null;
    if (expiresAt && !json) log(`the server keeps job ${promptId} and its outputs until ${expiresAt}`);
    const result: RunResultJson = {
      prompt_id: promptId,
      contract,
      ...(retention !== undefined ? { expires_at: expiresAt } : {}),
      status: outcome.phase,
      outputs: downloaded,
      error: outcome.errorText,
    };
    if (json) io.stdout.write(`${JSON.stringify(result)}\n`);
    else for (const o of downloaded) io.stdout.write(`${o.path}\n`);
    if (outcome.phase !== 'succeeded') {
      // With --json the reason is in the object, and for a server that stopped answering on stderr too (exit 5).
      if (!json || outcome.phase === 'unknown') io.stderr.write(`${outcome.errorText ?? `The job ended as ${outcome.phase}.`}\n`);
      return outcome.phase === 'unknown' ? ExitCode.server : ExitCode.jobFailed;
    }
    if (!json) log(`job ${promptId} succeeded: ${downloaded.length} output${downloaded.length === 1 ? '' : 's'} in ${outDir}`);
    return ExitCode.ok;
  } catch (error) {
    progress.done();
    if (json) {
      const message = error instanceof Error ? error.message : String(error);
      io.stdout.write(
        `${JSON.stringify({ prompt_id: promptId, contract, status: error instanceof JobFailedError ? 'failed' : 'error', outputs: [], error: message })}\n`,
      );
    }
    throw error;
  } finally {
    process.removeListener('SIGINT', onSigint);
    await session.close();
  }
}
