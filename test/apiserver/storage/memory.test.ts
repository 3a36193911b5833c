import { createMemoryStorage } from '../../../src/apiserver/storage/memory.js';
import { describeStorageConformance } from './conformance.js';

describeStorageConformance('memory', async ({ watchBufferSize }) => {
  const storage = createMemoryStorage({ watchBufferSize });
  return { storage, compact: (revision) => storage.compact(revision) };
});
