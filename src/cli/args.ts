// Argument parsing on node:util parseArgs, with errors that say what was wrong and how to ask for help.
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { UsageError } from './errors';

type Options = NonNullable<ParseArgsConfig['options']>;

export function parseCommandArgs<O extends Options>(command: string, argv: string[], options: O, allowPositionals = true) {
  try {
    return parseArgs({ args: argv, options, allowPositionals, strict: true });
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    throw new UsageError(`flowdeck ${command}: ${detail}. Run "flowdeck help" for usage.`);
  }
}

export function parsePositiveNumber(name: string, text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const value = Number(text);
  if (!Number.isFinite(value) || value <= 0) throw new UsageError(`--${name} must be a positive number (got "${text}").`);
  return value;
}

/** A whole number within [min, max], or undefined when the option was not given. */
export function parseWholeNumber(name: string, text: string | undefined, min: number, max: number): number | undefined {
  if (text === undefined) return undefined;
  const value = Number(text);
  if (!Number.isInteger(value) || value < min || value > max) throw new UsageError(`--${name} must be a whole number from ${min} to ${max} (got "${text}").`);
  return value;
}
