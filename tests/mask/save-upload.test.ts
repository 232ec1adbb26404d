// Saving a painted mask: the order of the uploads and what a failure says (against a scripted
// port), then the whole path the renderer takes (Api -> the real app core -> the service client ->
// a real demo service on 127.0.0.1, local and cloud flavours): the stored file has the original's
// colours with alpha 0 under the stroke and 255 away from it, and a workflow that turns the mask
// into an image finds white where it was painted.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { PNG } from 'pngjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createConnectFactory } from '@main/app/connect';
import { createAppCore, type AppCore } from '@main/app/core';
import type { AppEvent } from '@main/app/event-hub';
import { JsonSettingsStore } from '@main/config/json-settings';
import { SessionSecretStore } from '@main/config/secrets';
import { DemoService } from '../../src/main/demo';
import { Api } from '../../src/renderer/src/lib/api';
import { maskPortFromApi } from '../../src/renderer/src/lib/mask/bridge-port';
import { MaskModel } from '../../src/renderer/src/lib/mask/model';
import { exportMaskPng } from '../../src/renderer/src/lib/mask/png';
import {
  describeSave,
  MaskSaveError,
  refFromInputValue,
  saveMaskedImage,
  uploadName,
  type MaskUploadPort,
  type ServerImageRef,
} from '../../src/renderer/src/lib/mask/upload';
import type { FlowdeckApi, JobSnapshotView, UploadView } from '@shared/ipc/contract';

const ROOT = resolve(import.meta.dirname, '../..');
const EXAMPLE = readFileSync(join(ROOT, 'resources/demo/example.png'));
const MASK_TO_IMAGE = readFileSync(join(ROOT, 'resources/workflows/mask-to-image.json'), 'utf8');

function view(name: string, subfolder = '', type = 'input'): UploadView {
  return { name, subfolder, type, inputValue: subfolder ? `${subfolder}/${name}` : name, thumbnailDataUrl: null };
}

describe('saveMaskedImage (scripted port)', () => {
  const png = new Uint8Array([1, 2, 3]);

  function recordingPort(fail?: 'image' | 'mask'): { port: MaskUploadPort; calls: string[] } {
    const calls: string[] = [];
    return {
      calls,
      port: {
        async uploadImage(name) {
          calls.push(`image ${name}`);
          if (fail === 'image') throw new Error('HTTP 413: too large');
          return view('photo (1).png', 'pics');
        },
        async uploadMask(original: ServerImageRef) {
          calls.push(`mask ${JSON.stringify(original)}`);
          if (fail === 'mask') throw new Error('The server failed (HTTP 500).');
          return view('mask.png', 'clipspace');
        },
      },
    };
  }

  it('uploads the original first when it is not on the server, then the mask naming it', async () => {
    const { port, calls } = recordingPort();
    const result = await saveMaskedImage(port, { name: 'C:\\photos\\photo.png', bytes: png, mime: 'image/png', serverRef: null }, png);
    expect(calls).toEqual(['image photo.png', 'mask {"name":"photo (1).png","subfolder":"pics","type":"input"}']);
    expect(result).toMatchObject({
      originalUploaded: true,
      inputValue: 'clipspace/mask.png',
      original: { name: 'photo (1).png', subfolder: 'pics', type: 'input' },
    });
    expect(describeSave(result)).toEqual([
      'Uploaded the original as input/pics/photo (1).png.',
      'Uploaded the mask; the server saved the masked image as input/clipspace/mask.png.',
      'The image input now reads "clipspace/mask.png".',
    ]);
  });

  it('does not upload an original that is already on the server', async () => {
    const { port, calls } = recordingPort();
    const result = await saveMaskedImage(
      port,
      { name: 'x.png', bytes: png, mime: 'image/png', serverRef: { name: 'ComfyUI_00001_.png', subfolder: '', type: 'output' } },
      png,
    );
    expect(calls).toEqual(['mask {"name":"ComfyUI_00001_.png","subfolder":"","type":"output"}']);
    expect(result.originalUploaded).toBe(false);
    expect(describeSave(result)[0]).toBe('The original was already on the server: output/ComfyUI_00001_.png.');
  });

  it('says which upload failed and why', async () => {
    const first = recordingPort('image');
    const e1 = await saveMaskedImage(first.port, { name: 'a.png', bytes: png, mime: 'image/png', serverRef: null }, png).catch((e: unknown) => e);
    expect(e1).toBeInstanceOf(MaskSaveError);
    expect((e1 as MaskSaveError).step).toBe('original');
    expect((e1 as Error).message).toBe('The original image could not be uploaded, so the mask was not sent: HTTP 413: too large');
    expect(first.calls).toHaveLength(1);
    const second = recordingPort('mask');
    const e2 = await saveMaskedImage(second.port, { name: 'a.png', bytes: png, mime: 'image/png', serverRef: null }, png).catch((e: unknown) => e);
    expect((e2 as MaskSaveError).step).toBe('mask');
    expect((e2 as Error).message).toBe('The mask could not be uploaded: The server failed (HTTP 500).');
  });

  it('reads an image input value as a server file, and makes safe upload names', () => {
    expect(refFromInputValue('example.png')).toEqual({ name: 'example.png', subfolder: '', type: 'input' });
    expect(refFromInputValue('clipspace/deep/mask (1).png')).toEqual({ name: 'mask (1).png', subfolder: 'clipspace/deep', type: 'input' });
    expect(refFromInputValue('sub\\a.png')).toEqual({ name: 'a.png', subfolder: 'sub', type: 'input' });
    expect(refFromInputValue('out.png [output]')).toEqual({ name: 'out.png', subfolder: '', type: 'output' });
    expect(uploadName('/home/me/cat.jpg')).toBe('cat.jpg');
    expect(uploadName('..')).toBe('image.png');
    expect(uploadName('')).toBe('image.png');
  });
});

