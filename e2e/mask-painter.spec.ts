// The mask painter in Chromium, against the real app core and a real demo service (local flavour,
// started here on 127.0.0.1, so the files it stores can be read from its folder).
//
// 1. The painter on a page of its own: the painter's components built with vite into a temporary
//    folder and served by the BUILT browser harness (`--renderer`), so they talk to the real core
//    through the real bridge and run under the app's CSP. Paints, undoes, redoes, saves, and
//    re-opens a masked image with its mask restored from its alpha.
// 2. Through the app itself: "Paint mask" beside the LoadImage input of mask-to-image.json, save,
//    check the stored file, run the workflow, find white where it was painted.
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { svelte } from '@sveltejs/vite-plugin-svelte';
import type { Locator, Page } from '@playwright/test';
import { PNG } from 'pngjs';
import { build, type Plugin } from 'vite';
import { DemoService } from '../src/main/demo';
import { ROOT, startHarness, type RunningHarness } from './fixtures/harness';
import { expect, test } from './fixtures/index';
import { clickAt, imageAlpha, overlayAlpha, paintLine } from './mask-canvas';
import { field, newestJob, openWorkflow, runButton, waitConnected } from './ui-helpers';

const EXAMPLE = join(ROOT, 'resources/demo/example.png');
const MASK_TO_IMAGE = join(ROOT, 'resources/workflows/mask-to-image.json');

// ---- helpers ---------------------------------------------------------------------------------------

const ENTRY_ID = 'virtual:mask-painter-page';

/**
 * The page: PaintMaskButton (value from ?value=) or MaskPainterDialog (no value) over the app's own
 * bridge (window.flowdeck), with a stand-in for the `input.fetch` call the app does not have yet
 * (window.__fetchImage, exposed by the spec).
 */
function entrySource(): string {
  const at = (p: string): string => JSON.stringify(join(ROOT, p));
  return `
import { mount } from 'svelte';
import PaintMaskButton from ${at('src/renderer/src/components/mask/PaintMaskButton.svelte')};
import MaskPainterDialog from ${at('src/renderer/src/components/mask/MaskPainterDialog.svelte')};
import { Api } from ${at('src/renderer/src/lib/api.ts')};
import { maskPortFromApi } from ${at('src/renderer/src/lib/mask/bridge-port.ts')};
import ${at('src/renderer/src/styles.css')};
const port = maskPortFromApi(new Api(window.flowdeck));
const value = new URLSearchParams(location.search).get('value');
const target = document.getElementById('app');
const onmasked = (result) => { window.__masked = result; };
if (value) {
  const fetchImage = async (ref) => {
    const answer = await window.__fetchImage(JSON.stringify(ref));
    return { bytes: Uint8Array.from(atob(answer.base64), (c) => c.charCodeAt(0)), mime: answer.mime };
  };
  mount(PaintMaskButton, { target, props: { value, port, fetchImage, inputName: 'image', onmasked } });
} else {
  mount(MaskPainterDialog, { target, props: { source: null, port, onmasked, onclose: () => { window.__closed = true; } } });
}
`;
}

async function buildPainterPage(outDir: string): Promise<void> {
  const entry: Plugin = {
    name: 'mask-painter-page',
    resolveId: (id) => (id === ENTRY_ID ? `\0${ENTRY_ID}` : null),
    load: (id) => (id === `\0${ENTRY_ID}` ? entrySource() : null),
  };
  await build({
    root: ROOT,
    configFile: false,
    logLevel: 'error',
    // The renderer's import alias (tsconfig.web.json, electron.vite.config.ts).
    resolve: { alias: { '@shared': join(ROOT, 'src/shared') } },
    plugins: [svelte({ configFile: join(ROOT, 'svelte.config.js') }), entry],
    build: {
      outDir,
      emptyOutDir: true,
      minify: false,
      rollupOptions: { input: ENTRY_ID, output: { entryFileNames: 'page.js', assetFileNames: '[name][extname]' } },
    },
  });
  const styles = readdirSync(outDir).filter((f) => f.endsWith('.css'));
  writeFileSync(
    join(outDir, 'index.html'),
    `<!doctype html><html lang="en"><head><meta charset="UTF-8" /><link rel="icon" href="data:," /><title>Mask painter</title>${styles.map((s) => `<link rel="stylesheet" href="/${s}" />`).join('')}</head>` +
      `<body><div id="app"></div><script type="module" src="/page.js"></script></body></html>`,
  );
}

