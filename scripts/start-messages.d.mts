// Types for start-messages.mjs (imported by its tests).
export function electronProblem(output: string): string;
