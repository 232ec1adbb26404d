// The main listener's request pipeline: injected faults (delay, 500s), the local cross-origin
// guard, the /api prefix (optional locally, required on the cloud), the cloud's API key check,
// then the route. Also the /ws upgrade, with the same checks (a key in `token=` on the cloud).
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { headerKey, isCrossOriginRefused } from './auth';
import type { V2Surface } from './v2/surface';
import type { DemoCore, RouteHandler } from './core';
import { encodeJson, sendCloudError, sendEmpty, sendMethodNotAllowed, sendNotFound, sendServerError } from './http-util';
import { getHistoryList, getHistoryOne, postHistory } from './routes-history';
import { getEmptyList, getFeatures, getFrontPage, getModelFolders, getObjectInfo, getObjectInfoOne, getSystemStats } from './routes-info';
import { getJobList, getJobOne } from './routes-jobs';
import { getPrompt, postPrompt } from './routes-prompt';
import { getJobStatus, getQueue, postInterrupt, postQueue } from './routes-queue';
import { postUploadImage, postUploadMask } from './routes-upload';
import { getPackFile, getWorkflowTemplates, serveTemplateFile } from './routes-templates';
import { getView } from './routes-view';
import type { DemoFlavour } from './types';
import { sendV2Error } from './v2/envelope';
import { handleV2 } from './v2/router';

interface Route {
  method: 'GET' | 'POST';
  pattern: RegExp;
  params: string[];
  handler: RouteHandler;
  flavours: readonly DemoFlavour[];
}

const BOTH = ['local', 'cloud'] as const;
const LOCAL = ['local'] as const;
const CLOUD = ['cloud'] as const;

function route(method: Route['method'], template: string, handler: RouteHandler, flavours: readonly DemoFlavour[] = BOTH): Route {
  const params: string[] = [];
  const source = template.replace(/\{(\w+)\}/g, (_m, name: string) => {
    params.push(name);
    return '([^/]+)';
  });
  return { method, pattern: new RegExp(`^${source}$`), params, handler, flavours };
}

const ROUTES: Route[] = [
  route('GET', '/', getFrontPage),
  route('POST', '/prompt', postPrompt),
  route('GET', '/prompt', getPrompt),
  route('GET', '/queue', getQueue),
  route('POST', '/queue', postQueue),
  route('POST', '/interrupt', postInterrupt),
  route('GET', '/job/{id}/status', getJobStatus, CLOUD),
  route('GET', '/jobs', getJobList, CLOUD),
  route('GET', '/jobs/{id}', getJobOne, CLOUD),
  route('GET', '/history', getHistoryList, LOCAL),
  route('GET', '/history/{id}', getHistoryOne),
  route('POST', '/history', postHistory, LOCAL),
  route('GET', '/object_info', getObjectInfo),
  route('GET', '/object_info/{name}', getObjectInfoOne),
  route('GET', '/features', getFeatures),
  route('GET', '/system_stats', getSystemStats),
  route('GET', '/embeddings', getEmptyList, LOCAL),
  route('GET', '/extensions', getEmptyList, LOCAL),
  route('GET', '/models', getModelFolders, LOCAL),
  route('POST', '/upload/image', postUploadImage),
  route('POST', '/upload/mask', postUploadMask),
  route('GET', '/view', getView),
  route('GET', '/workflow_templates', getWorkflowTemplates),
  route('GET', '/workflow_templates/{pack}/{file}', getPackFile, LOCAL),
];

/** Paths the cloud answers without a key (its OpenAPI file: `security: []`). */
const PUBLIC_PATHS = new Set(['/', '/workflow_templates']);

/** The route path: locally /api is optional; on the cloud it is required (except for the front page). */
function routePath(flavour: DemoFlavour, pathname: string): string | null {
  if (pathname === '/api' || pathname.startsWith('/api/')) return pathname.slice(4) || '/';
  if (flavour === 'local' || pathname === '/') return pathname;
  return null;
}

function recordKey(core: DemoCore, key: string | null): void {
  if (key !== null) core.stats.keysSeen.add(key);
}

/** The demo's core as served: with its Comfy API v2 surface, when it serves one (set once at start). */
export type ServedCore = DemoCore & { v2: V2Surface | null };

