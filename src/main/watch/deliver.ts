// Delivering a finished job's outputs: each file is downloaded into the output folder under the
// folder's naming rule (mirroring the input's subfolder), a sidecar JSON beside it records where it
// came from (workflow, inputs, job id), and the OutputSink (the outputs library) is told.
// Names are deterministic, so delivering again after a crash overwrites our own earlier file
// (recognised by its sidecar) instead of leaving "photo_9_1 (1).png" behind.
import { existsSync } from 'node:fs';
import { readFile, rm } from 'node:fs/promises';
import { basename, dirname, extname, join } from 'node:path';
import { stringifyJsonExact } from '@shared/json';
import type { ServiceApi } from '@main/service/ports';
import type { OutputFile, Workflow } from '@main/service/types';
import type { HotFolderConfig } from './config';
import type { EntryRecord } from './journal';
import { nameValues, renderOutputName } from './naming';
import type { FinishedOutput, OutputProvenance, OutputSink } from './types';
import { writeFileAtomically } from '@main/files/publish';

export const SIDECAR_SUFFIX = '.json';

export interface DeliverContext {
  api: ServiceApi;
  folder: HotFolderConfig;
  entry: EntryRecord;
  promptId: string;
  /** The workflow as submitted (the uploaded name in place). */
  workflow: Workflow;
  outputs: OutputFile[];
  /** Output paths being written by this folder right now (two inputs may want the same name). */
  reserved: Set<string>;
  sink: OutputSink | null;
  now(): number;
  warn(message: string): void;
}

/** Final outputs; previews (type temp) only when a job produced nothing else. */
export function deliverable(outputs: readonly OutputFile[]): OutputFile[] {
  const finals = outputs.filter((o) => o.type === 'output');
  return finals.length > 0 ? finals : [...outputs];
}

interface SidecarHead {
  promptId: string | null;
  node: string | null;
  serverFilename: string | null;
}

async function readSidecarHead(path: string): Promise<SidecarHead | null> {
  try {
    const value: unknown = JSON.parse(await readFile(path, 'utf8'));
    if (typeof value !== 'object' || value === null) return null;
    const v = value as { job?: { prompt_id?: unknown }; output?: { node?: unknown; server?: { filename?: unknown } } };
    const str = (x: unknown): string | null => (typeof x === 'string' ? x : null);
    return { promptId: str(v.job?.prompt_id), node: str(v.output?.node), serverFilename: str(v.output?.server?.filename) };
  } catch {
    return null;
  }
}

/** `dest`, or "name (n).ext" when `dest` holds someone else's file; our own earlier file is replaced. */
async function chooseDestination(dest: string, reserved: Set<string>, promptId: string, file: OutputFile): Promise<string> {
  const ext = extname(dest);
  const stem = dest.slice(0, dest.length - ext.length);
  for (let n = 0; ; n += 1) {
    const candidate = n === 0 ? dest : `${stem} (${n})${ext}`;
    if (reserved.has(candidate)) continue;
    if (!existsSync(candidate)) return candidate;
    const head = await readSidecarHead(candidate + SIDECAR_SUFFIX);
    if (head && head.promptId === promptId && head.node === file.node && head.serverFilename === file.filename) return candidate;
  }
}

export async function deliverOutputs(ctx: DeliverContext): Promise<FinishedOutput[]> {
  const { folder, entry } = ctx;
  const relDir = dirname(entry.relPath);
  const inputName = basename(entry.relPath);
  const stem = inputName.slice(0, inputName.length - extname(inputName).length) || inputName;
  const perNode = new Map<string, number>();
  const delivered: FinishedOutput[] = [];
  for (const file of deliverable(ctx.outputs)) {
    const index = (perNode.get(file.node) ?? 0) + 1;
    perNode.set(file.node, index);
    const at = ctx.now();
    const rel = renderOutputName(
      folder.outputName,
      nameValues({ stem, contentKey: entry.contentKey, promptId: ctx.promptId, node: file.node, index, serverFilename: file.filename, at }),
    );
    const wanted = join(folder.outputDir, relDir === '.' ? '' : relDir, rel);
    const dest = await chooseDestination(wanted, ctx.reserved, ctx.promptId, file);
    ctx.reserved.add(dest);
    // The sink's copy (the library's) is written from the same network read, never read back from ours.
    const prepared = ctx.sink?.prepare ? await ctx.sink.prepare(dirname(dest)).catch(() => null) : null;
    const teePath = prepared?.teePath ?? null;
    /** Whether the sink took the tee copy: it has published or removed it then (Library.importFile). */
    let teeHandedOver = false;
    try {
      const result = await ctx.api.download(file, dirname(dest), {
        destName: basename(dest),
        overwrite: true,
        ...(prepared ? { digest: { headBytes: prepared.headBytes } } : {}),
        ...(teePath ? { alsoWriteTo: [teePath] } : {}),
      });
      const sidecarPath = result.path + SIDECAR_SUFFIX;
      const provenance: OutputProvenance = {
        source: 'hot-folder',
        folderId: folder.id,
        folderName: folder.name,
        inputPath: entry.path,
        inputSha256: entry.imageSha256,
        maskPath: entry.maskPath,
        maskSha256: entry.maskSha256,
        bind: folder.bind,
        workflow: ctx.workflow,
        workflowName: folder.workflowName,
        promptId: ctx.promptId,
        server: { kind: ctx.api.profile.kind, baseUrl: ctx.api.profile.baseUrl },
        serverFile: file,
        index,
        sidecarPath,
        finishedAt: at,
      };
      // Through the one publish step; replaces our earlier sidecar of the same name.
      await writeFileAtomically(sidecarPath, sidecarText(provenance, result.path, entry.uploadedAs));
      const output: FinishedOutput = { path: result.path, provenance };
      delivered.push(output);
      if (ctx.sink) {
        try {
          await ctx.sink.add(output, result.digest ? { teePath, digest: result.digest } : undefined);
          teeHandedOver = result.digest !== undefined;
        } catch (error) {
          ctx.warn(`The outputs library did not take ${result.path}: ${error instanceof Error ? error.message : String(error)}`);
        }
      }
    } finally {
      ctx.reserved.delete(dest);
      // Not taken by the sink (a failed download, sidecar or import): it must not stay behind.
      if (teePath && !teeHandedOver) await rm(teePath, { force: true }).catch(() => {});
    }
  }
  return delivered;
}

/** The sidecar: what a person (or another tool) needs to know where an output came from. */
export function sidecarText(p: OutputProvenance, outputPath: string, uploadedAs: string | null): string {
  return (
    stringifyJsonExact(
      {
        flowdeck: 'hot-folder-output',
        version: 1,
        output: {
          file: basename(outputPath),
          node: p.serverFile.node,
          key: p.serverFile.key,
          index: p.index,
          server: { filename: p.serverFile.filename, subfolder: p.serverFile.subfolder, type: p.serverFile.type },
        },
        job: { prompt_id: p.promptId, server: { kind: p.server.kind, base_url: p.server.baseUrl } },
        inputs: {
          bind: p.bind,
          file: p.inputPath,
          sha256: p.inputSha256,
          uploaded_as: uploadedAs,
          mask: p.maskPath ? { file: p.maskPath, sha256: p.maskSha256 } : null,
        },
        workflow_name: p.workflowName,
        workflow: p.workflow,
        folder: { id: p.folderId, name: p.folderName },
        finished_at: new Date(p.finishedAt).toISOString(),
      },
      2,
    ) + '\n'
  );
}
