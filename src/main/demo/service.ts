// The built-in demo service: a real HTTP + WebSocket server on 127.0.0.1 speaking the cloud
// service's protocol or the local server's (flavour), with a second listener for signed storage
// URLs. It is the server of every test and the app's demo mode.
import { mkdtemp, link, mkdir, rm, symlink, copyFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { CLOUD_UPLOAD_LIMITS } from '@main/images/upload-limits';
import type { FileRef } from '@main/service/types';
import { Accounts } from './auth';
import { EventsHub } from './events-hub';
import { FaultState } from './faults';
import { DataDirs } from './files';
import type { DemoNode } from './node-api';
import { NodeCache } from './node-cache';
import { createNodeLibrary } from './nodes';
import { JobQueue } from './queue';
import { handleRequest, handleUpgrade, type ServedCore } from './router';
import { UrlSigner } from './signed-urls';
import { handleStorageRequest } from './storage';
import { DemoGallery } from './templates-gallery';
import { createStats, type AccountState, type DemoFaults, type DemoFlavour, type DemoServiceOptions, type DemoStats } from './types';
import { Worker } from './worker';
import { V2Surface } from './v2/surface';

const SIX_HOURS_MS = 6 * 60 * 60 * 1000;
const LOCAL_MAX_UPLOAD = 100 * 1024 * 1024;

interface Running {
  core: ServedCore;
  main: Server;
  storage: Server;
  url: string;
  storageUrl: string;
  ownsDataDir: boolean;
}

function listen(server: Server, port: number, host: string): Promise<number> {
  return new Promise((resolveListen, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolveListen((server.address() as AddressInfo).port);
    });
  });
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolveClose) => {
    server.close(() => resolveClose());
    server.closeAllConnections();
  });
}

