// A server that fails every prompt with an execution_error whose texts carry the API key, over the
// event socket and in its history: the redaction tests of the app core and of the CLI run against it.
import { json, startHostileServer, type HostileServer, type Route } from './hostile-server';

/** `errorData(promptId)` is the execution_error's data; `extraRoutes` adds to the routes (or replaces them). */
export async function startErrorEchoServer(
  errorData: (promptId: string) => Record<string, unknown>,
  extraRoutes: Record<string, Route> = {},
): Promise<HostileServer> {
  const server: HostileServer = await startHostileServer(
    {
      'POST /api/prompt': (req, res) => {
        let body = '';
        req.on('data', (d: Buffer) => (body += d.toString()));
        req.on('end', () => {
          const id = (JSON.parse(body) as { prompt_id: string }).prompt_id;
          res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ prompt_id: id, number: 1, node_errors: {} }));
          setTimeout(() => {
            for (const ws of server.sockets) {
              ws.send(JSON.stringify({ type: 'execution_start', data: { prompt_id: id, timestamp: Date.now() } }));
              ws.send(JSON.stringify({ type: 'execution_error', data: errorData(id) }));
            }
          }, 300);
        });
      },
      '/api/queue': json(200, { queue_running: [], queue_pending: [] }),
      '/api/history/*': (req, res) => {
        const id = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname.split('/').pop() ?? '');
        const entry = {
          prompt: [1, id, {}, {}, []],
          outputs: {},
          status: { status_str: 'error', completed: false, messages: [['execution_error', errorData(id)]] },
        };
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ [id]: entry }));
      },
      ...extraRoutes,
    },
    { eventSocket: true },
  );
  return server;
}
