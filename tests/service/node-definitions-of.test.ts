// The definitions of a few classes without the whole /api/object_info (service/node-definitions-of.ts):
// a local server is asked one class per request, and every answer that does not hold its class
// (404 from a server without the route, `{}` for a class not installed) falls back to the whole
// list; the cloud, whose published API has only the whole list, is asked for it. Against a scripted
// server (which requests went out) and the demo service (the one-class answers equal the list's).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DemoService } from '../../src/main/demo';
import { ServiceClient } from '@main/service/client';
import { ServiceError } from '@main/service/errors';
import type { ServerKind } from '@main/service/types';
import { TestServer } from './support/http-server';

const NO_RETRY = { retries: 0, baseMs: 1, maxMs: 1, random: () => 0, sleep: async () => {} };
const ENTRY = (input: string) => ({ input: { required: { [input]: ['IMAGE'] } }, output: ['IMAGE'], name: 'x', output_node: false });
const WHOLE = { LoadImage: ENTRY('image'), 'Image Blend (x)': ENTRY('first'), SaveImage: ENTRY('images') };

let server: TestServer;

function client(kind: ServerKind): ServiceClient {
  return new ServiceClient({ kind, baseUrl: server.url }, { apiKey: () => 'sk-test', retry: NO_RETRY });
}

function paths(): string[] {
  return server.requests.map((r) => r.path);
}

describe('getNodeDefinitionsOf against a scripted server', () => {
  beforeEach(async () => {
    server = await new TestServer().start();
    server.json('GET', '/api/object_info', 200, WHOLE);
  });
  afterEach(async () => {
    await server.close();
  });

  it('a local server: one request per class, its name encoded, never the whole list', async () => {
    server.json('GET', '/api/object_info/LoadImage', 200, { LoadImage: WHOLE.LoadImage });
    server.json('GET', '/api/object_info/Image%20Blend%20(x)', 200, { 'Image Blend (x)': WHOLE['Image Blend (x)'] });
    const defs = await client('local').getNodeDefinitionsOf(['LoadImage', 'Image Blend (x)', 'LoadImage']);
    expect([...defs.keys()].sort()).toEqual(['Image Blend (x)', 'LoadImage']);
    expect(defs.get('Image Blend (x)')?.inputs.map((i) => i.name)).toEqual(['first']);
    expect(paths().sort()).toEqual(['/api/object_info/Image%20Blend%20(x)', '/api/object_info/LoadImage']);
  });

  it('a server without the route (404) falls back to the whole list', async () => {
    const defs = await client('local').getNodeDefinitionsOf(['LoadImage']);
    expect(defs.get('LoadImage')?.inputs.map((i) => i.name)).toEqual(['image']);
    expect(paths()).toEqual(['/api/object_info/LoadImage', '/api/object_info']);
  });

  it('a one-class answer without its class ({} for a class not installed) falls back to the whole list', async () => {
    server.json('GET', '/api/object_info/SaveImage', 200, {});
    const defs = await client('local').getNodeDefinitionsOf(['SaveImage']);
    expect(defs.has('SaveImage')).toBe(true);
    expect(paths()).toEqual(['/api/object_info/SaveImage', '/api/object_info']);
  });

  it('the cloud and a name that is not one path segment are asked for the whole list only', async () => {
    await client('cloud').getNodeDefinitionsOf(['LoadImage']);
    await client('local').getNodeDefinitionsOf(['Loaders/LoadImage']);
    await client('local').getNodeDefinitionsOf(['..']);
    expect(paths()).toEqual(['/api/object_info', '/api/object_info', '/api/object_info']);
  });

  it('a server error on the one-class route is an error, with its reason', async () => {
    server.on('GET', '/api/object_info/LoadImage', (_req, res) => {
      res.writeHead(500, { 'Content-Type': 'text/plain' }).end('node import failed');
    });
    const failure = await client('local')
      .getNodeDefinitionsOf(['LoadImage'])
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ServiceError);
    expect(String((failure as Error).message)).toContain('definition of LoadImage');
    expect(paths()).toEqual(['/api/object_info/LoadImage']);
  });
});

describe.each(['local', 'cloud'] as ServerKind[])('getNodeDefinitionsOf against the %s demo service', (kind) => {
  let demo: DemoService;
  beforeEach(async () => {
    demo = new DemoService({ flavour: kind, timeScale: 0.05 });
    await demo.start();
  });
  afterEach(async () => {
    await demo.stop();
  });

  it('answers the classes exactly as the whole list does, and nothing for a class the server lacks', async () => {
    const api = new ServiceClient({ kind, baseUrl: demo.url }, { apiKey: () => demo.apiKey, retry: NO_RETRY });
    const whole = await api.getNodeDefinitions();
    const some = await api.getNodeDefinitionsOf(['LoadImage', 'DemoSampler']);
    expect([...some.keys()].sort()).toEqual(['DemoSampler', 'LoadImage']);
    for (const name of some.keys()) expect(some.get(name)).toEqual(whole.get(name));
    const missing = await api.getNodeDefinitionsOf(['NoSuchNode']);
    expect(missing.has('NoSuchNode')).toBe(false);
  });
});
