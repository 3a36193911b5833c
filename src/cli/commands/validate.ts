/** `fleetgate validate`: check manifests offline, as the webhook would, for CI pipelines. */
import { isAbsolute, relative } from 'node:path';
import { lookupsNotSupplied, validate, type ValidationResult } from '../../validate.js';
import { defaultsPatch } from '../../defaults.js';
import { formatCause, type Warning } from '../../field.js';
import { rulesFor, ruleModules, DEFAULT_GROUP_DOMAIN, apiGroup, apiVersion } from '../../../rules/index.js';
import { staticLookups } from '../../server/context.js';
import { MORE_CAUSES, type Lookups, type Operation } from '../../rule.js';
import { expandPaths, problemPosition, readManifests, readObjects, streamManifests, type ReadProblem, type Source } from '../../manifests.js';
import { junitXml, problemCase, type JUnitSuite } from '../junit.js';
import { groupDomainProblem, parseFlags, type CliIO, type Command } from '../io.js';

const HELP = `Usage: fleetgate validate [flags] PATH... | -

Checks manifests offline with the same rules the webhook enforces. PATH is a YAML
(multi-document) or JSON file, a directory (searched recursively for *.yaml, *.yml,
*.json, passing over dot folders and node_modules), or - for standard input. List objects are unpacked. Objects of other
API groups are skipped and counted whatever their kind (a Cluster API Cluster is
not Karmada's); one in a group fleetgate serves is judged whatever its kind says,
so a misspelt or missing kind is invalid.

Flags:
  -o, --output FORMAT     text (default), json or junit
      --strict            unknown fields, and objects fleetgate does not serve, are errors
      --operation OP      CREATE (default), UPDATE, or DELETE: the objects given are
                          those deleted, judged by deletion protection alone (the
                          label resourcetemplate.karmada.io/deletion-protected: Always)
      --old FILE          the stored objects for --operation UPDATE, matched by kind,
                          namespace and name
      --context FILE|DIR  Services and ResourceInterpreterCustomizations for the context
                          rules (repeatable); without it those rules are skipped, and one
                          warning per kind says so with the number of objects
      --show-defaults     print what the mutating webhook would write (JSON Patch); a
                          permanent-id label it adds gets a random UUID, as in the webhook
      --allow-empty       a run that finds no object passes (without it, exit 2)
      --group-domain D    API group domain (default karmada.io)
  -q, --quiet             print problems only, no summary

Exit status: 0 every object valid, 1 an object is invalid, 2 usage or I/O error
(an unreadable file or a YAML syntax error; the other files are still validated), or
no object found at all (a mistyped path in CI must not pass) unless --allow-empty.

Examples:
  fleetgate validate manifests/
  kustomize build overlays/prod | fleetgate validate -
  fleetgate validate --output junit manifests/ > fleetgate-report.xml
  fleetgate validate --operation UPDATE --old live/cluster.yaml changed/cluster.yaml
  kubectl get clusters -o yaml | fleetgate validate --operation DELETE -
`;

type Format = 'text' | 'json' | 'junit';

/** What the report needs of one object: its place and verdict, not the object itself. */
interface Checked {
  source: Source;
  kind: string;
  name: string;
  namespace?: string;
  /** Undefined when the object is not fleetgate's to judge (another group's kind). */
  result?: ValidationResult;
  /** The result's warnings but those the run reports once for all objects (see RunWarning). */
  warnings?: Warning[];
  /** For an object not judged: why (what fleetgate does not serve). */
  notServed?: string;
  /** The API group it was judged in. */
  group?: string;
  patch?: unknown[];
}

const PROGRESS_AFTER_MS = 1000;

/**
 * A warning that says the same of every object it concerns, because of how the run was started
 * (no --context: the context rules not checked): reported once, with the number of objects.
 */
interface RunWarning {
  message: string;
  objects: number;
  /** Objects per file, for the JUnit report (one test suite per file). */
  byFile: Map<string, number>;
}

const CONTEXT_HINT = 'give --context FILE|DIR to check them';

