// The outputs library as a hot folder's OutputSink: every output the folder wrote enters the
// library by copy (Library.importFile), with the input file as its source and the job's workflow
// as its provenance. Used by the app and by `flowdeck watch` alike.
import type { ImportFileRequest } from '../library/import-file';
import type { LibraryItem } from '../library';
import type { FinishedOutput, OutputSink } from './types';

/** What the sink needs of the library (Library fits). */
export interface LibraryImporter {
  importFile(request: ImportFileRequest): Promise<LibraryItem>;
}

/** The import request of one finished output; `profileId` is the settings profile of its server, if any. */
export function importRequestOf(output: FinishedOutput, profileId: string | null): ImportFileRequest {
  const p = output.provenance;
  return {
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
  return {
    async add(output) {
      const target = typeof library === 'function' ? library() : library;
      if (!target) throw new Error('the outputs library is not open');
      await target.importFile(importRequestOf(output, profileId));
    },
  };
}
