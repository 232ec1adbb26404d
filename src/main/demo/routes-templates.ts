// The template gallery as a real server serves it. The templates package's files are static under
// /templates/ (outside /api, no key: the editor's own page fetches them): `index.json`, a list of
// categories each with its templates (name, title, description, mediaType, mediaSubtype, tags), the
// workflow at NAME.json and the thumbnail at NAME-1.MEDIASUBTYPE. Custom node packs' example
// workflows are listed by GET /api/workflow_templates ({pack: [name, ...]}, public on the cloud,
// which documents it as an empty object) and served at /api/workflow_templates/PACK/NAME.json with
// NAME.jpg beside. A server without the templates package answers 404 under /templates/.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { JsonObject } from '@shared/json';
import type { DemoCore, RequestInfo } from './core';
import { sendJson, sendMethodNotAllowed, sendNotFound } from './http-util';
import { DEMO_NODE_PACK, type DemoGallery, type DemoTemplate } from './templates-gallery';
import type { DemoFlavour } from './types';

const JSON_TYPE = 'application/json';
const JPEG_TYPE = 'image/jpeg';
/** The core gallery's thumbnails are JPEG here (the real package ships WebP; mediaSubtype says which). */
const THUMBNAIL_SUBTYPE = 'jpg';

/** A static file's answer, as aiohttp's web.static sends one (HEAD: the headers only). */
function sendStatic(req: IncomingMessage, res: ServerResponse, body: Uint8Array, contentType: string): void {
  res.writeHead(200, { 'Content-Type': contentType, 'Content-Length': String(body.byteLength), 'Accept-Ranges': 'bytes' });
  res.end(req.method === 'HEAD' ? undefined : body);
}

function workflowBytes(template: DemoTemplate): Uint8Array {
  return Buffer.from(JSON.stringify(template.workflow, null, 2), 'utf8');
}

function indexOf(gallery: DemoGallery): JsonObject[] {
  return gallery.categories.map((category) => ({
    moduleName: 'default',
    category: 'GENERATION TYPE',
    title: category.title,
    type: category.type,
    templates: category.templates.map((t) => ({
      name: t.name,
      title: t.title,
      description: t.description,
      mediaType: 'image',
      mediaSubtype: THUMBNAIL_SUBTYPE,
      tags: t.tags,
      models: ['Flowdeck demo'],
      date: '2026-06-01',
    })),
  }));
}

/**
 * GET /templates/FILE on either flavour (the router hands every /templates/ path here, before the
 * /api rules and the cloud's key check: these are the page's static files).
 */
export function serveTemplateFile(req: IncomingMessage, res: ServerResponse, core: DemoCore, pathname: string): void {
  const gallery = core.templates;
  let file: string;
  try {
    file = decodeURIComponent(pathname.slice('/templates/'.length));
  } catch {
    return sendNotFound(res, core.flavour);
  }
  if (!gallery || file.includes('/')) return sendNotFound(res, core.flavour);
  if (req.method !== 'GET' && req.method !== 'HEAD') return sendMethodNotAllowed(res, core.flavour);
  if (file === 'index.json') return sendStatic(req, res, Buffer.from(JSON.stringify(indexOf(gallery), null, 2), 'utf8'), JSON_TYPE);
  const json = /^(.+)\.json$/.exec(file);
  const jsonTemplate = json ? gallery.core(json[1]!) : undefined;
  if (jsonTemplate) return sendStatic(req, res, workflowBytes(jsonTemplate), JSON_TYPE);
  const thumb = new RegExp(`^(.+)-1\\.${THUMBNAIL_SUBTYPE}$`).exec(file);
  const thumbTemplate = thumb ? gallery.core(thumb[1]!) : undefined;
  if (thumbTemplate) return sendStatic(req, res, gallery.thumbnailJpeg(`core/${thumbTemplate.name}`, thumbTemplate), JPEG_TYPE);
  sendNotFound(res, core.flavour);
}

/** GET /api/workflow_templates: each custom node pack with example workflows, and their names. */
export function getWorkflowTemplates(_req: IncomingMessage, res: ServerResponse, core: DemoCore): void {
  const packs: Record<string, string[]> = {};
  if (core.flavour === 'local' && core.templates) packs[DEMO_NODE_PACK] = core.templates.examples.map((t) => t.name);
  sendJson(res, core.flavour, 200, packs);
}

/** GET /api/workflow_templates/PACK/FILE (local): a pack's example workflow or its thumbnail. */
export function getPackFile(req: IncomingMessage, res: ServerResponse, core: DemoCore, info: RequestInfo): void {
  const flavour: DemoFlavour = core.flavour;
  const gallery = core.templates;
  if (!gallery || info.params.pack !== DEMO_NODE_PACK) return sendNotFound(res, flavour);
  const match = /^(.+)\.(json|jpg)$/.exec(info.params.file ?? '');
  const template = match ? gallery.example(match[1]!) : undefined;
  if (!match || !template) return sendNotFound(res, flavour);
  if (match[2] === 'json') return sendStatic(req, res, workflowBytes(template), JSON_TYPE);
  sendStatic(req, res, gallery.thumbnailJpeg(`${DEMO_NODE_PACK}/${template.name}`, template), JPEG_TYPE);
}
