// The pool's part of the renderer <-> main contract: the pool's servers (Servers view), each pool
// server's queue (Queue view) and the pool's status (status line). Merged into contract.ts's
// `calls` and `events`. The pool is an ordered list of server profiles: hot folders set to
// "Run on: Pool" send each file to the least-loaded one that can run it, ties to this order.
import { z } from 'zod';

const profileId = z.string().min(1).max(64);
const MAX_POOL_SERVERS = 16;

export const poolServerSchema = z.object({
  profileId: z.string(),
  name: z.string(),
  kind: z.enum(['cloud', 'local', 'demo', 'serverless', 'proxy']),
  /** Jobs the pool sends it at once, as set (for a cloud server: used while the account's limit is unknown). */
  concurrency: z.number().int(),
});
export type PoolServerView = z.infer<typeof poolServerSchema>;

export const poolSettingsSchema = z.object({ servers: z.array(poolServerSchema) });

export const poolSaveSchema = z
  .object({
    servers: z.array(z.object({ profileId, concurrency: z.number().int().min(1).max(64) }).strict()).max(MAX_POOL_SERVERS),
  })
  .strict();
export type PoolSaveInput = z.infer<typeof poolSaveSchema>;

/** A job in a pool server's queue; `label` names what runs (its workflow), when the app journaled it. */
const queueEntry = z.object({ promptId: z.string(), number: z.number().nullable(), label: z.string().nullable() });

export const poolQueueSchema = z.object({
  profileId: z.string(),
  name: z.string(),
  running: z.array(queueEntry),
  pending: z.array(queueEntry),
  /** Why this server's queue could not be read; its lists are then empty. */
  error: z.string().nullable(),
  /** Said of a server without a queue (Comfy API v2 only): its lists are the jobs this app sent it. */
  note: z.string().nullable().optional(),
});
export type PoolQueueView = z.infer<typeof poolQueueSchema>;

export const poolMemberStatusSchema = z.object({
  name: z.string(),
  /** Its settings profile, when it is one. */
  profileId: z.string().nullable(),
  inRotation: z.boolean(),
  /** Why it is out of rotation. */
  reason: z.string().nullable(),
  /** Jobs under way on it for the pool. */
  running: z.number().int(),
  concurrency: z.number().int().nullable(),
  done: z.number().int(),
  failed: z.number().int(),
});
export type PoolMemberStatusView = z.infer<typeof poolMemberStatusSchema>;

export const poolStatusSchema = z.object({
  /** Whether a pool is running (some hot folder runs on it); false: nothing below. */
  active: z.boolean(),
  members: z.array(poolMemberStatusSchema),
  /** Jobs finished per minute over the last minute, all servers together. */
  jobsPerMinute: z.number().int(),
});
export type PoolStatusView = z.infer<typeof poolStatusSchema>;

export const poolCalls = {
  'pool.get': { input: z.undefined(), result: poolSettingsSchema },
  /** Replaces the pool; fails with invalid_input naming every problem (duplicate servers, a missing key, ...). */
  'pool.save': { input: poolSaveSchema, result: poolSettingsSchema },
  /** Every pool server's queue, each read from its own server, in the pool's order. */
  'pool.queues': { input: z.undefined(), result: z.object({ servers: z.array(poolQueueSchema) }) },
  'pool.status': { input: z.undefined(), result: poolStatusSchema },
} as const;

export const poolEvents = {
  /** The pool's status changed (jobs per server, throughput, servers out of rotation). */
  'pool.status': poolStatusSchema,
  /** The pool's settings changed. */
  'pool.changed': poolSettingsSchema,
} as const;
