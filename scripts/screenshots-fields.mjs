// The form's own widgets for `npm run screenshots` (issue 21): the model picker open, and an image
// input after "Save mask" (its thumbnail showing the painted area taken out). The demo service
// has no model loaders, so a small proxy in front of a local demo service adds the editor's
// CheckpointLoaderSimple and LoraLoader to its node definitions and passes everything else
// through (HTTP and the event socket) untouched.
import { createServer, request } from 'node:http';
import { connect } from 'node:net';
import { join } from 'node:path';
import { loaderDefinition } from './model-loaders.mjs';

const CHECKPOINTS = [
  'v1-5-pruned-emaonly.safetensors',
  'SDXL/sd_xl_base_1.0.safetensors',
  'SDXL/sd_xl_refiner_1.0.safetensors',
  'SDXL/juggernautXL_v9.safetensors',
  'SDXL/dreamshaperXL_turbo.safetensors',
  'SD15/dreamshaper_8.safetensors',
  'SD15/realisticVision_v51.safetensors',
  'Flux/flux1-dev-fp8.safetensors',
  'Flux/flux1-schnell.safetensors',
];
const LORAS = ['add_detail.safetensors', 'styles/pixel-art-xl.safetensors', 'styles/watercolor_v2.safetensors', 'people/detail_eyes.safetensors'];

const LOADERS = {
  CheckpointLoaderSimple: loaderDefinition(
    'CheckpointLoaderSimple',
    'Load Checkpoint',
    { ckpt_name: [CHECKPOINTS, { tooltip: 'The checkpoint (model) to load.' }] },
    ['MODEL', 'CLIP', 'VAE'],
  ),
  LoraLoader: loaderDefinition('LoraLoader', 'Load LoRA', { model: ['MODEL', {}], clip: ['CLIP', {}], lora_name: [LORAS, {}] }, ['MODEL', 'CLIP']),
};

/** Starts the proxy in front of `target` (http://host:port); resolves with its URL and a stop function. */
async function startModelProxy(target) {
  const upstream = new URL(target);
  const server = createServer((req, res) => {
    const forward = request(
      { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: { ...req.headers, host: upstream.host } },
      (answer) => {
        const definitions = req.method === 'GET' && /\/object_info$/.test(new URL(req.url, target).pathname) && answer.statusCode === 200;
        if (!definitions) {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
          return;
        }
        const chunks = [];
        answer.on('data', (chunk) => chunks.push(chunk));
        answer.on('end', () => {
          const body = JSON.stringify({ ...JSON.parse(Buffer.concat(chunks).toString('utf8')), ...LOADERS });
          res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
          res.end(body);
        });
      },
    );
    forward.on('error', () => res.destroy());
    req.pipe(forward);
  });
  // The event socket: the upgrade request replayed to the demo service, then bytes both ways.
  server.on('upgrade', (req, socket, head) => {
    const up = connect(Number(upstream.port), upstream.hostname, () => {
      const lines = [`${req.method} ${req.url} HTTP/1.1`];
      for (let i = 0; i < req.rawHeaders.length; i += 2) lines.push(`${req.rawHeaders[i]}: ${req.rawHeaders[i + 1]}`);
      up.write(`${lines.join('\r\n')}\r\n\r\n`);
      if (head.length > 0) up.write(head);
      socket.pipe(up).pipe(socket);
    });
    const close = () => {
      up.destroy();
      socket.destroy();
    };
    up.on('error', close);
    socket.on('error', close);
  });
  // Every socket, upgraded ones included: close() waits for open connections, and the core keeps
  // its event socket (an upgrade, no longer the server's to close) open until it is told to stop.
  const sockets = new Set();
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise((done) => server.listen(0, '127.0.0.1', done));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    stop: () => {
      const closed = new Promise((done) => server.close(done));
      for (const socket of sockets) socket.destroy();
      return closed;
    },
  };
}

