// Which view is shown, and requests that send the user somewhere to act (a rejected key opens the
// Servers view at the "API key" field with the server's message).

export type View = 'run' | 'queue' | 'history' | 'library' | 'hot-folders' | 'servers';

export const VIEWS: readonly { view: View; label: string }[] = [
  { view: 'run', label: 'Run' },
  { view: 'queue', label: 'Queue' },
  { view: 'history', label: 'History' },
  { view: 'library', label: 'Library' },
  { view: 'hot-folders', label: 'Hot folders' },
  { view: 'servers', label: 'Servers' },
];

/** Views live in the location hash (#/queue), so the navigation is plain links. */
export function viewFromHash(hash: string): View | null {
  const name = hash.replace(/^#\/?/, '');
  return VIEWS.find((v) => v.view === name)?.view ?? null;
}

export function hashOf(view: View): string {
  return `#/${view}`;
}

export interface KeyPrompt {
  message: string;
  /** Changes on every request, so the same message asked twice still moves the focus. */
  nonce: number;
}

export class Navigation {
  view = $state<View>('run');
  keyPrompt = $state<KeyPrompt | null>(null);
  /** Ctrl/Cmd+O asked for the workflow file chooser; the Run view's "Open workflow" answers it. */
  openRequested = $state(false);
  #nonce = 0;

  requestOpenWorkflow(): void {
    this.openRequested = true;
    this.go('run');
  }

  go(view: View): void {
    this.view = view;
    if (typeof location !== 'undefined' && location.hash !== hashOf(view)) location.hash = hashOf(view);
  }

  /** Opens the Servers view at the active profile's key field, showing why. */
  askForKey(message: string): void {
    this.#nonce += 1;
    this.keyPrompt = { message, nonce: this.#nonce };
    this.go('servers');
  }

  dismissKeyPrompt(): void {
    this.keyPrompt = null;
  }
}
