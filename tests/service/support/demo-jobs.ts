// Helpers for the integration tests against the demo service: a client and socket pair for one
// flavour, small workflows, and waiting for a job's terminal event.
import { EventsSocket } from '@main/service/events-socket';
import { ServiceClient } from '@main/service/client';
import type { ServerEvent, ServerKind, Workflow } from '@main/service/types';

export interface Pair {
  client: ServiceClient;
  socket: EventsSocket;
  events: ServerEvent[];
  logs: string[];
  delays: number[];
}

export function pairFor(kind: ServerKind, url: string, key: string | null, options: { silenceTimeoutMs?: number } = {}): Pair {
  const logs: string[] = [];
  const delays: number[] = [];
  const events: ServerEvent[] = [];
  const apiKey = (): string | null => key;
  const client = new ServiceClient(
    { kind, baseUrl: url },
    {
      apiKey,
      logger: (l) => logs.push(l),
      retry: {
        retries: 3,
        baseMs: 50,
        maxMs: 400,
        sleep: async (ms) => {
          delays.push(ms);
        },
      },
    },
  );
  const socket = new EventsSocket(
    { kind, baseUrl: url },
    {
      apiKey,
      logger: (l) => logs.push(l),
      backoff: { minMs: 20, maxMs: 100 },
      ...(options.silenceTimeoutMs ? { silenceTimeoutMs: options.silenceTimeoutMs } : {}),
    },
  );
  socket.onEvent((e) => events.push(e));
  return { client, socket, events, logs, delays };
}

export function samplerWorkflow(options: { steps?: number; delayMs?: number; seed?: number | bigint; failAtStep?: number; prefix?: string } = {}): Workflow {
  return {
    '3': {
      class_type: 'DemoSampler',
      inputs: {
        prompt: 'a lighthouse at dusk',
        seed: options.seed ?? 42,
        steps: options.steps ?? 3,
        width: 64,
        height: 64,
        cfg: 7,
        sampler_name: 'euler',
        delay_ms: options.delayMs ?? 100,
        fail_at_step: options.failAtStep ?? 0,
      },
    },
    '9': { class_type: 'SaveImage', inputs: { images: ['3', 0], filename_prefix: options.prefix ?? 'itest' } },
  };
}

export async function waitFor(condition: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

const TERMINAL = new Set(['execution_success', 'execution_error', 'execution_interrupted']);

/** The job's terminal event, once it has arrived. */
export async function terminalEvent(pair: Pair, promptId: string, timeoutMs = 10_000): Promise<ServerEvent> {
  let found: ServerEvent | undefined;
  await waitFor(
    () => {
      found = pair.events.find((e) => TERMINAL.has(e.type) && 'promptId' in e && e.promptId === promptId);
      return found !== undefined;
    },
    `the end of job ${promptId}`,
    timeoutMs,
  );
  if (!found) throw new Error('unreachable');
  return found;
}
