// A caught value in words: an Error's message, anything else as a string. For warnings, notices
// and logs that name what went wrong without its stack.
export function describeError(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
