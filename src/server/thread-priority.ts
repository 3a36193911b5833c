/**
 * The webhook process's other threads below its main thread's priority (Linux), while the main
 * thread has time to spare.
 *
 * V8 does part of its work on threads of its own: the optimizing compiler, and the collector's
 * concurrent marking and sweeping. With cores to spare they run beside the main thread; on one
 * core (a pinned process, a pod with one exclusive CPU) they take turns with it, the kernel's fair
 * scheduler handing each the core for milliseconds at a time, and reviews wait meanwhile: the
 * compiler works up to 150 ms on one of the large schema validators, and compiles some hundred
 * functions more over the first minutes of load. At nice 19 that work runs while the main thread
 * leaves the core idle, and preempts it for under a millisecond at a time otherwise.
 *
 * Kept low under saturation, though, the compiler never gets the core, the code stays unoptimized
 * and the process serves fewer reviews a second than with the threads at its priority; so the
 * adaptive mode puts them back at the main thread's priority while its event loop is saturated, and
 * lowers them again once it has had idle time for a while. Raising a thread's priority back needs
 * CAP_SYS_NICE (or an RLIMIT_NICE allowing it), which containers seldom have; without it the
 * adaptive mode leaves the threads alone. `low` lowers them once, for good, unprivileged.
 * Measurements: docs/reliability.md (soak).
 *
 * Node has no per-thread priority call, but Linux applies `setpriority(PRIO_PROCESS, tid)` to that
 * one thread, and `os.setPriority` passes the id through. The threads are those listed in
 * /proc/self/task at each change (V8's workers start before the program does; libuv's pool starts on
 * first use, and its threads inherit the priority of the thread that started them).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';
import { performance, type EventLoopUtilization } from 'node:perf_hooks';

/** How much lower than the main thread the other threads run while lowered: the most Linux allows. */
export const BACKGROUND_NICENESS = 19;
const LOWEST_PRIORITY = 19;
/** CAP_SYS_NICE's bit in /proc/self/status's CapEff. */
const CAP_SYS_NICE = 23n;

export type BackgroundThreadsMode = 'adaptive' | 'low' | 'normal';
export const BACKGROUND_THREADS_MODES: readonly BackgroundThreadsMode[] = ['adaptive', 'low', 'normal'];

export interface ThreadPriorityOptions {
  /** Where the process's threads are listed (default /proc/self/task). */
  taskDir?: string;
  /** The main thread's id, which keeps its priority (default process.pid). */
  mainThread?: number;
  platform?: NodeJS.Platform;
  getPriority?: (id: number) => number;
  setPriority?: (id: number, priority: number) => void;
}

/** Sets every thread but the main one to `niceness` below the main thread (at most nice 19); returns the ids changed (none off Linux). */
export function setBackgroundThreads(niceness: number, options: ThreadPriorityOptions = {}): number[] {
  if ((options.platform ?? process.platform) !== 'linux') return [];
  const main = options.mainThread ?? process.pid;
  const get = options.getPriority ?? getPriority;
  const set = options.setPriority ?? setPriority;
  let ids: number[];
  try {
    ids = readdirSync(options.taskDir ?? '/proc/self/task')
      .map(Number)
      .filter((id) => Number.isSafeInteger(id) && id > 0 && id !== main);
  } catch {
    return [];
  }
  const priority = Math.min(LOWEST_PRIORITY, get(main) + niceness);
  const changed: number[] = [];
  for (const id of ids) {
    try {
      set(id, priority);
      changed.push(id);
    } catch {
      // The thread ended meanwhile, or the system refused: it keeps its priority.
    }
  }
  return changed;
}

export interface PrivilegeSources {
  platform?: NodeJS.Platform;
  /** /proc/self/status's text. */
  status?: () => string;
  /** /proc/self/limits's text. */
  limits?: () => string;
  /** The main thread's nice value. */
  mainNice?: () => number;
}

/**
 * Whether this process may raise a thread back to the main thread's priority once lowered:
 * CAP_SYS_NICE in its effective set, or an RLIMIT_NICE (`Max nice priority`, 20 - lowest nice
 * allowed) reaching the main thread's nice value. False off Linux or when /proc cannot be read.
 */
