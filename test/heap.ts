/** The heap in use after a full garbage collection, in MiB: for tests that a cache lets go of what it should. */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

export function heapAfterGcMiB(): number {
  gc();
  return process.memoryUsage().heapUsed / 1024 / 1024;
}
