/** The text report of `fleetgate validate`: one line per problem, cause and warning, at its file and line; a summary. */
import { formatCause, pathOf } from '../../engine/field.js';
import { MORE_CAUSES } from '../../engine/rule.js';
import { problemPosition } from '../../input/problems.js';
import { CONTEXT_HINT, count, displayName, warningLine, where, type Report } from './report.js';

export function textReport({ checked, problems, once, summary, strict, operation }: Report, quiet: boolean): string {
  const lines: string[] = [];
  // A DELETE is refused, not found invalid: the object was fine to write, it is protected from deletion.
  const refused = operation === 'DELETE' ? 'may not be deleted' : 'is invalid';
  for (const p of problems) lines.push(`${problemPosition(p)}: error: ${p.message}`);
  for (const c of checked) {
    if (!c.result) {
      if (strict) lines.push(`${where(c)}: error: ${displayName(c)}: ${c.notServed} (an error with --strict)`);
      continue;
    }
    for (const cause of c.result.causes) lines.push(`${c.source.file}:${c.source.lineOf(pathOf(cause))}: ${displayName(c)} ${refused}: ${formatCause(cause)}`);
    if (c.result.truncated) lines.push(`${where(c)}: ${displayName(c)} ${refused}: ${MORE_CAUSES}`);
    for (const warning of c.warnings!) lines.push(warningLine(c, warning));
    if (c.patch?.length) lines.push(`${where(c)}: ${displayName(c)} defaults: ${JSON.stringify(c.patch)}`);
  }
  for (const w of once) lines.push(`Warning: ${w.message} (${count(w.objects, 'object')}; ${CONTEXT_HINT})`);
  if (!quiet) {
    lines.push(
      `${count(summary.objects, 'object')} in ${count(summary.files, 'file')}: ${operation === 'DELETE' ? `${summary.valid} deletable, ${summary.invalid} protected` : `${summary.valid} valid, ${summary.invalid} invalid`}, ${summary.skipped} ${strict ? 'not served (errors with --strict)' : 'skipped (not served)'}, ${count(summary.warnings, 'warning')}, ${count(summary.errors, 'error')}`,
    );
  }
  return lines.length ? `${lines.join('\n')}\n` : '';
}
