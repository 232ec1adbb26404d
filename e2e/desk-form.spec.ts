// The Run form (issue 13): node cards collapse, a filter finds an input by name, a linked input is a
// chip naming its source that brings the source into view, image inputs offer the server's images
// with thumbnails plus upload and drag and drop, another workflow never shows the previous one's
// chosen file, and choosing the same file again works.
import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import { test, expect } from './fixtures/index';
import { ROOT } from './fixtures/harness';
import { bridgeLog, field, openWorkflow, recordBridge, TEXT_TO_IMAGE, waitConnected } from './ui-helpers';

const INVERT = join(ROOT, 'resources/workflows/invert-image.json');
const EXAMPLE = join(ROOT, 'resources/demo/example.png');

test('node cards collapse, the filter finds an input, and a link chip jumps to its source', async ({ appPage: page }) => {
  await page.setViewportSize({ width: 1280, height: 800 });
  await waitConnected(page);
  await openWorkflow(page, TEXT_TO_IMAGE);
  const sampler = page.getByRole('group', { name: '3 DemoSampler' });
  await expect(sampler).toBeVisible();

  // Collapse and expand a card.
  const toggle = page.getByRole('button', { name: 'Collapse 3 Demo Sampler' });
  await expect(toggle).toHaveAttribute('aria-expanded', 'true');
  await toggle.click();
  await expect(field(page, '3 DemoSampler', 'seed')).toHaveCount(0);
  await expect(sampler.getByText(/\d+ inputs/)).toBeVisible();
  await page.getByRole('button', { name: 'Expand 3 Demo Sampler' }).click();
  await expect(field(page, '3 DemoSampler', 'seed')).toBeVisible();

  // The filter shows only the inputs whose name holds the text.
  const filter = page.getByRole('searchbox', { name: 'Filter inputs' });
  await filter.fill('sampler_n');
  await expect(field(page, '3 DemoSampler', 'sampler_name')).toBeVisible();
  await expect(field(page, '3 DemoSampler', 'seed')).toHaveCount(0);
  await expect(page.getByRole('group', { name: '9 SaveImage' })).toHaveCount(0);
  await filter.fill('no-such-input');
  await expect(page.getByText('No input matches “no-such-input”.')).toBeVisible();
  await filter.fill('');

  // The link chip names its source and brings it into view with the focus.
  await page.getByRole('button', { name: 'Collapse 3 Demo Sampler' }).click();
  const chip = field(page, '9 SaveImage', 'images');
  await expect(chip).toHaveText(/from Demo Sampler/);
  await page.screenshot({ path: 'screenshots/form-1280x800.png' });
  await chip.click();
  await expect(field(page, '3 DemoSampler', 'seed')).toBeVisible();
  await expect(sampler).toBeFocused();
  await expect(sampler).toBeInViewport();
  await page.setViewportSize({ width: 800, height: 600 });
  await page.screenshot({ path: 'screenshots/form-800x600.png' });
});

