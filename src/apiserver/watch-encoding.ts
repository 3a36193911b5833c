/**
 * How a watch stream turns an event into the bytes it sends, with the serialization shared across
 * watchers (kube-apiserver's cachingObject caches each event's encoding per encoder): storage hands
 * every watcher of a change the same frozen object, so a line encoded for one (event type, output
 * form) is the line for every watcher asking for that form, and is encoded once. Only frozen objects
 * are cached: a frozen object cannot change under its cached line, and a fresh one (an initial
 * event, a bookmark) is sent once anyway. The cache is keyed by the object, weakly: a line lives
 * as long as the event does, and no longer.
 */
import type { JsonObject } from './json.js';

/** One output form of an event's object. */
export interface WatchObjectEncoder {
  /**
   * Names the form: for one object, every encoder with this id gives the same text (so the line is
   * encoded once for all of them).
   */
  readonly id: string;
  encode(object: JsonObject): unknown;
}

/** The forms of one watch's events, in order: a Table watch's first event alone carries the column definitions. */
export interface WatchEncoding {
  next(): WatchObjectEncoder;
}

const identity: WatchObjectEncoder = { id: 'json', encode: (object) => object };

/** The object as it is (plain JSON): the same form for every event. */
export const jsonWatchEncoding: WatchEncoding = { next: () => identity };

/** Every event in one form (PartialObjectMetadata of a version, say). */
export function uniformWatchEncoding(encoder: WatchObjectEncoder): WatchEncoding {
  return { next: () => encoder };
}

const lines = new WeakMap<object, Map<string, Buffer>>();

/** The newline-terminated `{"type":…,"object":…}` line of an event, shared when its object is frozen. */
export function eventLine(type: string, object: JsonObject, encoder: WatchObjectEncoder): Buffer | string {
  if (!Object.isFrozen(object)) return line(type, object, encoder);
  let forms = lines.get(object);
  if (!forms) lines.set(object, (forms = new Map()));
  const id = `${type} ${encoder.id}`;
  let encoded = forms.get(id);
  if (!encoded) forms.set(id, (encoded = Buffer.from(line(type, object, encoder))));
  return encoded;
}

function line(type: string, object: JsonObject, encoder: WatchObjectEncoder): string {
  return `${JSON.stringify({ type, object: encoder.encode(object) })}\n`;
}
