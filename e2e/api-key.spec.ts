// The API key: a wrong key leads the user to the key field with the server's message, and the key
// typed into the page never comes back to it (no call result, event, DOM text, storage or
// console line contains it). Also: the connection test, and removing a key.
import { test, expect } from './fixtures/index';
import { bridgeLog, openWorkflow, recordBridge, runButton, textToImage, waitConnected } from './ui-helpers';

const WRONG_KEY = 'fdk-wrong-9c41d7e2b8a65f30';

test('the demo server passes the connection test', async ({ appPage: page }) => {
  await waitConnected(page);
  await page.getByRole('link', { name: 'Servers' }).click();
  await expect(page.getByRole('radio', { name: 'Demo' })).toBeChecked();
  await page.getByRole('button', { name: 'Test connection' }).click();
  const result = page.getByRole('definition');
  await expect(result).toHaveText(['yes', 'yes', /.+/, /^\d+$/]);
  expect(Number(await result.nth(3).textContent())).toBeGreaterThan(5);
});

test('a wrong key leads to the key field, and the key never reaches the page', async ({ appPage: page }) => {
  const consoleLines: string[] = [];
  page.on('console', (message) => consoleLines.push(message.text()));
  await recordBridge(page);
  await waitConnected(page);

  // A cloud profile pointing at the demo service, whose key we do not have.
  await page.getByRole('link', { name: 'Servers' }).click();
  const demoLine = await page
    .getByRole('listitem')
    .filter({ has: page.getByRole('radio', { name: 'Demo' }) })
    .textContent();
  const demoUrl = /http:\/\/127\.0\.0\.1:\d+/.exec(demoLine ?? '')?.[0];
  expect(demoUrl).toBeTruthy();
  await page.getByRole('button', { name: 'Add server' }).click();
  const dialog = page.getByRole('dialog', { name: 'Add server' });
  await dialog.getByLabel('Server name').fill('Cloud, wrong key');
  await dialog.getByLabel('Server kind').selectOption('cloud');
  await dialog.getByLabel('Server URL').fill(demoUrl!);
  // Asked for: a new cloud server is not used at once by default (it has no key yet).
  await dialog.getByLabel('Use this server now').check();
  await dialog.getByRole('button', { name: 'Save server' }).click();
  await expect(page.getByRole('radio', { name: 'Cloud, wrong key' })).toBeChecked();
  await expect(page.getByText('no key is set')).toBeVisible();

  // The key field is a password input; saving clears it and shows only the last characters.
  const keyField = page.getByLabel('API key', { exact: true });
  await expect(keyField).toHaveAttribute('type', 'password');
  await keyField.fill(WRONG_KEY);
  await page.getByRole('button', { name: 'Save key' }).click();
  await expect(page.getByText(`a key is set, ending in ${WRONG_KEY.slice(-4)}`)).toBeVisible();
  await expect(keyField).toHaveValue('');

  await page.getByRole('button', { name: 'Test connection' }).click();
  await expect(page.getByRole('term').filter({ hasText: 'Key accepted' }).locator('+ dd')).toHaveText('no');

  // Running with the wrong key: the server answers 401 and the app opens the key field.
  await openWorkflow(page, textToImage({}));
  await page.getByRole('group', { name: '3 DemoSampler' }).waitFor();
  await runButton(page).click();
  await expect(page.getByRole('link', { name: 'Servers' })).toHaveAttribute('aria-current', 'page');
  await expect(keyField).toBeFocused();
  await expect(keyField).toHaveAttribute('aria-invalid', 'true');
  await expect(keyField).toHaveAccessibleDescription(/API key/);
  await expect(page.locator('#key-prompt')).toContainText('401');

  // Removing the key.
  await page.getByRole('button', { name: 'Remove key' }).click();
  await expect(page.getByText('no key is set')).toBeVisible();

  // Nothing the page received, shows, stores or logs contains the key.
  const received = (await bridgeLog(page)).filter((r) => r.kind !== 'call');
  expect(received.length).toBeGreaterThan(10);
  expect(received.filter((r) => r.text.includes(WRONG_KEY))).toEqual([]);
  const calls = (await bridgeLog(page)).filter((r) => r.kind === 'call' && r.text.includes(WRONG_KEY)).map((r) => r.name);
  // The one place it travels is the page's own request to store it.
  expect(calls).toEqual(['key.save']);
  const pageText = await page.evaluate(() => {
    const doc = (globalThis as unknown as { document: { documentElement: { outerHTML: string }; querySelectorAll(s: string): ArrayLike<{ value: string }> } })
      .document;
    const values = Array.from(doc.querySelectorAll('input, textarea, select'), (el) => el.value);
    return [doc.documentElement.outerHTML, ...values].join('\n');
  });
  expect(pageText).not.toContain(WRONG_KEY);
  const storage = await page.evaluate(() => {
    const web = globalThis as unknown as { localStorage: Record<string, string>; sessionStorage: Record<string, string> };
    return JSON.stringify([{ ...web.localStorage }, { ...web.sessionStorage }]);
  });
  expect(storage).not.toContain(WRONG_KEY);
  expect(consoleLines.filter((line) => line.includes(WRONG_KEY))).toEqual([]);
});
