// Types for install-decision.mjs (imported by its tests).
export interface HeaderCandidate {
  prefix: string;
  version: string | null;
}
export interface NodedirDecision {
  nodedir: string | null;
  reason: string;
}
export function headerVersion(text: string): string | null;
export function chooseNodedir(input: { env: Record<string, string | undefined>; nodeVersion: string; candidates: HeaderCandidate[] }): NodedirDecision;
