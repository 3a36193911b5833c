/** `fleetgate validate`: check manifests offline, as the webhook would, for CI pipelines. */
import { isAbsolute, relative } from 'node:path';
import { lookupsNotSupplied } from '../../engine/validate.js';
import { validate, validateKind, type ValidationResult } from '../../decode/object.js';
import { mutationOf } from '../../engine/defaults.js';
import type { KindRules } from '../../engine/rule.js';
import type { Warning } from '../../engine/field.js';
import { rulesFor, ruleModules, DEFAULT_GROUP_DOMAIN, apiGroup, apiVersion } from '../../../rules/index.js';
import { staticLookups } from '../../lookups/static.js';
import type { Lookups, Operation } from '../../engine/rule.js';
import { expandPaths } from '../../input/files.js';
import { readManifests, readObjects, streamManifests, type Source } from '../../input/manifests.js';
import type { ReadProblem } from '../../input/problems.js';
import { junitXml } from '../junit.js';
import type { Checked, Report, RunWarning, Summary } from '../validate-report/report.js';
import { textReport } from '../validate-report/text.js';
import { jsonReport } from '../validate-report/json.js';
import { junitSuites } from '../validate-report/junit.js';
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

const PROGRESS_AFTER_MS = 1000;

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
  // An object's kind is looked up once (rulesOf), and its rules handed to what needs them.
  const groupOf = (object: Record<string, unknown>, rules: KindRules | undefined): string | undefined => {
    if (typeof object.apiVersion !== 'string' || object.apiVersion === '') {
      return rules && apiGroup(rules, values['group-domain']);
    }
    const group = object.apiVersion.split('/', 1)[0]!;
    return servedGroups.has(group) ? group : undefined;
  };
  const isClusterScoped = (rules: KindRules | undefined, group: string | undefined): boolean => {
    return rules?.scope === 'Cluster' && group === apiGroup(rules, values['group-domain']);
  };

  const olds = new Map<string, Record<string, unknown>>();
  if (values.old) {
    const oldRead = readManifests([values.old], io.stdin);
    for (const p of oldRead.problems) setupProblems.push(p);
    for (const m of oldRead.manifests) {
      const rules = rulesFor(m.object.kind);
      olds.set(keyOf(identity(m.object, isClusterScoped(rules, groupOf(m.object, rules)))), m.object);
    }
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
    const rules = rulesFor(object.kind);
    const group = groupOf(object, rules);
    const id = identity(object, isClusterScoped(rules, group));
    if (!group) {
      checked.push({ source, ...id, notServed: notServed(id.kind, str(object.apiVersion), values['group-domain']) });
      progress(checked.length, source);
      continue;
    }
    const oldObject = operation === 'UPDATE' ? olds.get(keyOf(id)) : undefined;
    if (operation === 'UPDATE' && values.old && !oldObject) {
      objectProblems.push({ file: source.file, line: source.line, message: `${id.kind} "${id.name}": no stored object with this kind, namespace and name in ${values.old}` });
    }
    const options = { operation, oldObject, groupDomain: values['group-domain'], lookups, strict: values.strict };
    // A served group's object of a kind fleetgate does not know (a misspelt kind) is validate()'s to word.
    const verdict = rules && operation !== 'DELETE' ? validateKind(rules, object, options) : validate(object, options);
    // Only lookups can make the verdict a Promise; awaiting every object would cost a microtask each.
    const result = verdict instanceof Promise ? await verdict : verdict;
    const patch = values['show-defaults'] ? mutationOf(rules, object, { operation }).patch : undefined;
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

/**
 * Why an object is not judged. A kind fleetgate serves in another API group (Cluster API's
 * Cluster) is not "a kind fleetgate does not serve": the group is what differs.
 */
function notServed(kind: string, objectApiVersion: string | undefined, groupDomain: string): string {
  const rules = rulesFor(kind);
  if (!rules) return `kind ${kind} is not served by fleetgate`;
  return `${kind} of ${objectApiVersion ?? 'no apiVersion'} is not served by fleetgate (fleetgate serves ${kind} of ${apiVersion(rules, groupDomain)})`;
}

export const validateCommand: Command = { name: 'validate', summary: 'check manifests offline (YAML or JSON files, directories, stdin)', help: HELP, run };
