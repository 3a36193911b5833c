/**
 * The JSONPath subset of CRD printer columns (`.spec.x`, `.a[*].b`, `.a[?(@.k=="v")].b`,
 * `[?(@.k)]`), evaluated as client-go's util/jsonpath evaluates it with missing keys allowed.
 *
 *   const path = parseColumnPath('.status.conditions[?(@.type=="Applied")].status');
 *   evaluate(path, object) → { values: [...] } or { error } (kube then leaves the cell empty)
 *
 * Hand-written rather than taken from npm (jsonpath-plus is the well-kept one): kube gives up on
 * the whole column when a filter meets a non-list or a value it cannot compare (a condition whose
 * `type` is a number, a map where a list belongs), and jsonpath-plus goes on past both, filtering
 * a map's values and skipping the odd element, so its cells would differ from kubectl's.
 */

export type Step =
  | { op: 'field'; name: string }
  | { op: 'all' }
  | { op: 'filter'; path: Step[]; compare?: { operator: '==' | '!='; value: string | number } };

export type ColumnPath = Step[];

const FIELD = /^\.([A-Za-z0-9_-]+)/;
const FILTER = /^\[\?\(@((?:\.[A-Za-z0-9_-]+)+)(?:\s*(==|!=)\s*(?:"([^"]*)"|'([^']*)'|(-?\d+(?:\.\d+)?)))?\)\]/;

/** Parses a printer column's path; throws for anything outside the subset (columns are constants). */
export function parseColumnPath(text: string): ColumnPath {
  const steps: Step[] = [];
  let rest = text;
  while (rest !== '') {
    let m: RegExpExecArray | null;
    if ((m = FIELD.exec(rest))) steps.push({ op: 'field', name: m[1]! });
    else if ((m = /^\[\*\]/.exec(rest))) steps.push({ op: 'all' });
    else if ((m = FILTER.exec(rest))) {
      const path = m[1]!.slice(1).split('.').map((name): Step => ({ op: 'field', name }));
      const literal = m[3] ?? m[4] ?? (m[5] === undefined ? undefined : Number(m[5]));
      steps.push(m[2] ? { op: 'filter', path, compare: { operator: m[2] as '==' | '!=', value: literal! } } : { op: 'filter', path });
    } else throw new Error(`unsupported JSONPath at ${JSON.stringify(rest)} in ${JSON.stringify(text)}`);
    rest = rest.slice(m[0].length);
  }
  return steps;
}

export type Evaluation = { values: unknown[] } | { error: string };

const isMap = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The values `path` reaches in `root`, in document order. */
export function evaluate(path: ColumnPath, root: unknown): Evaluation {
  let current: unknown[] = [root];
  for (const step of path) {
    const next: unknown[] = [];
    for (const value of current) {
      if (value === null || value === undefined) continue;
      if (step.op === 'field') {
        if (isMap(value) && Object.prototype.hasOwnProperty.call(value, step.name)) next.push(value[step.name]);
      } else {
        if (!Array.isArray(value)) return { error: `${describe(value)} is not array or slice${step.op === 'filter' ? ' and cannot be filtered' : ''}` };
        if (step.op === 'all') next.push(...value);
        else {
          for (const element of value) {
            const found = evaluate(step.path, element);
            if ('error' in found) return found;
            if (step.compare === undefined) {
              if (found.values.length > 0) next.push(element);
              continue;
            }
            if (found.values.length === 0) continue;
            if (found.values.length > 1) return { error: 'can only compare one element at a time' };
            const equal = goEqual(found.values[0], step.compare.value);
            if (typeof equal === 'string') return { error: equal };
            if (equal === (step.compare.operator === '==')) next.push(element);
          }
        }
      }
    }
    current = next;
  }
  return { values: current };
}

const describe = (v: unknown): string => (isMap(v) ? 'map[string]interface {}' : typeof v);

/**
 * Go template's eq on a decoded JSON value and a literal: strings with strings, numbers with
 * numbers of the same kind (an integral value is an int64 there, a literal with a point a float);
 * anything else is an error (the answer is then the error's text).
 */
function goEqual(left: unknown, right: string | number): boolean | string {
  if (left === null || typeof left === 'object' || left === undefined) return 'invalid type for comparison';
  if (typeof left === 'string' && typeof right === 'string') return left === right;
  if (typeof left === 'number' && typeof right === 'number') {
    if (Number.isInteger(left) !== Number.isInteger(right)) return 'incompatible types for comparison';
    return left === right;
  }
  return 'incompatible types for comparison';
}
