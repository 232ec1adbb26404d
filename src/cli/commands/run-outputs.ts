// The outputs of a `flowdeck run` job: recorded in the library (downloaded once, de-duplicated)
// and copied into --out under names no earlier output took, or downloaded directly when the
// library cannot take them; and the shapes run and run --repeat print them in.
import { existsSync } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { partialPathFor, publishFile, syncDirectory } from '@main/files/publish';
import { outputKey } from '@main/jobs/types';
import { copyOutOfLibrary, type LibraryItem } from '../../main/library';
import type { ServiceApi } from '@main/service/ports';
import type { OutputFile, ServerProfile, Workflow } from '@main/service/types';
import type { CliSession } from '../session';

export interface CliIo {
  stdout: NodeJS.WriteStream;
  stderr: NodeJS.WriteStream;
}

export interface RunResultJson {
  prompt_id: string | null;
  /** Which contract ran the job: the seed's API (v1) or Comfy API v2. */
  contract?: 'v1' | 'v2';
  /** Until when the server keeps the job and its outputs (ISO 8601), where it says (v2). */
  expires_at?: string | null;
  status: string;
  outputs: { node: string; filename: string; type: string; path: string; library_path: string | null }[];
  error: string | null;
}

/** Leftovers of a run killed while writing into `dir` (see partial-files.ts), removed and counted. */

/** A name in `dir` that no earlier output of this run (or an existing file) took. */
function uniqueName(dir: string, name: string, taken: Set<string>): string {
  const ext = extname(name);
  const stem = name.slice(0, name.length - ext.length);
  let candidate = name;
  for (let i = 1; taken.has(candidate) || existsSync(join(dir, candidate)); i += 1) candidate = `${stem} (${i})${ext}`;
  taken.add(candidate);
  return candidate;
}

/** Where this run's outputs come from: the library (recorded, downloaded once, de-duplicated) when it is open. */
export interface LibraryRun {
  promptId: string;
  workflow: Workflow;
  workflowName: string;
  createdAt: number;
  server: ServerProfile;
}

/** Records the outputs in the library and waits for their downloads; a map by output identity. */
/** Rejects when `signal` aborts (the run's --timeout), so a wait that cannot be cancelled is still left. */
function untilAborted(signal: AbortSignal | undefined): Promise<never> {
  return new Promise((_resolve, reject) => {
    if (!signal) return;
    if (signal.aborted) reject(signal.reason);
    else signal.addEventListener('abort', () => reject(signal.reason), { once: true });
  });
}

/** Where a job's outputs are fetched from and kept: a CLI session, or one server of a pool with the shared library. */
export type OutputSource = Pick<CliSession, 'library' | 'profileId' | 'safeName'> & { api: Pick<ServiceApi, 'download'> };

async function saveInLibrary(
  session: OutputSource,
  outputs: OutputFile[],
  run: LibraryRun,
  log: (m: string) => void,
  signal: AbortSignal | undefined,
  alsoWriteTo: ((output: OutputFile) => string[]) | undefined,
): Promise<Map<string, LibraryItem>> {
  const byOutput = new Map<string, LibraryItem>();
  if (!session.library) return byOutput;
  try {
    const server = { profileId: session.profileId, kind: run.server.kind, baseUrl: run.server.baseUrl };
    const context = { server, workflow: run.workflow, workflowName: run.workflowName, createdAt: run.createdAt, ...(alsoWriteTo ? { alsoWriteTo } : {}) };
    const recorded = await session.library.record({ promptId: run.promptId, outputs }, context);
    const settled = await Promise.race([session.library.whenSettled(recorded.map((i) => i.id)), untilAborted(signal)]);
    for (const item of settled) byOutput.set(outputKey(item.file), item);
  } catch (error) {
    if (signal?.aborted) throw error;
    log(`library: could not record the outputs (${error instanceof Error ? error.message : String(error)}); downloading them directly`);
  }
  return byOutput;
}

/**
 * The --out copies of library files are written once: by reflink from the library's file where the
 * file system has reflinks (copyOutOfLibrary), otherwise by the library's download itself, from
 * the same network read (a tee into a partial file in --out, published here). Never a hard link:
 * editing the copy in --out must not change the library's file.
 */
export async function downloadOutputs(
  session: OutputSource,
  outputs: OutputFile[],
  outDir: string,
  log: (m: string) => void,
  run: LibraryRun,
  signal: AbortSignal | undefined,
  taken = new Set<string>(),
): Promise<RunResultJson['outputs']> {
  await mkdir(outDir, { recursive: true });
  const destNames = new Map(outputs.map((output) => [outputKey(output), uniqueName(outDir, session.safeName(output.filename), taken)]));
  const tees = new Map<string, string>();
  // A library whose staging folder cannot even be made fails its own download later, and says why.
  const tee =
    session.library && !(await session.library.canReflinkTo(outDir).catch(() => true))
      ? (output: OutputFile): string[] => {
          const partial = partialPathFor(join(outDir, destNames.get(outputKey(output)) ?? 'output'));
          tees.set(outputKey(output), partial);
          return [partial];
        }
      : undefined;
  try {
    const inLibrary = await saveInLibrary(session, outputs, run, log, signal, tee);
    const results: RunResultJson['outputs'] = [];
    for (const output of outputs) {
      const key = outputKey(output);
      const destName = destNames.get(key)!;
      const item = inLibrary.get(key);
      const teed = tees.get(key);
      if (item?.status === 'done' && item.path) {
        // The tee copy exists only when the library's own download of this item succeeded.
        const path = teed && existsSync(teed) ? await publishFile(teed, outDir, destName) : await copyOutOfLibrary(item.path, outDir, destName);
        results.push({ node: output.node, filename: output.filename, type: output.type, path, library_path: item.path });
        log(`downloaded ${output.filename} (${item.size ?? 0} bytes) into the library: ${item.path}`);
        continue;
      }
      if (item)
        log(`library: ${output.filename} is not in the library yet (${item.error ?? item.status}); it is kept pending there, and downloaded directly now`);
      const result = await session.api.download(output, outDir, { destName, ...(signal ? { signal } : {}) });
      results.push({ node: output.node, filename: output.filename, type: output.type, path: result.path, library_path: null });
      log(`downloaded ${output.filename} (${result.bytes} bytes)`);
    }
    if (tees.size > 0) await syncDirectory(outDir);
    return results;
  } finally {
    // Published tee copies are gone from their partial names already; the rest must not stay.
    await Promise.all([...tees.values()].map((file) => rm(file, { force: true }).catch(() => {})));
  }
}