function readPng(path: string): PNG {
  return PNG.sync.read(readFileSync(path));
}

/** Checks a stored masked image: the example's colours, alpha 0 on the painted line (y = 128), 255 away. */
function expectMaskedExample(stored: PNG): void {
  const original = readPng(EXAMPLE);
  expect([stored.width, stored.height]).toEqual([original.width, original.height]);
  let rgbDiffers = 0;
  for (let i = 0; i < stored.width * stored.height; i += 1) {
    for (let c = 0; c < 3; c += 1) if (stored.data[i * 4 + c] !== original.data[i * 4 + c]) rgbDiffers += 1;
  }
  expect(rgbDiffers).toBe(0);
  const alpha = (x: number, y: number): number => stored.data[(y * stored.width + x) * 4 + 3]!;
  for (const x of [70, 128, 180]) expect(alpha(x, 128)).toBe(0);
  expect(alpha(128, 128 + 10)).toBe(0); // within the 40 px brush's full core (16.5 px)
  expect(alpha(128, 128 + 40)).toBe(255);
  expect(alpha(5, 5)).toBe(255);
  expect(alpha(250, 250)).toBe(255);
}

// ---- 1. the painter on its own page ----------------------------------------------------------------

test.describe('mask painter page (real core, real bridge, local demo service)', () => {
  let demo: DemoService;
  let pageDir = '';
  let dataDir = '';
  let harness: RunningHarness | null = null;

  test.beforeAll(async () => {
    pageDir = mkdtempSync(join(tmpdir(), 'flowdeck-mask-page-'));
    dataDir = mkdtempSync(join(tmpdir(), 'flowdeck-mask-data-'));
    await buildPainterPage(pageDir);
    demo = new DemoService({ flavour: 'local', port: 0, timeScale: 0.02 });
    await demo.start();
    // The built harness serving the painter page instead of the app (the same core and bridge).
    harness = await startHarness({ dataDir, args: ['--renderer', pageDir] });
  });

  test.afterAll(async () => {
    await harness?.stop();
    await demo?.stop();
    rmSync(pageDir, { recursive: true, force: true });
    rmSync(dataDir, { recursive: true, force: true });
  });

  async function openPage(page: Page, value: string | null): Promise<void> {
    const url = new URL(harness!.url);
    if (value) url.searchParams.set('value', value);
    await page.exposeFunction('__fetchImage', (refText: string) => {
      const ref = JSON.parse(refText) as { name: string; subfolder: string; type: string };
      const bytes = readFileSync(join(demo.dataDir, ref.type, ref.subfolder, ref.name));
      return { base64: bytes.toString('base64'), mime: 'image/png' };
    });
    await page.goto(url.toString());
    await page.waitForFunction(() => typeof window.flowdeck === 'object');
    // The harness's core has its own demo profile; point it at this spec's local server instead.
    const baseUrl = demo.url;
    await page.evaluate(async (base) => {
      const saved = await window.flowdeck.invoke('profiles.save', { name: 'Mask test', kind: 'local', baseUrl: base, select: true });
      if (!saved.ok) throw new Error(saved.error.message);
    }, baseUrl);
  }

  test('opens an image from disk; brush, [ ], undo/redo, invert, clear, Shift+click line, outline, zoom and pan; saves: the server keeps the colours and takes the alpha', async ({
    page,
  }) => {
    const pageErrors: string[] = [];
    page.on('pageerror', (e) => pageErrors.push(e.message));
    await openPage(page, null);
    const dialog = page.getByRole('dialog', { name: /Paint mask/ });
    await expect(dialog).toBeVisible();
    await dialog.getByLabel('Open image…').setInputFiles(EXAMPLE);
    const surface = dialog.getByRole('application', { name: 'Mask canvas' });
    await expect(surface).toBeVisible();
    await expect(dialog.getByText('Not on the server yet')).toBeVisible();

    // Every named control is there.
    for (const name of ['Brush', 'Eraser', 'Undo', 'Redo', 'Invert mask', 'Clear mask', 'Save mask'])
      await expect(dialog.getByRole('button', { name, exact: true })).toBeVisible();
    const sizeSlider = dialog.getByRole('slider', { name: 'Brush size' });
    await expect(sizeSlider).toHaveValue('40');
    await expect(dialog.getByRole('button', { name: 'Undo', exact: true })).toBeDisabled();

    // [ and ] change the size; back to 40 for the stroke the checks expect.
    await surface.focus();
    await page.keyboard.press(']');
    await expect(sizeSlider).toHaveValue('45');
    await page.keyboard.press('[');
    await page.keyboard.press('[');
    await expect(sizeSlider).toHaveValue('35');
    await page.keyboard.press(']');
    await expect(sizeSlider).toHaveValue('40');

    // Full hardness, so the stroke's core is wide and its edge narrow.
    await dialog.getByRole('slider', { name: 'Hardness' }).fill('100');

    await paintLine(page, { x: 60, y: 128.5 }, { x: 196, y: 128.5 });
    await expect.poll(() => overlayAlpha(page, 128, 128)).toBe(255);
    expect(await overlayAlpha(page, 128, 200)).toBe(0);

    // A second stroke, then Ctrl+Z and Ctrl+Shift+Z over it.
    await paintLine(page, { x: 30, y: 30 }, { x: 60, y: 30 });
    await expect.poll(() => overlayAlpha(page, 45, 30)).toBe(255);
    await surface.focus();
    await page.keyboard.press('Control+z');
    await expect.poll(() => overlayAlpha(page, 45, 30)).toBe(0);
    expect(await overlayAlpha(page, 128, 128)).toBe(255);
    await page.keyboard.press('Control+Shift+z');
    await expect.poll(() => overlayAlpha(page, 45, 30)).toBe(255);
    await dialog.getByRole('button', { name: 'Undo', exact: true }).click();
    await expect.poll(() => overlayAlpha(page, 45, 30)).toBe(0);
    await expect(dialog.getByRole('button', { name: 'Redo', exact: true })).toBeEnabled();

    // Invert twice is no change; clear then undo restores.
    await dialog.getByRole('button', { name: 'Invert mask' }).click();
    await expect.poll(() => overlayAlpha(page, 5, 5)).toBe(255);
    await dialog.getByRole('button', { name: 'Invert mask' }).click();
    await expect.poll(() => overlayAlpha(page, 5, 5)).toBe(0);
    await dialog.getByRole('button', { name: 'Clear mask' }).click();
    await expect.poll(() => overlayAlpha(page, 128, 128)).toBe(0);
    await dialog.getByRole('button', { name: 'Undo', exact: true }).click();
    await expect.poll(() => overlayAlpha(page, 128, 128)).toBe(255);

    // Shift+click: a straight line from where the last stroke ended (30 px down, ending at x 60).
    await clickAt(page, { x: 200, y: 30 }, { shift: true });
    await expect.poll(() => overlayAlpha(page, 130, 30)).toBe(255);
    await page.keyboard.press('Control+z');
    await expect.poll(() => overlayAlpha(page, 130, 30)).toBe(0);

    // The brush outline follows the pointer, at the brush's size on screen.
    const box = (await page.locator('canvas.overlay').boundingBox())!;
    await page.mouse.move(box.x + 100, box.y + 90);
    const outline = (await page.locator('.outline').boundingBox())!;
    expect(Math.abs(outline.x + outline.width / 2 - (box.x + 100))).toBeLessThan(2);
    expect(Math.abs(outline.y + outline.height / 2 - (box.y + 90))).toBeLessThan(2);
    expect(Math.abs(outline.width - 40)).toBeLessThan(2);

    // Ctrl+wheel zooms around the pointer; Fit and 100 % come back.
    const zoomText = dialog.getByRole('status', { name: 'Zoom' });
    await expect(zoomText).toHaveText('100 %');
    await page.keyboard.down('Control');
    await page.mouse.wheel(0, -400);
    await page.keyboard.up('Control');
    await expect(zoomText).not.toHaveText('100 %');
    const zoomed = (await page.locator('canvas.overlay').boundingBox())!;
    expect(zoomed.width).toBeGreaterThan(300);
    // The image point under the pointer (100, 90 on screen from the old corner: image 100, 90) stays there.
    expect(Math.abs(box.x + 100 - (zoomed.x + (100 / 256) * zoomed.width))).toBeLessThan(2);
    await dialog.getByRole('button', { name: 'Fit' }).click();
    await expect(zoomText).toHaveText('100 %');
    await dialog.getByRole('button', { name: 'Zoom in' }).click();
    await expect(zoomText).toHaveText('125 %');
    await dialog.getByRole('button', { name: 'Zoom to 100 %' }).click();
    await expect(zoomText).toHaveText('100 %');

    // Space+drag and the middle button pan; neither paints.
    const before = (await page.locator('canvas.overlay').boundingBox())!;
    await surface.focus();
    await page.keyboard.down('Space');
    await page.mouse.move(before.x + 20, before.y + 200);
    await page.mouse.down();
    await page.mouse.move(before.x + 80, before.y + 230, { steps: 5 });
    await page.mouse.up();
    await page.keyboard.up('Space');
    let after = (await page.locator('canvas.overlay').boundingBox())!;
    expect([Math.round(after.x - before.x), Math.round(after.y - before.y)]).toEqual([60, 30]);
    await page.mouse.move(after.x + 10, after.y + 10);
    await page.mouse.down({ button: 'middle' });
    await page.mouse.move(after.x - 30, after.y + 10, { steps: 5 });
    await page.mouse.up({ button: 'middle' });
    const moved = (await page.locator('canvas.overlay').boundingBox())!;
    expect(Math.round(moved.x - after.x)).toBe(-40);
    after = moved;
    expect(await overlayAlpha(page, 20, 200)).toBe(0);
    await expect(dialog.getByRole('button', { name: 'Redo', exact: true })).toBeEnabled();
    await dialog.getByRole('button', { name: 'Fit' }).click();

    // A save closes the dialog (asks its owner to: this page only records it); what was taken is
    // the owner's to show.
    await dialog.getByRole('button', { name: 'Save mask' }).click();
    await expect.poll(() => page.evaluate(() => (window as unknown as { __closed?: boolean }).__closed === true)).toBe(true);
    await expect(dialog.getByRole('alert')).toHaveCount(0);
    const masked = await page.evaluate(
      () =>
        (
          window as unknown as {
            __masked: {
              inputValue: string;
              originalUploaded: boolean;
              original: { name: string; subfolder: string; type: string };
              masked: { name: string; subfolder: string; type: string; originalName?: string };
            };
          }
        ).__masked,
    );
    // The original went up first, under its own name; the masked copy is named after it for people.
    expect(masked.originalUploaded).toBe(true);
    expect(masked.original).toEqual({ name: 'example.png', subfolder: '', type: 'input' });
    expect(masked.masked.originalName).toBe('example.png (masked)');
    expectMaskedExample(readPng(join(demo.dataDir, masked.masked.type, masked.masked.subfolder, masked.masked.name)));
    expect(pageErrors).toEqual([]);
  });

  test('Paint mask re-opens a masked image with its mask restored from its alpha; a failed upload keeps the painting', async ({ page }) => {
    // A masked image on the server, made through the app's own upload calls.
    const original = readFileSync(EXAMPLE);
    const mask = new PNG({ width: 256, height: 256 });
    for (let i = 0; i < 256 * 256; i += 1) mask.data[i * 4 + 3] = i % 256 < 64 ? 0 : 255; // the left quarter masked
    await openPage(page, 'placeholder');
    const value = await page.evaluate(
      async ([image, maskPng]) => {
        const bytes = (b64: string): Uint8Array => Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
        const up = await window.flowdeck.invoke('upload.image', { name: 'example.png', bytes: bytes(image!) });
        if (!up.ok || !up.value) throw new Error('upload.image failed');
        const m = await window.flowdeck.invoke('upload.mask', {
          original: { name: up.value.name, subfolder: up.value.subfolder, type: up.value.type },
          maskPng: bytes(maskPng!),
        });
        if (!m.ok) throw new Error(m.error.message);
        return m.value.inputValue;
      },
      [original.toString('base64'), PNG.sync.write(mask).toString('base64')],
    );
    const url = new URL(page.url());
    url.searchParams.set('value', value);
    await page.goto(url.toString());

    await page.getByRole('button', { name: 'Paint mask' }).click();
    const dialog = page.getByRole('dialog', { name: /Paint mask/ });
    await expect(dialog.getByRole('application', { name: 'Mask canvas' })).toBeVisible();
    await expect(dialog.getByText("mask restored from the image's transparency")).toBeVisible();
    await expect(dialog.getByText(`On the server as input/${value}`)).toBeVisible();
    await expect.poll(() => overlayAlpha(page, 10, 100)).toBe(255);
    expect(await overlayAlpha(page, 200, 100)).toBe(0);

    // Stop the server: saving fails, says why, and the painting stays.
    await paintLine(page, { x: 150, y: 200 }, { x: 240, y: 200 });
    await expect.poll(() => overlayAlpha(page, 200, 200)).toBeGreaterThan(0);
    // (The last test of this group: the server stays stopped.)
    await demo.stop();
    await dialog.getByRole('button', { name: 'Save mask' }).click();
    await expect(dialog.getByRole('alert')).toContainText('The mask was not saved; your painting is kept. The mask could not be uploaded:');
    expect(await overlayAlpha(page, 200, 200)).toBeGreaterThan(0);
    expect(await overlayAlpha(page, 10, 100)).toBe(255);
    await expect(dialog.getByRole('button', { name: 'Undo', exact: true })).toBeEnabled();
  });
});

