// The Library view's actions in the app (harness + demo services), each checked where its effect
// lands, not only on screen:
//   1. Run again: the Run view gets the recorded workflow with the same values (a 64-bit seed
//      exact), and the second job's output enters the library with the same inputs.
//   2. Use as input image: set directly with one image input, asked with two; the chosen input shows
//      the uploaded image, and the run inverts exactly the library image's pixels.
//   3. Copy image: the clipboard holds a PNG of the item's pixels.
//   4. A download that fails shows "Failed" with its reason; Retry brings it in.
//   5. The mask painter on a library image: saving uploads the original, then the mask naming it;
//      the server keeps the original's colours with alpha 0 under the stroke; the masked image goes
//      into the workflow's input, and "Paint mask" there re-opens it with the mask restored.
// Tests 2, 4 and 5 use a local demo service started here, so its stored files and its fault
// switches are at hand; 1 and 3 use the harness's built-in demo profile.
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Locator, Page } from '@playwright/test';
import { PNG } from 'pngjs';
import { DemoService } from '../src/main/demo';
import { ROOT } from './fixtures/harness';
import { imageAlpha, overlayAlpha, paintLine } from './mask-canvas';
import { expect, test } from './fixtures/index';
import { bridgeLog, field, openWorkflow, property, recordBridge, runOpenWorkflow, TEXT_TO_IMAGE, waitConnected } from './ui-helpers';

const EXAMPLE = join(ROOT, 'resources/demo/example.png');
const INVERT_IMAGE = join(ROOT, 'resources/workflows/invert-image.json');
const MASK_TO_IMAGE = join(ROOT, 'resources/workflows/mask-to-image.json');
const LOCAL_SERVER = 'Local actions demo';
/** Beyond 2^53: a JS number would round it. */
const BIG_SEED = '18446744073709551557';

// ---- helpers ---------------------------------------------------------------------------------------

/** text-to-image with a prompt and a SaveImage prefix of its own (file names differ per test and server). */
function textToImage(prompt: string, prefix: string, seed = '7'): { name: string; text: string } {
  const text = readFileSync(TEXT_TO_IMAGE, 'utf8');
  const workflow = JSON.parse(text) as Record<string, { inputs: Record<string, unknown> }>;
  Object.assign(workflow['3']!.inputs, { prompt, steps: 2, delay_ms: 10, seed: 0 });
  workflow['9']!.inputs.filename_prefix = prefix;
  // The seed as written JSON digits, so a 64-bit one stays exact.
  return { name: `${prefix}.json`, text: JSON.stringify(workflow).replace('"seed":0', `"seed":${seed}`) };
}

/** Runs text-to-image and returns the file name of its output image. */
async function runForImage(page: Page, prompt: string, prefix: string, seed?: string): Promise<string> {
  await openWorkflow(page, textToImage(prompt, prefix, seed));
  await page.getByRole('group', { name: '3 DemoSampler' }).waitFor();
  const card = await runOpenWorkflow(page);
  const output = card.getByRole('img', { name: new RegExp(`^Output ${prefix}.*\\.png$`) }).first();
  return ((await output.getAttribute('alt')) ?? '').replace(/^Output /, '');
}

function grid(page: Page): Locator {
  return page.getByRole('grid', { name: 'Library outputs' });
}

function tile(page: Page, fileName: string): Locator {
  return grid(page).getByRole('img', { name: fileName, exact: true });
}

/** Opens the Library view on one output's detail panel (once its file is in the library). */
async function openDetail(page: Page, fileName: string): Promise<Locator> {
  await page.getByRole('link', { name: 'Library' }).click();
  await expect(tile(page, fileName)).toBeVisible({ timeout: 20_000 });
  await expect.poll(() => tile(page, fileName).getAttribute('src'), { timeout: 20_000 }).toMatch(/^\/media\/thumb\/\d+$/);
  await tile(page, fileName).click();
  const detail = page.getByRole('complementary', { name: fileName });
  await expect(detail).toBeVisible();
  return detail;
}

interface ItemFacts {
  id: number;
  status: string;
  error: string | null;
  path: string | null;
  inputsJson: string;
  width: number | null;
  height: number | null;
}