const WORKFLOW = {
  4: { class_type: 'CheckpointLoaderSimple', inputs: { ckpt_name: 'SDXL/sd_xl_base_1.0.safetensors' } },
  10: { class_type: 'LoraLoader', inputs: { model: ['4', 0], clip: ['4', 1], lora_name: 'styles/watercolor_v2.safetensors' } },
  1: { class_type: 'LoadImage', inputs: { image: 'example.png' } },
  2: { class_type: 'ImageInvert', inputs: { image: ['1', 0] } },
  3: {
    class_type: 'DemoSampler',
    inputs: {
      prompt: 'a lighthouse at dusk, watercolour',
      seed: 42,
      steps: 8,
      width: 512,
      height: 512,
      cfg: 7,
      sampler_name: 'euler',
      delay_ms: 0,
      fail_at_step: 0,
    },
  },
  9: { class_type: 'SaveImage', inputs: { images: ['2', 0], filename_prefix: 'fields' } },
};

/**
 * Shoots "form-model-picker" and "form-image-masked" at every size and theme, on a harness of its
 * own (`startHarness` from screenshots.mjs) with a local demo service behind the proxy.
 */
export async function shootFields(browser, shoot, { startHarness, invoke, sizes, themes, root }) {
  const harness = startHarness(['--demo-time-scale', '0.05', '--local-demo', 'Models base']);
  let proxy = null;
  try {
    const page = await browser.newPage({ viewport: sizes[0] });
    page.on('pageerror', (error) => console.error(`page error: ${error.message}`));
    await page.goto(await harness.url);
    const connected = () =>
      page
        .getByRole('status', { name: 'Connection' })
        .filter({ hasText: /Connected/ })
        .waitFor({ timeout: 30_000 });
    await connected();
    const { profiles } = await invoke(page, 'profiles.list');
    proxy = await startModelProxy(profiles.find((p) => p.name === 'Models base').baseUrl);
    await invoke(page, 'profiles.save', { name: 'Studio GPU', kind: 'local', baseUrl: proxy.url, select: true });
    await page.reload();
    await connected();

    await page.getByRole('link', { name: 'Run', exact: true }).click();
    const chooser = page.waitForEvent('filechooser');
    await page.getByRole('button', { name: 'Open workflow' }).click();
    await (await chooser).setFiles({ name: 'watercolour-lighthouse.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(WORKFLOW)) });
    const imageField = page.getByRole('group', { name: 'Image upload' });
    await imageField.getByLabel('Upload image').setInputFiles(join(root, 'resources/demo/example.png'));
    await imageField.getByRole('img', { name: /^Thumbnail of / }).waitFor();

    // A stroke across the middle, saved: the dialog closes and the thumbnail shows the mask.
    await imageField.getByRole('button', { name: 'Paint mask' }).click();
    const canvas = page.locator('canvas.overlay');
    await canvas.waitFor();
    const box = await canvas.boundingBox();
    await page.mouse.move(box.x + box.width * 0.2, box.y + box.height * 0.55);
    await page.mouse.down();
    await page.mouse.move(box.x + box.width * 0.8, box.y + box.height * 0.45, { steps: 20 });
    await page.mouse.up();
    await page.getByRole('button', { name: 'Save mask' }).click();
    await page.getByRole('dialog', { name: /Paint mask/ }).waitFor({ state: 'hidden' });
    await imageField.getByRole('img', { name: /\(masked\)$/ }).waitFor();

    for (const size of sizes) {
      await page.setViewportSize(size);
      for (const theme of themes) {
        await page.emulateMedia({ colorScheme: theme });
        await imageField.evaluate((el) => el.scrollIntoView({ block: 'center' }));
        await page.waitForTimeout(200);
        await shoot(page, 'form-image-masked', size, theme);
        const picker = page.getByRole('combobox', { name: /^(Checkpoint|ckpt_name)$/ });
        await picker.evaluate((el) => el.scrollIntoView({ block: 'start' }));
        await picker.click();
        await page.getByRole('listbox').waitFor();
        await page.waitForTimeout(200);
        await shoot(page, 'form-model-picker', size, theme);
        await page.keyboard.press('Escape');
      }
    }
    await page.close();
  } finally {
    await proxy?.stop();
    await harness.stop();
  }
}
