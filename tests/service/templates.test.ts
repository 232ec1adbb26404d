// The template gallery read from the real demo service (both flavours, and one without templates)
// and from a hostile server: listing, workflows that convert with the server's own definitions and
// run there, thumbnails checked by their bytes, and bounded, validated answers.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DemoService } from '../../src/main/demo';
import { ServiceClient } from '@main/service/client';
import { ServiceError } from '@main/service/errors';
import { CORE_SOURCE, TemplateGallery, isTemplateThumbnailPath } from '@main/service/templates';
import type { ServerKind } from '@main/service/types';
import { fixedDefinitions, readWorkflowText } from '@main/workflow/workflow-reading';
import { TestServer } from './support/http-server';

const NO_RETRY = { retries: 0, sleep: async () => {} };

function galleryOf(kind: ServerKind, url: string, key: string | null): TemplateGallery {
  return new TemplateGallery({ kind, baseUrl: url }, { apiKey: () => key, retry: NO_RETRY });
}

describe.each(['cloud', 'local'] as ServerKind[])('the %s demo service', (kind) => {
  const demo = new DemoService({ flavour: kind, timeScale: 0.02 });
  beforeAll(() => demo.start());
  afterAll(() => demo.stop());

  it('lists its gallery in categories, with pictures for thumbnails', async () => {
    const listing = await galleryOf(kind, demo.url, demo.apiKey).list();
    expect(listing.available).toBe(true);
    expect(listing.problems).toEqual([]);
    const core = listing.templates.filter((t) => t.source === CORE_SOURCE);
    expect(new Set(core.map((t) => t.category))).toEqual(new Set(['Basics', 'Image editing']));
    expect(core.map((t) => t.name)).toEqual(['text_to_image', 'video_and_audio', 'image_to_image', 'inpaint_masked_area', 'invert_colours']);
    expect(core.every((t) => t.title !== '' && t.description !== '' && t.thumbnail !== null)).toBe(true);
    // Custom node packs' examples are the local server's (the cloud documents an empty object).
    const packs = listing.templates.filter((t) => t.source !== CORE_SOURCE);
    expect(packs.map((t) => `${t.source}/${t.name}`)).toEqual(kind === 'local' ? ['flowdeck-demo-nodes/mask_to_image'] : []);

    const gallery = galleryOf(kind, demo.url, demo.apiKey);
    for (const t of listing.templates) {
      const picture = await gallery.thumbnail(t.thumbnail!);
      expect(picture?.mime, t.name).toBe('image/jpeg');
      expect(picture!.bytes.subarray(0, 3)).toEqual(Buffer.from([0xff, 0xd8, 0xff]));
    }
  });

  it('serves every template as a UI workflow that converts with its own node definitions', async () => {
    const gallery = galleryOf(kind, demo.url, demo.apiKey);
    const definitions = await new ServiceClient({ kind, baseUrl: demo.url }, { apiKey: () => demo.apiKey, retry: NO_RETRY }).getNodeDefinitions();
    const { templates } = await gallery.list();
    for (const t of templates) {
      const reading = await readWorkflowText(await gallery.workflowText(t.source, t.name), fixedDefinitions(definitions));
      expect(reading.kind, t.name).toBe('workflow');
      if (reading.kind !== 'workflow') continue;
      expect(reading.source).toBe('ui');
      for (const node of Object.values(reading.workflow)) expect(definitions.has(String((node as { class_type: string }).class_type))).toBe(true);
    }
  });

  it('says a template it does not have is not found', async () => {
    const gallery = galleryOf(kind, demo.url, demo.apiKey);
    await expect(gallery.workflowText(CORE_SOURCE, 'no_such_template')).rejects.toMatchObject({ kind: 'not_found' });
    await expect(gallery.workflowText(CORE_SOURCE, '../index')).rejects.toMatchObject({ kind: 'not_found' });
  });
});

describe('a server without templates', () => {
  const demo = new DemoService({ flavour: 'local', templates: false });
  beforeAll(() => demo.start());
  afterAll(() => demo.stop());

  it('answers 404 under /templates/ and lists no packs: the gallery is not available', async () => {
    expect((await fetch(`${demo.url}/templates/index.json`)).status).toBe(404);
    const listing = await galleryOf('local', demo.url, null).list();
    expect(listing).toEqual({ templates: [], available: false, problems: [] });
  });
});

