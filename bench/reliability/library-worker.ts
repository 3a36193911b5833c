/**
 * A worker thread running the library fuzzer over one range of inputs, so the harness's main
 * thread can watch it: the input under way is kept in shared memory, and a worker stuck on one
 * is ended and the input reported as a hang. Protocol: warm up, settle (collect garbage, idle), post
 * `warm`; on `go`, fuzz, settle, post `done` with the figures. The main thread reads the
 * process's memory at `warm` and at `done`.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { fullGc } from './gc.js';
import { fuzzLibrary, libraryInputs } from './library-fuzz.js';

export interface LibraryWorkerData {
  seed: number;
  from: number;
  to: number;
  deadlineMs: number;
  /** Inputs run before the measured range (of another seed's stream), so JIT code and caches are in place when memory is first read. */
  warmUp: number;
  /** Shared Int32Array: slot `slot` holds the index of the input under way. */
  cursor: SharedArrayBuffer;
  slot: number;
  /** How long to idle after a full GC before memory is read. */
  settleMs: number;
}

const data = workerData as LibraryWorkerData;
const cursor = new Int32Array(data.cursor);
const heapMiB = () => process.memoryUsage().heapUsed / 1024 / 1024;

/**
 * Collects garbage, then idles: V8 gives memory back to the system only some seconds after
 * allocation stops, so memory read at once would count what it merely has not returned yet.
 */
async function settle(): Promise<void> {
  fullGc();
  await new Promise((done) => setTimeout(done, data.settleMs));
  fullGc();
}

if (data.warmUp > 0) fuzzLibrary({ seed: data.seed ^ 0x5eed, from: 0, to: data.warmUp, deadlineMs: Number.POSITIVE_INFINITY });
await settle();
parentPort!.postMessage({ type: 'warm', heapMiB: heapMiB() });
parentPort!.once('message', () => {
  const figures = fuzzLibrary({ seed: data.seed, from: data.from, to: data.to, deadlineMs: data.deadlineMs, onInput: (index) => Atomics.store(cursor, data.slot, index) }, libraryInputs(data.seed));
  void settle().then(() => parentPort!.postMessage({ type: 'done', figures, heapMiB: heapMiB() }));
});
