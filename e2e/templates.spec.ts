// "New from template" (issue 21), by accessible name: the dialog "Templates" shows the active
// server's gallery with thumbnails; the search and a category narrow the cards; the keyboard moves
// between cards and Escape closes; a chosen template opens in Run with its inputs and runs to an
// output; a server without templates says so plainly.
import type { Locator, Page } from '@playwright/test';
import { DemoService } from '../src/main/demo';
import { expect, test } from './fixtures/index';
import { field, runOpenWorkflow, waitConnected } from './ui-helpers';

let bare: DemoService;
let flaky: DemoService;

test.beforeAll(async () => {
  bare = new DemoService({ flavour: 'local', port: 0, templates: false });
  flaky = new DemoService({ flavour: 'local', port: 0 });
  await Promise.all([bare.start(), flaky.start()]);
});

test.afterAll(async () => {
  await Promise.all([bare?.stop(), flaky?.stop()]);
});

async function useLocalServer(page: Page, name: string, url: string): Promise<void> {
  await page.getByRole('link', { name: 'Servers' }).click();
  await page.getByRole('button', { name: 'Add server' }).click();
  const add = page.getByRole('dialog', { name: 'Add server' });
  await add.getByLabel('Server name').fill(name);
  await add.getByLabel('Server kind').selectOption('local');
  await add.getByLabel('Server URL').fill(url);
  await add.getByRole('button', { name: 'Save server' }).click();
  await expect(add).toBeHidden();
  await page.getByRole('radio', { name }).check();
  await waitConnected(page);
}

async function openGallery(page: Page): Promise<Locator> {
  await page.getByRole('link', { name: 'Run', exact: true }).click();
  await page.getByRole('button', { name: 'New from template' }).click();
  const dialog = page.getByRole('dialog', { name: 'Templates' });
  await expect(dialog).toBeVisible();
  return dialog;
}

function cards(dialog: Locator): Locator {
  return dialog.getByRole('list', { name: 'Templates' }).getByRole('listitem');
}

