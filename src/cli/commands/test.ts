/**
 * `fleetgate test`: runs policy test suites (`fleetgate-test.yaml`, format in
 * test/policies/README.md) and reports each case as text, JSON or JUnit XML.
 */
import { dirname } from 'node:path';
import { parseFlags, type CliIO, type Command } from '../io.js';
import { junitXml, problemCase, type JUnitSuite } from '../junit.js';
import { SuiteLoader, findSuites, type Suite } from '../test-suite.js';
import { formatProblem, type ReadProblem } from '../../input/problems.js';
import { runCase, type CaseOutcome } from '../test-run.js';

const HELP = `Usage: fleetgate test [flags] [DIR|FILE...]

Runs policy test suites: every fleetgate-test.yaml under each DIR (default: the current
directory, searched recursively), or the suite FILEs named. Each case validates one object
as the webhook would and/or applies the defaults, and compares the verdict, the causes
(by field path and type, as a set), the warnings and the defaulting JSON Patch with what
the case expects. Failing cases are printed with a diff (- expected, + actual); the last
line is "N passed, N failed".

Flags:
  -o, --output FORMAT   text (default), json (a report object) or junit (JUnit XML)

Suite format (paths are relative to the suite file):
  description: optional text
  cases:
    - name: unique within the suite                  (required)
      object: FILE or an inline object               (required; a file holds one object)
      patch: [JSON Patch ops]                        applied to the object first
      operation: CREATE | UPDATE | DELETE            (default CREATE)
      oldObject: FILE or an inline object            (required for UPDATE)
      subResource: status
      context: FILE|DIR or a list                    Services and ResourceInterpreter-
                                                     Customizations answering the lookups
      strict: true                                   unknown fields are errors
      groupDomain: karmada.io
      allowNoExecuteTaintPolicy: false
      now: 2026-01-01T00:00:00Z                      the clock for defaulted timestamps
      expect:                                        (required; at least one of these)
        allowed: true | false
        causes: [{field, type, message?}]            only with allowed: false; type as
                                                     Required/Invalid/Duplicate/NotSupported/
                                                     Forbidden/TooLong/TooMany or the API
                                                     name (FieldValueRequired); message is a
                                                     substring; left out: any denial passes
        warnings: [text]                             each occurs in some warning; [] = none
        defaults: [JSON Patch ops]                   the exact defaulting patch; [] = none

Exit status: 0 every case passed, 1 a case failed, 2 a usage error, no suite found, or a
suite that cannot be read or is malformed (reported as file:line:column; nothing is run).

Examples:
  fleetgate test                               # every suite under the current directory
  fleetgate test policies/clusters             # one folder and its subfolders
  fleetgate test policies/a/fleetgate-test.yaml
  fleetgate test -o junit policies > junit.xml # for CI test reports

  # policies/clusters/fleetgate-test.yaml
  cases:
    - name: the production member cluster is valid
      object: member1.yaml
      expect: { allowed: true }
    - name: an unknown sync mode is denied
      object: member1.yaml
      patch: [{ op: replace, path: /spec/syncMode, value: Both }]
      expect:
        allowed: false
        causes: [{ field: spec.syncMode, type: NotSupported }]
`;

const FORMATS = ['text', 'json', 'junit'] as const;
type Format = (typeof FORMATS)[number];

interface SuiteOutcome {
  suite: Suite;
  cases: CaseOutcome[];
}

function text(outcomes: readonly SuiteOutcome[], passed: number, failed: number): string {
  const out: string[] = [];
  for (const { suite, cases } of outcomes) {
    out.push(suite.file);
    for (const c of cases) {
      out.push(`  ${c.passed ? 'PASS' : 'FAIL'} ${c.name}`);
      if (c.passed) continue;
      out.push(`    at ${c.suite}:${c.line}`);
      for (const f of c.failures) {
        out.push(`    ${f.message}${f.diff.length ? ':' : ''}`);
        for (const line of f.diff) out.push(`      ${line}`);
      }
    }
  }
  out.push('', `${passed} passed, ${failed} failed`, '');
  return out.join('\n');
}