export function mayRaiseThreads(sources: PrivilegeSources = {}): boolean {
  if ((sources.platform ?? process.platform) !== 'linux') return false;
  try {
    const status = (sources.status ?? (() => readFileSync('/proc/self/status', 'utf8')))();
    const capEff = /^CapEff:\s*([0-9a-f]+)$/im.exec(status)?.[1];
    if (capEff && (BigInt(`0x${capEff}`) >> CAP_SYS_NICE) & 1n) return true;
    const limits = (sources.limits ?? (() => readFileSync('/proc/self/limits', 'utf8')))();
    const soft = /^Max nice priority\s+(\d+|unlimited)/m.exec(limits)?.[1];
    if (soft === undefined) return false;
    const mainNice = (sources.mainNice ?? (() => getPriority(0)))();
    return soft === 'unlimited' || 20 - Number(soft) <= mainNice;
  } catch {
    return false;
  }
}

/** When the adaptive mode changes the threads' priority. */
export interface AdaptiveSettings {
  /** An interval with at least this event-loop utilization puts the threads back (default 0.9). */
  saturated?: number;
  /** Intervals in a row at or under `idleEnough` before the threads are lowered again (default 4). */
  calmIntervals?: number;
  /** Default 0.75. */
  idleEnough?: number;
  /** How often the event loop's utilization is read, ms (default 500). */
  intervalMs?: number;
}

export type ThreadsState = 'lowered' | 'normal';

/**
 * The adaptive mode's state machine: fed each interval's event-loop utilization (0-1), it says
 * when the threads go back to the main thread's priority and when they are lowered again.
 * Starts lowered.
 */
export class AdaptivePriority {
  state: ThreadsState = 'lowered';
  private calm = 0;
  private readonly saturated: number;
  private readonly idleEnough: number;
  private readonly calmIntervals: number;

  constructor(settings: AdaptiveSettings = {}) {
    this.saturated = settings.saturated ?? 0.9;
    this.idleEnough = settings.idleEnough ?? 0.75;
    this.calmIntervals = settings.calmIntervals ?? 4;
  }

  /** Takes one interval's utilization; returns the new state when it changes. */
  observe(utilization: number): ThreadsState | undefined {
    if (this.state === 'lowered') {
      if (utilization < this.saturated) return undefined;
      this.state = 'normal';
      this.calm = 0;
      return this.state;
    }
    this.calm = utilization <= this.idleEnough ? this.calm + 1 : 0;
    if (this.calm < this.calmIntervals) return undefined;
    this.state = 'lowered';
    return this.state;
  }
}

export interface BackgroundThreadsControl {
  /** Stops watching the event loop; the threads keep their present priority. */
  stop(): void;
}

export interface ControlOptions extends ThreadPriorityOptions, AdaptiveSettings {
  /** Told of each change (logged at debug by the server). */
  onChange?: (state: ThreadsState, threads: number, utilization: number) => void;
  /** perf_hooks' `performance.eventLoopUtilization` (a reading; with two, the utilization between them). */
  utilization?: (now?: EventLoopUtilization, before?: EventLoopUtilization) => EventLoopUtilization;
}

/**
 * Lowers the background threads now; in the adaptive mode, then reads the event loop's utilization
 * every `intervalMs` and puts them back at the main thread's priority while it is saturated.
 */
export function controlBackgroundThreads(mode: 'adaptive' | 'low', options: ControlOptions = {}): BackgroundThreadsControl {
  setBackgroundThreads(BACKGROUND_NICENESS, options);
  if (mode === 'low') return { stop: () => {} };
  const machine = new AdaptivePriority(options);
  const read = options.utilization ?? ((now?: EventLoopUtilization, before?: EventLoopUtilization) => performance.eventLoopUtilization(now, before));
  let last = read();
  const timer = setInterval(() => {
    const now = read();
    const { utilization } = read(now, last);
    last = now;
    const state = machine.observe(utilization);
    if (!state) return;
    const threads = setBackgroundThreads(state === 'lowered' ? BACKGROUND_NICENESS : 0, options).length;
    options.onChange?.(state, threads, utilization);
  }, options.intervalMs ?? 500);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
