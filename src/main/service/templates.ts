// A server's workflow template gallery, read the ways a real server offers it (PROTOCOL.md,
// "where templates come from"): the templates package's static files (/templates/index.json, a
// list of categories with their templates; the workflow at /templates/NAME.json; the thumbnail at
// /templates/NAME-1.MEDIASUBTYPE) and custom node packs' example workflows (GET
// /api/workflow_templates: {pack: [name, ...]}, each at /api/workflow_templates/PACK/NAME.json with
// NAME.jpg beside). Either may be missing (404: no templates package, or no packs); every answer
// is bounded in size and time and checked with zod before use; names that could leave their
// folder are dropped. The key goes only where HttpTransport sends it: the service's own origin.
import { z } from 'zod';
import { sniffImage } from '@main/images/image-sniff';
import { readNodeBodyCapped, readWebBytesCapped } from './body-read';
import { ServiceError } from './errors';
import { HttpTransport, transportOptions, type HttpOptions } from './http';
import { discardBody, nodeBodyOf } from './stream-request';
import type { ServerProfile } from './types';

const KiB = 1024;
const MiB = 1024 * KiB;
/** The real package's index is about 300 KiB with a few hundred templates. */
const MAX_INDEX_BYTES = 8 * MiB;
/** The same cap as a workflow file opened from disk. */
const MAX_WORKFLOW_BYTES = 50 * MiB;
const MAX_THUMBNAIL_BYTES = 4 * MiB;
const MAX_TEMPLATES = 5000;

/** The source of the core gallery in the editor's words (its index's moduleName); anything else is a node pack. */
export const CORE_SOURCE = 'default';

/** A template or pack name that stays inside its folder: no separators, no dot-dot, no control characters. */
const SAFE_NAME = /^(?!\.{1,2}$)[^/\\\p{Cc}]{1,200}$/u;
const MEDIA_SUBTYPE = /^[a-z0-9]{1,10}$/i;

const indexTemplateSchema = z.object({
  name: z.string().regex(SAFE_NAME),
  title: z.string().max(500).optional(),
  description: z.string().max(4000).optional(),
  mediaType: z.string().max(40).optional(),
  mediaSubtype: z.string().regex(MEDIA_SUBTYPE).optional(),
  tags: z.array(z.string().max(100)).max(50).optional(),
});

const indexCategorySchema = z.object({
  moduleName: z.string().max(200).optional(),
  title: z.string().max(200),
  /** The group the editor lists the category under ("GENERATION TYPE"), in newer packages. */
  category: z.string().max(200).optional(),
  templates: z.array(z.unknown()).max(MAX_TEMPLATES),
});

const packListingSchema = z.record(z.string(), z.array(z.string()).max(MAX_TEMPLATES));

export interface TemplateInfo {
  /** CORE_SOURCE for the templates package, else the node pack's folder name. */
  source: string;
  name: string;
  title: string;
  description: string;
  /** The category's title (a node pack's name for its examples). */
  category: string;
  /** The editor's group above the category, when the index names one. */
  group: string | null;
  mediaType: string;
  tags: string[];
  /** The thumbnail's path on the server; null when the template has none that is a picture. */
  thumbnail: string | null;
}

export interface TemplateListing {
  templates: TemplateInfo[];
  /** False when the server has neither the templates package nor a pack with examples (both 404 or empty). */
  available: boolean;
  /** A part that could not be read while the other could (said, not fatal). */
  problems: string[];
}

export interface TemplateThumbnail {
  mime: 'image/png' | 'image/jpeg' | 'image/webp' | 'image/gif';
  bytes: Buffer;
}

const THUMBNAIL_MIME: Record<string, TemplateThumbnail['mime'] | undefined> = {
  png: 'image/png',
  jpeg: 'image/jpeg',
  webp: 'image/webp',
  gif: 'image/gif',
};

