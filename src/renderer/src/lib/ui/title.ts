// The window title carries the work under way, so a minimised window still shows it:
// "3 running · 42% — Flowdeck", "2 pending — Flowdeck", or just "Flowdeck".
export function windowTitle(counts: { running: number; pending: number; progress: number | null }): string {
  const parts: string[] = [];
  if (counts.running > 0) parts.push(`${counts.running} running`);
  if (counts.running > 0 && counts.progress !== null) parts.push(`${Math.floor(Math.min(1, Math.max(0, counts.progress)) * 100)}%`);
  if (counts.running === 0 && counts.pending > 0) parts.push(`${counts.pending} pending`);
  return parts.length > 0 ? `${parts.join(' · ')} — Flowdeck` : 'Flowdeck';
}

/** Mean share done of the running jobs that report one; null when none does. */
export function meanProgress(shares: readonly (number | null)[]): number | null {
  const known = shares.filter((s): s is number => s !== null && Number.isFinite(s));
  return known.length > 0 ? known.reduce((a, b) => a + b, 0) / known.length : null;
}