/** The library's items whose file name is `fileName`, with their details, through the page's bridge. */
function libraryItems(page: Page, fileName: string): Promise<ItemFacts[]> {
  return page.evaluate(async (name) => {
    const list = await window.flowdeck.invoke('library.list', { limit: 10_000 });
    if (!list.ok) throw new Error(list.error.message);
    const facts = [];
    for (const item of list.value.items.filter((i) => i.fileName === name)) {
      const got = await window.flowdeck.invoke('library.get', { id: item.id });
      if (!got.ok) throw new Error(got.error.message);
      const d = got.value;
      facts.push({ id: d.id, status: d.status, error: d.error, path: d.path, inputsJson: d.inputsJson, width: d.width, height: d.height });
    }
    return facts;
  }, fileName);
}

/** The one library item named `fileName`, once downloaded. */
async function doneItem(page: Page, fileName: string): Promise<ItemFacts> {
  await expect.poll(async () => (await libraryItems(page, fileName)).map((i) => i.status), { timeout: 20_000 }).toEqual(['done']);
  return (await libraryItems(page, fileName))[0]!;
}

async function selectServer(page: Page, name: string): Promise<void> {
  await page.getByRole('link', { name: 'Servers' }).click();
  await page.getByRole('radio', { name, exact: true }).check();
  await waitConnected(page);
}

/** Adds this spec's local demo service as a server profile (once per harness) and makes it active. */
async function useLocalServer(page: Page, url: string): Promise<void> {
  await page.getByRole('link', { name: 'Servers' }).click();
  if ((await page.getByRole('radio', { name: LOCAL_SERVER, exact: true }).count()) === 0) {
    await page.getByRole('button', { name: 'Add server' }).click();
    const dialog = page.getByRole('dialog', { name: 'Add server' });
    await dialog.getByLabel('Server name').fill(LOCAL_SERVER);
    await dialog.getByLabel('Server kind').selectOption('local');
    await dialog.getByLabel('Server URL').fill(url);
    await dialog.getByRole('button', { name: 'Save server' }).click();
    await expect(dialog).toBeHidden();
  }
  await selectServer(page, LOCAL_SERVER);
}

function readPng(path: string): PNG {
  return PNG.sync.read(readFileSync(path));
}

function rgbAt(png: PNG, x: number, y: number): number[] {
  const at = (y * png.width + x) * 4;
  return [png.data[at]!, png.data[at + 1]!, png.data[at + 2]!];
}

/** How many pixels of `actual` are not 255 - `source` in some colour channel (0: an exact inverse). */
function notInverted(actual: PNG, source: PNG): number {
  expect([actual.width, actual.height]).toEqual([source.width, source.height]);
  let wrong = 0;
  for (let i = 0; i < actual.width * actual.height; i += 1) {
    for (let c = 0; c < 3; c += 1) {
      if (actual.data[i * 4 + c] !== 255 - source.data[i * 4 + c]!) {
        wrong += 1;
        break;
      }
    }
  }
  return wrong;
}

// The project's Node type check has no DOM library: the page objects used are described here.
interface PageNavigatorHolder {
  navigator: { clipboard: { read(): Promise<{ types: readonly string[]; getType(type: string): Promise<Blob> }[]> } };
}

interface PageImage {
  complete: boolean;
  naturalWidth: number;
  naturalHeight: number;
  ownerDocument: { createElement(tag: 'canvas'): PageDrawingCanvas };
}
interface PageDrawingCanvas {
  width: number;
  height: number;
  getContext(
    kind: '2d',
  ): { drawImage(image: PageImage, x: number, y: number): void; getImageData(x: number, y: number, w: number, h: number): { data: ArrayLike<number> } } | null;
}

/** The mean colour of an <img> as drawn (transparent pixels left out); null while it is not loaded. */
function meanColourOfImage(image: Locator): Promise<number[] | null> {
  return image.evaluate((el) => {
    const img = el as unknown as PageImage;
    if (!img.complete || img.naturalWidth === 0) return null;
    const canvas = img.ownerDocument.createElement('canvas');
    canvas.width = img.naturalWidth;
    canvas.height = img.naturalHeight;
    const context = canvas.getContext('2d');
    if (!context) return null;
    context.drawImage(img, 0, 0);
    const data = context.getImageData(0, 0, canvas.width, canvas.height).data;
    const sum = [0, 0, 0];
    let count = 0;
    for (let i = 0; i < data.length; i += 4) {
      if (data[i + 3]! < 128) continue;
      for (let c = 0; c < 3; c += 1) sum[c]! += data[i + c]!;
      count += 1;
    }
    return count === 0 ? null : sum.map((v) => v / count);
  });
}

