// The one app window: locked down (context isolation, sandbox, no Node, web security on, no new
// windows, no navigation away from the app, no permissions), with its size and position kept in
// settings between runs.
import { BrowserWindow, screen, session, shell } from 'electron';
import type { SettingsStore } from '@main/config/settings';

export interface MainWindowOptions {
  preload: string;
  settings: SettingsStore;
  icon?: string;
}

export function isExternalHttpUrl(url: string): boolean {
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'http:' || parsed.protocol === 'https:';
  } catch {
    return false;
  }
}

/** The saved bounds, when they still fall on a connected display. */
function restoredBounds(settings: SettingsStore): { x?: number; y?: number; width: number; height: number; maximized: boolean } {
  const saved = settings.read().window;
  if (!saved) return { width: 1280, height: 840, maximized: false };
  if (saved.x === undefined || saved.y === undefined) return { width: saved.width, height: saved.height, maximized: saved.maximized };
  const visible = screen.getAllDisplays().some((d) => {
    const a = d.workArea;
    return saved.x! < a.x + a.width && saved.x! + saved.width > a.x && saved.y! < a.y + a.height && saved.y! + saved.height > a.y;
  });
  return visible ? saved : { width: saved.width, height: saved.height, maximized: saved.maximized };
}

export function createMainWindow(options: MainWindowOptions): BrowserWindow {
  const bounds = restoredBounds(options.settings);
  const win = new BrowserWindow({
    ...(bounds.x !== undefined && bounds.y !== undefined ? { x: bounds.x, y: bounds.y } : {}),
    width: bounds.width,
    height: bounds.height,
    minWidth: 720,
    minHeight: 480,
    show: false,
    title: 'Flowdeck',
    ...(options.icon ? { icon: options.icon } : {}),
    webPreferences: {
      preload: options.preload,
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
      spellcheck: true,
    },
  });
  if (bounds.maximized) win.maximize();
  win.once('ready-to-show', () => win.show());

  // No new windows; http(s) links open in the user's browser, anything else is dropped.
  win.webContents.setWindowOpenHandler(({ url }) => {
    if (isExternalHttpUrl(url)) void shell.openExternal(url);
    return { action: 'deny' };
  });
  win.webContents.on('will-navigate', (event, url) => {
    event.preventDefault();
    if (isExternalHttpUrl(url)) void shell.openExternal(url);
  });
  win.webContents.on('will-attach-webview', (event) => event.preventDefault());
  // The renderer needs no camera, microphone, geolocation, notifications (main shows those) ...
  session.defaultSession.setPermissionRequestHandler((_contents, _permission, callback) => callback(false));
  session.defaultSession.setPermissionCheckHandler(() => false);

  // Window state, saved when it settles and when the window closes.
  let timer: ReturnType<typeof setTimeout> | null = null;
  const save = (): void => {
    if (win.isDestroyed() || win.isMinimized()) return;
    const maximized = win.isMaximized();
    const b = maximized ? win.getNormalBounds() : win.getBounds();
    options.settings.update((s) => ({ ...s, window: { x: b.x, y: b.y, width: Math.max(200, b.width), height: Math.max(200, b.height), maximized } }));
  };
  const saveSoon = (): void => {
    if (timer) clearTimeout(timer);
    timer = setTimeout(save, 500);
  };
  win.on('resize', saveSoon);
  win.on('move', saveSoon);
  win.on('close', () => {
    if (timer) clearTimeout(timer);
    save();
  });
  return win;
}
