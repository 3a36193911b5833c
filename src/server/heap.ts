/**
 * V8's heap settings for the long-running webhook process. After each full collection V8 lets the
 * old generation grow to up to four times what survived before it collects again; under a steady
 * stream of reviews that headroom fills with what the young generation promoted, and a process
 * with 13 MiB live peaked at 50 MiB of old generation (150 MiB resident). A fixed growth factor
 * of 1.5 bounds that (V8 still grows by at least 8 MiB a step). The young generation's maximum is
 * fixed at start-up (`--max-semi-space-size`), but the factor it grows by is read at each growth, so
 * capYoungGeneration holds it at a size of the process's choosing.
 */
import { PerformanceObserver } from 'node:perf_hooks';
import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { processCpuMs } from '../util/cpu-time.js';

export const OLD_GENERATION_GROWTH_PERCENT = 50;

/**
 * Sets the old generation's growth factor, unless the operator chose one on the command line.
 * Returns whether it did. Call it once, in the process that serves, before it takes load.
 */
export function boundOldGenerationGrowth(execArgv: readonly string[] = process.execArgv, setFlags: (flags: string) => void = setFlagsFromString): boolean {
  if (flagGiven(['heap-growing-percent'], execArgv)) return false;
  setFlags(`--heap-growing-percent=${OLD_GENERATION_GROWTH_PERCENT}`);
  return true;
}

/** Whether one of V8's `flags` (named without the dashes in front) is among `args`, in either spelling (`-` or `_` between words). */
function flagGiven(flags: readonly string[], args: readonly string[]): boolean {
  const given = new RegExp(`^--(?:${flags.map((flag) => flag.replace(/-/g, '[-_]')).join('|')})\\b`);
  return args.some((arg) => given.test(arg));
}

type Collect = (options?: { type: 'minor' }) => void;
let gc: Collect | undefined;

/** `node --expose-gc`'s `gc`. The flag is set just long enough to create it in a fresh context, so the process's own global object never gets a `gc`. */
function exposedGc(): Collect {
  if (!gc) {
    const own = (globalThis as { gc?: Collect }).gc;
    if (own) gc = own;
    else {
      setFlagsFromString('--expose-gc');
      gc = runInNewContext('gc') as Collect;
      setFlagsFromString('--no-expose-gc');
    }
  }
  return gc;
}

/**
 * A full, synchronous garbage collection, as `node --expose-gc`'s `gc()`. Call it where a pause
 * costs nothing: during the warm-up, before readiness, the heap holds the garbage of hundreds of
 * reviews that V8's memory reducer would otherwise leave resident for seconds or for good.
 */
export function collectGarbage(): void {
  exposedGc()();
}

/**
 * A collection of the young generation only (a scavenge, `gc({ type: 'minor' })`). Unlike a full
 * collection it leaves the old generation alone: the hidden classes there that only requests' objects
 * used stay, and so does the optimized code compiled for them. A full collection with no request alive
 * lets those classes die after V8's two-collection grace, and V8 then discards every function compiled
 * against them (`--trace-deopt-verbose`: "weak objects").
 */
export function collectYoungGeneration(): void {
  exposedGc()({ type: 'minor' });
}

/** What a collection changed, in MiB: the V8 heap in use, and the young generation's size (V8 shrinks it only in some collections). */
export interface CollectionFigures {
  heapUsedMiB: { before: number; after: number };
  youngGenerationMiB: { before: number; after: number };
}

const mib = (bytes: number) => bytes / 2 ** 20;
/** The young generation's size as V8 reports it (new_space): 1 MiB at start, up to 32 MiB under load by default, 8 MiB with `--max-semi-space-size=4`. */
export const youngGenerationBytes = (): number => getHeapSpaceStatistics().find((s) => s.space_name === 'new_space')?.space_size ?? 0;
/** A young generation no larger than this has been given back (V8 shrinks it to 1-2 MiB). */
export const YOUNG_GENERATION_SHRUNK_BYTES = 2 * 2 ** 20;

/** `collect` (default: collectGarbage), with the heap read before and after it. */
export function collectGarbageMeasured(collect: () => void = collectGarbage): CollectionFigures {
  const before = { heap: process.memoryUsage().heapUsed, young: youngGenerationBytes() };
  collect();
  const after = { heap: process.memoryUsage().heapUsed, young: youngGenerationBytes() };
  return { heapUsedMiB: { before: mib(before.heap), after: mib(after.heap) }, youngGenerationMiB: { before: mib(before.young), after: mib(after.young) } };
}

export interface IdleCollectionOptions {
  /** How long the process must have been idle, in ms (default 5000: V8 judges the allocation rate over its last 5 s). */
  windowMs?: number;
  /** The most CPU the process may have used in a window and count as idle, as a share of the window (default 0.05). */
  idleShare?: number;
  /** Windows to look at, idle or busy, before giving up (default 12: a minute). */
  tries?: number;
  /** The process's CPU time in ms so far (tests inject it). */
  cpuMs?: () => number;
  /** The collection run in an idle window (default: collectYoungGeneration). */
  collect?: () => void;
  /** True once the collections have done their job (default: the young generation is back to YOUNG_GENERATION_SHRUNK_BYTES or less). */
  settled?: () => boolean;
}