function meanColourOfPng(png: PNG): number[] {
  const sum = [0, 0, 0];
  for (let i = 0; i < png.width * png.height; i += 1) for (let c = 0; c < 3; c += 1) sum[c]! += png.data[i * 4 + c]!;
  return sum.map((v) => v / (png.width * png.height));
}

// ---- the spec's own local demo service -------------------------------------------------------------

let local: DemoService;

test.beforeAll(async () => {
  local = new DemoService({ flavour: 'local', port: 0, timeScale: 0.02 });
  await local.start();
  // The workflows' LoadImage nodes name example.png until an input is set.
  mkdirSync(join(local.dataDir, 'input'), { recursive: true });
  copyFileSync(EXAMPLE, join(local.dataDir, 'input', 'example.png'));
});

test.afterAll(async () => {
  await local?.stop();
});

test.afterEach(() => {
  local.faults.reset();
});

/** On this spec's local server: a text-to-image output, once in the library, and its pixels. */
async function libraryImageOnLocal(page: Page, prompt: string, prefix: string, seed: string): Promise<{ file: string; item: ItemFacts; libraryImage: PNG }> {
  await useLocalServer(page, local.url);
  const file = await runForImage(page, prompt, prefix, seed);
  const item = await doneItem(page, file);
  return { file, item, libraryImage: readPng(item.path!) };
}

// ---- 1. Run again ----------------------------------------------------------------------------------

test('Run again: the same workflow and values in the Run view; the second run enters the library with the same inputs', async ({ appPage: page }) => {
  const pageErrors: string[] = [];
  page.on('pageerror', (e) => pageErrors.push(e.message));
  await selectServer(page, 'Demo');
  const prompt = 'a heron in the fog, runagainmarker';
  const first = await runForImage(page, prompt, 'RunAgain', BIG_SEED);
  const [original] = [await doneItem(page, first)];
  expect(original.inputsJson).toMatch(new RegExp(`"seed": ?${BIG_SEED}[,\\s}]`));

  const detail = await openDetail(page, first);
  await expect(detail.getByLabel('Input values')).toContainText(`"seed": ${BIG_SEED}`);
  // The Run view is showing another workflow now, with other values.
  await openWorkflow(page, textToImage('something else entirely', 'Other'));
  await expect(field(page, '3 DemoSampler', 'prompt')).toHaveValue('something else entirely');
  await openDetail(page, first);
  await page.getByRole('complementary', { name: first }).getByRole('button', { name: 'Run again' }).click();

  await expect(page.getByRole('heading', { name: 'Run a workflow', level: 2 })).toBeVisible();
  await expect(page.getByText(`Loaded "RunAgain.json" from the library`)).toBeVisible();
  await expect(field(page, '3 DemoSampler', 'prompt')).toHaveValue(prompt);
  await expect(field(page, '3 DemoSampler', 'seed')).toHaveValue(BIG_SEED);
  await expect(field(page, '3 DemoSampler', 'steps')).toHaveValue('2');

  const card = await runOpenWorkflow(page);
  const output = card.getByRole('img', { name: /^Output RunAgain.*\.png$/ }).first();
  const second = ((await output.getAttribute('alt')) ?? '').replace(/^Output /, '');
  expect(second).not.toBe(first);
  const again = await doneItem(page, second);
  expect(again.id).not.toBe(original.id);
  expect(again.inputsJson).toBe(original.inputsJson);
  // Same seed, prompt and settings: the demo paints the very same picture.
  expect(readFileSync(again.path!).equals(readFileSync(original.path!))).toBe(true);

  await page.getByRole('link', { name: 'Library' }).click();
  await page.getByRole('searchbox', { name: 'Search library' }).fill('runagainmarker');
  await expect(tile(page, first)).toBeVisible();
  await expect(tile(page, second)).toBeVisible();
  await expect(page.getByRole('status').filter({ hasText: /^2 outputs$/ })).toBeVisible();
  expect(pageErrors).toEqual([]);
});

