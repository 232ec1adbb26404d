// Electron composition root: the one place that wires the plain-Node app core to Electron
// (keychain secrets, settings.json, the app:// protocol, IPC, dialogs, notifications).
// Everything with logic lives in src/main/app and is tested without Electron.
import { app, type BrowserWindow, Menu } from 'electron';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { createAppCore, type AppCore, type LogLevel } from '@main/app/core';
import { createConnectFactory } from '@main/app/connect';
import { createDemoStarter } from '@main/app/demo';
import { resolveDataDir } from '@main/config/data-dir';
import { JsonSettingsStore } from '@main/config/json-settings';
import { KeytarSecretStore } from '@main/config/secrets';
import { createDesktopActions } from '@main/electron/desktop';
import { createFileDialogs } from '@main/electron/dialogs';
import { installIpcTransport } from '@main/electron/ipc-transport';
import { attachJobIndicators } from '@main/electron/job-indicators';
import { serveLibraryMediaScheme } from '@main/electron/media-protocol';
import { APP_ORIGIN, applyDevServerCsp, registerAppScheme, serveRenderer } from '@main/electron/protocol';
import { createMainWindow } from '@main/electron/window';
import { ELECTRON_MEDIA_BASE } from '@shared/library-media';

const here = import.meta.dirname;
const preload = join(here, '../preload/index.cjs');
const rendererDir = join(here, '../renderer');
// electron-vite sets this in `dev`; the built app always loads its own files.
const devUrl = !app.isPackaged && process.env.ELECTRON_RENDERER_URL ? process.env.ELECTRON_RENDERER_URL : null;

registerAppScheme();
app.enableSandbox();

const dataDir = resolveDataDir();
// Chromium's own state lives beside ours, in the one data folder.
app.setPath('userData', dataDir);

function log(level: LogLevel, message: string): void {
  // The core has already removed every key it knows from `message`.
  const line = `[flowdeck ${level}] ${message}`;
  if (level === 'error') console.error(line);
  else console.log(line);
}

let core: AppCore | null = null;
let mainWindow: BrowserWindow | null = null;

async function launch(): Promise<void> {
  serveRenderer(rendererDir);
  if (devUrl) applyDevServerCsp(devUrl);
  if (process.platform !== 'darwin') Menu.setApplicationMenu(null);
  const settings = new JsonSettingsStore(dataDir);
  const icon = join(app.getAppPath(), 'resources', 'icon.png');
  const win = createMainWindow({ preload, settings, ...(existsSync(icon) ? { icon } : {}) });
  mainWindow = win;
  const appCore = createAppCore({
    settings,
    secrets: new KeytarSecretStore(),
    dataDir,
    startDemo: createDemoStarter(),
    connect: createConnectFactory(),
    version: app.getVersion(),
    dialogs: createFileDialogs(() => mainWindow),
    desktop: createDesktopActions(),
    mediaBase: ELECTRON_MEDIA_BASE,
    log,
  });
  core = appCore;
  serveLibraryMediaScheme(appCore);
  // The transport is in place before the core starts, so no early event is lost.
  installIpcTransport(appCore, win, { devUrl });
  attachJobIndicators(appCore, win);
  win.on('closed', () => {
    mainWindow = null;
  });
  await appCore.start();
  await win.loadURL(devUrl ?? `${APP_ORIGIN}/index.html`);
}

if (!app.requestSingleInstanceLock()) {
  app.quit();
} else {
  app.on('second-instance', () => {
    if (!mainWindow) return;
    if (mainWindow.isMinimized()) mainWindow.restore();
    mainWindow.focus();
  });
  app
    .whenReady()
    .then(launch)
    .catch((error: unknown) => {
      log('error', `could not start: ${error instanceof Error ? error.message : String(error)}`);
      app.exit(1);
    });
  app.on('window-all-closed', () => app.quit());
  let disposing = false;
  app.on('before-quit', (event) => {
    if (!core || disposing) return;
    // Let jobs be journaled and sockets closed before the process ends.
    event.preventDefault();
    disposing = true;
    const running = core;
    core = null;
    void running.dispose().finally(() => app.quit());
  });
}
