// `npm run screenshots`: starts the BUILT browser harness (out/main/harness.js, so run
// `npm run build` first) on its demo service with a fresh data folder, and saves a PNG of each
// view at 1280×800 and 800×600, in dark and light, into screenshots/ (ignored by git). Uses
// Debian's Chromium (CHROMIUM_PATH to change it), like the e2e specs. FLOWDECK_SHOTS=pool takes
// only the pool's shots, FLOWDECK_SHOTS=app only the app's, FLOWDECK_SHOTS=fields only the form
// widgets', FLOWDECK_SHOTS=templates only the gallery's (quicker when only those changed).
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { chromium } from '@playwright/test';
import { PNG } from 'pngjs';
import { shootFields } from './screenshots-fields.mjs';

const ROOT = resolve(import.meta.dirname, '..');
const ENTRY = join(ROOT, 'out/main/harness.js');
const OUT = join(ROOT, 'screenshots');
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const SIZES = [
  { name: '1280x800', width: 1280, height: 800 },
  { name: '800x600', width: 800, height: 600 },
];
const THEMES = ['dark', 'light'];

if (!existsSync(ENTRY)) {
  console.error(`${ENTRY} is missing: run \`npm run build\` first.`);
  process.exit(2);
}

/** Starts the harness (with `args`); resolves with its address line and a stop function. */
function startHarness(args = ['--demo-time-scale', '0.05']) {
  const dataDir = mkdtempSync(join(tmpdir(), 'flowdeck-shots-'));
  const child = spawn(process.execPath, [ENTRY, ...args], {
    cwd: ROOT,
    env: { ...process.env, FLOWDECK_DATA_DIR: dataDir },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk) => (stderr += chunk));
  const exited = new Promise((done) => child.once('exit', done));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      await Promise.race([exited, new Promise((done) => setTimeout(done, 5000))]);
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
    rmSync(dataDir, { recursive: true, force: true });
  };
  const url = new Promise((done, fail) => {
    let out = '';
    const timer = setTimeout(() => fail(new Error(`The harness printed no address within 30 s.\n${stderr}`)), 30_000);
    child.stdout.setEncoding('utf8').on('data', (chunk) => {
      out += chunk;
      const newline = out.indexOf('\n');
      if (newline >= 0) {
        clearTimeout(timer);
        done(out.slice(0, newline).trim());
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      fail(new Error(`The harness exited (${code}) before printing its address.\n${stderr}`));
    });
  });
  // A harness stopped before it printed its address rejects `url`; nobody waits for it then.
  url.catch(() => undefined);
  return { url, stop };
}

async function go(page, view) {
  await page.evaluate((hash) => (location.hash = hash), `#/${view}`);
  const label = view === 'hot-folders' ? 'Hot folders' : view[0].toUpperCase() + view.slice(1);
  // The Queue link counts the waiting jobs ("Queue, 3 waiting").
  await page.getByRole('link', { name: new RegExp(`^${label}(, \\d+ waiting)?$`) }).waitFor();
  // Each view from its top (a click on the sticky Run bar scrolls the page to the form's end).
  await page.evaluate(() => document.querySelectorAll('main, .side').forEach((el) => el.scrollTo(0, 0)));
  await page.waitForTimeout(400);
}

/** A small PNG of one shade. */
function shadePng(shade) {
  const png = new PNG({ width: 16, height: 12 });
  for (let i = 0; i < png.data.length; i += 4) png.data.set([shade, 255 - shade, 120, 255], i);
  return PNG.sync.write(png);
}

/** Calls the app core from the page (the harness's bridge); throws on a failed call. */
async function invoke(page, name, input) {
  const answer = await page.evaluate(([n, i]) => window.flowdeck.invoke(n, i), [name, input]);
  if (!answer.ok) throw new Error(`${name}: ${answer.error.message}`);
  return answer.value;
}