const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);
/** Kind, name and namespace; a cluster-scoped object has no namespace, whatever its manifest says (the API server clears it). */
const identity = (o: Record<string, unknown>, clusterScoped: boolean) => {
  const meta = (typeof o.metadata === 'object' && o.metadata !== null ? o.metadata : {}) as Record<string, unknown>;
  return { kind: str(o.kind) ?? '<no kind>', name: str(meta.name) ?? str(meta.generateName) ?? '<no name>', namespace: clusterScoped ? undefined : str(meta.namespace) };
};
const keyOf = (id: ReturnType<typeof identity>) => `${id.kind}/${id.namespace ?? ''}/${id.name}`;

async function run(args: string[], io: CliIO): Promise<number> {
  const parsed = parseFlags('validate', io, {
    args,
    allowPositionals: true,
    strict: true,
    options: {
      output: { type: 'string', short: 'o', default: 'text' },
      strict: { type: 'boolean', default: false },
      operation: { type: 'string', default: 'CREATE' },
      old: { type: 'string' },
      context: { type: 'string', multiple: true },
      'show-defaults': { type: 'boolean', default: false },
      'group-domain': { type: 'string', default: DEFAULT_GROUP_DOMAIN },
      quiet: { type: 'boolean', short: 'q', default: false },
      'allow-empty': { type: 'boolean', default: false },
    },
  });
  if (!parsed) return 2;
  const { values, positionals } = parsed;
  const format = values.output as Format;
  const usage = (message: string) => {
    io.stderr(`fleetgate validate: ${message}\n`);
    return 2;
  };
  if (!['text', 'json', 'junit'].includes(format)) return usage(`--output must be text, json or junit, got "${values.output}"`);
  const operation = values.operation as Operation;
  if (operation !== 'CREATE' && operation !== 'UPDATE' && operation !== 'DELETE') return usage(`--operation must be CREATE, UPDATE or DELETE, got "${values.operation}"`);
  if (values.old && operation !== 'UPDATE') return usage('--old needs --operation UPDATE');
  if (!values.old && operation === 'UPDATE') return usage('--operation UPDATE needs --old FILE, the stored object the rules compare with');
  const domainProblem = groupDomainProblem(values['group-domain']);
  if (domainProblem) return usage(domainProblem);
  if (positionals.length === 0) return usage('no PATH given (use - for standard input); see fleetgate validate --help');
  if (values.old === '-' && positionals.includes('-')) return usage('standard input can be read once: give --old or PATH as a file');

  // Reading problems come first in the report, then those of --old and --context, then those of objects.
  const readProblems: ReadProblem[] = [];
  const setupProblems: ReadProblem[] = [];
  const objectProblems: ReadProblem[] = [];
  const files = expandPaths(positionals, readProblems);

  // The group decides: an object in a group fleetgate serves is judged whatever its kind says (a
  // misspelt or missing kind there is a mistake to report, not another kind to skip), and one in
  // another group is another API's, whatever its kind (Cluster API's and CloudNativePG's Clusters).
  // Only an object that names no group at all is taken for the served kind it names.
  const servedGroups = new Set(ruleModules.map((r) => apiGroup(r, values['group-domain'])));
  const groupOf = (object: Record<string, unknown>): string | undefined => {
    if (typeof object.apiVersion !== 'string' || object.apiVersion === '') {
      const rules = rulesFor(object.kind);
      return rules && apiGroup(rules, values['group-domain']);
    }
    const group = object.apiVersion.split('/', 1)[0]!;
    return servedGroups.has(group) ? group : undefined;
  };
  const isClusterScoped = (object: Record<string, unknown>, group = groupOf(object)): boolean => {
    const rules = rulesFor(object.kind);
    return rules?.scope === 'Cluster' && group === apiGroup(rules, values['group-domain']);
  };

  const olds = new Map<string, Record<string, unknown>>();
  if (values.old) {
    const oldRead = readManifests([values.old], io.stdin);
    for (const p of oldRead.problems) setupProblems.push(p);
    for (const m of oldRead.manifests) olds.set(keyOf(identity(m.object, isClusterScoped(m.object))), m.object);
  }
  let lookups: Lookups | undefined;
  if (values.context?.length) {
    const context = readObjects(values.context);
    setupProblems.push(...context.problems);
    lookups = staticLookups(context.objects, values['group-domain']);
  }

  const now = io.now ?? Date.now;
  const started = now();
  const progress = (done: number, source: Source) => {
    if (io.stderrIsTTY && done > 0 && done % 100 === 0 && now() - started > PROGRESS_AFTER_MS) {
      io.stderr(`\r\x1b[Kvalidated ${done} objects (${source.file})`);
    }
  };

  // Without --context, every object of a kind with context rules says so: once per run is enough.
  const runWide = new Set(lookups ? [] : ruleModules.filter((r) => r.validateWithLookups).map(lookupsNotSupplied));
  const runWarnings = new Map<string, RunWarning>();
  const objectWarnings = (result: ValidationResult, file: string): Warning[] => {
    if (runWide.size === 0 || result.warningDetails.length === 0) return result.warningDetails;
    return result.warningDetails.filter((w) => {
      if (w.field !== '' || !runWide.has(w.message)) return true;
      let run = runWarnings.get(w.message);
      if (!run) runWarnings.set(w.message, (run = { message: w.message, objects: 0, byFile: new Map() }));
      run.objects++;
      run.byFile.set(file, (run.byFile.get(file) ?? 0) + 1);
      return false;
    });
  };

  // Objects are validated as they are parsed and let go; only their places and verdicts are kept.
  const checked: Checked[] = [];
  for (const { object, source } of streamManifests(files, readProblems, io.stdin)) {
    const group = groupOf(object);
    const id = identity(object, isClusterScoped(object, group));
    if (!group) {
      checked.push({ source, ...id, notServed: notServed(id.kind, str(object.apiVersion), values['group-domain']) });
      progress(checked.length, source);
      continue;
    }
    const oldObject = operation === 'UPDATE' ? olds.get(keyOf(id)) : undefined;
    if (operation === 'UPDATE' && values.old && !oldObject) {
      objectProblems.push({ file: source.file, line: source.line, message: `${id.kind} "${id.name}": no stored object with this kind, namespace and name in ${values.old}` });
    }
    const verdict = validate(object, { operation, oldObject, groupDomain: values['group-domain'], lookups, strict: values.strict });
    // Only lookups can make the verdict a Promise; awaiting every object would cost a microtask each.
    const result = verdict instanceof Promise ? await verdict : verdict;
    const patch = values['show-defaults'] ? defaultsPatch(object, { operation }) : undefined;
    checked.push({ source, ...id, result, warnings: objectWarnings(result, source.file), group, patch });
    progress(checked.length, source);
  }
  if (io.stderrIsTTY && now() - started > PROGRESS_AFTER_MS) io.stderr('\r\x1b[K');
  // A run that read everything and found nothing is most likely a wrong path.
  if (checked.length === 0 && readProblems.length === 0 && !values['allow-empty']) objectProblems.push(...nothingFound(positionals, files));
  // concat, not spread: a stream can carry more problems than a call takes arguments.
  const allProblems = readProblems.concat(setupProblems, objectProblems);

  const served = checked.filter((c) => c.result);
  const invalid = served.filter((c) => !c.result!.allowed);
  const skipped = checked.filter((c) => !c.result);
  // With --strict each object not served is an error, reported and counted as one.
  const unservedErrors = values.strict ? skipped.length : 0;
  const status = allProblems.length ? 2 : invalid.length || unservedErrors ? 1 : 0;
  const summary: Summary = {
    passed: status === 0,
    files: files.length,
    objects: checked.length,
    valid: served.length - invalid.length,
    invalid: invalid.length,
    skipped: skipped.length,
    warnings: served.reduce((n, c) => n + c.warnings!.length, runWarnings.size),
    errors: allProblems.length + unservedErrors,
  };

  const report: Report = { checked, problems: allProblems, once: [...runWarnings.values()], summary, strict: values.strict, operation };
  if (format === 'json') io.stdout(`${JSON.stringify(jsonReport(report), null, 2)}\n`);
  else if (format === 'junit') io.stdout(junitXml('fleetgate validate', junitSuites(report)));
  else io.stdout(textReport(report, values.quiet));

  return status;
}

