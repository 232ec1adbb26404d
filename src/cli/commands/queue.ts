// flowdeck queue / cancel / interrupt: the server's queue, as jobs you can act on.
import { ServiceClient } from '@main/service/client';
import { parseCommandArgs } from '../args';
import { lookupKey, missingKeyError, resolveServer, type CliEnvironment } from '../connection';
import type { ServiceApi } from '@main/service/ports';
import { connectService } from '@main/service/v2/connect';
import { ExitCode, UsageError } from '../errors';
import type { CliIo } from './run';

const CONNECTION_OPTIONS = { server: { type: 'string' }, local: { type: 'boolean' } } as const;

/** The server's client, for the contract it speaks (v2: one job cancelled at a time); a key only if it needs one. */
async function clientFor(values: { server?: string | undefined; local?: boolean | undefined }, environment: CliEnvironment, io: CliIo): Promise<ServiceApi> {
  const resolved = resolveServer(values, environment);
  const { key, problem } = await lookupKey(resolved, environment);
  const options = { apiKey: () => key, onWait: (message: string) => io.stderr.write(`${message}\n`) };
  const { api } = await connectService(resolved.server, { ...options, ...(resolved.connection ?? {}) }).catch(() => ({
    api: new ServiceClient(resolved.server, options),
  }));
  if (!key && api.capabilities.needsApiKey) throw missingKeyError(resolved, problem);
  return api;
}

export async function queueCommand(argv: string[], io: CliIo, environment: CliEnvironment): Promise<number> {
  const { values } = parseCommandArgs('queue', argv, { ...CONNECTION_OPTIONS, json: { type: 'boolean' } }, false);
  const client = await clientFor(values, environment, io);
  const queue = await client.getQueue();
  if (values.json) {
    // Only ids and numbers: queue entries may carry extra_data with a key on older servers.
    io.stdout.write(`${JSON.stringify({ running: queue.running, pending: queue.pending })}\n`);
    return ExitCode.ok;
  }
  if (queue.running.length === 0 && queue.pending.length === 0) {
    io.stdout.write('The queue is empty.\n');
    return ExitCode.ok;
  }
  for (const entry of queue.running) io.stdout.write(`running  ${entry.promptId}${entry.number === null ? '' : `  #${entry.number}`}\n`);
  for (const entry of queue.pending) io.stdout.write(`pending  ${entry.promptId}${entry.number === null ? '' : `  #${entry.number}`}\n`);
  return ExitCode.ok;
}

export async function cancelCommand(argv: string[], io: CliIo, environment: CliEnvironment): Promise<number> {
  const { values, positionals } = parseCommandArgs('cancel', argv, CONNECTION_OPTIONS);
  if (positionals.length === 0) throw new UsageError('Name at least one job id: flowdeck cancel ID...');
  const client = await clientFor(values, environment, io);
  const { stillRunning } = await client.cancel(positionals);
  const asked = positionals.filter((id) => !stillRunning.includes(id));
  if (asked.length > 0) io.stdout.write(`Asked the server to cancel ${asked.join(', ')}.\n`);
  if (stillRunning.length === 0) return ExitCode.ok;
  // The cloud cancels waiting jobs only; its interrupt stops every running job of the account.
  io.stderr.write(
    `${stillRunning.join(', ')} ${stillRunning.length === 1 ? 'is' : 'are'} running, and the service cannot stop one running job alone: ` +
      '"flowdeck interrupt --all" stops every running job of the account.\n',
  );
  return ExitCode.jobFailed;
}

export async function interruptCommand(argv: string[], io: CliIo, environment: CliEnvironment): Promise<number> {
  const { values, positionals } = parseCommandArgs('interrupt', argv, { ...CONNECTION_OPTIONS, all: { type: 'boolean' } });
  if (positionals.length > 1) throw new UsageError('flowdeck interrupt takes at most one job id.');
  const client = await clientFor(values, environment, io);
  if (client.capabilities.interrupt === 'all-running') {
    // The cloud's interrupt stops every running job of the account: never without saying so.
    const running = (await client.getQueue()).running.length;
    if (running > 1 && !values.all) {
      throw new UsageError(`${running} jobs are running, and interrupting stops all of them. Add --all to stop all ${running}.`);
    }
    await client.interrupt();
    io.stdout.write(running === 0 ? 'No job was running.\n' : `Asked the server to stop the ${running === 1 ? 'running job' : `${running} running jobs`}.\n`);
    return ExitCode.ok;
  }
  await client.interrupt(positionals[0]);
  io.stdout.write(positionals[0] ? `Asked the server to interrupt ${positionals[0]}.\n` : 'Asked the server to interrupt the running job.\n');
  return ExitCode.ok;
}
