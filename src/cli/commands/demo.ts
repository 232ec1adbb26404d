// flowdeck demo: the built-in demo service in the foreground, for trying everything without an account.
import { randomBytes } from 'node:crypto';
import { DemoService } from '../../main/demo';
import { parseCommandArgs } from '../args';
import { UsageError } from '../errors';
import type { CliIo } from './run';

export async function demoCommand(argv: string[], io: CliIo, waitForExit: () => Promise<void>): Promise<number> {
  const { values } = parseCommandArgs(
    'demo',
    argv,
    {
      port: { type: 'string' },
      key: { type: 'string' },
      local: { type: 'boolean' },
      'time-scale': { type: 'string' },
      v2: { type: 'boolean' },
      'v2-only': { type: 'boolean' },
      token: { type: 'string' },
    },
    false,
  );
  const port = values.port === undefined ? 0 : Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`--port must be a port number from 0 to 65535 (got "${values.port}").`);
  const timeScale = values['time-scale'] === undefined ? 1 : Number(values['time-scale']);
  if (!Number.isFinite(timeScale) || timeScale < 0) throw new UsageError(`--time-scale must be a number of 0 or more (got "${values['time-scale']}").`);
  if (values.v2 && values['v2-only']) throw new UsageError("Choose --v2 (Comfy API v2 beside the cloud's v1) or --v2-only (a v2-only deployment), not both.");
  if (values.token !== undefined && !values['v2-only']) throw new UsageError('--token is the bearer token of a v2-only deployment: use it with --v2-only.');
  // A v2-only deployment runs on the local engine; v2 beside v1 is the cloud's.
  const flavour = values.local || values['v2-only'] ? 'local' : 'cloud';
  const v2 = values['v2-only'] ? ('only' as const) : values.v2 ? ('beside' as const) : undefined;
  const apiKey = flavour === 'cloud' ? (values.key ?? `demo-${randomBytes(12).toString('base64url')}`) : undefined;
  const demo = new DemoService({
    flavour,
    port,
    timeScale,
    ...(apiKey ? { apiKey } : {}),
    ...(v2 ? { v2 } : {}),
    ...(values.token ? { v2Token: values.token } : {}),
  });
  try {
    await demo.start();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE') throw new UsageError(`Port ${port} is already in use; pick another with --port, or omit it for a free one.`);
    throw error;
  }
  const described = v2 === 'only' ? 'v2-only deployment' : `${flavour === 'cloud' ? 'cloud' : 'local server'} flavour${v2 ? ', Comfy API v2 beside v1' : ''}`;
  io.stdout.write(`Flowdeck demo service (${described}) listening on ${demo.url}\n`);
  if (demo.apiKey) {
    io.stdout.write(`API key: ${demo.apiKey}\n`);
    io.stdout.write(`Try: FLOWDECK_API_KEY=${demo.apiKey} flowdeck run resources/workflows/text-to-image.json --server ${demo.url}\n`);
  } else if (v2 === 'only') {
    io.stdout.write(
      `Try: ${values.token ? `FLOWDECK_API_KEY=${values.token} ` : ''}flowdeck run resources/workflows/text-to-image.json --server ${demo.url}\n`,
    );
  } else {
    io.stdout.write(`Try: flowdeck run resources/workflows/text-to-image.json --server ${demo.url} --local\n`);
  }
  io.stdout.write('Press Ctrl+C to stop.\n');
  await waitForExit();
  await demo.stop();
  io.stderr.write('demo service stopped\n');
  return 0;
}
