// A counting semaphore: at most `limit` tasks at once, the rest in arrival order. Bounds the
// file descriptors and memory of hashing and stat calls when thousands of files arrive together.
export class Limiter {
  private active = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(private readonly limit: number) {}

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.active >= this.limit) await new Promise<void>((resolve) => this.waiting.push(resolve));
    this.active += 1;
    try {
      return await task();
    } finally {
      this.active -= 1;
      this.waiting.shift()?.();
    }
  }

  get busy(): number {
    return this.active + this.waiting.length;
  }
}