test('the gallery: thumbnails, search, categories, keyboard, and a template that opens in Run and runs', async ({ appPage: page }) => {
  await waitConnected(page);
  const dialog = await openGallery(page);

  // Every template of the demo's gallery, each with its picture.
  await expect(cards(dialog)).toHaveCount(5);
  await expect(dialog.getByRole('button', { name: 'Text to image' })).toBeVisible();
  await expect
    .poll(() => dialog.locator('.card img').evaluateAll((imgs) => imgs.filter((i) => (i as unknown as { naturalWidth: number }).naturalWidth > 0).length))
    .toBe(5);
  const src = await dialog.locator('.card img').first().getAttribute('src');
  expect(src).toMatch(/^data:image\/jpeg;base64,/);

  // The search box has the focus; it narrows the cards by title and description.
  const search = dialog.getByRole('searchbox', { name: 'Search templates' });
  await expect(search).toBeFocused();
  await search.fill('mask');
  await expect(cards(dialog)).toHaveCount(1);
  await expect(dialog.getByRole('button', { name: 'Inpaint a masked area' })).toBeVisible();
  await search.fill('no such thing');
  await expect(cards(dialog)).toHaveCount(0);
  await expect(dialog.getByText('No template matches “no such thing”')).toBeVisible();
  await dialog.getByRole('button', { name: 'Clear the search' }).click();
  await expect(cards(dialog)).toHaveCount(5);

  // A category shows its templates only.
  const editing = dialog.getByRole('tab', { name: /^Image editing/ });
  await editing.click();
  await expect(editing).toHaveAttribute('aria-selected', 'true');
  await expect(cards(dialog)).toHaveCount(3);
  await expect(dialog.getByRole('button', { name: 'Text to image' })).toHaveCount(0);
  // Arrows move between the tabs too.
  await page.keyboard.press('ArrowUp');
  await expect(dialog.getByRole('tab', { name: /^Basics/ })).toHaveAttribute('aria-selected', 'true');
  await expect(cards(dialog)).toHaveCount(2);
  await dialog.getByRole('tab', { name: /^All templates/ }).click();
  await expect(cards(dialog)).toHaveCount(5);

  // Keyboard: from the search, Down reaches the first card, Right the next; Tab stays in the dialog.
  await search.focus();
  await page.keyboard.press('ArrowDown');
  await expect(dialog.getByRole('button', { name: 'Text to image' })).toBeFocused();
  await page.keyboard.press('ArrowRight');
  await expect(dialog.getByRole('button', { name: 'Video and audio' })).toBeFocused();
  // (The modal dialog makes the page behind it inert: Tab reaches nothing outside it; past its
  // last control the focus may rest on the browser itself, the body, before it comes round.)
  for (let i = 0; i < 12; i += 1) {
    await page.keyboard.press('Tab');
    const inside = await dialog.evaluate((d) => {
      const doc = (d as unknown as { ownerDocument: { activeElement: typeof d | null; body: unknown } }).ownerDocument;
      return (doc.activeElement !== null && d.contains(doc.activeElement)) || doc.activeElement === doc.body;
    });
    expect(inside).toBe(true);
  }

  // Escape closes it, and the focus goes back to the button that opened it.
  await page.keyboard.press('Escape');
  await expect(dialog).toBeHidden();
  await expect(page.getByRole('button', { name: 'New from template' })).toBeFocused();

  // Escape closes it from the search box too, whatever was typed.
  const typed = await openGallery(page);
  await typed.getByRole('searchbox', { name: 'Search templates' }).fill('image');
  await page.keyboard.press('Escape');
  await expect(typed).toBeHidden();

  // Enter on a card opens its template in Run, with its inputs.
  const again = await openGallery(page);
  await again.getByRole('searchbox', { name: 'Search templates' }).fill('text to image');
  await expect(cards(again)).toHaveCount(1);
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('Enter');
  await expect(again).toBeHidden();
  await expect(page.getByText('text_to_image.json', { exact: true })).toBeVisible();
  await expect(field(page, '3 DemoSampler', 'prompt')).toHaveValue('a lighthouse at dusk, oil painting');
  await expect(field(page, '3 DemoSampler', 'steps')).toHaveValue('8');

  // And it runs to an output.
  const card = await runOpenWorkflow(page);
  await expect(card.getByRole('img', { name: /^Output / }).first()).toBeVisible();
});

test('a server without templates says so', async ({ appPage: page }) => {
  await waitConnected(page);
  await useLocalServer(page, 'Bare local', bare.url);

  const dialog = await openGallery(page);
  await expect(dialog.getByText('This server offers no templates')).toBeVisible();
  await expect(cards(dialog)).toHaveCount(0);
  await expect(dialog.getByRole('searchbox', { name: 'Search templates' })).toHaveCount(0);
  await expect(dialog.getByRole('button', { name: 'Close' })).toBeFocused();
  await dialog.getByRole('button', { name: 'Close' }).click();
  await expect(dialog).toBeHidden();
});

test('a gallery that cannot be read says why, and Try again reads it again', async ({ appPage: page }) => {
  await waitConnected(page);
  await useLocalServer(page, 'Flaky local', flaky.url);
  // Every attempt at both sources fails (the client retries each GET three times).
  flaky.faults.fail500(8, 'templates');
  const dialog = await openGallery(page);
  const alert = dialog.getByRole('alert');
  await expect(alert).toContainText('The templates could not be loaded', { timeout: 20_000 });
  await expect(alert).toContainText('500');
  await expect(dialog.getByRole('button', { name: 'Try again' })).toBeFocused();
  await dialog.getByRole('button', { name: 'Try again' }).click();
  // The local server's gallery and its node pack's example.
  await expect(cards(dialog)).toHaveCount(6);
  await expect(dialog.getByRole('tab', { name: /^flowdeck-demo-nodes/ })).toBeVisible();
});
