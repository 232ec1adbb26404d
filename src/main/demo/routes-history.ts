// /history: finished jobs with their outputs and status messages; `{}` for a job that is still
// queued or running (or unknown). The cloud keeps /api/history/{id} for compatibility, limited
// to the caller's own jobs.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { isJsonObject } from '@shared/json';
import { ownerScope, type DemoCore, type RequestInfo } from './core';
import { pyTruthy } from './py-format';
import { parseJsonBody, readBody, sendEmpty, sendJson, sendServerError } from './http-util';

export function getHistoryOne(_req: IncomingMessage, res: ServerResponse, core: DemoCore, info: RequestInfo): void {
  const id = info.params.id ?? '';
  const entry = core.queue.historyOf(id);
  const job = core.queue.get(id);
  const visible = entry !== undefined && job !== undefined && (core.flavour === 'local' || job.owner === info.key);
  sendJson(res, core.flavour, 200, visible ? { [id]: entry } : {});
}

export function getHistoryList(_req: IncomingMessage, res: ServerResponse, core: DemoCore, info: RequestInfo): void {
  const raw = info.url.searchParams.get('max_items');
  let maxItems: number | undefined;
  if (raw !== null) {
    if (!/^\s*[+-]?\d+\s*$/.test(raw)) {
      sendServerError(res, core.flavour); // int() fails on the real server
      return;
    }
    maxItems = Math.max(0, Number(raw));
  }
  sendJson(res, core.flavour, 200, Object.fromEntries(core.queue.historyEntries(maxItems, ownerScope(core, info))));
}

export async function postHistory(req: IncomingMessage, res: ServerResponse, core: DemoCore): Promise<void> {
  const parsed = parseJsonBody(await readBody(req, 1024 * 1024));
  if (!parsed.ok || !isJsonObject(parsed.value)) {
    sendServerError(res, core.flavour);
    return;
  }
  const json = parsed.value;
  if (pyTruthy(json.clear)) core.queue.clearHistory();
  if (Array.isArray(json.delete)) core.queue.deleteHistory(json.delete.filter((id): id is string => typeof id === 'string'));
  sendEmpty(res, 200);
}
