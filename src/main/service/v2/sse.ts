// Reads a server-sent event stream (text/event-stream) into {event, data} frames, bounded: a frame
// larger than the cap ends the stream with an error instead of growing in memory, and comment
// lines (": keepalive") count as activity so a quiet-but-alive stream is told from a dead one.
import { ServiceError } from '../errors';
import { formatBytes } from '../limits';

export interface SseFrame {
  event: string;
  data: string;
}

/** Yields each frame of `body` (a Node stream or a web stream); `onActivity` is called for every chunk (keepalives included). */
export async function* readSse(body: AsyncIterable<Uint8Array>, maxFrameBytes: number, onActivity: () => void = () => {}): AsyncGenerator<SseFrame> {
  const decoder = new TextDecoder();
  let buffer = '';
  {
    for await (const value of body) {
      onActivity();
      buffer += decoder.decode(value, { stream: true });
      for (let end = buffer.search(/\r?\n\r?\n/); end >= 0; end = buffer.search(/\r?\n\r?\n/)) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end).replace(/^\r?\n\r?\n/, '');
        const frame = parseBlock(block);
        if (frame) yield frame;
      }
      if (buffer.length > maxFrameBytes) {
        throw new ServiceError(
          'too_large',
          `The server sent an event larger than ${formatBytes(maxFrameBytes)} on the job's event stream; stopped reading it.`,
          { retryable: false },
        );
      }
    }
  }
}

function parseBlock(block: string): SseFrame | null {
  let event = 'message';
  const data: string[] = [];
  for (const line of block.split(/\r?\n/)) {
    if (line === '' || line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (field === 'event') event = value;
    else if (field === 'data') data.push(value);
  }
  return data.length > 0 ? { event, data: data.join('\n') } : null;
}
