// The outputs library as a hot folder's OutputSink: every output the folder wrote enters the
// library (Library.importFile), with the input file as its source and the job's workflow as its
// provenance. The library's copy is a tee of the output's download (prepare()), or a reflink of
// the output where the file system has them; its digest comes from the download: the output is
// never read back. Used by the app and by `flowdeck watch` alike.
import type { ImportFileRequest } from '@main/library/import-file';
import type { LibraryItem } from '../library';
import { PROBE_BYTES } from '@main/library/media-info';
import type { FinishedOutput, OutputSink, StagedOutput } from './types';

/** What the sink needs of the library (Library fits). */
export interface LibraryImporter {
  importFile(request: ImportFileRequest): Promise<LibraryItem>;
  /** See Library.stagingFileFor; without it, the library copies the output itself. */
  stagingFileFor?(outputDir: string): Promise<string | null>;
}

/** The import request of one finished output; `profileId` is the settings profile of its server, if any. */
export function importRequestOf(output: FinishedOutput, profileId: string | null, staged?: StagedOutput): ImportFileRequest {
  const p = output.provenance;
  return {
    ...(staged ? { staged: { path: staged.teePath, digest: staged.digest } } : {}),
    path: output.path,
    promptId: p.promptId,
    server: { profileId, kind: p.server.kind, baseUrl: p.server.baseUrl },
    file: p.serverFile,
    workflow: p.workflow,
    workflowName: p.workflowName,
    sourceFile: p.inputPath,
    createdAt: p.finishedAt,
  };
}

/** A sink over a library; `library` may be resolved late (null: the library is closed, the output is not taken). */
export function librarySink(library: LibraryImporter | (() => LibraryImporter | null), profileId: string | null): OutputSink {
  const resolve = (): LibraryImporter | null => (typeof library === 'function' ? library() : library);
  return {
    async add(output, staged) {
      const target = resolve();
      if (!target) throw new Error('the outputs library is not open');
      await target.importFile(importRequestOf(output, profileId, staged));
    },
    async prepare(outputDir) {
      const teePath = (await resolve()?.stagingFileFor?.(outputDir)) ?? null;
      return { teePath, headBytes: PROBE_BYTES };
    },
  };
}
