// The app core's ports: what it needs from outside (AppCoreDeps: settings, secrets, the demo
// service, dialogs, the clock...) and what it offers its transports (AppCore). The handler files
// and the Electron shell take these types from here, so nothing imports the composition root back.
import type { CallHandlers, Envelope } from '@shared/ipc/contract';
import type { SecretStore } from '@main/config/secrets';
import type { SettingsStore } from '@main/config/settings';
import type { TrashFunction } from '../library';
import type { DesktopActions } from './desktop';
import type { AppEventListener } from './event-hub';
import type { MediaRequest, MediaResponse } from './library-media-server';
import type { PreviewLaneStats } from './preview-gate';
import type { ConnectFactory } from './session';

/** The built-in demo service while it runs. */
export interface DemoHandle {
  readonly url: string;
  stop(): Promise<void>;
}
export type StartDemo = (options: { apiKey: string }) => Promise<DemoHandle>;

/** Native file dialogs (Electron); absent in the harness, where the page gives a path or bytes. */
export interface FileDialogs {
  openWorkflow(): Promise<string | null>;
  openImage(): Promise<string | null>;
  /** A folder (hot folders' input and output). */
  pickFolder(title: string): Promise<string | null>;
  /** Where to save a workflow file ("Save as…" of an app), `suggestedName` offered; null: cancelled. */
  saveWorkflow?(suggestedName: string): Promise<string | null>;
}

export type LogLevel = 'info' | 'warn' | 'error';

export interface AppCoreDeps {
  settings: SettingsStore;
  /** The OS keychain (KeytarSecretStore) or an in-memory store (SessionSecretStore). */
  secrets: SecretStore;
  dataDir: string;
  startDemo: StartDemo;
  /** REST client + events socket for a server (defaultConnect in production). */
  connect: ConnectFactory;
  now?: () => number;
  version?: string;
  dialogs?: FileDialogs;
  /**
   * Accept any file path the renderer names (browser harness, tests). Otherwise (Electron) a path
   * is accepted only from the recent list; other files come through a dialog or as bytes.
   */
  allowAnyPath?: boolean;
  /** Receives log lines with every known key already removed. */
  log?: (level: LogLevel, message: string) => void;
  pollIntervalMs?: number;
  /** Opening files, showing them in the file manager, notifications (Electron); absent in the harness. */
  desktop?: DesktopActions;
  /** Base of library media URLs as the renderer must write them (library-media.ts); the harness's path by default. */
  mediaBase?: string;
  /** How deleted library files reach the trash (tests); the OS trash by default. */
  libraryTrash?: TrashFunction;
}

export interface AppCore {
  readonly handlers: CallHandlers;
  /** Validates the call name and input against the contract, runs the handler; never throws. */
  invoke(name: unknown, input: unknown): Promise<Envelope<unknown>>;
  /** A one-way note (NOTE_NAMES): validated and handled as the call of that name, never answered; what it refuses is logged. */
  notify(name: unknown, input: unknown): void;
  onEvent(listener: AppEventListener): () => void;
  start(): Promise<void>;
  dispose(): Promise<void>;
  /** Preview back-pressure of one job (tests and diagnostics). */
  previewStats(promptId: string): PreviewLaneStats | null;
  /** Answers a library media URL (the transports' protocol handler and HTTP route call it). */
  serveMedia(request: MediaRequest): Promise<MediaResponse>;
}
