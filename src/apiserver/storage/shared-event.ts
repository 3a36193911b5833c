/**
 * The WatchEvent of a change as every watch receiving it shares it, as kube-apiserver's cacher
 * hands every watcher the same decoded object: the object is decoded once, not once per watcher,
 * and the event and everything in it are frozen, so no consumer can change what another receives
 * (a consumer that needs to change it copies it). `prevObject` is decoded the first time any
 * consumer reads it: only filtered watches do.
 */
import type { ChangeEvent } from './event-history.js';
import type { WatchEvent } from './storage.js';
import { decodeObject } from './stored-value.js';

export function sharedWatchEvent(change: ChangeEvent): WatchEvent {
  const value = change.type === 'DELETED' ? change.prevValue! : change.value!;
  const object = deepFreeze(decodeObject(value, change.revision));
  const event: WatchEvent = { type: change.type, key: change.key, object, revision: change.revision };
  if (change.prevValue !== undefined) {
    const { prevValue, prevRevision } = change;
    let prevObject: WatchEvent['object'] | undefined;
    Object.defineProperty(event, 'prevObject', {
      enumerable: true,
      get: () => (prevObject ??= deepFreeze(decodeObject(prevValue, prevRevision!))),
    });
  }
  return Object.freeze(event);
}

/** Freezes `value` and every object and array inside it (a decoded JSON value: no cycles). */
export function deepFreeze<T>(value: T): T {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) {
    for (const item of value) deepFreeze(item);
  } else {
    for (const key in value) deepFreeze((value as Record<string, unknown>)[key]);
  }
  return Object.freeze(value);
}
