/**
 * Running one case of a policy test suite and comparing what fleetgate answers with
 * what the case expects. The comparison yields failures, each a one-line reason plus
 * diff lines (`  ` both, `- ` expected only, `+ ` actual only).
 */
import { aggregate, type Cause } from '../index.js';
import { applyDefaultsWithRules, rulesOf, validateWithRules } from '../decode/object.js';
import { TEST_UUID, type ExpectedCause, type PatchOperation, type Suite, type TestCase } from './test-suite.js';

export interface CaseFailure {
  /** One line: `causes differ (- expected, + actual)`, `expected denied, got allowed`, ... */
  message: string;
  diff: string[];
}

export interface CaseOutcome {
  suite: string;
  name: string;
  line: number;
  passed: boolean;
  seconds: number;
  failures: CaseFailure[];
  /** What fleetgate answered (only the parts the case checks). */
  actual: { allowed?: boolean; causes?: Cause[]; warnings?: string[]; defaults?: PatchOperation[]; error?: string };
}

const fieldName = (field: string): string => field || '<object>';

interface DiffEntry {
  mark: ' ' | '-' | '+';
  field: string;
  text: string;
}

/** Expected causes against actual ones, as a set: each expected cause takes one actual cause of the same field and type. */
export function diffCauses(expected: readonly ExpectedCause[], actual: readonly Cause[]): { equal: boolean; lines: string[] } {
  const taken = new Array<boolean>(actual.length).fill(false);
  const entries: DiffEntry[] = [];
  const matches = (e: ExpectedCause, a: Cause) => a.field === e.field && a.type === e.type && (e.message === undefined || a.message.includes(e.message));
  // Causes pinned by a message first, so a looser expectation cannot take their match.
  const order = expected.map((e, i) => ({ e, i })).sort((a, b) => Number(b.e.message !== undefined) - Number(a.e.message !== undefined));
  for (const { e } of order) {
    const j = actual.findIndex((a, k) => !taken[k] && matches(e, a));
    const text = `${fieldName(e.field)}: ${e.type}${e.message !== undefined ? ` (message contains ${JSON.stringify(e.message)})` : ''}`;
    if (j < 0) {
      entries.push({ mark: '-', field: e.field, text });
    } else {
      taken[j] = true;
      entries.push({ mark: ' ', field: e.field, text: `${fieldName(e.field)}: ${e.type}` });
    }
  }
  actual.forEach((a, k) => {
    if (!taken[k]) entries.push({ mark: '+', field: a.field, text: `${fieldName(a.field)}: ${a.type} (${a.message})` });
  });
  const rank = { ' ': 0, '-': 1, '+': 2 };
  entries.sort((a, b) => (a.field < b.field ? -1 : a.field > b.field ? 1 : rank[a.mark] - rank[b.mark]));
  return { equal: entries.every((e) => e.mark === ' '), lines: entries.map((e) => `${e.mark} ${e.text}`) };
}

/** A patch operation as one line of JSON, keys in the RFC's order. */
export function formatOperation(op: PatchOperation): string {
  const o = op as unknown as Record<string, unknown>;
  const ordered: Record<string, unknown> = { op: o.op, path: o.path };
  if ('from' in o) ordered.from = o.from;
  if ('value' in o) ordered.value = o.value;
  return JSON.stringify(ordered);
}

/** JSON with object keys sorted, so equal values compare equal whatever their key order. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    const o = value as Record<string, unknown>;
    return `{${Object.keys(o)
      .sort()
      .filter((k) => o[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${canonical(o[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** Expected defaulting patch against the actual one, as a set of operations. */
export function diffPatches(expected: readonly PatchOperation[], actual: readonly PatchOperation[]): { equal: boolean; lines: string[] } {
  const remaining = actual.map(canonical);
  const taken = new Array<boolean>(actual.length).fill(false);
  const lines: string[] = [];
  for (const op of expected) {
    const key = canonical(op);
    const j = remaining.findIndex((r, k) => !taken[k] && r === key);
    if (j < 0) lines.push(`- ${formatOperation(op)}`);
    else {
      taken[j] = true;
      lines.push(`  ${formatOperation(op)}`);
    }
  }
  actual.forEach((op, k) => {
    if (!taken[k]) lines.push(`+ ${formatOperation(op)}`);
  });
  return { equal: lines.every((l) => l.startsWith('  ')), lines };
}

