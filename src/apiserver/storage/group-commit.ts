/**
 * Group commit: the changes submitted while no batch is being written go out together, in one
 * durable batch, after the current event-loop turn; the changes submitted while a batch is being
 * written wait and go out together in the next one. So one sync serves every write that arrived
 * meanwhile, and batches are written one at a time, in revision order.
 *
 * A change counts (its submit() resolves) only after its batch is durable and `committed` has
 * applied it. When a batch fails, it and every change queued behind it (which may have been
 * computed from it) fail with the error, and no later batch is written: `failed` is told once.
 */
import type { ChangeEvent } from './event-history.js';

export interface Journal {
  /**
   * Makes `events` durable in one atomic batch, and forgets the kept history at or before
   * `compactedRevision`. Resolves only when the batch is synced; rejects when the batch may or
   * may not be on disk (the writer must then stop: LevelDB refuses every later write after a
   * failed one, for that reason).
   */
  write(events: readonly ChangeEvent[], compactedRevision: number): Promise<void>;
  close(): Promise<void>;
}

interface Waiting {
  event: ChangeEvent;
  resolve: () => void;
  reject: (error: unknown) => void;
}

export class GroupCommit {
  private queue: Waiting[] = [];
  private writing: Promise<void> | undefined;
  private scheduled = false;
  private failure: unknown;
  /** Batches written and the writes they held, for metrics: writes / batches is the group-commit factor. */
  readonly stats = { batches: 0, writes: 0 };

  constructor(
    private readonly journal: Journal,
    private readonly compactedRevision: () => number,
    private readonly committed: (events: readonly ChangeEvent[]) => void,
    private readonly failed: (error: unknown) => void,
  ) {}

  submit(event: ChangeEvent): Promise<void> {
    if (this.failure !== undefined) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => {
      this.queue.push({ event, resolve, reject });
      if (!this.writing && !this.scheduled) {
        this.scheduled = true;
        setImmediate(() => {
          this.scheduled = false;
          this.flush();
        });
      }
    });
  }

  /** Writes only the compaction (a forced one): waits for its turn like any batch. */
  async compact(): Promise<void> {
    await this.idle();
    if (this.failure !== undefined) throw this.failure;
    await this.journal.write([], this.compactedRevision());
  }

  /** Resolves when nothing is queued or being written. */
  async idle(): Promise<void> {
    while (this.writing || this.scheduled || this.queue.length > 0) {
      if (this.writing) await this.writing;
      else await new Promise((resolve) => setImmediate(resolve));
    }
  }

  private flush(): void {
    if (this.writing || this.queue.length === 0) return;
    const batch = this.queue;
    this.queue = [];
    this.writing = this.write(batch).finally(() => {
      this.writing = undefined;
      this.flush();
    });
  }

  private async write(batch: Waiting[]): Promise<void> {
    const events = batch.map((waiting) => waiting.event);
    try {
      await this.journal.write(events, this.compactedRevision());
    } catch (error) {
      this.failure = error;
      const lost = [...batch, ...this.queue];
      this.queue = [];
      this.failed(error);
      for (const waiting of lost) waiting.reject(error);
      return;
    }
    this.stats.batches++;
    this.stats.writes += events.length;
    this.committed(events);
    for (const waiting of batch) waiting.resolve();
  }
}
