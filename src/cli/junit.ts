/** JUnit XML as CI systems read it: testsuites > testsuite > testcase > failure | skipped. */
import { formatProblem, problemPosition, type ReadProblem } from '../input/problems.js';

export interface JUnitCase {
  name: string;
  classname: string;
  failure?: { message: string; details: string };
  skipped?: string;
  seconds?: number;
  /** Text the case printed: a validated object's warnings, which are neither failures nor skips. */
  output?: string;
}

export interface JUnitSuite {
  name: string;
  cases: JUnitCase[];
  /** Text about the suite as a whole, after its cases. */
  output?: string;
}

// XML 1.0 forbids most control characters even when escaped; they are dropped.
const INVALID_XML = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g;
const escape = (text: string): string =>
  text.replace(INVALID_XML, '').replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&apos;');

export function junitXml(name: string, suites: readonly JUnitSuite[]): string {
  const count = (s: readonly JUnitCase[], pick: (c: JUnitCase) => boolean) => s.filter(pick).length;
  const all = suites.flatMap((s) => s.cases);
  const lines = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="${escape(name)}" tests="${all.length}" failures="${count(all, (c) => !!c.failure)}" skipped="${count(all, (c) => !!c.skipped)}">`,
  ];
  for (const suite of suites) {
    lines.push(
      `  <testsuite name="${escape(suite.name)}" tests="${suite.cases.length}" failures="${count(suite.cases, (c) => !!c.failure)}" skipped="${count(suite.cases, (c) => !!c.skipped)}">`,
    );
    for (const c of suite.cases) {
      const open = `    <testcase name="${escape(c.name)}" classname="${escape(c.classname)}"${c.seconds !== undefined ? ` time="${c.seconds.toFixed(3)}"` : ''}`;
      const inside: string[] = [];
      if (c.failure) inside.push(`      <failure message="${escape(c.failure.message)}">${escape(c.failure.details)}</failure>`);
      else if (c.skipped) inside.push(`      <skipped message="${escape(c.skipped)}"/>`);
      // After failure or skipped, as the JUnit schema orders a test case's elements.
      if (c.output) inside.push(`      <system-out>${escape(c.output)}</system-out>`);
      if (inside.length) lines.push(`${open}>`, ...inside, '    </testcase>');
      else lines.push(`${open}/>`);
    }
    if (suite.output) lines.push(`    <system-out>${escape(suite.output)}</system-out>`);
    lines.push('  </testsuite>');
  }
  lines.push('</testsuites>', '');
  return lines.join('\n');
}

/** A file fleetgate could not read or use, as a failed test case, so a CI report shows it. */
export const problemCase = (p: ReadProblem): JUnitCase => ({
  name: `read ${problemPosition(p)}`,
  classname: 'fleetgate.read',
  failure: { message: p.message, details: formatProblem(p) },
});
