// The colour theme: "system" follows the OS (dark unless the OS asks for light), or forced dark or
// light. Stored in localStorage: it is a per-window look, not a setting main needs to know.
export type ThemeChoice = 'system' | 'dark' | 'light';

const STORAGE_KEY = 'flowdeck.theme';
const CHOICES: readonly ThemeChoice[] = ['system', 'dark', 'light'];

function isChoice(value: unknown): value is ThemeChoice {
  return typeof value === 'string' && (CHOICES as readonly string[]).includes(value);
}

function readStored(): ThemeChoice {
  try {
    const value = localStorage.getItem(STORAGE_KEY);
    return isChoice(value) ? value : 'system';
  } catch {
    // Storage can be unavailable (a sandboxed page); the OS choice is the fallback.
    return 'system';
  }
}

export class ThemeStore {
  choice = $state<ThemeChoice>(readStored());

  /** Puts the choice on <html data-theme>, which tokens.css reads. */
  apply(): void {
    document.documentElement.dataset.theme = this.choice;
  }

  set(choice: ThemeChoice): void {
    this.choice = choice;
    this.apply();
    try {
      localStorage.setItem(STORAGE_KEY, choice);
    } catch {
      // Not persisted; the choice still holds for this window.
    }
  }
}
