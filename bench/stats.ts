/** Measuring helpers shared by the benchmarks. */

/** The value at quantile `q` (0 to 1) of `xs`: the median is `quantile(xs, 0.5)`, the upper middle one of an even count. */
export function quantile(xs: readonly number[], q: number): number {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

export const median = (xs: readonly number[]): number => quantile(xs, 0.5);

/**
 * CPU time this process spends in `work`, in µs: user and system, whatever else the
 * shared machine runs meanwhile.
 */
export function cpuMicros(work: () => void): number {
  const start = process.cpuUsage();
  work();
  const { user, system } = process.cpuUsage(start);
  return user + system;
}

/** CPU time, in µs, of `passes` passes of `fn` over `items`. */
export function cpuMicrosOver<T>(items: readonly T[], passes: number, fn: (item: T) => unknown): number {
  return cpuMicros(() => {
    for (let p = 0; p < passes; p++) for (const item of items) fn(item);
  });
}

/**
 * Runs `round` over and over for `seconds` of wall time before anything is measured: V8's
 * optimizing compiler spends seconds of CPU on the library, on the same pinned core, and
 * rounds measured meanwhile would count its work as theirs.
 */
export function warmUp(seconds: number, round: () => void): void {
  const until = performance.now() + seconds * 1000;
  while (performance.now() < until) round();
}
