// Helpers shared by the UI specs: finding the form's inputs the way a screen reader names them,
// opening workflows through the real file picker, and reading the live job card.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, type Locator, type Page } from '@playwright/test';
import { ROOT } from './fixtures/harness';

export const TEXT_TO_IMAGE = join(ROOT, 'resources/workflows/text-to-image.json');

/**
 * Opens a workflow file through "Open workflow" and the browser's file chooser, and waits until
 * the app has read it: the file is read asynchronously, and until then the form still shows the
 * workflow before (often with the same node names), so a value typed at once could land there.
 */
export async function openWorkflow(page: Page, file: string | { name: string; text: string }): Promise<void> {
  await page.getByRole('link', { name: 'Run', exact: true }).click();
  const chooser = page.waitForEvent('filechooser');
  const button = page.getByRole('button', { name: 'Open workflow' });
  await button.click();
  const files = typeof file === 'string' ? file : { name: file.name, mimeType: 'application/json', buffer: Buffer.from(file.text) };
  await (await chooser).setFiles(files);
  // The button is disabled from the change event until the file is read and shown (RunStore.opening).
  await expect(button).toBeEnabled({ timeout: 15_000 });
}

/** The input named `input` inside the node group named `group` (e.g. "3 DemoSampler", "seed"). */
export function field(page: Page, group: string, input: string): Locator {
  return page.getByRole('group', { name: group }).getByLabel(input, { exact: true });
}

/** The newest job card (cards are listed newest first). */
export function newestJob(page: Page): Locator {
  return page.getByRole('region', { name: 'Jobs' }).getByRole('article').first();
}

/**
 * Unfolds every repeated run in Jobs (the runs of one "Repeat" are one folded group), waiting
 * for the first group to form, so each run's card is listed.
 */
export async function unfoldRuns(page: Page): Promise<void> {
  const unfold = page.getByRole('region', { name: 'Jobs' }).getByRole('button', { name: /^Show the \d+ runs$/ });
  await expect(unfold.first()).toBeVisible({ timeout: 15_000 });
  while ((await unfold.count()) > 0) await unfold.first().click();
}

export function runButton(page: Page): Locator {
  return page.getByRole('button', { name: 'Run', exact: true });
}

/** Runs the open workflow and waits for its job to finish; returns the new job's card. */
export async function runOpenWorkflow(page: Page): Promise<Locator> {
  const cards = page.getByRole('region', { name: 'Jobs' }).getByRole('article');
  const before = await cards.count();
  await runButton(page).click();
  // The new job's card, not the previous one still on top.
  await expect(cards).toHaveCount(before + 1, { timeout: 15_000 });
  const card = newestJob(page);
  await expect(card.getByText('Status: done')).toBeVisible({ timeout: 30_000 });
  return card;
}

/** Waits until the active server is connected (the indicator is always in the header). */
export async function waitConnected(page: Page): Promise<void> {
  await expect(page.getByRole('status', { name: 'Connection' })).toHaveText(/Connected/, { timeout: 20_000 });
}

/** The text-to-image workflow with some inputs replaced (node 3 is the DemoSampler). */
export function textToImage(overrides: Record<string, unknown>): { name: string; text: string } {
  const workflow = JSON.parse(readFileSync(TEXT_TO_IMAGE, 'utf8')) as Record<string, { inputs: Record<string, unknown> }>;
  Object.assign(workflow['3']!.inputs, overrides);
  return { name: 'slow-text-to-image.json', text: JSON.stringify(workflow) };
}

// The project's Node type check has no DOM library: the few page objects used are described here.
/** The live preview's canvas (drawable like an image). */
interface PageImage {
  width: number;
  height: number;
}
interface PageDocument {
  createElement(tag: 'canvas'): {
    width: number;
    height: number;
    getContext(kind: '2d'): {
      drawImage(image: PageImage, x: number, y: number, w: number, h: number): void;
      getImageData(x: number, y: number, w: number, h: number): { data: ArrayLike<number> & Iterable<number> };
    } | null;
  };
}

/** Reads a property of the element a locator points at (value of a <progress>, naturalWidth of an <img>). */
export function property(locator: Locator, name: 'value' | 'naturalWidth', timeout = 5000): Promise<number> {
  return locator.evaluate((el, key) => Number((el as unknown as Record<string, unknown>)[key]), name, { timeout });
}

