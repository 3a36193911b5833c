/** The storage layer's public surface, for the API server and other backends. */
export * from './storage.js';
export { createMemoryStorage, type MemoryStorageOptions } from './memory.js';
export { openDurableStorage, DataDirectoryError, type DurableStorageOptions } from './durable.js';
export type { EmbeddedStore } from './embedded-store.js';
export { WatchCache, type WatchCacheOptions } from './watch-cache.js';
export { deepFreeze } from './shared-event.js';
export type { ChangeEvent, RetentionPolicy } from './event-history.js';
