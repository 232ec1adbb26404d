// Flowdeck's own record of the apps the user arranged (pinned, unpinned, reordered inputs), per
// workflow: kept in the window's local storage under the workflow's shape (its node ids and
// classes), so the same workflow opens as the same app again, an API file included. A UI file can
// also carry its app itself (extra.linearData, see ./app-inputs); a saved arrangement wins.
import { z } from 'zod';
import { isJsonObject, type JsonObject } from '@shared/json';
import type { AppInput } from './app-inputs';

const PREFIX = 'flowdeck.app.';
const savedSchema = z.array(z.object({ nodeId: z.string().max(200), name: z.string().max(200) })).max(500);

/** The workflow's shape: its node ids and classes, hashed (FNV-1a), so edits to values keep the app. */
export function workflowShape(workflow: JsonObject): string {
  const text = Object.keys(workflow)
    .sort()
    .map((id) => {
      const node = workflow[id];
      return `${id}:${isJsonObject(node) && typeof node['class_type'] === 'string' ? node['class_type'] : ''}`;
    })
    .join('|');
  let hash = 2166136261;
  for (let i = 0; i < text.length; i += 1) hash = Math.imul(hash ^ text.charCodeAt(i), 16777619) >>> 0;
  return `${hash.toString(16)}-${text.length}`;
}

export function loadApp(workflow: JsonObject): AppInput[] | null {
  try {
    const text = globalThis.localStorage?.getItem(PREFIX + workflowShape(workflow));
    if (!text) return null;
    const parsed = savedSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

/** False when the storage refused (private mode, quota): the arrangement lasts for this session only. */
export function saveApp(workflow: JsonObject, inputs: readonly AppInput[]): boolean {
  try {
    globalThis.localStorage?.setItem(PREFIX + workflowShape(workflow), JSON.stringify(inputs));
    return true;
  } catch {
    return false;
  }
}
