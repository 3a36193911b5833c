/**
 * The API server appends `?timeout=<duration>` to every webhook call; past it, the call
 * fails by the webhook's failure policy with an opaque error. Reviews therefore get a
 * deadline slightly shorter, and lookups that would run past it give a clear verdict.
 */
import { ContextUnavailableError, type Lookups, type MaybePromise } from '../engine/rule.js';
import { isThenable } from '../util/is.js';

export type ContextFailurePolicy = 'fail' | 'ignore';

/** The API server's default when a configuration sets no timeoutSeconds. */
export const DEFAULT_TIMEOUT_MS = 10_000;

const UNIT_MS: Record<string, number> = { ns: 1e-6, us: 1e-3, µs: 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** Parses Go's duration syntax (`10s`, `1m30s`, `2.5s`); undefined when it is not one. */
export function parseGoDuration(text: string | undefined): number | undefined {
  if (!text || !/^((\d+(\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h))+$/.test(text)) return undefined;
  let total = 0;
  for (const m of text.matchAll(/(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h)/g)) total += Number(m[1]) * UNIT_MS[m[2]!]!;
  return total;
}

/** The longest timeout a webhook configuration may set (timeoutSeconds 1 to 30). */
export const MAX_TIMEOUT_MS = 30_000;

/** Time left for the review: the caller's timeout (at most the API server's 30 s) less a margin for writing the answer. */
export function reviewBudgetMs(timeoutParam: string | undefined): number {
  const timeout = Math.min(parseGoDuration(timeoutParam) ?? DEFAULT_TIMEOUT_MS, MAX_TIMEOUT_MS);
  const margin = Math.min(Math.max(timeout * 0.1, 100), 1000);
  return Math.max(timeout - margin, timeout / 2);
}

/**
 * Wraps lookups so none runs past `deadline` (epoch ms). A failure or a timeout either
 * denies (`fail`: throws ContextUnavailableError) or lets the rule pass unchecked with a
 * note (`ignore`: answers "not found" and records a warning in `notes`).
 */
export function guardLookups(lookups: Lookups, deadline: number, policy: ContextFailurePolicy, notes: string[]): Lookups {
  const guard = <T>(what: string, call: () => MaybePromise<T>, fallback: T): MaybePromise<T> => {
    const onFailure = (reason: string): T => {
      const message = `could not read ${what} from the control plane: ${reason}`;
      if (policy === 'fail') throw new ContextUnavailableError(`${message}; denying (context failure policy "fail")`);
      notes.push(`${message}; the check was skipped (context failure policy "ignore")`);
      return fallback;
    };
    let result: MaybePromise<T>;
    try {
      result = call();
    } catch (err) {
      return onFailure((err as Error).message);
    }
    if (!isThenable(result)) return result;
    const remaining = Math.max(0, deadline - Date.now());
    return within(result, remaining, `no answer within ${Math.round(remaining)} ms`).then(
      (value) => value,
      (err: Error) => onFailure(err.message),
    );
  };
  return {
    getService: lookups.getService && ((namespace, name) => guard(`Service ${namespace}/${name}`, () => lookups.getService!(namespace, name), undefined)),
    listResourceInterpreterCustomizations:
      lookups.listResourceInterpreterCustomizations &&
      (() => guard('ResourceInterpreterCustomizations', () => lookups.listResourceInterpreterCustomizations!(), [] as readonly unknown[])),
  };
}

/** `work`'s outcome, or a failure saying `message` if it has not settled within `ms`. */
export function within<T>(work: PromiseLike<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(message)), ms);
  });
  return Promise.race([Promise.resolve(work), timeout]).finally(() => clearTimeout(timer));
}
