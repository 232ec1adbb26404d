// The Run form's images are uploaded to the active server (upload.image), and the workflow names
// them there. A run the pool sends to another server needs them there too: each image input is
// read back from the active server and uploaded to that server once (per dispatch), and the
// workflow copy for it names the new file. A pool hot folder's fixed images (a shared mask) are
// copied the same way, once per server for the folder's life (fixedInputsCopier).
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { isJsonObject } from '@shared/json';
import type { PoolMember } from '@main/pool/server-pool';
import { uploadedInputValue } from '@main/service/capabilities';
import type { NodeDefinitions } from '@main/service/object-info';
import type { ServiceApi } from '@main/service/ports';
import type { FileRef, Workflow } from '@main/service/types';
import { ASSET_INPUT_PREFIX } from '@main/service/v2/job-mapping';
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

/** Where a workflow's image input value is read from on the server that holds it. */
function sourceOf(value: string): FileRef {
  // A Comfy API v2 asset reference names its asset as a whole (it has a slash of its own).
  if (value.startsWith(ASSET_INPUT_PREFIX)) return { filename: value, subfolder: '', type: 'input' };
  const slash = value.lastIndexOf('/');
  return { filename: value.slice(slash + 1), subfolder: slash < 0 ? '' : value.slice(0, slash), type: 'input' };
}

/** Copies the image `value` names on `from` to `member` through `dir`; the value that names the copy there. */
async function copyOne(member: PoolMember, from: ServiceApi, value: string, dir: string): Promise<string> {
  const file = sourceOf(value);
  const name = value.startsWith(ASSET_INPUT_PREFIX) ? `input-${value.slice(ASSET_INPUT_PREFIX.length, ASSET_INPUT_PREFIX.length + 12)}.png` : file.filename;
  const downloaded = await from.download(file, dir, { destName: name });
  const uploaded = await member.api.uploadImage(downloaded.path, { type: 'input', filename: name });
  return uploadedInputValue(member.api.capabilities, uploaded);
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
    for (const [index, ref] of refs.entries()) {
      const node = workflow[ref.nodeId];
      if (!isJsonObject(node) || !isJsonObject(node.inputs)) continue;
      const value = node.inputs[ref.input];
      if (typeof value !== 'string') continue;
      node.inputs[ref.input] = await copyOne(member, from, value, join(dir, String(index)));
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The image inputs of `workflow` that name an upload: by the definitions, or (without them) a v2 asset reference. */
function fixedImageRefs(workflow: Workflow, definitions: NodeDefinitions | null): InputRef[] {
  if (definitions) return uploadedImageRefs(workflow, definitions);
  const refs: InputRef[] = [];
  for (const [nodeId, node] of Object.entries(workflow)) {
    if (!isJsonObject(node) || !isJsonObject(node.inputs)) continue;
    for (const [input, value] of Object.entries(node.inputs))
      if (typeof value === 'string' && value.startsWith(ASSET_INPUT_PREFIX)) refs.push({ nodeId, input });
  }
  return refs;
}

/**
 * A pool hot folder's prepareWorkflow (watch/runner-deps.ts): the workflow's fixed images (a mask
 * every file shares, put on the active server by the Run form) are copied to each other pool
 * server once, then named by their copy there; the file's own input (`skip`) is left alone. A
 * copy that fails is tried again by the next file.
 */
export function fixedInputsCopier(
  active: () => { api: ServiceApi; definitions: NodeDefinitions | null },
  tempRoot: string,
): (member: PoolMember, workflow: Workflow, skip: InputRef) => Promise<void> {
  const copies = new WeakMap<PoolMember, Map<string, Promise<string>>>();
  return async (member, workflow, skip) => {
    const { api: from, definitions } = active();
    if (member.api === from) return;
    const refs = fixedImageRefs(workflow, definitions).filter((r) => !(r.nodeId === skip.nodeId && r.input === skip.input));
    if (refs.length === 0) return;
    let known = copies.get(member);
    if (!known) copies.set(member, (known = new Map()));
    for (const ref of refs) {
      const inputs = (workflow[ref.nodeId] as { inputs: Record<string, unknown> }).inputs;
      const value = inputs[ref.input] as string;
      let copy = known.get(value);
      if (!copy) {
        copy = (async () => {
          await mkdir(tempRoot, { recursive: true });
          const dir = await mkdtemp(join(tempRoot, 'fixed-'));
          try {
            return await copyOne(member, from, value, dir);
          } finally {
            await rm(dir, { recursive: true, force: true });
          }
        })();
        known.set(value, copy);
        copy.catch(() => known.delete(value));
      }
      inputs[ref.input] = await copy;
    }
  };
}