export async function handleRequest(req: IncomingMessage, res: ServerResponse, core: ServedCore): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://demo.invalid');
  try {
    if (core.faults.responseDelayMs > 0) await new Promise((r) => setTimeout(r, core.faults.responseDelayMs));
    if (core.faults.takeFailure(url.pathname + url.search)) return sendServerError(res, core.flavour);
    if (core.flavour === 'local' && isCrossOriginRefused(req)) return sendEmpty(res, 403);
    if (core.v2 && (url.pathname === '/api/v2' || url.pathname.startsWith('/api/v2/')))
      return await handleV2(req, res, core.v2, url.pathname.slice('/api/v2'.length) || '/', url);
    // A v2-only deployment has nothing else: no node definitions, queue, interrupt or history.
    if (core.v2?.mode === 'only') return sendV2Error(res, 404, 'not_found', 'No such endpoint.');
    if (url.pathname.startsWith('/templates/')) return serveTemplateFile(req, res, core, url.pathname);
    const path = routePath(core.flavour, url.pathname);
    if (path === null) return sendNotFound(res, core.flavour);

    let key: string | null = null;
    if (core.flavour === 'cloud' && !PUBLIC_PATHS.has(path)) {
      key = headerKey(req);
      recordKey(core, key);
      if (key === null) return sendCloudError(res, 401, 'unauthorized', 'An API key is required: send it in the X-API-Key header.');
      if (core.accounts.stateOf(key) === undefined) return sendCloudError(res, 401, 'unauthorized', 'The API key is not valid.');
    }

    const method = req.method === 'HEAD' ? 'GET' : req.method;
    const matching = ROUTES.filter((r) => r.flavours.includes(core.flavour) && r.pattern.test(path));
    if (matching.length === 0) return sendNotFound(res, core.flavour);
    const found = matching.find((r) => r.method === method);
    if (!found) return sendMethodNotAllowed(res, core.flavour);
    const m = found.pattern.exec(path)!;
    const params: Record<string, string> = {};
    found.params.forEach((name, i) => {
      params[name] = decodeURIComponent(m[i + 1] ?? '');
    });
    await found.handler(req, res, core, { url, path, params, key });
  } catch {
    if (!res.headersSent) sendServerError(res, core.flavour);
    else res.destroy();
  }
}

function refuseUpgrade(socket: Duplex, status: number, reason: string, body: string, contentType: string): void {
  const bytes = Buffer.from(body, 'utf8');
  socket.end(`HTTP/1.1 ${status} ${reason}\r\nContent-Type: ${contentType}\r\nContent-Length: ${bytes.length}\r\nConnection: close\r\n\r\n` + body);
}

export function handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer, core: ServedCore): void {
  socket.on('error', () => socket.destroy());
  const url = new URL(req.url ?? '/', 'http://demo.invalid');
  const wsPaths = core.v2?.mode === 'only' ? [] : core.flavour === 'local' ? ['/ws', '/api/ws'] : ['/ws'];
  if (!wsPaths.includes(url.pathname)) {
    refuseUpgrade(
      socket,
      404,
      'Not Found',
      core.flavour === 'local' ? '404: Not Found' : encodeJson('cloud', { code: 'not_found', message: 'No such endpoint.' }),
      core.flavour === 'local' ? 'text/plain; charset=utf-8' : 'application/json; charset=utf-8',
    );
    return;
  }
  let key: string | null = null;
  if (core.flavour === 'local') {
    if (isCrossOriginRefused(req)) return refuseUpgrade(socket, 403, 'Forbidden', '', 'application/octet-stream');
  } else {
    key = url.searchParams.get('token') || null;
    recordKey(core, key);
    if (key === null || core.accounts.stateOf(key) === undefined) {
      const message = key === null ? 'An API key is required: pass it as the token query parameter.' : 'The API key is not valid.';
      return refuseUpgrade(socket, 401, 'Unauthorized', encodeJson('cloud', { code: 'unauthorized', message }), 'application/json; charset=utf-8');
    }
  }
  const sid = url.searchParams.get('clientId') || randomUUID().replace(/-/g, '');
  core.hub.upgrade(req, socket, head, sid, key);
}
