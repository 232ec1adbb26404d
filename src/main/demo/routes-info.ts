// Descriptive endpoints: node definitions, server features, system stats, the small lists the
// local server also answers (embeddings, extensions, models) and the front page.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { freemem, totalmem } from 'node:os';
import type { JsonObject } from '@shared/json';
import type { DemoCore, RequestInfo } from './core';
import { sendJson, sendText } from './http-util';
import { servedDefinition } from './node-defs';

export const DEMO_SERVER_VERSION = '0.3.64';
const FRONT_PAGE = '<!doctype html><title>Flowdeck demo service (no frontend installed)</title><p>frontend stub</p>\n';

function definitionOf(core: DemoCore, className: string): JsonObject | null {
  const node = core.nodes.get(className);
  return node ? servedDefinition(node.definition, () => core.files.listInputFiles()) : null;
}

export function getObjectInfo(_req: IncomingMessage, res: ServerResponse, core: DemoCore): void {
  core.stats.objectInfoListRequests += 1;
  const out: JsonObject = {};
  for (const name of core.nodes.keys()) out[name] = definitionOf(core, name);
  sendJson(res, core.flavour, 200, out);
}

export function getObjectInfoOne(_req: IncomingMessage, res: ServerResponse, core: DemoCore, info: RequestInfo): void {
  const name = info.params.name ?? '';
  const def = definitionOf(core, name);
  sendJson(res, core.flavour, 200, def ? { [name]: def } : {});
}

/** The cloud flavour also says how many jobs an account may run at once (its single worker: one). */
export function serverFeatures(core: DemoCore): { supports_preview_metadata: boolean; max_upload_size: number; max_concurrent_jobs?: number } {
  const features = { supports_preview_metadata: true, max_upload_size: core.maxUploadBytes };
  return core.flavour === 'cloud' ? { ...features, max_concurrent_jobs: 1 } : features;
}

export function getFeatures(_req: IncomingMessage, res: ServerResponse, core: DemoCore): void {
  core.stats.featuresRequests += 1;
  sendJson(res, core.flavour, 200, serverFeatures(core));
}

export function getSystemStats(_req: IncomingMessage, res: ServerResponse, core: DemoCore): void {
  sendJson(res, core.flavour, 200, {
    system: {
      os: 'posix',
      ram_total: totalmem(),
      ram_free: freemem(),
      comfyui_version: DEMO_SERVER_VERSION,
      python_version: '3.12.3 (demo)',
      pytorch_version: 'none (Flowdeck demo service)',
      embedded_python: false,
      argv: ['flowdeck-demo', core.flavour === 'local' ? '--cpu' : '--cloud'],
    },
    devices: [{ name: 'cpu', type: 'cpu', index: null, vram_total: 0, vram_free: 0, torch_vram_total: 0, torch_vram_free: 0 }],
  });
}

export function getEmptyList(_req: IncomingMessage, res: ServerResponse, core: DemoCore): void {
  sendJson(res, core.flavour, 200, []);
}

export function getModelFolders(_req: IncomingMessage, res: ServerResponse, core: DemoCore): void {
  sendJson(res, core.flavour, 200, ['checkpoints', 'loras', 'vae', 'upscale_models', 'embeddings']);
}

export function getFrontPage(_req: IncomingMessage, res: ServerResponse): void {
  sendText(res, 200, FRONT_PAGE, 'text/html');
}