/** A page on `harness`, connected to its demo service. */
async function connectedPage(browser, harness) {
  const page = await browser.newPage({ viewport: SIZES[0] });
  page.on('pageerror', (error) => console.error(`page error: ${error.message}`));
  await page.goto(await harness.url);
  await page
    .getByRole('status', { name: 'Connection' })
    .filter({ hasText: /Connected/ })
    .waitFor({ timeout: 30_000 });
  return page;
}

/**
 * The form as an app (issue 21): a UI file from disk with its own app (extra.linearData: two
 * inputs, one of its two outputs), one input pinned since (so "Save app" is offered), after a run
 * (the stage shows the listed output, "All outputs" the rest); and a hot folder's dialog offering
 * the app of its workflow.
 */
async function shootApp(browser, shoot) {
  const harness = startHarness();
  const work = mkdtempSync(join(tmpdir(), 'flowdeck-shots-app-'));
  try {
    const page = await connectedPage(browser, harness);
    const graph = JSON.parse(readFileSync(join(ROOT, 'tests/fixtures/ui-demo-sampler.json'), 'utf8'));
    graph.nodes[0].outputs[0].links = [1, 2];
    graph.nodes[0].widgets_values[0] = 'a lighthouse on a cliff at dusk, oil painting';
    graph.nodes.push({
      ...graph.nodes[1],
      id: 10,
      pos: [420, 360],
      inputs: [{ name: 'images', type: 'IMAGE', link: 2 }],
      title: 'Save Chosen',
      widgets_values: ['Chosen'],
    });
    graph.links.push([2, 3, 0, 10, 0, 'IMAGE']);
    graph.extra = {
      linearMode: true,
      linearData: {
        inputs: [
          [3, 'prompt', {}],
          [3, 'seed', {}],
          [3, 'steps', {}],
        ],
        outputs: [10],
      },
    };
    const file = join(work, 'lighthouse.app.json');
    writeFileSync(file, `${JSON.stringify(graph, null, 2)}\n`);
    await invoke(page, 'workflow.open', { path: file });
    await page.reload();
    await go(page, 'run');
    await page.getByRole('navigation', { name: 'Recent workflows' }).getByRole('button', { name: 'lighthouse.app.json' }).click();
    await page.getByRole('switch', { name: 'All inputs' }).check();
    await page.getByRole('button', { name: 'Pin cfg of node 3 to the app' }).click();
    await page.getByRole('switch', { name: 'All inputs' }).uncheck();
    await page.getByRole('button', { name: 'Run', exact: true }).click();
    await page
      .getByRole('region', { name: 'Result' })
      .getByRole('img', { name: /^Result Chosen/ })
      .waitFor({ timeout: 60_000 });
    const inpaint = join(work, 'inpaint.json');
    writeFileSync(inpaint, readFileSync(join(ROOT, 'resources/workflows/inpaint-with-mask.json')));
    for (const size of SIZES) {
      await page.setViewportSize(size);
      for (const theme of THEMES) {
        await page.emulateMedia({ colorScheme: theme });
        await go(page, 'run');
        await shoot(page, 'run-app', size, theme);
        await go(page, 'hot-folders');
        await page.getByRole('button', { name: 'Add hot folder' }).click();
        const dialog = page.getByRole('dialog', { name: 'Add hot folder' });
        await dialog.getByLabel('Workflow file', { exact: true }).fill(inpaint);
        await dialog.getByRole('button', { name: 'Load workflow' }).click();
        await dialog.getByRole('group', { name: 'App inputs' }).getByLabel('Seed', { exact: true }).waitFor();
        await dialog.getByRole('group', { name: 'App inputs' }).evaluate((el) => el.scrollIntoView({ block: 'center' }));
        await page.waitForTimeout(200);
        await shoot(page, 'dialog-hot-folder-app', size, theme);
        await page.keyboard.press('Escape');
      }
    }
    await page.close();
  } finally {
    await harness.stop();
    rmSync(work, { recursive: true, force: true });
  }
}

/**
 * The pool: a second harness with another demo service ("GPU 2", local) beside the built-in one,
 * both made the pool; a hot folder running on it (jobs slow enough to be seen running), the
 * Servers view with the pool, the hot folder form's "Run on", the files with their servers, the
 * Queue's per-server columns, and the Run form's "Run on" with a repeated run on the pool.
 */
