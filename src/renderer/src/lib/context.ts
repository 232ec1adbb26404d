// The app's stores, created once per mounted App (no module-level singletons) and handed to
// components through Svelte context.
import { createContext } from 'svelte';
import type { FlowdeckApi } from '@shared/ipc/contract';
import { Api } from './api';
import { LibraryStore } from './library/library.svelte';
import { HotFoldersStore } from './hotfolders/hot-folders.svelte';
import { ConnectionStore } from './stores/connection.svelte';
import { DefinitionsStore } from './stores/definitions.svelte';
import { JobsStore } from './stores/jobs.svelte';
import { Navigation } from './stores/navigation.svelte';
import { PoolStore } from './stores/pool.svelte';
import { ProfilesStore } from './stores/profiles.svelte';
import { QueueStore } from './stores/queue.svelte';
import { RecentStore } from './stores/recent.svelte';
import { RunStore } from './stores/run.svelte';
import { StageStore } from './stores/stage.svelte';
import { ViewerStore } from './viewer/viewer.svelte';
import { NoticeCentre } from './ui/notices.svelte';
import { ThemeStore } from './ui/theme.svelte';

export interface AppState {
  api: Api;
  nav: Navigation;
  connection: ConnectionStore;
  profiles: ProfilesStore;
  pool: PoolStore;
  definitions: DefinitionsStore;
  jobs: JobsStore;
  queue: QueueStore;
  recent: RecentStore;
  run: RunStore;
  stage: StageStore;
  library: LibraryStore;
  hotFolders: HotFoldersStore;
  viewer: ViewerStore;
  notices: NoticeCentre;
  theme: ThemeStore;
}

export function createAppState(bridge: FlowdeckApi): AppState {
  const api = new Api(bridge);
  const nav = new Navigation();
  const definitions = new DefinitionsStore(api);
  const jobs = new JobsStore(api);
  const recent = new RecentStore(api);
  const notices = new NoticeCentre();
  const pool = new PoolStore(api);
  const run = new RunStore(api, definitions, jobs, nav, recent, () => pool.servers.length > 0);
  return {
    api,
    nav,
    connection: new ConnectionStore(),
    profiles: new ProfilesStore(api),
    pool,
    definitions,
    jobs,
    queue: new QueueStore(api, (ids) => jobs.noteStopRequested(ids)),
    recent,
    run,
    stage: new StageStore(jobs, run),
    library: new LibraryStore(api),
    hotFolders: new HotFoldersStore(api, notices),
    viewer: new ViewerStore(),
    notices,
    theme: new ThemeStore(),
  };
}

/** Subscribes every store to its events, then tells main the renderer is ready for them. */
export async function startAppState(app: AppState): Promise<() => void> {
  const detach = [
    app.connection.attach(app.api),
    app.profiles.attach(),
    app.pool.attach(),
    app.jobs.attach(),
    app.queue.attach(),
    app.library.attach(),
    app.hotFolders.attach(),
    app.notices.attach(app.api),
  ];
  // Read-only counters of the preview pipeline, for bench/preview-pipeline.ts (numbers only).
  Object.defineProperty(window, '__flowdeckPreviewStats', { value: app.jobs.previews.stats, configurable: true });
  await app.api.call('renderer.ready').catch((error: unknown) => console.warn('flowdeck: renderer.ready failed', error));
  await Promise.allSettled([app.profiles.load(), app.pool.load(), app.jobs.load(), app.queue.refresh(), app.recent.refresh(), app.hotFolders.load()]);
  return () => {
    for (const off of detach) off();
  };
}

export const [getApp, setApp] = createContext<AppState>();