/** Why each path gave no object, for a run that found none. */
function nothingFound(paths: readonly string[], files: readonly string[]): ReadProblem[] {
  const hint = 'pass --allow-empty if that is expected';
  return paths.map((path) => {
    if (path === '-') return { file: '<stdin>', message: `no objects found: standard input holds no object; ${hint}` };
    if (files.includes(path)) return { file: path, message: `no objects found: the file holds no object; ${hint}` };
    const inside = files.filter((file) => isInside(file, path)).length;
    return {
      file: path,
      message: inside
        ? `no objects found: ${inside === 1 ? 'the manifest file in this directory holds' : `the ${inside} manifest files in this directory hold`} no object; ${hint}`
        : `no objects found: no *.yaml, *.yml or *.json file in this directory; ${hint}`,
    };
  });
}

const isInside = (file: string, directory: string): boolean => {
  const path = relative(directory, file);
  return path !== '' && !path.startsWith('..') && !isAbsolute(path);
};

/** What a run found, for the three report formats. */
interface Report {
  checked: Checked[];
  problems: ReadProblem[];
  /** Warnings said once for the whole run. */
  once: RunWarning[];
  summary: Summary;
  strict: boolean;
  operation: Operation;
}

interface Summary {
  /** Whether the run passed: exit status 0. */
  passed: boolean;
  files: number;
  objects: number;
  valid: number;
  invalid: number;
  /** Objects not served by fleetgate (another API group's, whatever their kind). */
  skipped: number;
  /** The warnings reported: those of objects, and once each those said for the whole run. */
  warnings: number;
  /** Problems (unreadable files, YAML errors, ...) and, with --strict, objects not served. */
  errors: number;
}

