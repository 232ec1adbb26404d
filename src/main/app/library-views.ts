// Library items as the renderer sees them (library-contract.ts): the grid's tile view and the
// detail panel's view. The server's file reference is shown, never used as a path.
import type { LibraryDetailView, LibraryItemView } from '@shared/ipc/library-contract';
import { stringifyJsonExact } from '@shared/json';
import type { LibraryItem } from '../library';
import type { Workflow } from '@main/service/types';

export function libraryItemView(item: LibraryItem): LibraryItemView {
  return {
    id: item.id,
    promptId: item.promptId,
    fileName: item.file.filename,
    mediaKind: item.mediaKind,
    mime: item.mime,
    size: item.size,
    width: item.width,
    height: item.height,
    durationMs: item.durationMs,
    createdAt: item.createdAt,
    status: item.status,
    error: item.error,
    workflowName: item.workflowName,
    profileId: item.server.profileId,
    serverUrl: item.server.baseUrl,
    hasFile: item.status === 'done' && item.path !== null,
  };
}

export function libraryDetailView(item: LibraryItem, workflow: Workflow | null): LibraryDetailView {
  return {
    ...libraryItemView(item),
    path: item.path,
    nodeId: item.nodeId,
    nodeClass: item.nodeClass,
    outputKey: item.outputKey,
    file: { filename: item.file.filename, subfolder: item.file.subfolder, type: item.file.type },
    sha256: item.sha256,
    attempts: item.attempts,
    retryAt: item.retryAt,
    promptText: item.promptText,
    // Exact JSON text (a 2^64-1 seed stays 18446744073709551615), indented for the detail panel.
    inputsJson: stringifyJsonExact(item.inputs, 2),
    workflowJson: workflow === null ? null : stringifyJsonExact(workflow, 2),
    sourceFile: item.sourceFile,
  };
}