async function shootPool(browser, shoot) {
  const harness = startHarness(['--demo-time-scale', '1', '--local-demo', 'GPU 2']);
  const work = mkdtempSync(join(tmpdir(), 'flowdeck-shots-pool-'));
  try {
    const page = await connectedPage(browser, harness);
    const { profiles } = await invoke(page, 'profiles.list');
    const idOf = (name) => profiles.find((p) => p.name === name).id;
    await invoke(page, 'pool.save', {
      servers: [
        { profileId: idOf('Demo'), concurrency: 1 },
        { profileId: idOf('GPU 2'), concurrency: 2 },
      ],
    });
    // An image through an inverter, and a slow sampler beside it so each job runs for a while.
    const workflow = {
      1: { class_type: 'LoadImage', inputs: { image: 'example.png' } },
      2: { class_type: 'ImageInvert', inputs: { image: ['1', 0] } },
      3: { class_type: 'SaveImage', inputs: { images: ['2', 0], filename_prefix: 'pool' } },
      4: {
        class_type: 'DemoSampler',
        inputs: { prompt: 'scan', seed: 1, steps: 20, width: 64, height: 64, cfg: 7, sampler_name: 'euler', delay_ms: 400, fail_at_step: 0 },
      },
      5: { class_type: 'SaveImage', inputs: { images: ['4', 0], filename_prefix: 'pool' } },
    };
    const inputDir = join(work, 'scans');
    mkdirSync(inputDir, { recursive: true });
    await invoke(page, 'hotFolders.save', {
      name: 'Scans',
      inputDir,
      outputDir: join(work, 'out'),
      workflowJson: JSON.stringify(workflow),
      workflowName: 'invert-and-sample.json',
      bind: '1.image',
      settleMs: 100,
      runOn: 'pool',
    });
    for (let i = 0; i < 10; i += 1) writeFileSync(join(inputDir, `scan-${String(i + 1).padStart(2, '0')}.png`), shadePng(20 * i));
    await page.reload();
    await page
      .getByRole('status', { name: 'Connection' })
      .filter({ hasText: /Connected/ })
      .waitFor({ timeout: 30_000 });
    // Wait until both servers have taken files (each job runs about 8 s: most are still to come).
    await go(page, 'hot-folders');
    const table = page.getByRole('table', { name: 'Files of Scans' });
    await table.getByRole('cell', { name: 'GPU 2', exact: true }).first().waitFor({ timeout: 60_000 });
    await table.getByRole('cell', { name: 'done', exact: true }).first().waitFor({ timeout: 60_000 });
    // The Run form: the sample, repeated twice on the pool (its cards beside the hot folder's).
    await go(page, 'run');
    await page.getByRole('button', { name: 'Open sample: Text to image' }).click();
    await page.getByRole('spinbutton', { name: 'Repeat' }).fill('2');
    await page.getByRole('group', { name: 'Run on' }).getByRole('radio', { name: 'Pool' }).check();
    await page.getByRole('button', { name: 'Run', exact: true }).click();
    await page.getByRole('region', { name: 'Jobs' }).getByRole('article').filter({ hasText: 'from this window' }).nth(1).waitFor({ timeout: 30_000 });
    for (const size of SIZES) {
      await page.setViewportSize(size);
      for (const theme of THEMES) {
        await page.emulateMedia({ colorScheme: theme });
        await go(page, 'hot-folders');
        await shoot(page, 'hot-folders-pool', size, theme);
        // Remove asks first, saying what becomes of the files under way; "Keep it" keeps the folder.
        const card = page.getByRole('article').filter({ has: page.getByRole('heading', { name: 'Scans' }) });
        await card.getByRole('button', { name: 'Remove', exact: true }).click();
        await card.getByRole('button', { name: 'Remove hot folder' }).scrollIntoViewIfNeeded();
        await shoot(page, 'hot-folders-remove-confirm', size, theme);
        await card.getByRole('button', { name: 'Keep it' }).click();
        await go(page, 'queue');
        await page.getByRole('region', { name: 'GPU 2', exact: true }).waitFor();
        await page.waitForTimeout(300);
        await shoot(page, 'queue-pool', size, theme);
        await go(page, 'servers');
        // Down to the panel's note, below the list: the status bar must not hide it.
        await page.getByText("A server that tells its account's limit").evaluate((el) => el.scrollIntoView({ block: 'center' }));
        await shoot(page, 'servers-pool', size, theme);
        await go(page, 'hot-folders');
        await page.getByRole('button', { name: 'Add hot folder' }).click();
        const dialog = page.getByRole('dialog', { name: 'Add hot folder' });
        await dialog.getByRole('radio', { name: /^Pool/ }).check();
        await dialog.getByRole('group', { name: 'Run on' }).evaluate((el) => el.scrollIntoView({ block: 'center' }));
        await page.waitForTimeout(200);
        await shoot(page, 'dialog-hot-folder-run-on', size, theme);
        await page.keyboard.press('Escape');
        await go(page, 'run');
        await page.getByRole('group', { name: 'Run on' }).evaluate((el) => el.scrollIntoView({ block: 'end' }));
        await page.waitForTimeout(200);
        await shoot(page, 'run-pool', size, theme);
      }
    }
    await page.close();
  } finally {
    await harness.stop();
    rmSync(work, { recursive: true, force: true });
  }
}

