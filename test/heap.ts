/** The heap in use after a full garbage collection, in MiB: for tests that a cache lets go of what it should. */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
// V8's flags are the whole process's: left on, every test file's worker thread started later would
// get a global gc(), which heap-growth.test.ts checks serve() never leaves behind.
setFlagsFromString('--no-expose-gc');

export function heapAfterGcMiB(): number {
  gc();
  return process.memoryUsage().heapUsed / 1024 / 1024;
}
