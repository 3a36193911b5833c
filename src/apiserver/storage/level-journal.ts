/**
 * The embedded store's files: one LevelDB database (classic-level) holding, as kine does in its
 * SQL table, the current objects and an ordered revision log, both written in the same atomic
 * batch with `sync: true`. LevelDB writes the batch to its own write-ahead log with a checksum per
 * record; at open it drops a record that was not completely written, so a batch is there whole or
 * not at all ("a torn write is never served").
 *
 * Keys (strings; LevelDB orders them bytewise):
 *   o:<key>            the object at <key>: "<revision> <JSON text>"
 *   r:<revision>       the change at <revision> (16 digits, zero-padded, so the log sorts by revision):
 *                      "<type>\n<prevRevision>\n<value>\n<prevValue>\n<key>" (JSON text has no raw
 *                      newline, so only the key, last, may hold one)
 *   m:format           this layout's name, so a directory of something else is refused
 *   m:revision         the newest revision written (the log may have been compacted to nothing)
 *   m:compacted        every change after this revision is still in the log
 */
import type { ClassicLevel } from 'classic-level';
import type { ChangeEvent } from './event-history.js';
import type { Journal } from './group-commit.js';
import type { Entry } from './key-index.js';
import type { Key, WatchEventType } from './storage.js';

export const formatName = 'fleetgate-storage-1';

export const objectKey = (key: Key): string => `o:${key}`;
export const logKey = (revision: number): string => `r:${String(revision).padStart(16, '0')}`;
export const objectRange = { gte: 'o:', lt: 'o;' };
export const logRange = { gte: 'r:', lt: 'r;' };
export const metaKeys = { format: 'm:format', revision: 'm:revision', compacted: 'm:compacted' };

const maxDeletionsPerBatch = 10_000;

type Operation = { type: 'put'; key: string; value: string } | { type: 'del'; key: string };

export class LevelJournal implements Journal {
  constructor(
    private readonly db: ClassicLevel<string, string>,
    /** The compaction already written: log entries at or before it are gone. */
    private compacted: number,
  ) {}

  async write(events: readonly ChangeEvent[], compactedRevision: number): Promise<void> {
    const operations: Operation[] = [];
    for (const event of events) {
      if (event.type === 'DELETED') operations.push({ type: 'del', key: objectKey(event.key) });
      else operations.push({ type: 'put', key: objectKey(event.key), value: encodeEntry({ value: event.value!, revision: event.revision }) });
      operations.push({ type: 'put', key: logKey(event.revision), value: encodeChange(event) });
    }
    const newest = events[events.length - 1];
    if (newest) operations.push({ type: 'put', key: metaKeys.revision, value: String(newest.revision) });
    // A write's batch carries at most this many deletions (a quiet spell after a burst lets the
    // whole burst go at once), the rest follow with the next batches; a compaction alone carries all.
    const through = Math.min(compactedRevision, events.length > 0 ? this.compacted + maxDeletionsPerBatch : Infinity);
    const compacting = through > this.compacted;
    if (compacting) {
      // Revisions are consecutive here (one per write), so the dropped entries are exactly these.
      for (let revision = this.compacted + 1; revision <= through; revision++) operations.push({ type: 'del', key: logKey(revision) });
      operations.push({ type: 'put', key: metaKeys.compacted, value: String(through) });
    }
    if (operations.length === 0) return;
    await this.db.batch(operations, { sync: true });
    if (compacting) this.compacted = through;
  }

  async close(): Promise<void> {
    await this.db.close();
  }
}

export const encodeEntry = (entry: Entry): string => `${entry.revision} ${entry.value}`;

export function decodeEntry(text: string): Entry {
  const space = text.indexOf(' ');
  const revision = Number(text.slice(0, space));
  if (space < 1 || !Number.isSafeInteger(revision)) throw new Error(`not a stored object: ${text.slice(0, 40)}`);
  return { revision, value: text.slice(space + 1) };
}

export function encodeChange(event: ChangeEvent): string {
  return `${event.type}\n${event.prevRevision ?? ''}\n${event.value ?? ''}\n${event.prevValue ?? ''}\n${event.key}`;
}

const changeTypes = new Set<string>(['ADDED', 'MODIFIED', 'DELETED']);

export function decodeChange(revision: number, text: string): ChangeEvent {
  const first = text.indexOf('\n');
  const second = text.indexOf('\n', first + 1);
  const third = text.indexOf('\n', second + 1);
  const fourth = text.indexOf('\n', third + 1);
  const type = text.slice(0, first);
  if (fourth < 0 || !changeTypes.has(type)) throw new Error(`not a logged change at revision ${revision}`);
  const event: ChangeEvent = { type: type as WatchEventType, key: text.slice(fourth + 1), revision };
  if (second > first + 1) event.prevRevision = Number(text.slice(first + 1, second));
  if (third > second + 1) event.value = text.slice(second + 1, third);
  if (fourth > third + 1) event.prevValue = text.slice(third + 1, fourth);
  return event;
}
