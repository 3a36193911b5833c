/**
 * apimachinery's duration.HumanDuration, which kube and Karmada print ages with: `7s`, `3m10s`,
 * `70m`, `3h12m`, `2d1h`, `367d`, `2y1d`, `8y`.
 *
 *   humanDuration(Date.now() - Date.parse(creationTimestamp))
 */

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/** `ms` may be fractional; like Go's integer conversions, every division truncates toward zero. */
export function humanDuration(ms: number): string {
  const seconds = Math.trunc(ms / SECOND);
  // Up to 2 s in the future is clock skew between machines: "0s".
  if (seconds < -1) return '<invalid>';
  if (seconds < 0) return '0s';
  if (seconds < 60 * 2) return `${seconds}s`;
  const minutes = Math.trunc(ms / MINUTE);
  if (minutes < 10) {
    const s = seconds % 60;
    return s === 0 ? `${minutes}m` : `${minutes}m${s}s`;
  }
  if (minutes < 60 * 3) return `${minutes}m`;
  const hours = Math.trunc(ms / HOUR);
  if (hours < 8) {
    const m = minutes % 60;
    return m === 0 ? `${hours}h` : `${hours}h${m}m`;
  }
  if (hours < 48) return `${hours}h`;
  if (hours < 24 * 8) {
    const h = hours % 24;
    return h === 0 ? `${Math.trunc(hours / 24)}d` : `${Math.trunc(hours / 24)}d${h}h`;
  }
  if (hours < 24 * 365 * 2) return `${Math.trunc(hours / 24)}d`;
  if (hours < 24 * 365 * 8) {
    const days = Math.trunc(hours / 24) % 365;
    const years = Math.trunc(hours / 24 / 365);
    return days === 0 ? `${years}y` : `${years}y${days}d`;
  }
  return `${Math.trunc(hours / 24 / 365)}y`;
}

/** The age column of a timestamp: `<unknown>` for none, or Go's zero time. */
export function age(timestamp: unknown, now: Date): string {
  const time = typeof timestamp === 'string' ? parseRFC3339(timestamp) : undefined;
  if (time === undefined || time === ZERO_TIME) return '<unknown>';
  return humanDuration(now.getTime() - time);
}

/** Go's zero time.Time, 0001-01-01T00:00:00Z, in epoch milliseconds. */
export const ZERO_TIME = ((): number => {
  const zero = new Date(0);
  zero.setUTCFullYear(1, 0, 1);
  return zero.getTime();
})();

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d+)?(Z|([+-])(\d{2}):(\d{2}))$/;

/**
 * time.Parse(time.RFC3339, s) in epoch milliseconds, or undefined when Go would refuse it:
 * the fields in range, an upper-case T, `Z` or an offset; fractional seconds allowed.
 */
export function parseRFC3339(s: string): number | undefined {
  const m = RFC3339.exec(s);
  if (!m) return undefined;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  if (month < 1 || month > 12 || day < 1 || day > daysIn(year, month) || hour > 23 || minute > 59 || second > 59) return undefined;
  let offset = 0;
  if (m[8] !== 'Z') {
    const [oh, om] = [Number(m[10]), Number(m[11])];
    if (oh > 23 || om > 59) return undefined;
    offset = (m[9] === '-' ? -1 : 1) * (oh * 60 + om) * MINUTE;
  }
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute, second, 0);
  const fraction = m[7] ? Number(`0${m[7]}`) * SECOND : 0;
  return date.getTime() + fraction - offset;
}

const daysIn = (year: number, month: number): number => new Date(Date.UTC(2000, month, 0)).getUTCDate() - (month === 2 && !isLeap(year) ? 1 : 0);
const isLeap = (y: number): boolean => (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
