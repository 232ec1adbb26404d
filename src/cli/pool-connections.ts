// The CLI's pool: repeating --server names several servers that act as one queue. Each gets its
// own connection (REST client, events socket, job tracker on the shared job journal) and its key
// (FLOWDECK_API_KEY for all, else each server's keychain entry). A server without a key, or whose
// node definitions cannot be read, is left out with a warning and the others go on; a pool with
// the same server twice, or in which no server can be used, is refused before anything is sent.
import { normaliseBaseUrl } from '@main/config/settings';
import type { JobStore } from '@main/jobs/job-store';
import type { JobOrigin } from '@main/jobs/types';
import { JobTracker } from '@main/jobs/tracker';
import { ServiceClient } from '@main/service/client';
import { ServiceError } from '@main/service/errors';
import { EventsSocket } from '@main/service/events-socket';
import type { EventStream, ServiceApi } from '@main/service/ports';
import { connectService, type ConnectedService } from '@main/service/v2/connect';
import { resendUnanswered } from '@main/jobs/submit-v2';
import { poolTiming } from '@main/pool/pool-timing';
import { answersNow, ServerPool, type PoolServer } from '@main/pool/server-pool';
import { trackerFollower } from '@main/jobs/job-follower';
import { lookupKey, resolveServer, type CliEnvironment, type ResolvedServer } from './connection';
import { capabilitiesFor } from '@main/service/capabilities';
import { MissingKeyError, UsageError } from './errors';

export interface PoolConnections {
  pool: ServerPool;
  /** Every member's connection, in the pool's order. */
  members: { resolved: ResolvedServer; api: ServiceApi; events: EventStream; tracker: JobTracker }[];
  close(): Promise<void>;
}

/** Refuses a pool that names one server twice (after normalising the addresses), before any connection. */
export function resolvePoolServers(urls: readonly string[], local: boolean | undefined, environment: CliEnvironment): ResolvedServer[] {
  const seen = new Map<string, string>();
  return urls.map((url) => {
    const resolved = resolveServer({ server: url, local }, environment);
    const key = normaliseBaseUrl(resolved.server.baseUrl);
    const earlier = seen.get(key);
    if (earlier !== undefined)
      throw new UsageError(
        `--server ${url} names the same server as --server ${earlier} (${key}). Each server may be in a pool once; --concurrency sets how many jobs each runs at once.`,
      );
    seen.set(key, url);
    return resolved;
  });
}

export interface OpenPoolOptions {
  jobs: JobStore;
  /** Jobs per server; default: what the server says it allows (the cloud's account limit), else 1. */
  concurrency: number | undefined;
  /** Every member must answer now (watch --once); the ones that do not start out of rotation. */
  requireAnswer: boolean;
  note(message: string): void;
  onWait(message: string): void;
  /** Recorded with jobs the trackers find without a journal record: 'hot-folder' (watch) unless said. */
  origin?: JobOrigin;
}

