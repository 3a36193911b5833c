import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDurableStorage } from '../../../src/apiserver/storage/durable.js';
import { describeStorageConformance } from './conformance.js';

describeStorageConformance('durable (LevelDB)', async ({ watchBufferSize }) => {
  const directory = await mkdtemp(join(tmpdir(), 'fleetgate-storage-'));
  const storage = await openDurableStorage({ directory, watchBufferSize });
  return {
    storage,
    compact: (revision) => storage.compact(revision),
    cleanup: () => rm(directory, { recursive: true, force: true }),
  };
});