// ---- 2. Use as input image -------------------------------------------------------------------------

/** Two LoadImage nodes, each inverted and saved under its own prefix. */
const TWO_INPUTS = {
  name: 'two-inputs.json',
  text: JSON.stringify({
    '1': { class_type: 'LoadImage', inputs: { image: 'example.png' } },
    '2': { class_type: 'LoadImage', inputs: { image: 'example.png' } },
    '3': { class_type: 'ImageInvert', inputs: { image: ['1', 0] } },
    '4': { class_type: 'ImageInvert', inputs: { image: ['2', 0] } },
    '5': { class_type: 'SaveImage', inputs: { images: ['3', 0], filename_prefix: 'FirstInverted' } },
    '6': { class_type: 'SaveImage', inputs: { images: ['4', 0], filename_prefix: 'SecondInverted' } },
  }),
};

test('Use as input image: set at once with one image input, asked with two; the run inverts the library image', async ({ appPage: page }) => {
  const pageErrors: string[] = [];
  page.on('pageerror', (e) => pageErrors.push(e.message));
  const { file, item, libraryImage } = await libraryImageOnLocal(page, 'a tin robot in a meadow', 'UseInput', '4242');

  // One image input: no question, the input is set and shows the image.
  await openWorkflow(page, INVERT_IMAGE);
  await page.getByRole('group', { name: '1 LoadImage' }).waitFor();
  let detail = await openDetail(page, file);
  await detail.getByRole('button', { name: 'Use as input image' }).click();
  await expect(page.getByRole('dialog', { name: 'Which image input?' })).toHaveCount(0);
  await expect(page.getByText(`${file} is now the "image" input of node 1.`)).toBeVisible();
  const single = await field(page, '1 LoadImage', 'image').inputValue();
  expect(single).not.toBe('example.png');
  const singleThumb = page.getByRole('group', { name: '1 LoadImage' }).getByRole('img', { name: `Thumbnail of ${single}` });
  await expect.poll(() => property(singleThumb, 'naturalWidth')).toBeGreaterThan(0);
  // The server holds exactly the library's file under that name.
  expect(readFileSync(join(local.dataDir, 'input', single)).equals(readFileSync(item.path!))).toBe(true);

  // Two image inputs: the chooser asks which; the second is chosen.
  await openWorkflow(page, TWO_INPUTS);
  await page.getByRole('group', { name: '2 LoadImage' }).waitFor();
  detail = await openDetail(page, file);
  await detail.getByRole('button', { name: 'Use as input image' }).click();
  const chooser = page.getByRole('dialog', { name: 'Which image input?' });
  await expect(chooser).toBeVisible();
  const choices = chooser.getByRole('radio');
  await expect(choices).toHaveCount(2);
  await expect(chooser.getByRole('radio', { name: '1 Load Image: image' })).toBeChecked();
  // Escape asks nothing more and changes nothing.
  await page.keyboard.press('Escape');
  await expect(chooser).toBeHidden();
  await expect(page.getByRole('complementary', { name: file })).toBeVisible();
  await detail.getByRole('button', { name: 'Use as input image' }).click();
  await expect(chooser).toBeVisible();
  // By keyboard: the dialog starts on the checked choice; arrow to the second, tab to "Use image".
  await expect(chooser.getByRole('radio', { name: '1 Load Image: image' })).toBeFocused();
  await page.keyboard.press('ArrowDown');
  await expect(chooser.getByRole('radio', { name: '2 Load Image: image' })).toBeChecked();
  await page.keyboard.press('Tab');
  await page.keyboard.press('Tab');
  await expect(chooser.getByRole('button', { name: 'Use image' })).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(chooser).toBeHidden();
  await expect(page.getByText(`${file} is now the "image" input of node 2.`)).toBeVisible();
  const chosen = await field(page, '2 LoadImage', 'image').inputValue();
  expect(chosen).not.toBe('example.png');
  await expect(field(page, '1 LoadImage', 'image')).toHaveValue('example.png');
  const chosenThumb = page.getByRole('group', { name: '2 LoadImage' }).getByRole('img', { name: `Thumbnail of ${chosen}` });
  await expect.poll(() => property(chosenThumb, 'naturalWidth')).toBeGreaterThan(0);
  await expect(page.getByRole('group', { name: '1 LoadImage' }).getByRole('img')).toHaveCount(0);

  // The run: node 2's chain inverts exactly the library image; node 1's still the example.
  const card = await runOpenWorkflow(page);
  const nameOf = async (prefix: string): Promise<string> =>
    ((await card.getByRole('img', { name: new RegExp(`^Output ${prefix}.*\\.png$`) }).getAttribute('alt')) ?? '').replace(/^Output /, '');
  const secondOut = readPng(join(local.dataDir, 'output', await nameOf('SecondInverted')));
  const firstOut = readPng(join(local.dataDir, 'output', await nameOf('FirstInverted')));
  expect(notInverted(secondOut, libraryImage)).toBe(0);
  expect(notInverted(firstOut, readPng(EXAMPLE))).toBe(0);
  expect(pageErrors).toEqual([]);
});