export async function openPool(servers: readonly ResolvedServer[], environment: CliEnvironment, options: OpenPoolOptions): Promise<PoolConnections> {
  const members: PoolConnections['members'] = [];
  const skipped: string[] = [];
  for (const resolved of servers) {
    const { key, problem } = await lookupKey(resolved, environment);
    const apiKey = (): string | null => key;
    // The contract each member speaks (v1, or Comfy API v2) is found out first; a member that
    // cannot be asked now starts as v1 and is judged by prepare() below, as before.
    const connected: Omit<ConnectedService, 'discovery'> = await connectService(resolved.server, {
      apiKey,
      onWait: options.onWait,
      ...(resolved.connection ?? {}),
    }).catch(() => ({
      api: new ServiceClient(resolved.server, { apiKey, onWait: options.onWait }),
      events: new EventsSocket(resolved.server, { apiKey }),
    }));
    const { api, events } = connected;
    // A key is wanted only where the server needs one (a v2 proxy without a token takes none).
    if (!key && (api.capabilities.contract === 'v2' ? api.capabilities.needsApiKey : capabilitiesFor(resolved.server.kind).needsApiKey)) {
      skipped.push(`${resolved.server.baseUrl} has no API key${problem ? ` (${problem})` : ''}`);
      continue;
    }
    // Sends an earlier run left unanswered on this server go again under their Idempotency-Key.
    const resent = await resendUnanswered({ api, jobs: options.jobs, clientId: events.clientId }).catch((error: unknown) => {
      options.note(
        `${resolved.server.baseUrl}: could not send again what an earlier run left unanswered: ${error instanceof Error ? error.message : String(error)}`,
      );
      return [];
    });
    for (const outcome of resent) {
      if (outcome.kind !== 'unanswered')
        options.note(
          `${resolved.server.baseUrl}: an earlier send (key ${outcome.key}): ${outcome.kind === 'accepted' ? `reached the server as job ${outcome.jobId}` : outcome.message}`,
        );
    }
    const tracker = new JobTracker({ api, events, jobs: options.jobs, pollIntervalMs: 1000, staleAfterMs: 1000 });
    members.push({ resolved, api, events, tracker });
  }
  for (const reason of skipped)
    options.note(`warning: ${reason}: it is left out of the pool. Set FLOWDECK_API_KEY, or store a key with "flowdeck login --server URL".`);
  const close = async (): Promise<void> => {
    await Promise.all(
      members.map(async (m) => {
        await m.tracker.dispose().catch(() => undefined);
        await m.events.dispose().catch(() => undefined);
      }),
    );
  };
  if (members.length === 0)
    throw new MissingKeyError(
      `No server of the pool can be used: ${skipped.join('; ')}. Set FLOWDECK_API_KEY, or store keys with "flowdeck login --server URL".`,
    );
  let pool: ServerPool | null = null;
  try {
    // The cloud says how many jobs the account may run at once (GET /api/features); a server
    // that does not answer keeps its kind's defaults and is judged by prepare() below.
    await Promise.all(members.map((m) => m.api.discover().catch(() => undefined)));
    const poolServers: PoolServer[] = members.map((m) => ({
      name: m.resolved.profile?.name ?? m.resolved.server.baseUrl,
      api: m.api,
      follower: trackerFollower(m.tracker, { giveUpWhenUnreachable: true, ...(options.origin ? { origin: options.origin } : {}) }),
      clientId: () => m.events.clientId,
      concurrency: options.concurrency ?? m.api.capabilities.maxConcurrentJobs ?? 1,
      profileId: m.resolved.profile?.id ?? null,
    }));
    pool = new ServerPool(poolServers, poolTiming(environment.env));
    await pool.prepare();
    if (options.requireAnswer) await markSilentMembers(pool);
    for (const member of pool.members) if (member.down) options.note(`warning: ${member.name} is out of rotation: ${member.down.reason}`);
    if (pool.members.every((m) => m.down !== null)) {
      throw new ServiceError('network', `No server of the pool answers. ${pool.members.map((m) => `${m.name}: ${m.down?.reason ?? 'no answer'}`).join(' ')}`);
    }
    for (const m of members) m.events.start();
    const opened = pool;
    return {
      pool: opened,
      members,
      close: async () => {
        opened.dispose();
        await close();
      },
    };
  } catch (error) {
    // Its probes of servers out of rotation would keep the process alive.
    pool?.dispose();
    await close();
    throw error;
  }
}

/** Asks every member in rotation whether it answers (bounded by the answer deadline); a member that does not leaves the rotation. */
async function markSilentMembers(pool: ServerPool): Promise<void> {
  await Promise.all(
    pool.members
      .filter((m) => m.down === null)
      .map(async (m) => {
        try {
          await answersNow(m.api);
        } catch (error) {
          pool.markDown(m, error);
        }
      }),
  );
}
