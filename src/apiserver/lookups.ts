/**
 * The library's context lookups, answered from this server's own store.
 *
 * - `listResourceInterpreterCustomizations`: the stored ResourceInterpreterCustomizations, read at
 *   the newest revision (the rule skips the object being updated by name).
 * - `getService`: not answered. Services are not served here, so the ClusterIP "None" check of an
 *   interpreter webhook's `clientConfig.service` cannot be made; the library then admits the
 *   object with its warning that the check was skipped, which kubectl prints. Answering "no such
 *   Service" instead would pass the check silently, as if it had been made.
 */
import type { Lookups } from '../index.js';
import type { Storage } from './storage/index.js';
import type { ApiResource as Resource } from './resources.js';
import { collectionPrefix } from './keys.js';

export function storeLookups(storage: Storage, resources: readonly Resource[]): Lookups {
  const customizations = resources.find((r) => r.kind === 'ResourceInterpreterCustomization');
  if (!customizations) return {};
  const prefix = collectionPrefix(customizations, undefined);
  return {
    listResourceInterpreterCustomizations: async () => (await storage.list(prefix)).items,
  };
}