// ---- 3. Copy image ---------------------------------------------------------------------------------

test('Copy image: the clipboard holds a PNG of the library image', async ({ appPage: page, context, harness }) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: harness.origin });
  await selectServer(page, 'Demo');
  const file = await runForImage(page, 'a paper boat on a pond', 'CopyMe', '99');
  const item = await doneItem(page, file);
  const detail = await openDetail(page, file);
  await detail.getByRole('button', { name: 'Copy image' }).click();
  await expect(detail.getByRole('status').filter({ hasText: 'Copied the image to the clipboard.' })).toBeVisible();

  const clip = await page.evaluate(async () => {
    const { clipboard } = (globalThis as unknown as PageNavigatorHolder).navigator;
    const items = await clipboard.read();
    const first = items[0];
    if (!first) return null;
    const blob = await first.getType('image/png');
    const bytes = new Uint8Array(await blob.arrayBuffer());
    let text = '';
    for (let i = 0; i < bytes.length; i += 0x8000) text += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
    return { count: items.length, types: [...first.types], base64: btoa(text) };
  });
  expect(clip).not.toBeNull();
  expect(clip!.count).toBe(1);
  expect(clip!.types).toContain('image/png');
  const copied = Buffer.from(clip!.base64, 'base64');
  expect([...copied.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  const png = PNG.sync.read(copied);
  expect([png.width, png.height]).toEqual([item.width, item.height]);
  // The browser re-encodes what it puts on the clipboard; the pixels are the library file's.
  const source = readPng(item.path!);
  let differs = 0;
  for (let i = 0; i < png.data.length; i += 1) if (png.data[i] !== source.data[i]) differs += 1;
  expect(differs).toBe(0);
});

// ---- 4. A failed download and Retry ----------------------------------------------------------------

test('a failed download shows "Failed" with its reason, and Retry brings the file in', async ({ appPage: page, harness }) => {
  await useLocalServer(page, local.url);
  // Every file request fails until the switch is reset: the library's download attempts fail.
  local.faults.fail500(1_000_000, '/view');
  await openWorkflow(page, textToImage('a glass owl, retrymarker', 'RetryMe', '5'));
  await page.getByRole('group', { name: '3 DemoSampler' }).waitFor();
  await runOpenWorkflow(page);
  // The output's name as the library recorded it (its download is what fails).
  let file = '';
  await expect
    .poll(async () => {
      const list = await page.evaluate(() => window.flowdeck.invoke('library.list', { query: 'retrymarker' }));
      file = list.ok ? (list.value.items[0]?.fileName ?? '') : '';
      return file;
    })
    .toMatch(/^RetryMe.*\.png$/);

  await page.getByRole('link', { name: 'Library' }).click();
  const cell = grid(page)
    .getByRole('gridcell')
    .filter({ has: page.getByRole('img', { name: file, exact: true }) });
  const badge = cell.getByText('Failed', { exact: true });
  await expect(badge).toBeVisible({ timeout: 30_000 });
  await expect.poll(() => badge.getAttribute('title')).toMatch(/500/);

  // Take the file away from the server and lift the fault: the next automatic attempt learns the
  // server no longer has it, and the library stops trying on its own (only Retry brings it back).
  const stored = join(local.dataDir, 'output', file);
  const bytes = readFileSync(stored);
  rmSync(stored);
  local.faults.reset();
  await expect.poll(() => badge.getAttribute('title'), { timeout: 30_000 }).toMatch(/no longer has this file/);
  const [given] = await libraryItems(page, file);
  expect(given).toMatchObject({ status: 'failed', path: null });
  const details = await page.evaluate((id) => window.flowdeck.invoke('library.get', { id }), given!.id);
  expect(details.ok && details.value.retryAt).toBe(null);

  // The file is back on the server; Retry on the tile downloads it.
  writeFileSync(stored, bytes);
  await cell.getByRole('button', { name: `Retry the download of ${file}` }).click();
  await expect(badge).toHaveCount(0, { timeout: 20_000 });
  await expect.poll(() => tile(page, file).getAttribute('src'), { timeout: 20_000 }).toMatch(/^\/media\/thumb\/\d+$/);
  const done = await doneItem(page, file);
  expect(done.path!.startsWith(join(harness.dataDir, 'library'))).toBe(true);
  expect(readFileSync(done.path!).equals(bytes)).toBe(true);
});

