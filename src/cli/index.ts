#!/usr/bin/env node
// The flowdeck command: the same core as the app, headless.
import { StoreError } from '@main/store/store';
import { redactSecret } from '@main/service/errors';
import { defaultEnvironment } from './connection';
import { exitCodeFor, ExitCode, messageFor, UsageError } from './errors';
import { convertCommand, CONVERT_USAGE } from './commands/convert';
import { demoCommand, DEMO_USAGE } from './commands/demo';
import { loginCommand, logoutCommand } from './commands/login';
import { cancelCommand, interruptCommand, queueCommand } from './commands/queue';
import { libraryCommand, LIBRARY_USAGE } from './commands/library';
import { runCommand, RUN_USAGE } from './commands/run';
import { watchCommand, WATCH_USAGE } from './commands/watch';

const HELP = `flowdeck: run node-graph workflows on the cloud service, a local server or the built-in demo.

Usage:
  ${RUN_USAGE}
  ${CONVERT_USAGE}
  ${DEMO_USAGE}
  ${WATCH_USAGE}
  flowdeck login [--server URL] [--no-verify]     store the API key in the OS keychain (read from stdin)
  flowdeck logout [--server URL]                  remove it
  flowdeck queue [--server URL] [--local] [--json]
  flowdeck cancel ID... [--server URL] [--local]
  flowdeck interrupt [ID] [--all] [--server URL] [--local]
                                                  local: stops job ID; cloud: stops ALL running jobs
                                                  of the account (--all needed when more than one runs)
  ${LIBRARY_USAGE}

WORKFLOW may be API-format JSON, a UI-format workflow (the editor's graph; converted with the
server's node definitions) or an output image that carries its workflow. flowdeck convert prints
the API prompt such a file becomes; it exits 2, listing them, when the server lacks node classes.

Every output of flowdeck run is also kept in the outputs library: <data folder>/library, or
FLOWDECK_LIBRARY_DIR (in dated folders, each file once).

The API key is read from FLOWDECK_API_KEY first, then from the OS keychain.
All state lives in one data folder: FLOWDECK_DATA_DIR, or the OS's per-user app data folder.
Exit codes: 0 success; 1 the job failed, was cancelled or rejected; 2 usage error or unreadable
input file; 3 key missing or rejected; 4 credits or subscription; 5 server or network failure;
6 the local data store cannot be used (a damaged store is moved aside to
flowdeck.sqlite.corrupt-<time> and a fresh one started, with a warning; 6 only when even that fails).
`;

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
      return runCommand(rest, io, defaultEnvironment());
    case 'convert':
      return convertCommand(rest, io, defaultEnvironment());
    case 'demo':
      return demoCommand(rest, io, waitForSignal);
    case 'watch':
      return watchCommand(rest, io, defaultEnvironment(), waitForSignal);
    case 'login':
      return loginCommand(rest, io, defaultEnvironment(), process.stdin);
    case 'logout':
      return logoutCommand(rest, io, defaultEnvironment());
    case 'queue':
      return queueCommand(rest, io, defaultEnvironment());
    case 'cancel':
      return cancelCommand(rest, io, defaultEnvironment());
    case 'interrupt':
      return interruptCommand(rest, io, defaultEnvironment());
    case 'library':
      return libraryCommand(rest, io, defaultEnvironment());
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
  (error: unknown) => {
    const message = redactSecret(messageFor(error), process.env.FLOWDECK_API_KEY);
    process.stderr.write(`flowdeck: ${message}\n`);
    process.exitCode = exitCodeFor(error);
    // Failures before a command's own --json reporting begins (the store) still give a JSON object.
    if (error instanceof StoreError && process.argv.includes('--json'))
      process.stdout.write(`${JSON.stringify({ status: 'error', error: message, exit_code: process.exitCode })}\n`);
  },
);
