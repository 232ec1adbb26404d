#!/usr/bin/env node
// The flowdeck command: the same core as the app, headless.
// Each command's code is loaded (a dynamic import, its own chunks in the build) only when that
// command runs: evaluating every command's modules at each start (the demo service, the UI
// converter, the library's search, their schemas) was most of `flowdeck help`'s 0.19 s of CPU and
// a third of an empty `watch --once`'s start. Keep static imports here to what every run needs.
import type { CliEnvironment } from './connection';
import { ExitCode, UsageError } from './errors';
import { HELP } from './usage';

function waitForSignal(): Promise<void> {
  return new Promise((resolveWait) => {
    const done = (): void => {
      process.removeListener('SIGINT', done);
      process.removeListener('SIGTERM', done);
      resolveWait();
    };
    process.once('SIGINT', done);
    process.once('SIGTERM', done);
  });
}

/** The settings, keychain and data folder: loaded only by the commands that use them (not help, not demo). */
async function environment(): Promise<CliEnvironment> {
  return (await import('./connection')).defaultEnvironment();
}

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  const io = { stdout: process.stdout, stderr: process.stderr };
  switch (command) {
    case undefined:
    case 'help':
    case '--help':
    case '-h':
      process.stdout.write(HELP);
      return command === undefined ? ExitCode.usage : ExitCode.ok;
    case 'run':
      return (await import('./commands/run')).runCommand(rest, io, await environment());
    case 'convert':
      return (await import('./commands/convert')).convertCommand(rest, io, await environment());
    case 'demo':
      return (await import('./commands/demo')).demoCommand(rest, io, waitForSignal);
    case 'watch':
      return (await import('./commands/watch')).watchCommand(rest, io, await environment(), waitForSignal);
    case 'login':
      return (await import('./commands/login')).loginCommand(rest, io, await environment(), process.stdin);
    case 'logout':
      return (await import('./commands/login')).logoutCommand(rest, io, await environment());
    case 'queue':
      return (await import('./commands/queue')).queueCommand(rest, io, await environment());
    case 'cancel':
      return (await import('./commands/queue')).cancelCommand(rest, io, await environment());
    case 'interrupt':
      return (await import('./commands/queue')).interruptCommand(rest, io, await environment());
    case 'library':
      return (await import('./commands/library')).libraryCommand(rest, io, await environment());
    default:
      throw new UsageError(`Unknown command "${command}". Run "flowdeck help" for the list of commands.`);
  }
}

/**
 * A reader that stops early (`flowdeck library list | head`) closes the pipe: the next write fails
 * with EPIPE. That is the reader's choice, not an error: end quietly, with no stack.
 */
function endQuietlyOnClosedPipe(stream: NodeJS.WriteStream): void {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(process.exitCode ?? ExitCode.ok);
    throw error;
  });
}

endQuietlyOnClosedPipe(process.stdout);
endQuietlyOnClosedPipe(process.stderr);

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  async (error: unknown) => {
    const { reportFailure } = await import('./failure');
    process.exitCode = reportFailure(error, process.argv, process.env);
  },
);
