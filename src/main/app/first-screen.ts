// When the first screen is up, for the start-up work that can wait for it (issue 25: nothing that
// can wait is done before the first screen): the hot folders' start (a scan and a watcher per
// folder) and the library's resumed downloads change nothing the Run view first shows, yet took a
// third of the core's start-up and then competed with the page's first load for the CPU.
// The screen is up a moment after a renderer said it is ready (renderer.ready comes as the page
// mounts; its first loads follow at once); with no renderer at all (the CLI, tests, a window that
// never opens) the work still starts, `waitMs` after the core started.
export class FirstScreen {
  readonly #settleMs: number;
  readonly #waitMs: number;
  #open: () => void = () => undefined;
  readonly #shown: Promise<void>;
  #timer: ReturnType<typeof setTimeout> | null = null;
  #done = false;

  constructor(options: { settleMs?: number; waitMs?: number } = {}) {
    this.#settleMs = options.settleMs ?? 300;
    this.#waitMs = options.waitMs ?? 3000;
    this.#shown = new Promise((resolve) => (this.#open = resolve));
  }

  /** Resolves once the first screen is up (or can no longer come: see release()). */
  shown(): Promise<void> {
    return this.#shown;
  }

  /** The core started: without a renderer, the waiting work starts `waitMs` from now. */
  startClock(): void {
    if (this.#done || this.#timer) return;
    this.#arm(this.#waitMs);
  }

  /** A renderer is ready: its first screen is up `settleMs` from now. */
  rendererReady(): void {
    if (this.#done) return;
    if (this.#timer) clearTimeout(this.#timer);
    this.#arm(this.#settleMs);
  }

  /** Lets what waits go now (the core is stopping: each waiter checks it is still wanted). */
  release(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    this.#done = true;
    this.#open();
  }

  #arm(ms: number): void {
    this.#timer = setTimeout(() => this.release(), ms);
    // The wait never keeps a process alive by itself.
    this.#timer.unref?.();
  }
}
