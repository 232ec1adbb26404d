// Chromium for the benchmarks that drive the real renderer: Debian's Chromium when present (the
// machine cannot download Playwright's), quiet background features off, and pages prepared for
// functions passed to evaluate() from files that tsx compiled.
import { existsSync } from 'node:fs';
import { chromium, type Browser, type Page } from '@playwright/test';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const QUIET = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];

export function launchBenchBrowser(extraArgs: readonly string[] = []): Promise<Browser> {
  return chromium.launch({ ...(existsSync(CHROMIUM) ? { executablePath: CHROMIUM } : {}), args: [...QUIET, ...extraArgs] });
}

/** A 1280x900 page that reports page errors and has the __name helper evaluate()'d functions need. */
export async function newBenchPage(browser: Browser): Promise<Page> {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  page.on('pageerror', (e) => console.error('[page error]', e.message));
  // tsx compiles with esbuild's keepNames: functions handed to evaluate() (and the harness's bridge
  // source when the harness itself runs through tsx) call a __name helper the page lacks.
  await page.addInitScript(() => {
    (globalThis as unknown as { __name: (f: unknown) => unknown }).__name = (f) => f;
  });
  return page;
}
