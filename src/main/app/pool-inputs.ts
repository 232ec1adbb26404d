// The Run form's images are uploaded to the active server (upload.image), and the workflow names
// them there. A run the pool sends to another server needs them there too: each image input is
// read back from the active server and uploaded to that server once (per dispatch), and the
// workflow copy for it names the new file.
import { mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { isJsonObject } from '@shared/json';
import type { PoolMember } from '@main/pool/server-pool';
import { uploadedInputValue } from '@main/service/capabilities';
import type { NodeDefinitions } from '@main/service/object-info';
import type { ServiceApi } from '@main/service/ports';
import type { Workflow } from '@main/service/types';
import type { InputRef } from '@main/workflow/edit';

/** The inputs of `workflow` that take an uploaded image (LoadImage's `image`) and name one. */
export function uploadedImageRefs(workflow: Workflow, definitions: NodeDefinitions): InputRef[] {
  const refs: InputRef[] = [];
  for (const [nodeId, node] of Object.entries(workflow)) {
    if (!isJsonObject(node) || typeof node.class_type !== 'string' || !isJsonObject(node.inputs)) continue;
    for (const spec of definitions.get(node.class_type)?.inputs ?? []) {
      if (spec.kind === 'combo' && spec.imageUpload && typeof node.inputs[spec.name] === 'string' && node.inputs[spec.name] !== '')
        refs.push({ nodeId, input: spec.name });
    }
  }
  return refs;
}

/**
 * Copies the images `refs` name from the active server (`from`) to `member` and sets the new names
 * into `workflow`. Nothing to do on the active server itself. Files go through a private
 * temporary folder under `tempRoot`, removed afterwards.
 */
export async function copyInputsTo(member: PoolMember, from: ServiceApi, workflow: Workflow, refs: readonly InputRef[], tempRoot: string): Promise<void> {
  if (refs.length === 0 || member.api === from) return;
  const dir = await mkdtemp(join(tempRoot, 'pool-'));
  try {
    for (const ref of refs) {
      const node = workflow[ref.nodeId];
      if (!isJsonObject(node) || !isJsonObject(node.inputs)) continue;
      const value = node.inputs[ref.input];
      if (typeof value !== 'string') continue;
      const slash = value.lastIndexOf('/');
      const file = { filename: value.slice(slash + 1), subfolder: slash < 0 ? '' : value.slice(0, slash), type: 'input' as const };
      const downloaded = await from.download(file, join(dir, String(refs.indexOf(ref))), { destName: file.filename });
      const uploaded = await member.api.uploadImage(downloaded.path, { type: 'input', filename: file.filename });
      node.inputs[ref.input] = uploadedInputValue(member.api.capabilities, uploaded);
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