/**
 * A fingerprint of what the live preview shows right now: its size and a hash of its pixels,
 * drawn small onto a canvas. The preview is a canvas named "Live preview" (role img). Null while
 * no frame is drawn on it.
 */
export function previewFingerprint(card: Locator): Promise<string | null> {
  return card.evaluate((root) => {
    const preview = root.querySelector('[role="img"][aria-label="Live preview"]') as PageImage | null;
    if (!preview || preview.width === 0) return null;
    const canvas = (root.ownerDocument as unknown as PageDocument).createElement('canvas');
    canvas.width = 24;
    canvas.height = 24;
    const context = canvas.getContext('2d');
    if (!context) return null;
    context.drawImage(preview, 0, 0, 24, 24);
    const pixels = context.getImageData(0, 0, 24, 24).data;
    // Not drawn yet: fully transparent.
    if (![...pixels].some((byte) => byte !== 0)) return null;
    let hash = 2166136261;
    for (const byte of pixels) hash = Math.imul(hash ^ byte, 16777619) >>> 0;
    return `${preview.width}x${preview.height} ${hash.toString(16)}`;
  });
}

/** One thing the page saw through window.flowdeck, serialised (bytes as Latin-1 text, bigint as digits). */
export interface BridgeRecord {
  kind: 'call' | 'result' | 'event';
  name: string;
  text: string;
}

/**
 * Wraps window.flowdeck as the harness installs it, so every call, result and event the page sees
 * is recorded in window.__bridgeLog, and a call named in window.__bridgeOverrides answers that
 * envelope instead of reaching the app (see overrideCall). Takes effect on the next navigation
 * (this reloads the page).
 */
export async function recordBridge(page: Page): Promise<void> {
  await page.addInitScript(() => {
    const log: { kind: string; name: string; text: string }[] = [];
    const overrides: Record<string, unknown> = {};
    (window as unknown as { __bridgeLog: typeof log; __bridgeOverrides: typeof overrides }).__bridgeLog = log;
    (window as unknown as { __bridgeOverrides: typeof overrides }).__bridgeOverrides = overrides;
    const serialise = (value: unknown): string =>
      JSON.stringify(value, (_key, item: unknown) => {
        if (typeof item === 'bigint') return item.toString();
        if (item instanceof Uint8Array) {
          let text = '';
          for (let i = 0; i < item.length; i += 0x8000) text += String.fromCharCode(...item.subarray(i, i + 0x8000));
          return text;
        }
        return item;
      }) ?? 'undefined';
    const define = Object.defineProperty;
    Object.defineProperty = function <T>(target: T, key: PropertyKey, descriptor: PropertyDescriptor & ThisType<unknown>): T {
      if (target === (window as unknown) && key === 'flowdeck' && descriptor.value) {
        const api = descriptor.value as {
          invoke: (name: string, input?: unknown) => Promise<unknown>;
          on: (name: string, listener: (payload: unknown) => unknown) => () => void;
        };
        const wrapped = Object.freeze({
          invoke: (name: string, input?: unknown) => {
            log.push({ kind: 'call', name, text: serialise(input) });
            const answer = name in overrides ? Promise.resolve(overrides[name]) : api.invoke(name, input);
            return answer.then((result) => {
              log.push({ kind: 'result', name, text: serialise(result) });
              return result;
            });
          },
          on: (name: string, listener: (payload: unknown) => unknown) =>
            api.on(name, (payload) => {
              log.push({ kind: 'event', name, text: serialise(payload) });
              return listener(payload);
            }),
        });
        return define.call(Object, target, key, { ...descriptor, value: wrapped }) as T;
      }
      return define.call(Object, target, key, descriptor) as T;
    } as typeof Object.defineProperty;
  });
  await page.reload();
  await page.waitForFunction(() => typeof window.flowdeck === 'object');
}

export function bridgeLog(page: Page): Promise<BridgeRecord[]> {
  return page.evaluate(() => (window as unknown as { __bridgeLog: BridgeRecord[] }).__bridgeLog.slice());
}

/** Makes the call `name` answer `envelope` (needs recordBridge first). */
export async function overrideCall(
  page: Page,
  name: string,
  envelope: { ok: false; error: { code: string; message: string; details?: unknown } },
): Promise<void> {
  await page.evaluate(
    ([call, answer]) => {
      (window as unknown as { __bridgeOverrides: Record<string, unknown> }).__bridgeOverrides[call as string] = answer;
    },
    [name, envelope] as const,
  );
}
