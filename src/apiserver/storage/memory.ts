/** `--storage memory`: the embedded store without a journal, for throwaway runs and tests. */
import { EmbeddedStore } from './embedded-store.js';
import type { RetentionPolicy } from './event-history.js';
import { WatchCache } from './watch-cache.js';

export interface MemoryStorageOptions {
  /** How long and how many changes are kept for watches and lists at older revisions. */
  retention?: Partial<RetentionPolicy>;
  /** How many events a watch buffers for a slow consumer before it is ended with TooSlow. */
  watchBufferSize?: number;
}

/** An empty store at revision 1 (as etcd starts: a resourceVersion "0" means "any" to clients, never a state). */
export function createMemoryStorage(options: MemoryStorageOptions = {}): EmbeddedStore {
  return new EmbeddedStore(new WatchCache({ revision: 1, compactedRevision: 0, ...options }));
}
