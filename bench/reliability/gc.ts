/** A full garbage collection on demand, without starting Node with --expose-gc: memory read after it counts what is kept, not what is not yet collected. */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

setFlagsFromString('--expose-gc');
export const fullGc = runInNewContext('gc') as () => void;
