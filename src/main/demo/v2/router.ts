// Dispatch of /api/v2/... requests and who may make them: on the cloud flavour the account keys
// as `Authorization: Bearer` (401 in the v2 envelope otherwise); on a v2-only deployment the
// configured token, or nobody's (a proxy without a token). GET /api/v2/health is never gated.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { sendV2Error, sendV2Json } from './envelope';
import { deleteAsset, getAsset, getAssetContent, headAssetByHash, postAsset, postAssetFromHash } from './routes-assets';
import { getJob, getJobWorkflow, listJobs, postCancel, postJob } from './routes-jobs';
import { getJobEvents } from './events';
import type { V2Surface } from './surface';

function bearerOf(req: IncomingMessage): string | null {
  const raw = req.headers.authorization;
  const match = raw ? /^Bearer\s+(\S+)$/i.exec(raw) : null;
  return match ? match[1]! : null;
}

/** The caller's account (cloud: its key; a v2-only deployment has one account), or undefined when refused. */
function authorise(req: IncomingMessage, v2: V2Surface): string | null | undefined {
  const key = bearerOf(req);
  if (key !== null) v2.core.stats.keysSeen.add(key);
  if (v2.mode === 'beside') return key !== null && v2.core.accounts.stateOf(key) !== undefined ? key : undefined;
  if (v2.token === null) return null;
  return key === v2.token ? null : undefined;
}

const ID = '([^/]+)';
type Handler = (req: IncomingMessage, res: ServerResponse, v2: V2Surface, owner: string | null, param: string, url: URL) => Promise<void> | void;
const ROUTES: Array<[string, RegExp, Handler]> = [
  ['POST', /^\/assets$/, (req, res, v2, owner) => postAsset(req, res, v2, owner)],
  ['POST', /^\/assets\/from-hash$/, (req, res, v2, owner) => postAssetFromHash(req, res, v2, owner)],
  ['HEAD', new RegExp(`^/assets/by-hash/${ID}$`), headAssetByHash],
  ['GET', new RegExp(`^/assets/${ID}/content$`), getAssetContent],
  ['GET', new RegExp(`^/assets/${ID}$`), getAsset],
  ['DELETE', new RegExp(`^/assets/${ID}$`), deleteAsset],
  ['POST', /^\/jobs$/, (req, res, v2, owner) => postJob(req, res, v2, owner)],
  ['GET', /^\/jobs$/, (req, res, v2, owner, _p, url) => listJobs(req, res, v2, owner, url)],
  ['GET', new RegExp(`^/jobs/${ID}$`), getJob],
  ['GET', new RegExp(`^/jobs/${ID}/workflow$`), getJobWorkflow],
  ['GET', new RegExp(`^/jobs/${ID}/events$`), getJobEvents],
  ['POST', new RegExp(`^/jobs/${ID}/cancel$`), postCancel],
];

/** Handles `path` (what follows /api/v2). */
export async function handleV2(req: IncomingMessage, res: ServerResponse, v2: V2Surface, path: string, url: URL): Promise<void> {
  if (path === '/health' && req.method === 'GET') return sendV2Json(res, 200, { status: 'healthy' });
  const owner = authorise(req, v2);
  if (owner === undefined) return sendV2Error(res, 401, 'unauthorized', 'Missing or invalid credentials: send the API key as "Authorization: Bearer <key>".');
  const matching = ROUTES.filter(([, pattern]) => pattern.test(path));
  if (matching.length === 0) return sendV2Error(res, 404, 'not_found', 'No such endpoint.');
  const route = matching.find(([method]) => method === req.method);
  if (!route) return sendV2Error(res, 405, 'method_not_allowed', 'This method is not allowed on this endpoint.');
  const param = decodeURIComponent(route[1].exec(path)?.[1] ?? '');
  await route[2](req, res, v2, owner, param, url);
}