describe('a hostile or odd server', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await new TestServer().start();
  });
  afterEach(() => {
    server.requests.length = 0;
  });
  afterAll(() => server.close());

  it('drops entries whose names could leave their folder, keeps the rest', async () => {
    server.json('GET', '/templates/index.json', 200, [
      {
        title: 'Odd',
        templates: [{ name: '../../secrets' }, { name: 'a/b' }, { name: 'fine', title: 'Fine', mediaType: 'video', mediaSubtype: 'mp4' }, { name: 7 }],
      },
    ]);
    server.json('GET', '/api/workflow_templates', 200, { '..': ['x'], pack: ['ok', 'bad/name'] });
    const listing = await galleryOf('local', server.url, null).list();
    expect(listing.templates.map((t) => `${t.source}:${t.name}`)).toEqual(['default:fine', 'pack:ok']);
    // A video template has no picture to show.
    expect(listing.templates[0]!.thumbnail).toBeNull();
  });

  it('treats a web page served for any path as no index, and a wrong shape as an error', async () => {
    server.on('GET', '/templates/index.json', (_req, res) => res.writeHead(200, { 'Content-Type': 'text/html' }).end('<!doctype html><p>app</p>'));
    server.json('GET', '/api/workflow_templates', 200, {});
    expect(await galleryOf('local', server.url, null).list()).toEqual({ templates: [], available: false, problems: [] });

    server.json('GET', '/templates/index.json', 200, { categories: 'nope' });
    await expect(galleryOf('local', server.url, null).list()).rejects.toMatchObject({ kind: 'protocol' });
  });

  it('reports the part that failed while showing the part that did not', async () => {
    server.json('GET', '/templates/index.json', 200, [{ title: 'Basics', templates: [{ name: 'one' }] }]);
    server.json('GET', '/api/workflow_templates', 200, ['not', 'a', 'record']);
    const listing = await galleryOf('local', server.url, null).list();
    expect(listing.templates.map((t) => t.name)).toEqual(['one']);
    expect(listing.problems).toHaveLength(1);
  });

  it('stops reading an index larger than its cap', async () => {
    const huge = JSON.stringify([{ title: 'x', templates: [{ name: 'a', description: 'y'.repeat(9 * 1024 * 1024) }] }]);
    server.on('GET', '/templates/index.json', (_req, res) => res.writeHead(200, { 'Content-Type': 'application/json' }).end(huge));
    server.json('GET', '/api/workflow_templates', 404, {});
    await expect(galleryOf('local', server.url, null).list()).rejects.toMatchObject({ kind: 'too_large' });
  });

  it('refuses a thumbnail that is not a picture, and paths that are not thumbnails', async () => {
    server.on('GET', '/templates/evil-1.webp', (_req, res) => res.writeHead(200, { 'Content-Type': 'image/webp' }).end('<svg onload="alert(1)"/>'));
    const gallery = galleryOf('local', server.url, null);
    await expect(gallery.thumbnail('/templates/evil-1.webp')).rejects.toBeInstanceOf(ServiceError);
    await expect(gallery.thumbnail('/templates/missing-1.webp')).resolves.toBeNull();
    for (const path of ['/view?filename=a.png', '/templates/../x-1.png', '/templates/a%2F..%2Fb-1.png', '/api/workflow_templates/p/x.json']) {
      expect(isTemplateThumbnailPath(path), path).toBe(false);
      await expect(gallery.thumbnail(path)).rejects.toMatchObject({ kind: 'not_found' });
    }
    expect(server.requests.map((r) => r.path)).toEqual(['/templates/evil-1.webp', '/templates/missing-1.webp']);
  });

  it('sends the cloud key to its own origin only, never a local server', async () => {
    server.json('GET', '/templates/index.json', 404, {});
    server.json('GET', '/api/workflow_templates', 200, {});
    await galleryOf('cloud', server.url, 'sk-cloud-KEY').list();
    expect(server.requests.every((r) => r.headers['x-api-key'] === 'sk-cloud-KEY')).toBe(true);
    server.requests.length = 0;
    await galleryOf('local', server.url, 'sk-cloud-KEY').list();
    expect(server.requests.some((r) => 'x-api-key' in r.headers)).toBe(false);
  });
});
