/**
 * Verdicts on strings, remembered. The values these checks see repeat (every UPDATE
 * re-sends the stored object, and fleets reuse schedules, zones and endpoints), while
 * a verdict can cost microseconds: a URL parse, a cron parse, an ICU lookup. Each cache
 * is bounded in entries, in the length of the keys it keeps and in the characters it holds
 * in all (so about 1 MiB whatever it is fed); when full it starts over rather than tracking
 * recency.
 */
export function memoizeVerdict<R>(check: (value: string) => R, bounds: MemoBounds = {}): (value: string) => R {
  const { entries = 4096, longestKey = MAX_KEY_LENGTH } = bounds;
  const charBudget = bounds.chars ?? entries * CHARS_PER_ENTRY;
  // `undefined` verdicts (the common "fine") are kept as NONE, so one lookup answers.
  const verdicts = new Map<string, R | typeof NONE>();
  let chars = 0;
  return (value) => {
    // Long values are rare and would make the bound on entries no bound on memory.
    if (value.length > longestKey) return check(value);
    const kept = verdicts.get(value);
    if (kept !== undefined) return (kept === NONE ? undefined : kept) as R;
    const verdict = check(value);
    // A message that quotes or describes its value part by part can be far longer than the value.
    if (typeof verdict === 'string' && verdict.length > LONGEST_VERDICT_KEPT) return verdict;
    // What an entry holds, in characters: a verdict that is no string (a walk, a list of problems) is counted as long as its key.
    const cost = value.length + (verdict === undefined ? 0 : typeof verdict === 'string' ? verdict.length : value.length);
    if (verdicts.size >= entries || chars + cost > charBudget) {
      verdicts.clear();
      chars = 0;
    }
    chars += cost;
    // A message may quote the value, and so keep what the value was cut from: it is kept as a copy too.
    verdicts.set(ownCopy(value), verdict === undefined ? NONE : typeof verdict === 'string' ? (ownCopy(verdict) as R) : verdict);
    return verdict;
  };
}

/**
 * The value's characters in a flat string of their own, for any cache that keeps strings. A
 * value cut from a longer string (a label key's prefix, anything js-yaml read) can share
 * that string's memory, and a kept key would keep all of it alive: a 20-character key
 * could hold a 7 MiB request body. The copy must be flat as well: V8 compares a key made by
 * slicing or concatenating through its runtime, which made every cache hit on such a key
 * three times slower. A JSON round trip yields a fresh sequential string with every code
 * unit kept, lone surrogates included. Short strings are always flat copies already.
 */
export const ownCopy = (value: string): string => (value.length < SHARED_FROM ? value : (JSON.parse(JSON.stringify(value)) as string));

/** V8 shares memory between a string and its slices, or its parts once concatenated, from this length on. */
const SHARED_FROM = 13;

const NONE = Symbol('no verdict');

/** Longer than any name, endpoint or schedule anyone writes by hand. */
export const MAX_KEY_LENGTH = 512;
/** Longer message verdicts are not kept. */
const LONGEST_VERDICT_KEPT = 2 * MAX_KEY_LENGTH;
/**
 * The characters (keys and message verdicts) a cache holds at most, per entry it may keep. The
 * values people write (names, schedules, quantities, endpoints) and their messages fit 4,096
 * entries in it; values near MAX_KEY_LENGTH with long messages do not, and make the cache start
 * over sooner. Bounded by entries alone, 4,096 such values kept 4.5-6.8 MiB in one cache (two
 * bytes a character), and the library has some thirty caches.
 */
const CHARS_PER_ENTRY = 64;

export interface MemoBounds {
  /** Verdicts kept at most; default 4096. */
  entries?: number;
  /**
   * Longer values are checked every time; default MAX_KEY_LENGTH. A check whose valid
   * values have a maximum length passes it: longer values fail anyway, and the cache's
   * memory stays bounded by what valid values take.
   */
  longestKey?: number;
  /** Characters kept at most, keys and message verdicts together; default 64 per entry. */
  chars?: number;
}