const count = (n: number, noun: string) => `${n} ${noun}${n === 1 ? '' : 's'}`;
const where = (c: Checked) => `${c.source.file}:${c.source.line}`;
/** `Cluster "m1"`, or `MultiClusterService "default/web"` so a namespaced object can be found. */
const displayName = (c: Checked) => `${c.kind} "${c.namespace ? `${c.namespace}/` : ''}${c.name}"`;

/**
 * Why an object is not judged. A kind fleetgate serves in another API group (Cluster API's
 * Cluster) is not "a kind fleetgate does not serve": the group is what differs.
 */
function notServed(kind: string, objectApiVersion: string | undefined, groupDomain: string): string {
  const rules = rulesFor(kind);
  if (!rules) return `kind ${kind} is not served by fleetgate`;
  return `${kind} of ${objectApiVersion ?? 'no apiVersion'} is not served by fleetgate (fleetgate serves ${kind} of ${apiVersion(rules, groupDomain)})`;
}

/** `file:line: Warning: Kind "name": text`, at the line of the field the warning is about. */
const warningLine = (c: Checked, warning: Warning): string => `${c.source.file}:${c.source.lineOf(warning.field)}: Warning: ${displayName(c)}: ${warning.message}`;

function textReport({ checked, problems, once, summary, strict, operation }: Report, quiet: boolean): string {
  const lines: string[] = [];
  // A DELETE is refused, not found invalid: the object was fine to write, it is protected from deletion.
  const refused = operation === 'DELETE' ? 'may not be deleted' : 'is invalid';
  for (const p of problems) lines.push(`${problemPosition(p)}: error: ${p.message}`);
  for (const c of checked) {
    if (!c.result) {
      if (strict) lines.push(`${where(c)}: error: ${displayName(c)}: ${c.notServed} (an error with --strict)`);
      continue;
    }
    for (const cause of c.result.causes) lines.push(`${c.source.file}:${c.source.lineOf(cause.field)}: ${displayName(c)} ${refused}: ${formatCause(cause)}`);
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

function jsonReport({ checked, problems, once, summary, strict, operation }: Report) {
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
      causes: (c.result?.causes ?? []).map((cause) => ({ ...cause, line: c.source.lineOf(cause.field) })),
      ...(c.result?.truncated ? { truncated: true } : {}),
      warnings: (c.warnings ?? []).map((w) => ({ ...w, line: c.source.lineOf(w.field) })),
      ...(c.patch ? { defaults: c.patch } : {}),
    })),
  };
}

function junitSuites({ checked, problems, once, strict }: Report): JUnitSuite[] {
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

export const validateCommand: Command = { name: 'validate', summary: 'check manifests offline (YAML or JSON files, directories, stdin)', help: HELP, run };