function originOf(host: string, port: number): string {
  return `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
}

export class DemoService {
  readonly flavour: DemoFlavour;
  readonly faults: DemoFaults;
  readonly stats: DemoStats;
  private readonly options: DemoServiceOptions;
  private readonly accounts: Accounts;
  private readonly signer: UrlSigner;
  private readonly faultState: FaultState;
  private running: Running | null = null;
  private starting: Promise<void> | null = null;
  private stopping: Promise<void> | null = null;

  constructor(options: DemoServiceOptions) {
    this.options = options;
    this.flavour = options.flavour;
    this.accounts = new Accounts(options.flavour, options.apiKey);
    this.signer = new UrlSigner(options.signedUrlTtlMs ?? SIX_HOURS_MS);
    this.faultState = new FaultState({ onExpireSignedUrls: () => this.signer.revokeAll() });
    this.faults = this.faultState;
    this.stats = createStats();
  }

  /** The main listener's origin, e.g. http://127.0.0.1:41234 (available once started). */
  get url(): string {
    return this.require().url;
  }

  /** The storage listener's origin (signed URLs of the cloud flavour point there). */
  get storageUrl(): string {
    return this.require().storageUrl;
  }

  /** The folder holding input/, output/ and temp/ (a temporary one unless `dataDir` was given). */
  get dataDir(): string {
    return this.require().core.files.root;
  }

  /** The Comfy API v2 surface (its fault switches and counters), null when the service serves none. */
  get v2(): V2Surface | null {
    return this.require().core.v2;
  }

  /** The instance's API key (cloud), null locally. */
  get apiKey(): string | null {
    return this.accounts.primaryKey;
  }

  /** Adds (or changes) an account key: 'no_credits' answers 402 and 'inactive' 429 on submit. */
  setKeyState(key: string, state: AccountState): void {
    this.accounts.setState(key, state);
  }

  private require(): Running {
    if (!this.running) throw new Error('The demo service is not running: call start() first.');
    return this.running;
  }

  start(): Promise<void> {
    if (this.stopping) return Promise.reject(new Error('The demo service has been stopped; create a new one.'));
    this.starting ??= this.doStart();
    return this.starting;
  }

  private async doStart(): Promise<void> {
    const flavour = this.flavour;
    const host = this.options.host ?? '127.0.0.1';
    const ownsDataDir = this.options.dataDir === undefined;
    const root = this.options.dataDir ?? (await mkdtemp(join(tmpdir(), 'flowdeck-demo-')));
    const files = new DataDirs(root, flavour);
    await files.init();
    const nodes: Map<string, DemoNode> = this.options.nodes ?? createNodeLibrary({ listInputFiles: () => files.listInputFiles() });
    const queue = new JobQueue();
    const maxUploadBytes = this.options.maxUploadBytes ?? (flavour === 'local' ? LOCAL_MAX_UPLOAD : CLOUD_UPLOAD_LIMITS.maxBytes);
    const hub = new EventsHub({
      flavour,
      faults: this.faultState,
      queueRemaining: (owner) => (flavour === 'cloud' ? queue.remaining(owner) : queue.remaining()),
      featureFlags: { supports_preview_metadata: true, max_upload_size: maxUploadBytes },
      runningNode: () => {
        const job = queue.running;
        return job?.currentNode === undefined ? null : { clientId: job.clientId, nodeId: job.currentNode };
      },
    });
    const cacheOn = this.options.cache ?? flavour === 'local';
    const worker = new Worker(queue, hub, {
      flavour,
      hub,
      faults: this.faultState,
      files,
      nodes,
      timeScale: this.options.timeScale ?? 1,
      cache: cacheOn ? new NodeCache() : null,
    });
    let exclusive: Promise<unknown> = Promise.resolve();
    let storageUrl = '';
    const core: ServedCore = {
      flavour,
      files,
      queue,
      hub,
      worker,
      accounts: this.accounts,
      faults: this.faultState,
      stats: this.stats,
      signer: this.signer,
      nodes,
      statusVocabulary: this.options.statusVocabulary ?? 'spec',
      maxUploadBytes,
      templates: this.options.templates === false ? null : new DemoGallery(),
      storageUrl: () => storageUrl,
      v2: null,
      runExclusive: <T>(task: () => Promise<T>): Promise<T> => {
        const run = exclusive.then(task, task);
        exclusive = run.catch(() => undefined);
        return run;
      },
    };

    if (this.options.v2) {
      // v2 beside v1 is the cloud's; a v2-only deployment runs on the local server's engine.
      const expected = this.options.v2 === 'beside' ? 'cloud' : 'local';
      if (flavour !== expected) throw new Error(`v2 '${this.options.v2}' needs the ${expected} flavour.`);
      core.v2 = new V2Surface(core, this.options.v2, this.options.v2Token ?? null, this.options.v2ProxyQuirks === true);
      hub.setObserver(core.v2.jobs);
    }
    const main = createServer((req, res) => void handleRequest(req, res, core));
    main.on('upgrade', (req, socket, head: Buffer) => handleUpgrade(req, socket, head, core));
    const storage = createServer((req, res) => {
      void handleStorageRequest(req, res, { signer: this.signer, files, stats: this.stats, faults: this.faultState, accounts: this.accounts }).catch(() => {
        if (!res.headersSent) res.writeHead(500).end();
        else res.destroy();
      });
    });
    try {
      const port = await listen(main, this.options.port ?? 0, host);
      const storagePort = await listen(storage, 0, host);
      storageUrl = originOf(host, storagePort);
      this.running = { core, main, storage, url: originOf(host, port), storageUrl, ownsDataDir };
    } catch (error) {
      await Promise.all([closeServer(main), closeServer(storage)]);
      if (ownsDataDir) await rm(root, { recursive: true, force: true });
      throw error;
    }
    worker.start();
  }

  /** Closes listeners, sockets and the worker; removes a data folder it created. Idempotent. */
  stop(): Promise<void> {
    this.stopping ??= this.doStop();
    return this.stopping;
  }

  private async doStop(): Promise<void> {
    await this.starting?.catch(() => undefined);
    const running = this.running;
    if (!running) return;
    await running.core.worker.stop();
    await running.core.hub.close();
    await Promise.all([closeServer(running.main), closeServer(running.storage)]);
    if (running.ownsDataDir) await rm(running.core.files.root, { recursive: true, force: true });
  }

  /** Registers an existing file on disk as an output file (for download tests and benchmarks of large files). */
  async addOutputFile(sourcePath: string, filename: string, subfolder = ''): Promise<FileRef> {
    const { core } = this.require();
    const sub = this.flavour === 'cloud' ? '' : subfolder;
    const dest = core.files.pathOf(filename, sub, 'output');
    if (dest === null) throw new Error(`Refused output file name "${filename}" in subfolder "${subfolder}".`);
    await mkdir(resolve(dest, '..'), { recursive: true });
    await rm(dest, { force: true });
    // A hard link costs nothing even for gigabytes; across disks, a symbolic link; else a copy.
    try {
      await link(sourcePath, dest);
    } catch {
      try {
        await symlink(resolve(sourcePath), dest);
      } catch {
        await copyFile(sourcePath, dest);
      }
    }
    return { filename, subfolder: sub, type: 'output' };
  }
}