/**
 * Collections in idle windows until V8 has given back the young generation, then nothing more. A
 * warm-up (or the first load) grows V8's young generation to its 2 × 16 MiB maximum, and V8 shrinks
 * it only in a collection that finds a low (but not zero) allocation rate in its own estimate over
 * the last seconds; one collection right after the warm-up finds a high one, and measured, one in the
 * first idle window shrank it in only some processes. So a collection runs in every idle window until
 * the young generation is small, at most `tries` windows. It is a scavenge, not a full collection: a
 * full one discards the code V8 optimized during the warm-up (see collectYoungGeneration), so the first
 * load after an idle spell paid for compiling it again. Under load (a busy window) nothing happens: a
 * pause then would cost requests, and a loaded process needs its young generation anyway. `done`
 * settles true once settled, false when the tries run out or stop() is called.
 */
export function collectWhenIdle(options: IdleCollectionOptions = {}): { done: Promise<boolean>; stop(): void } {
  const windowMs = options.windowMs ?? 5000;
  const idleShare = options.idleShare ?? 0.05;
  const cpuMs = options.cpuMs ?? processCpuMs;
  const collectNow = options.collect ?? collectYoungGeneration;
  const settled = options.settled ?? (() => youngGenerationBytes() <= YOUNG_GENERATION_SHRUNK_BYTES);
  let tries = options.tries ?? 12;
  let timer: NodeJS.Timeout | undefined;
  let finish: (settled: boolean) => void = () => undefined;
  const done = new Promise<boolean>((resolve) => (finish = resolve));
  let last = cpuMs();
  const check = () => {
    const now = cpuMs();
    const idle = now - last <= windowMs * idleShare;
    last = now;
    if (idle) collectNow();
    if (idle && settled()) finish(true);
    else if (--tries > 0) timer = setTimeout(check, windowMs).unref();
    else finish(false);
  };
  timer = setTimeout(check, windowMs).unref();
  return {
    done,
    stop() {
      clearTimeout(timer);
      finish(false);
    },
  };
}

/**
 * The young generation the served process keeps (new_space as V8 reports it): what
 * `--max-semi-space-size=4` gives. V8's default lets it reach 32 MiB under 16 connections, and the
 * process peaked at 122-127 MiB resident; held at 8 MiB, at 101-107 MiB (docs/performance.md).
 */
export const YOUNG_GENERATION_CAP_BYTES = 8 * 2 ** 20;

/** True when the operator sized the young generation on the command line or in NODE_OPTIONS: then capYoungGeneration stays out of the way. */
export function youngGenerationSizedByOperator(execArgv: readonly string[] = process.execArgv, nodeOptions: string = process.env.NODE_OPTIONS ?? ''): boolean {
  return flagGiven(['max-semi-space-size', 'min-semi-space-size', 'semi-space-growth-factor'], [...execArgv, ...nodeOptions.split(/\s+/)]);
}

export interface YoungGenerationCapOptions {
  /** The young generation's size now (default: youngGenerationBytes). */
  size?: () => number;
  setFlags?: (flags: string) => void;
  /** Calls `afterCollection` after each garbage collection; returns how to stop (default: a PerformanceObserver of gc entries). */
  observeCollections?: (afterCollection: () => void) => () => void;
}

/**
 * Holds V8's young generation at `capBytes` (a power of two, V8's own step): after each collection,
 * its growth factor is 1 once the young generation has reached the cap and V8's default 2 below it,
 * so it still grows from its 1 MiB start, and again after V8 shrinks it when idle. Without a cap
 * of its own a running process has no other way to bound it (see the module's comment).
 * It cannot shrink it: a young generation already past the cap stays there until V8 shrinks it
 * (the idle collection makes it; serve() starts the cap before generating certificates, which
 * alone grow it to 16 MiB). The observer runs between event-loop turns, so one turn that outgrows
 * the cap in several scavenges could step past it once. stop() puts V8's default factor back.
 */
export function capYoungGeneration(capBytes: number = YOUNG_GENERATION_CAP_BYTES, options: YoungGenerationCapOptions = {}): { stop(): void } {
  const size = options.size ?? youngGenerationBytes;
  const setFlags = options.setFlags ?? setFlagsFromString;
  const observe = options.observeCollections ?? observeGarbageCollections;
  let held = false;
  const adjust = () => {
    const atCap = size() >= capBytes;
    if (atCap === held) return;
    held = atCap;
    setFlags(`--semi-space-growth-factor=${atCap ? 1 : DEFAULT_GROWTH_FACTOR}`);
  };
  adjust();
  const unobserve = observe(adjust);
  return {
    stop() {
      unobserve();
      if (held) setFlags(`--semi-space-growth-factor=${DEFAULT_GROWTH_FACTOR}`);
      held = false;
    },
  };
}

/** V8's `--semi-space-growth-factor` default. */
const DEFAULT_GROWTH_FACTOR = 2;

function observeGarbageCollections(afterCollection: () => void): () => void {
  const observer = new PerformanceObserver(afterCollection);
  observer.observe({ entryTypes: ['gc'] });
  return () => observer.disconnect();
}
