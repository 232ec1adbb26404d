// flowdeck login / logout: store or remove the API key in the OS keychain, one entry per server.
import { createInterface } from 'node:readline';
import { ServiceClient } from '@main/service/client';
import { ServiceError } from '@main/service/errors';
import { capabilitiesFor } from '@main/service/capabilities';
import { keyHint } from '@main/config/secrets';
import { parseCommandArgs } from '../args';
import { ensureProfile, resolveServer, type CliEnvironment } from '../connection';
import { ExitCode, UsageError } from '../errors';
import type { CliIo } from './run';

/** Reads the key from a terminal without echoing it, or the first line of piped input. */
async function readKey(io: CliIo, stdin: NodeJS.ReadStream): Promise<string> {
  if (!stdin.isTTY) {
    const chunks: Buffer[] = [];
    for await (const chunk of stdin) chunks.push(Buffer.from(chunk as Buffer));
    return Buffer.concat(chunks).toString('utf8').split(/\r?\n/)[0]?.trim() ?? '';
  }
  io.stderr.write('API key (input hidden): ');
  const rl = createInterface({ input: stdin, terminal: true });
  // Keep the typed key off the screen.
  (rl as unknown as { _writeToOutput: (s: string) => void })._writeToOutput = () => {};
  const answer = await new Promise<string>((resolveAnswer) => rl.question('', resolveAnswer));
  rl.close();
  io.stderr.write('\n');
  return answer.trim();
}

export async function loginCommand(argv: string[], io: CliIo, environment: CliEnvironment, stdin: NodeJS.ReadStream): Promise<number> {
  const { values } = parseCommandArgs('login', argv, { server: { type: 'string' }, 'no-verify': { type: 'boolean' } }, false);
  const resolved = resolveServer({ server: values.server }, environment);
  if (!capabilitiesFor(resolved.server.kind).needsApiKey) throw new UsageError(`${resolved.server.baseUrl} is a local server profile, which needs no API key.`);
  const key = environment.env.FLOWDECK_API_KEY?.trim() || (await readKey(io, stdin));
  if (!key) throw new UsageError('No key given. Paste the API key when asked, or pipe it: echo "$KEY" | flowdeck login --server URL');
  if (!values['no-verify']) {
    const client = new ServiceClient(resolved.server, { apiKey: () => key });
    try {
      await client.getQueue();
    } catch (error) {
      if (error instanceof ServiceError && error.kind === 'unauthorized') {
        io.stderr.write(`${resolved.server.baseUrl} rejected this key (HTTP 401); it was not stored. Check the key and try again.\n`);
        return ExitCode.auth;
      }
      if (error instanceof ServiceError && (error.kind === 'network' || error.kind === 'server')) {
        io.stderr.write(`Could not reach ${resolved.server.baseUrl} to check the key (${error.message}); storing it anyway.\n`);
      } else if (error instanceof ServiceError && error.kind !== 'subscription_inactive' && error.kind !== 'insufficient_credits') {
        throw error;
      }
    }
  }
  const profile = ensureProfile(resolved, environment);
  await environment.secrets.set(profile.id, key);
  io.stdout.write(`Stored the API key for ${resolved.server.baseUrl} in the OS keychain (ending in ${keyHint(key)}).\n`);
  return ExitCode.ok;
}

export async function logoutCommand(argv: string[], io: CliIo, environment: CliEnvironment): Promise<number> {
  const { values } = parseCommandArgs('logout', argv, { server: { type: 'string' } }, false);
  const resolved = resolveServer({ server: values.server }, environment);
  if (!resolved.profile) {
    io.stdout.write(`No key is stored for ${resolved.server.baseUrl}.\n`);
    return ExitCode.ok;
  }
  const removed = await environment.secrets.delete(resolved.profile.id);
  io.stdout.write(
    removed ? `Removed the API key for ${resolved.server.baseUrl} from the OS keychain.\n` : `No key is stored for ${resolved.server.baseUrl}.\n`,
  );
  return ExitCode.ok;
}