// ---- 5. The mask painter on a library image --------------------------------------------------------

test('mask painter from the library: save uploads the original then the mask naming it; the masked image re-opens with its mask', async ({ appPage: page }) => {
  const pageErrors: string[] = [];
  page.on('pageerror', (e) => pageErrors.push(e.message));
  await recordBridge(page);
  const { file, item, libraryImage } = await libraryImageOnLocal(page, 'a striped lighthouse keeper', 'MaskMe', '808');
  // A workflow with an image input, for the masked image afterwards.
  await openWorkflow(page, MASK_TO_IMAGE);
  await page.getByRole('group', { name: '1 LoadImage' }).waitFor();

  const detail = await openDetail(page, file);
  await detail.getByRole('button', { name: 'Open in mask painter' }).click();
  const painter = page.getByRole('dialog', { name: `Paint mask — ${file}` });
  await expect(painter.getByRole('application', { name: 'Mask canvas' })).toBeVisible();
  await expect(painter.getByText('Not on the server yet: saving uploads the image, then the mask.')).toBeVisible();
  await painter.getByRole('slider', { name: 'Hardness' }).fill('100');
  await paintLine(page, { x: 60, y: 128.5 }, { x: 196, y: 128.5 });
  await expect.poll(() => overlayAlpha(page, 128, 128)).toBe(255);
  await painter.getByRole('button', { name: 'Save mask' }).click();
  // Saved: the painter closes, and the detail offers the masked image, named after the original.
  await expect(painter).toBeHidden();
  await expect(detail.getByText(`Masked image saved as ${file} (masked).`)).toBeVisible();

  // What went to the server: the original's upload, then the mask naming exactly that file.
  const log = await bridgeLog(page);
  const uploaded = log
    .filter((r) => r.kind === 'result' && r.name === 'upload.image')
    .map((r) => JSON.parse(r.text) as { ok: true; value: { name: string; subfolder: string; type: string } });
  const maskCalls = log
    .filter((r) => r.kind === 'call' && r.name === 'upload.mask')
    .map((r) => JSON.parse(r.text) as { original: { name: string; subfolder: string; type: string } });
  const maskResults = log
    .filter((r) => r.kind === 'result' && r.name === 'upload.mask')
    .map((r) => JSON.parse(r.text) as { ok: true; value: { name: string; subfolder: string; type: string; inputValue: string } });
  expect(uploaded).toHaveLength(1);
  expect(maskCalls).toHaveLength(1);
  const original = uploaded[0]!.value;
  expect(maskCalls[0]!.original).toEqual({ name: original.name, subfolder: original.subfolder, type: 'input' });
  expect(readFileSync(join(local.dataDir, original.type, original.subfolder, original.name)).equals(readFileSync(item.path!))).toBe(true);

  // The stored masked image: the original's colours (the mask PNG carries none), alpha 0 under the stroke.
  const masked = maskResults[0]!.value;
  const stored = readPng(join(local.dataDir, masked.type, masked.subfolder, masked.name));
  expect([stored.width, stored.height]).toEqual([libraryImage.width, libraryImage.height]);
  let rgbDiffers = 0;
  for (let i = 0; i < stored.width * stored.height; i += 1)
    for (let c = 0; c < 3; c += 1) if (stored.data[i * 4 + c] !== libraryImage.data[i * 4 + c]) rgbDiffers += 1;
  expect(rgbDiffers).toBe(0);
  const alpha = (x: number, y: number): number => stored.data[(y * stored.width + x) * 4 + 3]!;
  for (const x of [70, 128, 180]) expect(alpha(x, 128)).toBe(0);
  expect(alpha(128, 128 + 40)).toBe(255);
  expect(alpha(5, 5)).toBe(255);

  // Into the open workflow's image input.
  await detail.getByRole('button', { name: 'Use masked image as input' }).click();
  await expect(page.getByText('The masked image is now the "image" input of node 1.')).toBeVisible();
  await expect(field(page, '1 LoadImage', 'image')).toHaveValue(masked.inputValue);
  // Its thumbnail shows the picture with the stroke taken out, not the colourless mask PNG that was sent.
  const thumbnail = page.getByRole('group', { name: '1 LoadImage' }).getByRole('img', { name: `Thumbnail of ${file} (masked)` });
  await expect.poll(() => meanColourOfImage(thumbnail)).not.toBeNull();
  expect(await imageAlpha(thumbnail, 0.5, 0.5)).toBe(0);
  expect(await imageAlpha(thumbnail, 0.5, 0.8)).toBe(255);
  const expected = meanColourOfPng(libraryImage);
  const shown = (await meanColourOfImage(thumbnail))!;
  for (let c = 0; c < 3; c += 1) expect(Math.abs(shown[c]! - expected[c]!), `channel ${c}: ${shown.join(', ')} vs ${expected.join(', ')}`).toBeLessThan(12);

  // Re-open from that input: the painter reads the server's masked file and restores its mask.
  await page.getByRole('group', { name: '1 LoadImage' }).getByRole('button', { name: 'Paint mask' }).click();
  const again = page.getByRole('dialog', { name: /Paint mask/ });
  await expect(again.getByRole('application', { name: 'Mask canvas' })).toBeVisible();
  await expect(again.getByText("mask restored from the image's transparency")).toBeVisible();
  await expect(again.getByText(`On the server as input/${masked.inputValue}`)).toBeVisible();
  await expect.poll(() => overlayAlpha(page, 128, 128)).toBe(255);
  expect(await overlayAlpha(page, 70, 128)).toBe(255);
  expect(await overlayAlpha(page, 128, 200)).toBe(0);
  expect(await overlayAlpha(page, 5, 5)).toBe(0);
  await again.getByRole('button', { name: 'Close' }).click();

  // And the run uses it: the mask comes out white where the stroke was.
  const card = await runOpenWorkflow(page);
  const name = ((await card.getByRole('img', { name: /^Output Flowdeck_mask.*\.png$/ }).getAttribute('alt')) ?? '').replace(/^Output /, '');
  const out = readPng(join(local.dataDir, 'output', name));
  expect(rgbAt(out, 128, 128)).toEqual([255, 255, 255]);
  expect(rgbAt(out, 5, 5)).toEqual([0, 0, 0]);

  // A saved mask belongs to its item: opening another output's detail does not offer it.
  await openDetail(page, file);
  const detailAgain = page.getByRole('complementary', { name: file });
  await detailAgain.getByRole('button', { name: 'Open in mask painter' }).click();
  await expect(painter.getByRole('application', { name: 'Mask canvas' })).toBeVisible();
  await paintLine(page, { x: 20, y: 20 }, { x: 60, y: 20 });
  await painter.getByRole('button', { name: 'Save mask' }).click();
  await expect(painter).toBeHidden();
  await expect(detailAgain.getByRole('button', { name: 'Use masked image as input' })).toBeVisible();
  await openDetail(page, name);
  const other = page.getByRole('complementary', { name });
  await expect(other.getByRole('button', { name: 'Open in mask painter' })).toBeVisible();
  await expect(other.getByText(/Masked image saved as/)).toHaveCount(0);
  await expect(other.getByRole('button', { name: 'Use masked image as input' })).toHaveCount(0);
  expect(pageErrors).toEqual([]);
});
