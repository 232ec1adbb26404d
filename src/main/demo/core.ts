// What every route handler works with: the service's parts, and what the router learned about
// the request (its path without the /api prefix, the caller's account key on the cloud).
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Accounts } from './auth';
import type { EventsHub } from './events-hub';
import type { FaultState } from './faults';
import type { DataDirs } from './files';
import type { DemoNode } from './node-api';
import type { JobQueue } from './queue';
import type { DemoGallery } from './templates-gallery';
import type { UrlSigner } from './signed-urls';
import type { DemoFlavour, DemoStats, DemoStatusVocabulary } from './types';
import type { Worker } from './worker';

export interface DemoCore {
  readonly flavour: DemoFlavour;
  readonly files: DataDirs;
  readonly queue: JobQueue;
  readonly hub: EventsHub;
  readonly worker: Worker;
  readonly accounts: Accounts;
  readonly faults: FaultState;
  readonly stats: DemoStats;
  readonly signer: UrlSigner;
  readonly nodes: Map<string, DemoNode>;
  readonly statusVocabulary: DemoStatusVocabulary;
  readonly maxUploadBytes: number;
  /** The template gallery it serves; null: a server without the templates package (404 under /templates/). */
  readonly templates: DemoGallery | null;
  /** Origin of the storage listener (cloud), e.g. http://127.0.0.1:40000. */
  storageUrl(): string;
  /** Runs `task` after every earlier one has finished (local uploads pick names one at a time). */
  runExclusive<T>(task: () => Promise<T>): Promise<T>;
}

export interface RequestInfo {
  url: URL;
  /** Path without the /api prefix, e.g. /prompt, /history/abc. */
  path: string;
  /** Route parameters, e.g. { id } for /history/{id}. */
  params: Record<string, string>;
  /** The caller's account key (cloud); null locally. */
  key: string | null;
}

export type RouteHandler = (req: IncomingMessage, res: ServerResponse, core: DemoCore, info: RequestInfo) => Promise<void> | void;

/** The queue a caller sees: the whole queue locally, the caller's own jobs on the cloud. */
export function ownerScope(core: DemoCore, info: RequestInfo): string | null | undefined {
  return core.flavour === 'cloud' ? info.key : undefined;
}