// ---- through the real app core to a real demo service ------------------------------------------

interface Harness {
  core: AppCore;
  api: Api;
  events: AppEvent[];
  dataDir: string;
}

function startCore(): Harness {
  const dataDir = mkdtempSync(join(tmpdir(), 'flowdeck-mask-'));
  const events: AppEvent[] = [];
  const core = createAppCore({
    settings: new JsonSettingsStore(dataDir),
    secrets: new SessionSecretStore(),
    dataDir,
    // The built-in demo profile is not used here; its service is a stub that is never reached.
    startDemo: async () => ({ url: 'http://127.0.0.1:9', stop: async () => undefined }),
    connect: createConnectFactory(),
    allowAnyPath: true,
    pollIntervalMs: 200,
  });
  core.onEvent((event) => void events.push(event));
  const bridge: FlowdeckApi = {
    invoke: ((name: string, input?: unknown) => core.invoke(name, input)) as FlowdeckApi['invoke'],
    on: () => () => undefined,
  };
  return { core, api: new Api(bridge), events, dataDir };
}

async function until<T>(read: () => T | undefined, what: string, timeoutMs = 15_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = read();
    if (value !== undefined) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

function ended(h: Harness, promptId: string): Promise<JobSnapshotView> {
  return until(() => {
    for (const e of h.events)
      if (e.name === 'job.update' && e.payload.promptId === promptId && ['succeeded', 'failed', 'cancelled'].includes(e.payload.phase)) return e.payload;
    return undefined;
  }, `job ${promptId} to end`);
}

/** A horizontal hard stroke across the middle of the 256x256 example image. */
function paintStroke(width: number, height: number): MaskModel {
  const model = new MaskModel(width, height);
  model.line('brush', { size: 30, hardness: 1, opacity: 1 }, { x: 40, y: height / 2 }, { x: width - 40, y: height / 2 });
  return model;
}

for (const flavour of ['local', 'cloud'] as const) {
  describe(`painting, saving and running on a ${flavour} server`, () => {
    const KEY = 'mask-test-key-7b1e2d9c44f0a8';
    let service: DemoService;
    let h: Harness;

    beforeAll(async () => {
      service = new DemoService({ flavour, port: 0, apiKey: KEY, timeScale: 0.02 });
      await service.start();
      h = startCore();
      await h.core.start();
      const profile = await h.api.call('profiles.save', { name: `Test ${flavour}`, kind: flavour, baseUrl: service.url, select: true });
      if (flavour === 'cloud') await h.api.call('key.save', { profileId: profile.id, key: KEY, sessionOnly: true });
    });

    afterAll(async () => {
      await h?.core.dispose();
      if (h) rmSync(h.dataDir, { recursive: true, force: true });
      await service?.stop();
    });

    it('stores the original colours with alpha 0 under the stroke and 255 away, and MaskToImage shows white there', async () => {
      const original = PNG.sync.read(EXAMPLE);
      const model = paintStroke(original.width, original.height);
      const port = maskPortFromApi(h.api);
      const result = await saveMaskedImage(
        port,
        { name: 'example.png', bytes: new Uint8Array(EXAMPLE), mime: 'image/png', serverRef: null },
        exportMaskPng(model),
      );
      expect(result.originalUploaded).toBe(true);

      // The file the server stored, read from its folder.
      const stored = PNG.sync.read(readFileSync(join(service.dataDir, result.masked.type, result.masked.subfolder, result.masked.name)));
      expect([stored.width, stored.height]).toEqual([original.width, original.height]);
      let rgbDiffers = 0;
      for (let i = 0; i < stored.width * stored.height; i += 1) {
        for (let c = 0; c < 3; c += 1) if (stored.data[i * 4 + c] !== original.data[i * 4 + c]) rgbDiffers += 1;
      }
      expect(rgbDiffers).toBe(0);
      const alphaAt = (x: number, y: number): number => stored.data[(y * stored.width + x) * 4 + 3]!;
      const mid = original.height / 2;
      expect(alphaAt(128, mid)).toBe(0);
      expect(alphaAt(60, mid - 10)).toBe(0);
      expect(alphaAt(128, mid + 40)).toBe(255);
      expect(alphaAt(5, 5)).toBe(255);
      for (let i = 0; i < model.coverage.length; i += 1) {
        if (stored.data[i * 4 + 3] !== 255 - model.coverage[i]!) throw new Error(`alpha differs from the painted mask at pixel ${i}`);
      }

      // The workflow's image input set to the returned name; MaskToImage gives white where painted.
      const workflow = JSON.parse(MASK_TO_IMAGE) as Record<string, { inputs: Record<string, unknown> }>;
      workflow['1']!.inputs.image = result.inputValue;
      const { promptIds } = await h.api.call('run.submit', { workflowJson: JSON.stringify(workflow), label: 'mask-to-image.json' });
      const done = await ended(h, promptIds[0]!);
      expect(done.phase).toBe('succeeded');
      const file = done.outputs[0]!;
      const fetched = await h.api.call('output.fetch', {
        promptId: promptIds[0]!,
        file: { filename: file.filename, subfolder: file.subfolder, type: file.type },
      });
      const out = PNG.sync.read(Buffer.from(fetched.bytes));
      const px = (x: number, y: number): number[] => [...out.data.subarray((y * out.width + x) * 4, (y * out.width + x) * 4 + 3)];
      expect(px(128, mid)).toEqual([255, 255, 255]);
      expect(px(45, mid)).toEqual([255, 255, 255]);
      expect(px(128, mid + 40)).toEqual([0, 0, 0]);
      expect(px(5, 5)).toEqual([0, 0, 0]);
    });

    it('re-saving names the masked file as the original, so only the mask is sent and the colours stay', async () => {
      const model = paintStroke(256, 256);
      const port = maskPortFromApi(h.api);
      const first = await saveMaskedImage(
        port,
        { name: 'example.png', bytes: new Uint8Array(EXAMPLE), mime: 'image/png', serverRef: null },
        exportMaskPng(model),
      );
      // Edit further: a vertical stroke; the original is now the masked file on the server.
      model.line('brush', { size: 20, hardness: 1, opacity: 1 }, { x: 200, y: 20 }, { x: 200, y: 230 });
      const second = await saveMaskedImage(
        port,
        { name: 'example.png', bytes: new Uint8Array(EXAMPLE), mime: 'image/png', serverRef: refFromInputValue(first.inputValue) },
        exportMaskPng(model),
      );
      expect(second.originalUploaded).toBe(false);
      const stored = PNG.sync.read(readFileSync(join(service.dataDir, second.masked.type, second.masked.subfolder, second.masked.name)));
      const original = PNG.sync.read(EXAMPLE);
      expect(stored.data[(100 * 256 + 200) * 4 + 3]).toBe(0);
      expect(stored.data[(128 * 256 + 128) * 4 + 3]).toBe(0);
      expect(stored.data[(30 * 256 + 30) * 4 + 3]).toBe(255);
      expect(Buffer.from(stored.data.filter((_, i) => i % 4 !== 3)).equals(Buffer.from(original.data.filter((_, i) => i % 4 !== 3)))).toBe(true);
    });
  });
}
