import { resolve } from 'node:path';
import { defineConfig } from 'electron-vite';
import { svelte } from '@sveltejs/vite-plugin-svelte';

const root = import.meta.dirname;
/** The import aliases of tsconfig.json: shared code and the main process's layers, from anywhere. */
const alias = { '@shared': resolve(root, 'src/shared'), '@main': resolve(root, 'src/main') };

export default defineConfig({
  main: {
    resolve: { alias },
    build: {
      // Plain-JS packages are bundled in: resolving and loading ~150 files of node_modules at every
      // start was ~40% of a CLI command's start-up (`flowdeck help` 0.28 -> 0.16 s of CPU bundled).
      // Native ones stay outside (sqlite3, keytar), and so do packages that find files of their own
      // beside them (trash: its macOS/Windows helpers), and chokidar.
      externalizeDeps: {
        exclude: ['zod', 'atomically', 'ws', 'lossless-json', 'pngjs', 'jpeg-js', 'busboy', 'fast-png', 'fflate', 'form-data-encoder', '@noble/hashes'],
      },
      rollupOptions: {
        // One build for every plain-Node entry point too: the CLI and the browser harness share
        // the main-process core with the app, so they are bundled from the same sources.
        // keytar is an optional dependency (a machine without libsecret still installs), which
        // electron-vite does not externalise on its own; bundling it would break its native binding.
        // sharp (thumbnails) loads its native binding from @img/sharp-<platform> beside it: named
        // here too, so it stays outside however the dependency lists change.
        external: ['keytar', 'sharp'],
        input: {
          index: resolve(root, 'src/main/index.ts'),
          cli: resolve(root, 'src/cli/index.ts'),
          harness: resolve(root, 'e2e/harness/host.ts'),
        },
      },
    },
  },
  preload: {
    resolve: { alias },
    build: {
      rollupOptions: {
        input: { index: resolve(root, 'src/preload/index.ts') },
        // A sandboxed preload cannot be an ES module.
        output: { format: 'cjs', entryFileNames: '[name].cjs' },
      },
    },
  },
  renderer: {
    root: resolve(root, 'src/renderer'),
    resolve: { alias: { '@shared': alias['@shared'] } },
    build: {
      rollupOptions: { input: { index: resolve(root, 'src/renderer/index.html') } },
    },
    plugins: [svelte({ configFile: resolve(root, 'svelte.config.js') })],
  },
});
