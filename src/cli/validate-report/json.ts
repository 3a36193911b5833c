/** The JSON report of `fleetgate validate` (`--output json`): the summary, and each object with its causes and warnings at their lines. */
import { pathOf } from '../../engine/field.js';
import type { Report } from './report.js';

export function jsonReport({ checked, problems, once, summary, strict, operation }: Report) {
  return {
    // For DELETE, an invalid object is one that may not be deleted.
    operation,
    summary,
    errors: problems,
    // Said once for the run, not in each result.
    warnings: once.map((w) => ({ message: w.message, objects: w.objects })),
    results: checked.map((c) => ({
      file: c.source.file,
      line: c.source.line,
      kind: c.kind,
      ...(c.group ? { group: c.group } : {}),
      namespace: c.namespace,
      name: c.name,
      // With --strict an unserved kind fails the run, and says so.
      status: c.result ? (c.result.allowed ? 'valid' : 'invalid') : strict ? 'unserved' : 'skipped',
      ...(c.notServed ? { reason: c.notServed } : {}),
      causes: (c.result?.causes ?? []).map((cause) => ({ ...cause, line: c.source.lineOf(pathOf(cause)) })),
      ...(c.result?.truncated ? { truncated: true } : {}),
      warnings: (c.warnings ?? []).map((w) => ({ ...w, line: c.source.lineOf(pathOf(w)) })),
      ...(c.patch ? { defaults: c.patch } : {}),
    })),
  };
}