test('image inputs: the server images with thumbnails, upload, the same file again, drag and drop, and no stale file', async ({ appPage: page }) => {
  await recordBridge(page);
  await waitConnected(page);
  await openWorkflow(page, INVERT);
  const group = page.getByRole('group', { name: '1 LoadImage' });
  const upload = group.getByLabel('Upload image');
  await upload.setInputFiles(EXAMPLE);
  const image = field(page, '1 LoadImage', 'image');
  await expect(group.getByRole('img', { name: /^Thumbnail of / })).toBeVisible();
  const uploaded = await image.inputValue();
  expect(uploaded).not.toBe('example.png');
  // Shown under its original name; the server's (hashed) name is the value and the tooltip.
  await expect(group.getByRole('img', { name: 'Thumbnail of example.png' })).toBeVisible();
  await expect(image.locator('option:checked')).toHaveText('example.png');
  await expect(image.locator('option:checked')).toHaveAttribute('title', `On the server as ${uploaded}`);
  // The picker never keeps the chosen file: the same file picked again uploads again.
  await expect(upload).toHaveValue('');
  await upload.setInputFiles(EXAMPLE);
  await expect.poll(async () => (await bridgeLog(page)).filter((r) => r.kind === 'call' && r.name === 'upload.image').length).toBe(2);

  // A dropped image is uploaded with its own name (unicode included).
  const bytes = readFileSync(EXAMPLE).toString('base64');
  await group.getByRole('group', { name: 'Image upload' }).evaluate(async (zone, data) => {
    const dom = globalThis as unknown as {
      DataTransfer: new () => { items: { add(f: unknown): void } };
      File: new (parts: unknown[], name: string, o: { type: string }) => unknown;
      DragEvent: new (t: string, o: unknown) => unknown;
      Uint8Array: typeof Uint8Array;
      atob(s: string): string;
    };
    const raw = dom.atob(data);
    const array = new dom.Uint8Array(raw.length);
    for (let i = 0; i < raw.length; i += 1) array[i] = raw.charCodeAt(i);
    const transfer = new dom.DataTransfer();
    transfer.items.add(new dom.File([array], 'Café 写真 🌅.png', { type: 'image/png' }));
    for (const type of ['dragenter', 'dragover', 'drop'])
      (zone as unknown as { dispatchEvent(e: unknown): void }).dispatchEvent(
        new dom.DragEvent(type, { dataTransfer: transfer, bubbles: true, cancelable: true }),
      );
  }, bytes);
  await expect
    .poll(async () =>
      (await bridgeLog(page))
        .filter((r) => r.kind === 'call' && r.name === 'upload.image')
        .map((r) => r.text)
        .join('\n'),
    )
    .toContain('Café 写真 🌅.png');
  // The window's "drop a workflow" overlay, raised by the drag, is gone once the input took the drop.
  await expect(page.getByText('Drop a workflow (.json) or an image that carries one')).toHaveCount(0);

  // The images already on the server, with thumbnails read through main.
  await group.getByRole('button', { name: 'Browse server images' }).click();
  const picker = group.getByRole('group', { name: 'Images on the server' });
  await expect(picker).toBeVisible();
  const choices = picker.getByRole('button');
  await expect(choices.first()).toBeVisible();
  const thumb = picker.getByRole('img').first();
  await expect.poll(() => thumb.evaluate((img) => (img as unknown as { naturalWidth?: number }).naturalWidth ?? 0)).toBeGreaterThan(0);
  await page.screenshot({ path: 'screenshots/form-image-picker-1280x800.png' });
  const name = (await choices.first().getAttribute('title')) ?? '';
  await choices.first().click();
  await expect(image).toHaveValue(name);
  await expect(picker).toBeHidden();

  // Another workflow with a node of the same id shows nothing of the previous choice.
  await openWorkflow(page, { name: 'invert-copy.json', text: readFileSync(INVERT, 'utf8') });
  await expect(page.getByText('Open: invert-copy.json')).toBeVisible();
  await expect(field(page, '1 LoadImage', 'image')).toHaveValue('example.png');
  await expect(page.getByRole('group', { name: '1 LoadImage' }).getByRole('img', { name: /^Thumbnail of / })).toHaveCount(0);
  await expect(page.getByRole('group', { name: '1 LoadImage' }).getByLabel('Upload image')).toHaveValue('');

  // The hashed value coming back later (a draft, Reuse parameters), even after a restart of the
  // window, is still shown under an original name: the cloud keeps one file for the same bytes,
  // and the dropped copy of example.png was the last to name it.
  await page.reload();
  await waitConnected(page);
  await openWorkflow(page, INVERT);
  const again = field(page, '1 LoadImage', 'image');
  await again.selectOption(uploaded);
  await expect(again.locator('option:checked')).toHaveText('Café 写真 🌅.png');
  await expect(page.getByRole('group', { name: '1 LoadImage' }).getByTitle(`On the server as ${uploaded}`).last()).toHaveText('Café 写真 🌅.png');
});
