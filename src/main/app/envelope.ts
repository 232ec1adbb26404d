// The envelope around every call: the name and input are checked against the contract before a
// handler runs, the answer is checked (and stripped of unmeant fields) after, and every failure
// becomes `{ ok: false, error }` with known keys removed. Never throws.
import { calls, type CallHandlers, type Envelope } from '@shared/ipc/contract';
import { isCallName } from '@shared/ipc/names';
import type { LogLevel } from './ports';
import { toIpcError } from './errors';

export function createInvoke(
  handlers: CallHandlers,
  redact: (text: string) => string,
  log: (level: LogLevel, message: string) => void,
): (name: unknown, input: unknown) => Promise<Envelope<unknown>> {
  return async (name, input) => {
    if (!isCallName(name)) return { ok: false, error: { code: 'invalid_input', message: `"${String(name).slice(0, 100)}" is not a Flowdeck call.` } };
    const spec = calls[name];
    const parsed = spec.input.safeParse(input);
    if (!parsed.success) return { ok: false, error: toIpcError(parsed.error, redact) };
    try {
      const handler = handlers[name] as (input: unknown) => Promise<unknown>;
      const value = await handler(parsed.data);
      // The result schema is the last filter: a field a handler did not mean to send is dropped.
      const checked = spec.result.safeParse(value);
      if (!checked.success) {
        log('error', `${name} produced an answer outside the contract: ${checked.error.message}`);
        return { ok: false, error: { code: 'internal', message: `The app produced an invalid answer to ${name}.` } };
      }
      return { ok: true, value: checked.data };
    } catch (error) {
      const ipcError = toIpcError(error, redact);
      if (ipcError.code === 'internal') log('error', `${name} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
      return { ok: false, error: ipcError };
    }
  };
}
