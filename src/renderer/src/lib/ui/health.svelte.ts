// The active server's health as one reactive value, and its action, shared by the status bar and
// the Servers view (see connection-health.ts for the words).
import type { AppState } from '../context';
import { healthOf, type HealthAction, type HealthView } from './connection-health';

export function currentHealth(app: Pick<AppState, 'connection' | 'profiles'>): HealthView {
  const { connection, profiles } = app;
  return healthOf({
    coreLost: connection.coreLost,
    known: connection.known,
    hasServer: profiles.active !== null || !profiles.loaded,
    state: connection.current,
  });
}

export function runHealthAction(app: Pick<AppState, 'nav'>, action: NonNullable<HealthAction>, detail: string): void {
  if (action.kind === 'reload') location.reload();
  else if (action.kind === 'key') app.nav.askForKey(detail);
  else app.nav.go('servers');
}
