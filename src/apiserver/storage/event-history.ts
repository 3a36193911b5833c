/**
 * The recent changes, oldest first: what watches replay from an older revision and what a list
 * at an older revision undoes from the current state. Sized like kube-apiserver's watch cache
 * (k8s.io/apiserver storage/cacher/watch_cache.go): an event is kept at least `freshMs` (75 s)
 * and the newest `minEvents` are kept whatever their age, but never more than `maxEvents`.
 * Every change after `compactedRevision` is here; anything at or before it is Expired.
 */
import type { Key, WatchEventType } from './storage.js';

/** One change, as the store wrote it: the object's text after (ADDED, MODIFIED) and before (MODIFIED, DELETED). */
export interface ChangeEvent {
  type: WatchEventType;
  key: Key;
  revision: number;
  value?: string;
  prevValue?: string;
  /** The revision of `prevValue`: what the object's resourceVersion was before this change. */
  prevRevision?: number;
}

export interface RetentionPolicy {
  /** Events younger than this are kept (up to maxEvents). kube's eventFreshDuration: 75 s. */
  freshMs: number;
  /** The newest this many events are kept whatever their age. */
  minEvents: number;
  /** Never more than this many events. kube's upper bound: 102,400. */
  maxEvents: number;
  /** A monotonic clock in milliseconds. */
  now: () => number;
}

export const defaultRetention: RetentionPolicy = {
  freshMs: 75_000,
  minEvents: 1_000,
  maxEvents: 102_400,
  now: () => performance.now(),
};

export class EventHistory {
  // A queue over an array: `events[i - trimmed]` is the event at absolute position i. Positions
  // never change, so a watch replaying from the history keeps its place while older events go.
  private events: ChangeEvent[] = [];
  private times: number[] = [];
  private trimmed = 0;
  private first = 0;

  constructor(
    private compacted: number,
    private readonly policy: RetentionPolicy = defaultRetention,
  ) {
    if (policy.minEvents > policy.maxEvents) throw new RangeError('minEvents must not exceed maxEvents');
  }

  /** Every change after this revision is kept. */
  get compactedRevision(): number {
    return this.compacted;
  }

  get size(): number {
    return this.end - this.first;
  }

  /** The absolute position of the oldest event kept. */
  get start(): number {
    return this.first;
  }

  /** The absolute position the next event will get. */
  get end(): number {
    return this.trimmed + this.events.length;
  }

  /** The event at absolute position `position`, if still kept. */
  at(position: number): ChangeEvent | undefined {
    return position < this.first ? undefined : this.events[position - this.trimmed];
  }

  /** Appends a change (revisions strictly increase), then lets the oldest go as the policy says. */
  append(event: ChangeEvent): void {
    const newest = this.events[this.events.length - 1];
    if (newest && event.revision <= newest.revision) {
      throw new RangeError(`event revision ${event.revision} is not after ${newest.revision}`);
    }
    this.events.push(event);
    this.times.push(this.policy.now());
    this.evict();
  }

  /** The position of the first kept event after `revision` (end when there is none). */
  positionAfter(revision: number): number {
    let low = this.first;
    let high = this.end;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (this.events[middle - this.trimmed]!.revision <= revision) low = middle + 1;
      else high = middle;
    }
    return low;
  }

  /** Lets go of every event at or before `revision` (a forced compaction). */
  compact(revision: number): void {
    while (this.first < this.end && this.events[this.first - this.trimmed]!.revision <= revision) this.dropOldest();
    this.compacted = Math.max(this.compacted, revision);
    this.trim();
  }

  private evict(): void {
    const { freshMs, minEvents, maxEvents, now } = this.policy;
    const time = now();
    while (this.size > maxEvents || (this.size > minEvents && time - this.times[this.first - this.trimmed]! > freshMs)) {
      this.dropOldest();
    }
    this.trim();
  }

  private dropOldest(): void {
    const index = this.first - this.trimmed;
    this.compacted = this.events[index]!.revision;
    this.events[index] = undefined as unknown as ChangeEvent; // let the texts go now, not at the next trim
    this.first++;
  }

  /** Gives the dropped slots back once they are half the array, so eviction stays O(1) amortised. */
  private trim(): void {
    const dropped = this.first - this.trimmed;
    if (dropped < 1024 || dropped * 2 < this.events.length) return;
    this.events = this.events.slice(dropped);
    this.times = this.times.slice(dropped);
    this.trimmed = this.first;
  }
}
