// The notification centre: every notice the app raised, newest first. A notice is about a
// subject (a hot folder, the connection, ...): a new notice on the same subject replaces the
// earlier one instead of piling up. Dismissing hides it from the strip but keeps it in the
// history; the same words on the same subject later do not bring a dismissed notice back (a
// server switch re-announcing an old state is not news). Posting is an action, never a
// dependency: an effect that posts does not subscribe to the list it changes (that looped, see
// issue 24), and the same words again on a showing notice change nothing.
import { untrack } from 'svelte';
import type { Api } from '../api';

export type NoticeTone = 'info' | 'success' | 'warning' | 'error';

export interface AppNotice {
  id: number;
  subject: string;
  tone: NoticeTone;
  title: string;
  message: string;
  at: number;
  dismissed: boolean;
}

/** Enough history to look back over a session; older notices are dropped. */
const HISTORY_LIMIT = 50;

export class NoticeCentre {
  items = $state<AppNotice[]>([]);
  /** The newest notice id seen when the centre was last opened. */
  #readUpTo = $state(0);
  #nextId = 0;
  /** Notices in the list posted since the centre was last opened: the bell counts what it lists. */
  unread = $derived(this.items.filter((n) => n.id > this.#readUpTo).length);

  /** The notices still showing in the strip, newest first. */
  active = $derived(this.items.filter((n) => !n.dismissed));

  post(notice: { subject: string; tone: NoticeTone; title: string; message?: string }): void {
    untrack(() => this.#post(notice));
  }

  #post(notice: { subject: string; tone: NoticeTone; title: string; message?: string }): void {
    const message = notice.message ?? '';
    const earlier = this.items.find((n) => n.subject === notice.subject);
    // Same words on the same subject: a dismissed one stays dismissed, a showing one is not news.
    if (earlier && earlier.title === notice.title && earlier.message === message && (earlier.dismissed || earlier.tone === notice.tone)) return;
    this.#nextId += 1;
    const fresh: AppNotice = { id: this.#nextId, subject: notice.subject, tone: notice.tone, title: notice.title, message, at: Date.now(), dismissed: false };
    this.items = [fresh, ...this.items.filter((n) => n.subject !== notice.subject)].slice(0, HISTORY_LIMIT);
  }

  /**
   * What main tells the user outside any view (e.g. a damaged store moved aside and started afresh).
   * Main repeats its notices when a window becomes ready; the text is the subject, so a repeat
   * replaces the notice instead of stacking, and a dismissed one stays dismissed.
   */
  attach(api: Api): () => void {
    return api.on('app.notice', (notice) => this.post({ subject: `app:${notice.message}`, tone: notice.level, title: 'Flowdeck', message: notice.message }));
  }

  dismiss(id: number): void {
    this.items = this.items.map((n) => (n.id === id ? { ...n, dismissed: true } : n));
  }

  markRead(): void {
    this.#readUpTo = this.#nextId;
  }

  clear(): void {
    this.items = [];
    this.#readUpTo = this.#nextId;
  }
}
