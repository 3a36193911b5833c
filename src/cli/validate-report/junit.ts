/** The JUnit report of `fleetgate validate` (`--output junit`): a test suite per file, a test case per object. */
import { formatCause } from '../../engine/field.js';
import { MORE_CAUSES } from '../../engine/rule.js';
import { problemCase, type JUnitSuite } from '../junit.js';
import { CONTEXT_HINT, count, displayName, warningLine, where, type Report } from './report.js';

export function junitSuites({ checked, problems, once, strict }: Report): JUnitSuite[] {
  const byFile = new Map<string, JUnitSuite>();
  const suite = (file: string) => {
    let s = byFile.get(file);
    if (!s) byFile.set(file, (s = { name: file, cases: [] }));
    return s;
  };
  for (const p of problems) {
    suite(p.file).cases.push(problemCase(p));
  }
  for (const c of checked) {
    const name = `${displayName(c)} (${where(c)})`;
    const classname = c.group ? `${c.kind}.${c.group}` : c.kind;
    if (!c.result) {
      suite(c.source.file).cases.push(
        strict
          ? { name, classname, failure: { message: `${c.notServed} (an error with --strict)`, details: '' } }
          : { name, classname, skipped: c.notServed! },
      );
    } else {
      const warnings = c.warnings!.map((w) => warningLine(c, w)).join('\n');
      const output = warnings ? { output: warnings } : {};
      if (!c.result.allowed) {
        const listed = c.result.causes.map(formatCause);
        const details = (c.result.truncated ? [...listed, MORE_CAUSES] : listed).join('\n');
        const problems = `${c.result.causes.length}${c.result.truncated ? '+' : ''} problem(s)`;
        suite(c.source.file).cases.push({ name, classname, failure: { message: `${problems}: ${formatCause(c.result.causes[0]!)}`, details }, ...output });
      } else {
        suite(c.source.file).cases.push({ name, classname, ...output });
      }
    }
  }
  // A run-wide warning goes to the output of each file's suite, with that file's count.
  for (const [file, s] of byFile) {
    const notes = once.filter((w) => w.byFile.has(file)).map((w) => `Warning: ${w.message} (${count(w.byFile.get(file)!, 'object')} in this file; ${CONTEXT_HINT})`);
    if (notes.length) s.output = notes.join('\n');
  }
  return [...byFile.values()];
}
