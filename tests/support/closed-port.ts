// Local ports nothing listens on (taken from the OS, then released): servers that are down.
import { createServer, type Server } from 'node:net';

/**
 * `count` distinct such ports. All are held until every one is chosen: a port released at once
 * can be handed out again by the next listen(0), and two "down servers" on one port are one.
 */
export async function closedPorts(count: number): Promise<number[]> {
  const servers: Server[] = [];
  try {
    for (let i = 0; i < count; i += 1) {
      const server = createServer();
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      servers.push(server);
    }
    return servers.map((s) => (s.address() as { port: number }).port);
  } finally {
    await Promise.all(servers.map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
  }
}

export async function closedPort(): Promise<number> {
  return (await closedPorts(1))[0]!;
}
