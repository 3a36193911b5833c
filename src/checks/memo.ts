/**
 * Verdicts on strings, remembered. The values these checks see repeat (every UPDATE
 * re-sends the stored object, and fleets reuse schedules, zones and endpoints), while
 * a verdict can cost microseconds: a URL parse, a cron parse, an ICU lookup. The cache
 * is bounded; when full it starts over rather than tracking recency.
 */
export function memoizeVerdict<R>(check: (value: string) => R, limit = 4096): (value: string) => R {
  const verdicts = new Map<string, R>();
  return (value) => {
    if (verdicts.has(value)) return verdicts.get(value) as R;
    const verdict = check(value);
    if (verdicts.size >= limit) verdicts.clear();
    verdicts.set(value, verdict);
    return verdict;
  };
}
