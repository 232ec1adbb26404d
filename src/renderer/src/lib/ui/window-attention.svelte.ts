// Whether someone is looking at the window: it is shown (not minimised, not a hidden tab) and has
// the focus. Work that only matters to a window nobody looks at (the title's percentage, which
// the stage already shows) follows this, so a watched job does not repaint the window's frame.
export interface AttentionSource {
  readonly visibilityState: DocumentVisibilityState;
  hasFocus(): boolean;
}

export class WindowAttention {
  /** True while the window is visible and focused. */
  attentive = $state(false);
  readonly #dispose: () => void;

  constructor(
    doc: AttentionSource & Pick<Document, 'addEventListener' | 'removeEventListener'>,
    win: Pick<Window, 'addEventListener' | 'removeEventListener'>,
  ) {
    const check = (): void => {
      this.attentive = doc.visibilityState === 'visible' && doc.hasFocus();
    };
    // A blur event comes before hasFocus() turns false in some engines: it is taken at its word.
    const blurred = (): void => {
      this.attentive = false;
    };
    check();
    doc.addEventListener('visibilitychange', check);
    win.addEventListener('focus', check);
    win.addEventListener('blur', blurred);
    this.#dispose = () => {
      doc.removeEventListener('visibilitychange', check);
      win.removeEventListener('focus', check);
      win.removeEventListener('blur', blurred);
    };
  }

  dispose(): void {
    this.#dispose();
  }
}
