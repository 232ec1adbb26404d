// Which app a workflow opens as, and how it is found again. The arrangement the user made (pins,
// order) is kept by the core in Flowdeck's own store (apps.get / apps.keep), keyed by the file's
// path, the workflow's content hash and its shape; a UI file also carries its own app
// (extra.linearData, see ./app-inputs). Precedence: an arrangement made on exactly this content;
// else the file's own app; else an arrangement of the same file or the same graph; else the
// proposed app. Pure except for the hash (Web Crypto), so the choice is tested without a core.
import { z } from 'zod';
import { appInputSchema, MAX_APP_INPUTS } from '@shared/ipc/app-layout-contract';
import type { AppLayoutKey, CallResult } from '@shared/ipc/contract';
import { isJsonObject, stringifyJsonExact, type JsonObject } from '@shared/json';
import type { Api } from '../api';
import { linearDataInputs, type AppInput } from './app-inputs';

/** Where the app shown comes from: the file's own, one kept by Flowdeck, arranged but not yet in the file, or proposed. */
export type AppSource = 'file' | 'saved' | 'unsaved' | 'proposed';

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

/** SHA-256 of a text, in hex. */
export async function sha256Text(text: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, '0')).join('');
}

/** The key the core keeps a workflow's app under: the UI graph's text when there is one, else the API prompt's. */
export async function appKeyOf(workflow: JsonObject, uiWorkflowJson: string | null, path: string | null): Promise<AppLayoutKey> {
  return { path, contentHash: await sha256Text(uiWorkflowJson ?? stringifyJsonExact(workflow)), shape: workflowShape(workflow) };
}

/**
 * The app a workflow opens as. `kept` is what the core found (null: nothing); `fromFile` the UI
 * file's own app (null: none). `hasGraph` tells a UI workflow (whose app belongs in a file) from an
 * API one (whose app Flowdeck keeps).
 */
export function chooseApp(kept: CallResult<'apps.get'>, fromFile: AppInput[] | null, hasGraph: boolean): { pins: AppInput[] | null; source: AppSource } {
  const file = fromFile && fromFile.length > 0 ? fromFile : null;
  if (kept && file && sameApp(kept.inputs, file)) return { pins: file, source: 'file' };
  if (kept && (kept.match === 'content' || !file)) return { pins: kept.inputs, source: hasGraph ? 'unsaved' : 'saved' };
  if (file) return { pins: file, source: 'file' };
  return { pins: null, source: 'proposed' };
}

/** The same inputs in the same order. */
export function sameApp(a: readonly AppInput[], b: readonly AppInput[]): boolean {
  return a.length === b.length && a.every((x, i) => x.nodeId === b[i]!.nodeId && x.name === b[i]!.name);
}

/** The app a workflow opens as, found in one go (the hot folder dialog: nothing to save, no path). */
export async function findApp(api: Api, workflow: JsonObject, uiWorkflowJson: string | null): Promise<{ pins: AppInput[] | null; source: AppSource }> {
  const kept = await api.call('apps.get', await appKeyOf(workflow, uiWorkflowJson, null));
  return chooseApp(kept, linearDataInputs(uiWorkflowJson), uiWorkflowJson !== null);
}

/** Where the version before the core kept apps stored one: the window's storage, under the workflow's shape. */
const LEGACY_PREFIX = 'flowdeck.app.';
const legacySchema = z.array(appInputSchema).max(MAX_APP_INPUTS);

interface LegacyStorage {
  getItem(key: string): string | null;
  removeItem(key: string): void;
}
/** The window's storage where there is one (the page); none under Node (tests pass their own). */
const windowStorage = (): LegacyStorage | undefined => (globalThis as { localStorage?: LegacyStorage }).localStorage;

/**
 * The app an earlier Flowdeck kept in the window's storage for a workflow of this shape, if any,
 * so the first open after the update carries it over to the core (the caller keeps it there,
 * then forgets the old entry with `forgetLegacyApp`). Anything unreadable counts as none.
 */
export function legacyApp(shape: string, storage: LegacyStorage | undefined = windowStorage()): AppInput[] | null {
  try {
    const text = storage?.getItem(LEGACY_PREFIX + shape);
    if (!text) return null;
    const parsed = legacySchema.safeParse(JSON.parse(text));
    return parsed.success && parsed.data.length > 0 ? parsed.data : null;
  } catch {
    return null;
  }
}

export function forgetLegacyApp(shape: string, storage: LegacyStorage | undefined = windowStorage()): void {
  try {
    storage?.removeItem(LEGACY_PREFIX + shape);
  } catch {
    // A storage that refuses leaves the old entry; it is read again only while the core keeps nothing.
  }
}