export async function runCase(suite: Suite, c: TestCase): Promise<CaseOutcome> {
  const started = performance.now();
  const failures: CaseFailure[] = [];
  const actual: CaseOutcome['actual'] = {};
  const e = c.expect;
  try {
    // The kind is looked up once per case, for validation and defaulting alike (as the webhook looks it up once per review).
    const rules = rulesOf(c.object);
    if (e.allowed !== undefined || e.warnings !== undefined) {
      const result = await validateWithRules(rules, c.object, {
        operation: c.operation,
        ...(c.oldObject ? { oldObject: c.oldObject } : {}),
        ...(c.subResource ? { subResource: c.subResource } : {}),
        ...(c.groupDomain ? { groupDomain: c.groupDomain } : {}),
        ...(c.lookups ? { lookups: c.lookups } : {}),
        ...(c.strict !== undefined ? { strict: c.strict } : {}),
        ...(c.allowNoExecuteTaintPolicy !== undefined ? { allowNoExecuteTaintPolicy: c.allowNoExecuteTaintPolicy } : {}),
      });
      actual.allowed = result.allowed;
      actual.causes = result.causes;
      actual.warnings = result.warnings;
      if (e.allowed !== undefined) {
        const verdict = (allowed: boolean) => (allowed ? 'allowed' : 'denied');
        // Allowed means no causes: an allowed expectation is an empty cause list.
        const expectedCauses = e.allowed ? [] : e.causes;
        const diff = expectedCauses ? diffCauses(expectedCauses, result.causes) : undefined;
        if (result.allowed !== e.allowed) {
          failures.push({ message: `expected ${verdict(e.allowed)}, got ${verdict(result.allowed)}${diff ? ' (- expected, + actual causes)' : ''}`, diff: diff?.lines ?? [] });
        } else if (diff && !diff.equal) {
          failures.push({ message: 'causes differ (- expected, + actual)', diff: diff.lines });
        }
      }
      if (e.warnings !== undefined) {
        const missing = e.warnings.filter((w) => !result.warnings.some((a) => a.includes(w)));
        if (e.warnings.length === 0 && result.warnings.length > 0) {
          failures.push({ message: 'expected no warnings (+ actual)', diff: result.warnings.map((w) => `+ ${w}`) });
        } else if (missing.length) {
          failures.push({
            message: 'warnings differ (- expected text not found, actual warnings unmarked)',
            diff: [...missing.map((w) => `- ${JSON.stringify(w)}`), ...result.warnings.map((w) => `  ${w}`)],
          });
        }
      }
    }
    if (e.defaults !== undefined) {
      const uuid = c.uuid ?? TEST_UUID;
      const { patch, causes } = applyDefaultsWithRules(rules, c.object, {
        operation: c.operation,
        ...(c.subResource ? { subResource: c.subResource } : {}),
        ...(c.now ? { now: c.now } : {}),
        uuid: () => uuid,
      });
      actual.defaults = patch;
      const diff = diffPatches(e.defaults, patch);
      // A refused object gets no patch: say why, or the diff only shows every expected operation missing.
      const refused = causes ? `; the mutating webhook refuses the object: ${aggregate(causes)}` : '';
      if (!diff.equal) failures.push({ message: `defaults differ (- expected, + actual JSON Patch)${refused}`, diff: diff.lines });
    }
  } catch (err) {
    actual.error = (err as Error).stack ?? String(err);
    failures.push({ message: `fleetgate threw: ${(err as Error).message}`, diff: [] });
  }
  return {
    suite: suite.file,
    name: c.name,
    line: c.line,
    passed: failures.length === 0,
    seconds: (performance.now() - started) / 1000,
    failures,
    actual,
  };
}