function json(outcomes: readonly SuiteOutcome[], passed: number, failed: number, problems: readonly ReadProblem[] = []): string {
  const report = {
    passed,
    failed,
    errors: problems,
    suites: outcomes.map(({ suite, cases }) => ({
      file: suite.file,
      ...(suite.description !== undefined ? { description: suite.description } : {}),
      passed: cases.filter((c) => c.passed).length,
      failed: cases.filter((c) => !c.passed).length,
      cases: cases.map((c) => ({
        name: c.name,
        line: c.line,
        passed: c.passed,
        seconds: Number(c.seconds.toFixed(6)),
        ...(c.passed ? {} : { failures: c.failures, actual: c.actual }),
      })),
    })),
  };
  return `${JSON.stringify(report, null, 2)}\n`;
}

/** A suite file fleetgate could not use, one failed case per problem in it. */
const problemSuites = (problems: readonly ReadProblem[]): JUnitSuite[] =>
  [...new Set(problems.map((p) => p.file))].map((file) => ({ name: file, cases: problems.filter((p) => p.file === file).map(problemCase) }));

function junit(outcomes: readonly SuiteOutcome[]): string {
  const suites: JUnitSuite[] = outcomes.map(({ suite, cases }) => ({
    name: suite.file,
    cases: cases.map((c) => ({
      name: c.name,
      classname: dirname(suite.file),
      seconds: c.seconds,
      ...(c.passed
        ? {}
        : {
            failure: {
              message: c.failures.map((f) => f.message).join('; '),
              details: [`at ${c.suite}:${c.line}`, ...c.failures.flatMap((f) => [`${f.message}${f.diff.length ? ':' : ''}`, ...f.diff.map((l) => `  ${l}`)])].join('\n'),
            },
          }),
    })),
  }));
  return junitXml('fleetgate test', suites);
}

async function run(args: string[], io: CliIO): Promise<number> {
  const parsed = parseFlags('test', io, {
    args,
    strict: true,
    allowPositionals: true,
    options: { output: { type: 'string', short: 'o' } },
  });
  if (!parsed) return 2;
  const { values, positionals } = parsed;
  const format = (values.output ?? 'text') as Format;
  if (!FORMATS.includes(format)) {
    io.stderr(`fleetgate test: --output must be text, json or junit, got "${values.output}"\n`);
    return 2;
  }
  const paths = positionals.length ? positionals : ['.'];

  const loader = new SuiteLoader();
  const files = findSuites(paths, loader.problems);
  if (!files.length && !loader.problems.length) {
    io.stderr(`fleetgate test: no fleetgate-test.yaml found under ${paths.join(', ')}\n`);
    return 2;
  }
  const suites = files.map((f) => loader.load(f)).filter((s): s is Suite => s !== undefined);
  if (loader.problems.length) {
    // Grouped by file (in the order first met), then by position.
    const fileOrder = [...new Set(loader.problems.map((p) => p.file))];
    const sorted = [...loader.problems].sort(
      (a, b) => fileOrder.indexOf(a.file) - fileOrder.indexOf(b.file) || (a.line ?? 0) - (b.line ?? 0) || (a.column ?? 0) - (b.column ?? 0),
    );
    for (const p of sorted) io.stderr(`${formatProblem(p)}\n`);
    const n = loader.problems.length;
    io.stderr(`fleetgate test: ${n} problem${n === 1 ? '' : 's'} in the test suites; no case was run\n`);
    // A CI step that reads the report must find the problems there too, not an empty file.
    if (format === 'json') io.stdout(json([], 0, 0, sorted));
    if (format === 'junit') io.stdout(junitXml('fleetgate test', problemSuites(sorted)));
    return 2;
  }

  const total = suites.reduce((n, s) => n + s.cases.length, 0);
  const started = Date.now();
  let done = 0;
  let progressShown = false;
  const outcomes: SuiteOutcome[] = [];
  for (const suite of suites) {
    const cases: CaseOutcome[] = [];
    for (const c of suite.cases) {
      cases.push(await runCase(suite, c));
      done++;
      if (io.stderrIsTTY && Date.now() - started > 1000) {
        io.stderr(`\rfleetgate test: ${done}/${total} cases`);
        progressShown = true;
      }
    }
    outcomes.push({ suite, cases });
  }
  if (progressShown) io.stderr('\r\x1b[K');

  const all = outcomes.flatMap((o) => o.cases);
  const passed = all.filter((c) => c.passed).length;
  const failed = all.length - passed;
  io.stdout(format === 'json' ? json(outcomes, passed, failed) : format === 'junit' ? junit(outcomes) : text(outcomes, passed, failed));
  return failed ? 1 : 0;
}

export const testCommand: Command = { name: 'test', summary: 'run policy test suites (fleetgate-test.yaml)', help: HELP, run };
