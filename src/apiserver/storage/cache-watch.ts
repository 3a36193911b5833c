/**
 * One watch served from a WatchCache: first the kept history after its starting revision (read in
 * place, by position, as the consumer pulls), then the live changes, buffered up to `capacity`.
 * A consumer that lets the buffer fill (or lets the history it still has to replay be dropped) is
 * ended with TooSlow: writers never wait for a watcher, and a watcher never holds more than its
 * buffer (kube's cacheWatcher ends an unresponsive watcher the same way).
 *
 * Every watch receiving a change gets the same frozen WatchEvent (shared-event.ts) from the source:
 * one decode per change, however many watchers.
 */
import type { EventHistory, ChangeEvent } from './event-history.js';
import { StorageError, type Key, type Watch, type WatchEvent } from './storage.js';

export interface WatchSource {
  readonly history: EventHistory;
  /** The newest applied revision. */
  readonly revision: number;
  /** The change's shared, frozen event (the one live watches were handed, while any consumer holds it). */
  eventOf(change: ChangeEvent): WatchEvent;
  /** Called once when the watch ends, so the source stops feeding it. */
  detach(watch: CacheWatch): void;
}

export class CacheWatch implements Watch {
  private replayAt: number;
  private readonly replayEnd: number;
  private buffer: WatchEvent[] = [];
  private bufferHead = 0;
  private delivered: number;
  private waiter: { resolve: (result: IteratorResult<WatchEvent>) => void; reject: (error: unknown) => void } | undefined;
  private ended = false;
  private pendingError: StorageError | undefined;

  constructor(
    private readonly source: WatchSource,
    readonly prefix: Key,
    private readonly fromRevision: number,
    private readonly capacity: number,
  ) {
    this.replayAt = source.history.positionAfter(fromRevision);
    this.replayEnd = source.history.end;
    this.delivered = fromRevision;
  }

  /** Ends the watch with an error its consumer sees next (Expired, TooSlow, Unavailable). */
  fail(error: StorageError): void {
    if (this.ended) return;
    this.pendingError = error;
    this.finish();
  }

  stop(): void {
    this.finish();
  }

  progressRevision(): number {
    const idle = this.replayAt >= this.replayEnd && this.bufferHead >= this.buffer.length;
    return idle ? Math.max(this.fromRevision, this.source.revision) : this.delivered;
  }

  /** A new change from the source (already known to be under the prefix), as every watch shares it. */
  push(event: WatchEvent): void {
    if (this.ended || event.revision <= this.fromRevision) return;
    if (this.waiter) {
      const waiter = this.waiter;
      this.waiter = undefined;
      waiter.resolve({ value: this.deliver(event), done: false });
      return;
    }
    if (this.buffer.length - this.bufferHead >= this.capacity) {
      this.fail(
        new StorageError(
          'TooSlow',
          this.prefix,
          `the watch of ${this.prefix} fell more than ${this.capacity} events behind and was ended: list and watch again`,
        ),
      );
      return;
    }
    this.buffer.push(event);
  }

  next(): Promise<IteratorResult<WatchEvent>> {
    if (this.ended) {
      const error = this.pendingError;
      this.pendingError = undefined;
      return error ? Promise.reject(error) : Promise.resolve({ value: undefined, done: true });
    }
    const event = this.nextReplayed() ?? this.nextBuffered();
    if (event) return Promise.resolve({ value: this.deliver(event), done: false });
    if (this.ended) return this.next(); // the replay found its history gone
    if (this.waiter) return Promise.reject(new Error('a watch is read by one consumer at a time'));
    return new Promise((resolve, reject) => (this.waiter = { resolve, reject }));
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

  private nextReplayed(): WatchEvent | undefined {
    const history = this.source.history;
    while (this.replayAt < this.replayEnd) {
      if (this.replayAt < history.start) {
        this.fail(
          new StorageError(
            'TooSlow',
            this.prefix,
            `the watch of ${this.prefix} replayed history slower than it was dropped and was ended: list and watch again`,
          ),
        );
        return undefined;
      }
      const change = history.at(this.replayAt++)!;
      if (change.key.startsWith(this.prefix)) return this.source.eventOf(change);
    }
    return undefined;
  }

  private nextBuffered(): WatchEvent | undefined {
    if (this.bufferHead >= this.buffer.length) return undefined;
    const event = this.buffer[this.bufferHead]!;
    this.buffer[this.bufferHead++] = undefined as unknown as WatchEvent;
    if (this.bufferHead === this.buffer.length) {
      this.buffer = [];
      this.bufferHead = 0;
    } else if (this.bufferHead >= 1024 && this.bufferHead * 2 >= this.buffer.length) {
      this.buffer = this.buffer.slice(this.bufferHead);
      this.bufferHead = 0;
    }
    return event;
  }

  private deliver(event: WatchEvent): WatchEvent {
    this.delivered = event.revision;
    return event;
  }

  private finish(): void {
    if (this.ended) return;
    this.ended = true;
    this.buffer = [];
    this.bufferHead = 0;
    this.replayAt = this.replayEnd;
    this.source.detach(this);
    const waiter = this.waiter;
    this.waiter = undefined;
    if (!waiter) return;
    const error = this.pendingError;
    this.pendingError = undefined;
    if (error) waiter.reject(error);
    else waiter.resolve({ value: undefined, done: true });
  }
}
