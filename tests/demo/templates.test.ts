// The demo's template gallery routes as the real server answers them: static files under
// /templates/ (no key, either flavour, HEAD too), /api/workflow_templates (the local server's node
// pack examples; the cloud's documented empty object, public), and nothing with templates: false.
import { describe, expect, it } from 'vitest';
import { startDemo } from './helpers';

describe('the template gallery routes', () => {
  it('serves the index, workflows and JPEG thumbnails under /templates/ on the cloud without a key', async () => {
    const svc = await startDemo({ flavour: 'cloud' });
    const index = await fetch(`${svc.url}/templates/index.json`);
    expect(index.status).toBe(200);
    expect(index.headers.get('content-type')).toBe('application/json');
    const categories = (await index.json()) as { moduleName: string; title: string; templates: { name: string; mediaSubtype: string }[] }[];
    expect(categories.map((c) => c.title)).toEqual(['Basics', 'Image editing']);
    expect(categories.every((c) => c.moduleName === 'default')).toBe(true);
    const first = categories[0]!.templates[0]!;
    const workflow = (await (await fetch(`${svc.url}/templates/${first.name}.json`)).json()) as { nodes: unknown[]; links: unknown[] };
    expect(workflow.nodes.length).toBeGreaterThan(0);
    const thumb = await fetch(`${svc.url}/templates/${first.name}-1.${first.mediaSubtype}`);
    expect(thumb.headers.get('content-type')).toBe('image/jpeg');
    expect(Buffer.from(await thumb.arrayBuffer()).subarray(0, 3)).toEqual(Buffer.from([0xff, 0xd8, 0xff]));
    // HEAD answers the headers only; other methods are refused; nothing outside the gallery is served.
    const head = await fetch(`${svc.url}/templates/index.json`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(Number(head.headers.get('content-length'))).toBeGreaterThan(0);
    expect((await fetch(`${svc.url}/templates/index.json`, { method: 'POST' })).status).toBe(405);
    for (const path of ['/templates/nope.json', '/templates/%2e%2e%2fpackage.json', '/templates/%E0%A4%A.json', '/templates/sub/x.json']) {
      expect((await fetch(`${svc.url}${path}`)).status, path).toBe(404);
    }
  });

  it('answers /api/workflow_templates: an empty object on the cloud (public), the pack locally', async () => {
    const cloud = await startDemo({ flavour: 'cloud' });
    const listing = await fetch(`${cloud.url}/api/workflow_templates`);
    expect(listing.status).toBe(200);
    expect(await listing.json()).toEqual({});
    // Only that path is public: the rest still needs the key.
    expect((await fetch(`${cloud.url}/api/object_info`)).status).toBe(401);

    const local = await startDemo({ flavour: 'local' });
    expect(await (await fetch(`${local.url}/api/workflow_templates`)).json()).toEqual({ 'flowdeck-demo-nodes': ['mask_to_image'] });
    const example = await fetch(`${local.url}/api/workflow_templates/flowdeck-demo-nodes/mask_to_image.json`);
    expect(example.status).toBe(200);
    expect(((await example.json()) as { nodes: { type: string }[] }).nodes.map((n) => n.type)).toEqual(['LoadImage', 'MaskToImage', 'SaveImage']);
    const thumb = await fetch(`${local.url}/api/workflow_templates/flowdeck-demo-nodes/mask_to_image.jpg`);
    expect(thumb.headers.get('content-type')).toBe('image/jpeg');
    expect((await fetch(`${local.url}/api/workflow_templates/other-pack/mask_to_image.json`)).status).toBe(404);
  });

  it('serves no gallery with templates: false', async () => {
    const svc = await startDemo({ flavour: 'local', templates: false });
    expect((await fetch(`${svc.url}/templates/index.json`)).status).toBe(404);
    expect(await (await fetch(`${svc.url}/api/workflow_templates`)).json()).toEqual({});
    expect((await fetch(`${svc.url}/api/workflow_templates/flowdeck-demo-nodes/mask_to_image.json`)).status).toBe(404);
  });
});
