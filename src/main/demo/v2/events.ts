// GET /api/v2/jobs/{id}/events: server-sent events. On connect the current state (a `status`, the
// latest `progress` and `preview`), then live `progress`, `preview`, `output` and `status` frames
// until the terminal status, which ends the stream. Nothing is replayed; `: keepalive` comments
// every 15 s; at most 8 streams per account (429 too_many_streams), or the fault switches refuse.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { sendV2Error } from './envelope';
import { isTerminalV2 } from './jobs-state';
import type { V2Surface } from './surface';

const MAX_STREAMS = 8;
const KEEPALIVE_MS = 15_000;

export function getJobEvents(req: IncomingMessage, res: ServerResponse, v2: V2Surface, owner: string | null, id: string): void {
  const found = v2.jobs.get(id, owner);
  if (!found) return sendV2Error(res, 404, 'not_found', 'No job with this id (unknown, not yours, or past its retention).');
  if (v2.faults.streams === '501')
    return sendV2Error(res, 501, 'not_implemented', 'This deployment does not serve live event streams yet; poll the job instead.');
  const open = v2.openStreams.get(owner) ?? 0;
  if (v2.faults.streams === true || open >= MAX_STREAMS)
    return sendV2Error(res, 429, 'too_many_streams', 'Too many event streams are open; close one or poll the job.', null, 5);
  v2.stats.streamsOpened += 1;
  v2.originOf(req);
  const { meta, job } = found;
  res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache', Connection: 'keep-alive' });
  const send = (event: string, data: unknown): void => {
    if (!res.writableEnded) res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  };
  const status = v2.jobs.statusOf(meta, job);
  send('status', { status, queue_position: v2.jobs.queuePosition(job) });
  if (isTerminalV2(status)) {
    res.end();
    return;
  }
  if (meta.progress) send('progress', meta.progress);
  if (meta.preview) send('preview', meta.preview);
  v2.openStreams.set(owner, open + 1);
  const keepalive = setInterval(() => res.write(': keepalive\n\n'), KEEPALIVE_MS);
  keepalive.unref();
  const stream = {
    send,
    end: () => {
      if (!res.writableEnded) res.end();
    },
  };
  meta.streams.add(stream);
  meta.lastStatus = status;
  res.on('close', () => {
    clearInterval(keepalive);
    meta.streams.delete(stream);
    v2.openStreams.set(owner, Math.max(0, (v2.openStreams.get(owner) ?? 1) - 1));
  });
}
