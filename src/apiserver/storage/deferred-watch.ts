/**
 * A watch whose source is still being prepared (the kind's watch cache is listing from etcd):
 * Storage.watch answers at once, and this hands over to the real watch once it exists. Stopping
 * it before then stops the real one as soon as it comes; a failed preparation ends it with that
 * error (Expired, Unavailable).
 */
import type { Watch, WatchEvent } from './storage.js';

export class DeferredWatch implements Watch {
  private inner: Watch | undefined;
  private iterator: AsyncIterator<WatchEvent> | undefined;
  private failure: unknown;
  private stopped = false;
  private readonly settled: Promise<void>;

  constructor(
    private readonly fromRevision: number,
    source: Promise<Watch>,
  ) {
    this.settled = source.then(
      (watch) => {
        this.inner = watch;
        if (this.stopped) watch.stop();
      },
      (error: unknown) => {
        this.failure = error;
      },
    );
  }

  /** A watch that ends with `error` as soon as it is read. */
  static failed(fromRevision: number, error: unknown): DeferredWatch {
    return new DeferredWatch(fromRevision, Promise.reject(error));
  }

  stop(): void {
    this.stopped = true;
    this.inner?.stop();
    this.wake?.();
  }

  progressRevision(): number {
    return this.inner?.progressRevision() ?? this.fromRevision;
  }

  private wake: (() => void) | undefined;

  async next(): Promise<IteratorResult<WatchEvent>> {
    if (!this.inner && this.failure === undefined && !this.stopped) {
      // Wait for the source, or for stop(), whichever comes first.
      await Promise.race([this.settled, new Promise<void>((resolve) => (this.wake = resolve))]);
      this.wake = undefined;
    }
    if (this.stopped) return { value: undefined, done: true };
    if (this.failure !== undefined) {
      const error = this.failure;
      this.failure = undefined;
      this.stopped = true;
      throw error;
    }
    this.iterator ??= this.inner![Symbol.asyncIterator]();
    return this.iterator.next();
  }

  [Symbol.asyncIterator](): AsyncIterator<WatchEvent> {
    return {
      next: () => this.next(),
      return: async () => {
        this.stop();
        return { value: undefined, done: true };
      },
    };
  }
}