/** The template gallery ("New from template", issue 21) with its thumbnails, in every size and theme. */
async function shootTemplates(page, shoot) {
  for (const size of SIZES) {
    await page.setViewportSize(size);
    for (const theme of THEMES) {
      await page.emulateMedia({ colorScheme: theme });
      await go(page, 'run');
      await page.getByRole('button', { name: 'New from template' }).click();
      const dialog = page.getByRole('dialog', { name: 'Templates' });
      await dialog.getByRole('list', { name: 'Templates' }).waitFor();
      await page.waitForFunction(() => [...document.querySelectorAll('dialog[open] .card img')].filter((img) => img.complete).length >= 4);
      await page.waitForTimeout(200);
      await shoot('dialog-templates', size, theme);
      await page.keyboard.press('Escape');
      await dialog.waitFor({ state: 'detached' });
    }
  }
}

async function main() {
  mkdirSync(OUT, { recursive: true });
  const harness = startHarness();
  const browser = await chromium.launch({
    ...(existsSync(CHROMIUM) ? { executablePath: CHROMIUM } : {}),
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
  let saved = 0;
  try {
    const url = await harness.url;
    const page = await browser.newPage({ viewport: SIZES[0] });
    await page.goto(url);
    page.on('pageerror', (error) => console.error(`page error: ${error.message}`));
    await page
      .getByRole('status', { name: 'Connection' })
      .filter({ hasText: /Connected/ })
      .waitFor({ timeout: 30_000 })
      .catch(async (error) => {
        await page.screenshot({ path: join(OUT, 'failed-to-connect.png') });
        throw error;
      });

    const shootOn = async (target, name, size, theme) => {
      await target.screenshot({ path: join(OUT, `${name}-${size.name}-${theme}.png`) });
      saved += 1;
    };
    const shoot = (name, size, theme) => shootOn(page, name, size, theme);
    const fieldsContext = { startHarness, invoke, sizes: SIZES, themes: THEMES, root: ROOT };
    if (process.env.FLOWDECK_SHOTS === 'fields') {
      await shootFields(browser, shootOn, fieldsContext);
      console.log(`${saved} screenshots in ${OUT}`);
      return;
    }
    if (process.env.FLOWDECK_SHOTS === 'pool') {
      await shootPool(browser, shootOn);
      console.log(`${saved} screenshots in ${OUT}`);
      return;
    }
    if (process.env.FLOWDECK_SHOTS === 'app') {
      await shootApp(browser, shootOn);
      console.log(`${saved} screenshots in ${OUT}`);
      return;
    }
    if (process.env.FLOWDECK_SHOTS === 'templates') {
      await shootTemplates(page, shoot);
      console.log(`${saved} screenshots in ${OUT}`);
      return;
    }

    // The empty Run view first, in every size and theme.
    for (const size of SIZES) {
      await page.setViewportSize(size);
      for (const theme of THEMES) {
        await page.emulateMedia({ colorScheme: theme });
        await go(page, 'run');
        await shoot('run-empty', size, theme);
      }
    }
    await shootTemplates(page, shoot);

    // A finished job: the sample workflow, run once.
    await page.setViewportSize(SIZES[0]);
    await page.getByRole('button', { name: 'Open sample: Text to image' }).click();
    await page.getByRole('button', { name: 'Run', exact: true }).click();
    await page.getByText('Status: done').first().waitFor({ timeout: 60_000 });

    for (const size of SIZES) {
      await page.setViewportSize(size);
      for (const theme of THEMES) {
        await page.emulateMedia({ colorScheme: theme });
        await go(page, 'run');
        await shoot('run-job', size, theme);
        for (const view of ['queue', 'history', 'library', 'hot-folders', 'servers']) {
          await go(page, view);
          await shoot(view, size, theme);
        }
        await go(page, 'servers');
        await page.getByRole('button', { name: 'Add server' }).click();
        await page.getByRole('dialog', { name: 'Add server' }).waitFor();
        await page.waitForTimeout(200);
        await shoot('dialog-add-server', size, theme);
        await page.keyboard.press('Escape');
        await go(page, 'run');
        await page.keyboard.press('?');
        await page.getByRole('dialog', { name: 'Keyboard shortcuts' }).waitFor();
        await shoot('dialog-shortcuts', size, theme);
        await page.keyboard.press('Escape');
        // The image viewer, opened from the finished job's output thumbnail.
        await page
          .getByRole('region', { name: 'Jobs' })
          .getByRole('img', { name: /^Output / })
          .first()
          .click();
        await page.getByRole('dialog', { name: 'Image viewer' }).waitFor();
        await page.waitForTimeout(300);
        await shoot('dialog-image-viewer', size, theme);
        await page.keyboard.press('Escape');
      }
    }
    // A repeated run in flight: the stage with the running job's preview, the Jobs with the runs
    // as one group, the Queue with the waiting ones (issue 21). Slow steps, then everything stopped.
    await page.setViewportSize(SIZES[0]);
    await go(page, 'run');
    await page.getByRole('switch', { name: 'All inputs' }).check();
    await page.getByRole('group', { name: '3 DemoSampler' }).getByLabel('delay_ms', { exact: true }).fill('10000');
    await page.getByRole('switch', { name: 'All inputs' }).uncheck();
    await page.getByLabel('Repeat', { exact: true }).fill('3');
    await page.getByRole('button', { name: 'Run', exact: true }).click();
    await page
      .getByRole('region', { name: 'Jobs' })
      .getByRole('button', { name: /^Show the \d+ runs$/ })
      .waitFor({ timeout: 30_000 });
    await page.getByRole('region', { name: 'Result' }).getByRole('img', { name: 'Live preview' }).waitFor({ timeout: 30_000 });
    for (const size of SIZES) {
      await page.setViewportSize(size);
      for (const theme of THEMES) {
        await page.emulateMedia({ colorScheme: theme });
        await go(page, 'run');
        await page.waitForTimeout(300);
        await shoot('run-repeat', size, theme);
        await go(page, 'queue');
        await shoot('queue-waiting', size, theme);
      }
    }
    await go(page, 'queue');
    await page.getByRole('button', { name: 'Clear pending' }).click();
    await page.getByRole('button', { name: 'Interrupt' }).click();
    await page
      .getByRole('group', { name: /^Running/ })
      .getByRole('checkbox')
      .waitFor({ state: 'detached', timeout: 30_000 });
    await shootApp(browser, shootOn);
    await shootFields(browser, shootOn, fieldsContext);
    await shootPool(browser, shootOn);
  } finally {
    await browser.close();
    await harness.stop();
  }
  console.log(`${saved} screenshots in ${OUT}`);
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