/** Whether `path` is one of the thumbnail paths a listing gives out (the renderer may only ask for those kinds). */
export function isTemplateThumbnailPath(path: string): boolean {
  const core = /^\/templates\/([^/]+)-1\.([a-z0-9]{1,10})$/i.exec(path);
  if (core) return SAFE_NAME.test(decodeSafe(core[1]!));
  const pack = /^\/api\/workflow_templates\/([^/]+)\/([^/]+)\.jpg$/.exec(path);
  return pack !== null && SAFE_NAME.test(decodeSafe(pack[1]!)) && SAFE_NAME.test(decodeSafe(pack[2]!));
}

function decodeSafe(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    return '';
  }
}

const seg = encodeURIComponent;

function workflowPath(source: string, name: string): string {
  return source === CORE_SOURCE ? `/templates/${seg(name)}.json` : `/api/workflow_templates/${seg(source)}/${seg(name)}.json`;
}

/** Index entries that a picture can show: images (and entries that do not say). */
function coreThumbnailPath(name: string, mediaType: string, subtype: string | undefined): string | null {
  if (mediaType !== 'image') return null;
  return `/templates/${seg(name)}-1.${subtype ?? 'webp'}`;
}

function describeFailure(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export class TemplateGallery {
  readonly #http: HttpTransport;

  constructor(server: ServerProfile, options: HttpOptions) {
    this.#http = new HttpTransport(server, transportOptions(options));
  }

  /** Both sources, read side by side; one that fails is a problem unless the other failed too. */
  async list(signal?: AbortSignal): Promise<TemplateListing> {
    const [core, packs] = await Promise.allSettled([this.#coreTemplates(signal), this.#packTemplates(signal)]);
    const problems: string[] = [];
    const templates: TemplateInfo[] = [];
    for (const part of [core, packs]) {
      if (part.status === 'fulfilled') templates.push(...(part.value ?? []));
      else problems.push(describeFailure(part.reason));
    }
    // Nothing to show but a failure: that is the answer (a 404 is no failure: it means "no templates").
    const failed = [core, packs].find((p): p is PromiseRejectedResult => p.status === 'rejected');
    if (templates.length === 0 && failed) throw failed.reason;
    return { templates: templates.slice(0, MAX_TEMPLATES), available: templates.length > 0, problems };
  }

  /** One template's workflow file as text (UI format as the editor saved it); ServiceError not_found when the server has none. */
  async workflowText(source: string, name: string, signal?: AbortSignal): Promise<string> {
    if (!SAFE_NAME.test(source) || !SAFE_NAME.test(name)) {
      throw new ServiceError('not_found', `"${name}" is not a template name this server could serve.`, { retryable: false });
    }
    const what = `the template "${name}"`;
    const answer = await this.#http.request({
      method: 'GET',
      path: workflowPath(source, name),
      what,
      maxBytes: MAX_WORKFLOW_BYTES,
      ...(signal ? { signal } : {}),
    });
    if (answer.status === 404) throw new ServiceError('not_found', `The server has no template "${name}".`, { status: 404, retryable: false });
    if (answer.status < 200 || answer.status > 299) throw await this.#http.errorFor(answer, what);
    return answer.text;
  }

  /** A thumbnail (a path from list()), checked to be a picture by its bytes; null when the server has none. */
  async thumbnail(path: string, signal?: AbortSignal): Promise<TemplateThumbnail | null> {
    if (!isTemplateThumbnailPath(path)) throw new ServiceError('not_found', 'That is not a template thumbnail.', { retryable: false });
    const what = 'a template thumbnail';
    // The body is read under the same deadline as the headers: a thumbnail is small.
    const deadline = AbortSignal.timeout(this.#http.limits.answerTimeoutMs);
    const response = await this.#http.open({ method: 'GET', path, what, signal: signal ? AbortSignal.any([signal, deadline]) : deadline });
    if (response.status === 404) {
      discardBody(response);
      return null;
    }
    if (response.status < 200 || response.status > 299) {
      discardBody(response);
      throw new ServiceError(response.status >= 500 ? 'server' : 'protocol', `The server answered ${what} with HTTP ${response.status}.`, {
        status: response.status,
        retryable: false,
      });
    }
    let bytes: Buffer;
    try {
      // A GET's successful body stays a Node stream (stream-request.ts); an injected fetch gives a web one.
      const nodeBody = nodeBodyOf(response);
      bytes = nodeBody
        ? await readNodeBodyCapped(nodeBody, MAX_THUMBNAIL_BYTES, what, 'fail')
        : await readWebBytesCapped(response, MAX_THUMBNAIL_BYTES, what, 'fail');
    } catch (error) {
      if (deadline.aborted) throw new ServiceError('network', `The server took too long to send ${what}.`, { cause: error });
      throw error;
    }
    const sniffed = sniffImage(bytes.subarray(0, 64 * KiB));
    const mime = sniffed ? THUMBNAIL_MIME[sniffed.format] : undefined;
    if (!mime) throw new ServiceError('protocol', `The server sent ${what} that is not a PNG, JPEG, WebP or GIF image.`, { retryable: false });
    return { mime, bytes };
  }

  /** A GET whose answer should be JSON: null on 404, `json: false` when the body is not JSON; other failures throw. */
  async #getJson(path: string, what: string, maxBytes: number, signal?: AbortSignal): Promise<{ json: true; value: unknown } | { json: false } | null> {
    const answer = await this.#http.request({ method: 'GET', path, what, maxBytes, ...(signal ? { signal } : {}) });
    if (answer.status === 404) return null;
    if (answer.status < 200 || answer.status > 299) throw await this.#http.errorFor(answer, what);
    try {
      return { json: true, value: JSON.parse(answer.text) as unknown };
    } catch {
      return { json: false };
    }
  }

  /** The templates package's index; null when the server has none (404, or a page that is not JSON). */
  async #coreTemplates(signal?: AbortSignal): Promise<TemplateInfo[] | null> {
    const read = await this.#getJson('/templates/index.json', 'the template index', MAX_INDEX_BYTES, signal);
    // A web page served for any path (a single-page app's fallback) is not an index either.
    if (read === null || !read.json) return null;
    const categories = z.array(indexCategorySchema).max(1000).safeParse(read.value);
    if (!categories.success) throw new ServiceError('protocol', 'The server sent a template index this client cannot read.', { retryable: false });
    const out: TemplateInfo[] = [];
    for (const category of categories.data) {
      for (const raw of category.templates) {
        const entry = indexTemplateSchema.safeParse(raw);
        // One unreadable entry (an odd name, a field of the wrong type) drops only itself.
        if (!entry.success) continue;
        const t = entry.data;
        const mediaType = t.mediaType ?? 'image';
        out.push({
          source: CORE_SOURCE,
          name: t.name,
          title: t.title?.trim() || t.name,
          description: t.description?.trim() ?? '',
          category: category.title,
          group: category.category ?? null,
          mediaType,
          tags: t.tags ?? [],
          thumbnail: coreThumbnailPath(t.name, mediaType, t.mediaSubtype),
        });
      }
    }
    return out;
  }

  /** Custom node packs' example workflows; null when the server lists none (404). */
  async #packTemplates(signal?: AbortSignal): Promise<TemplateInfo[] | null> {
    const what = 'the example workflows of custom nodes';
    const read = await this.#getJson('/api/workflow_templates', what, this.#http.limits.jsonAnswerBytes, signal);
    if (read === null) return null;
    if (!read.json) throw new ServiceError('protocol', `The server answered ${what} with something that is not JSON.`, { retryable: false });
    const packs = packListingSchema.safeParse(read.value);
    if (!packs.success) throw new ServiceError('protocol', `The server sent ${what} in a shape this client cannot read.`, { retryable: false });
    const out: TemplateInfo[] = [];
    for (const [pack, names] of Object.entries(packs.data)) {
      if (!SAFE_NAME.test(pack)) continue;
      for (const name of names) {
        if (!SAFE_NAME.test(name)) continue;
        out.push({
          source: pack,
          name,
          title: name.replace(/[_-]+/g, ' ').trim() || name,
          description: `An example workflow of the ${pack} nodes.`,
          category: pack,
          group: 'CUSTOM NODES',
          mediaType: 'image',
          tags: [],
          thumbnail: `/api/workflow_templates/${seg(pack)}/${seg(name)}.jpg`,
        });
      }
    }
    return out;
  }
}