// ---- 2. through the app --------------------------------------------------------------------------

test.describe('mask painter in the app', () => {
  let demo: DemoService;
  test.beforeAll(async () => {
    demo = new DemoService({ flavour: 'local', port: 0, timeScale: 0.02 });
    await demo.start();
  });
  test.afterAll(async () => {
    await demo?.stop();
  });

  async function addLocalServer(page: Page): Promise<void> {
    await page.getByRole('link', { name: 'Servers' }).click();
    await page.getByRole('button', { name: 'Add server' }).click();
    const dialog = page.getByRole('dialog', { name: 'Add server' });
    await dialog.getByLabel('Server name').fill('Mask demo');
    await dialog.getByLabel('Server kind').selectOption('local');
    await dialog.getByLabel('Server URL').fill(demo.url);
    await dialog.getByRole('button', { name: 'Save server' }).click();
    await expect(dialog).toBeHidden();
    await page.getByRole('radio', { name: 'Mask demo' }).check();
    await waitConnected(page);
  }

  function loadImageGroup(page: Page): Locator {
    return page.getByRole('group', { name: '1 LoadImage' });
  }

  test('Paint mask beside the image input: save, the stored file, then mask-to-image shows white where painted', async ({ appPage: page }) => {
    await addLocalServer(page);
    await openWorkflow(page, MASK_TO_IMAGE);
    const group = loadImageGroup(page);
    await group.getByLabel('Upload image').setInputFiles(EXAMPLE);
    await expect(field(page, '1 LoadImage', 'image')).toHaveValue('example.png');

    await group.getByRole('button', { name: 'Paint mask' }).click();
    const dialog = page.getByRole('dialog', { name: /Paint mask/ });
    await expect(dialog.getByRole('application', { name: 'Mask canvas' })).toBeVisible();
    await dialog.getByRole('slider', { name: 'Hardness' }).fill('100');
    await paintLine(page, { x: 60, y: 128.5 }, { x: 196, y: 128.5 });
    await dialog.getByRole('button', { name: 'Save mask' }).click();

    // Saved: the dialog closes, the input names the masked file (shown under the original's name)
    // and its thumbnail is the picture with the painted line taken out.
    await expect(dialog).toBeHidden();
    await expect(group.getByRole('status')).toContainText('Mask saved');
    const thumbnail = group.getByRole('img', { name: 'Thumbnail of example.png (masked)' });
    await expect(thumbnail).toBeVisible();
    await expect.poll(() => imageAlpha(thumbnail, 0.5, 0.5)).toBe(0); // under the stroke (y 128 of 256)
    expect(await imageAlpha(thumbnail, 0.5, 0.8)).toBe(255);
    expect(await imageAlpha(thumbnail, 0.02, 0.02)).toBe(255);
    const chosen = field(page, '1 LoadImage', 'image').locator('option:checked');
    await expect(chosen).toHaveText('example.png (masked)');
    await expect(chosen).toHaveAttribute('title', `On the server as ${await field(page, '1 LoadImage', 'image').inputValue()}`);

    // Painting again starts from that mask; a stroke not saved is not thrown away by accident.
    await group.getByRole('button', { name: 'Paint mask' }).click();
    await expect(dialog.getByRole('application', { name: 'Mask canvas' })).toBeVisible();
    await expect(dialog.getByText('On the server as input/example.png: saving sends only the mask.')).toBeVisible();
    await expect.poll(() => overlayAlpha(page, 128, 128)).toBe(255);
    await paintLine(page, { x: 60, y: 40.5 }, { x: 120, y: 40.5 });
    await dialog.getByRole('button', { name: 'Close' }).click();
    const ask = page.getByRole('dialog', { name: 'Discard the painting?' });
    await expect(ask).toBeVisible();
    await ask.getByRole('button', { name: 'Keep painting' }).click();
    await expect(ask).toBeHidden();
    await expect(dialog.getByRole('application', { name: 'Mask canvas' })).toBeVisible();
    await dialog.getByRole('button', { name: 'Close' }).click();
    await ask.getByRole('button', { name: 'Discard' }).click();
    await expect(dialog).toBeHidden();

    const value = await field(page, '1 LoadImage', 'image').inputValue();
    expect(value).not.toBe('example.png');
    expectMaskedExample(readPng(join(demo.dataDir, 'input', value)));

    await runButton(page).click();
    const card = newestJob(page);
    await expect(card.getByText('Status: done')).toBeVisible({ timeout: 30_000 });
    const output = card.getByRole('img', { name: /^Output Flowdeck_mask.*\.png$/ });
    await expect(output).toBeVisible();
    const name = ((await output.getAttribute('alt')) ?? '').replace(/^Output /, '');
    const out = readPng(join(demo.dataDir, 'output', name));
    const rgb = (x: number, y: number): number[] => [...out.data.subarray((y * out.width + x) * 4, (y * out.width + x) * 4 + 3)];
    expect(rgb(128, 128)).toEqual([255, 255, 255]);
    expect(rgb(70, 130)).toEqual([255, 255, 255]);
    expect(rgb(128, 190)).toEqual([0, 0, 0]);
    expect(rgb(5, 5)).toEqual([0, 0, 0]);
  });
});
