/**
 * The policy test-suite format of `fleetgate test` (documented for authors in
 * test/policies/README.md): finding `fleetgate-test.yaml` files, checking each against the
 * suite schema (suite/schema.ts, through ajv) and the rules a schema cannot state, with
 * file:line:column for every mistake, and loading what their cases refer to (object files, JSON
 * Patches, context files) so that running a case needs no I/O.
 */
import { readFileSync } from 'node:fs';
import { basename, dirname, isAbsolute, join } from 'node:path';
import { LineCounter, isAlias, isMap, isScalar, isSeq, parseDocument, type Document, type Node } from 'yaml';
import type { ErrorObject } from 'ajv';
import { applyPatch, type Operation as PatchOperation } from 'rfc6902';
import { Pointer } from 'rfc6902/pointer.js';
import type { CauseType, Lookups } from '../index.js';
import { staticLookups } from '../lookups/static.js';
import { MAX_EXPANDED_NODES, expandsBeyond } from '../input/alias-guards.js';
import { parseManifests, readObjects } from '../input/manifests.js';
import { decodeManifest } from '../input/text.js';
import { formatProblem, ioMessage, type ReadProblem } from '../input/problems.js';
import { isToolingDirectory, walkFiles } from '../input/files.js';
import { KUBECTL_YAML } from '../input/yaml.js';
import { isRecord } from '../util/is.js';
import { kindValidator } from '../schema/validators.js';
import { CAUSE_TYPES, EXAMPLE_UUID, OPERATIONS, SUITE, SUITE_SCHEMA, type SchemaNode } from './suite/schema.js';
import { caseLabel, caseName, describePlace, suiteProblems, type Step } from './suite/problems.js';

export const SUITE_FILE_NAMES = ['fleetgate-test.yaml', 'fleetgate-test.yml'];

/**
 * The UUID every permanent-id label defaulted in a case gets unless the case sets `uuid`: the
 * webhook writes a random one, which no expected patch could name.
 */
export const TEST_UUID = EXAMPLE_UUID;

export type { PatchOperation };
export type TestOperation = 'CREATE' | 'UPDATE' | 'DELETE';

export interface ExpectedCause {
  field: string;
  type: CauseType;
  /** Must occur in the actual cause's message. */
  message?: string;
}

export interface Expectation {
  allowed?: boolean;
  /** Only with `allowed: false`; the exact set of causes (order-insensitive). */
  causes?: ExpectedCause[];
  /** Each must occur in some warning; an empty list means no warnings. */
  warnings?: string[];
  /** The exact defaulting patch (order-insensitive); an empty list means nothing is defaulted. */
  defaults?: PatchOperation[];
}

export interface TestCase {
  name: string;
  /** Line of the case in the suite file. */
  line: number;
  object: Record<string, unknown>;
  operation: TestOperation;
  oldObject?: Record<string, unknown>;
  subResource?: string;
  lookups?: Lookups;
  strict?: boolean;
  groupDomain?: string;
  allowNoExecuteTaintPolicy?: boolean;
  /** The clock for defaulted timestamps. */
  now?: Date;
  /** The UUID a defaulted permanent-id label gets (default TEST_UUID). */
  uuid?: string;
  expect: Expectation;
}

export interface Suite {
  file: string;
  description?: string;
  cases: TestCase[];
}

/** Suite files under `paths`: directories are searched recursively (skipping dot folders and node_modules); files are taken as suites. */
export function findSuites(paths: readonly string[], problems: ReadProblem[]): string[] {
  const suites = walkFiles(paths, problems, {
    accept: (file) => SUITE_FILE_NAMES.includes(basename(file)),
    skipDirectory: isToolingDirectory,
  });
  return [...new Set(suites)];
}

/** The keys each JSON Patch operation needs; it takes no other of path, value and from (RFC 6902 §4). */
const PATCH_KEYS: Readonly<Record<string, readonly string[]>> = {
  add: ['path', 'value'],
  replace: ['path', 'value'],
  test: ['path', 'value'],
  remove: ['path'],
  move: ['path', 'from'],
  copy: ['path', 'from'],
};

/** ajv's errors on a suite: the suite schema's validator is the build's, precompiled with the kinds' (or compiled from source, once). */
function validateSuite(value: unknown): readonly ErrorObject[] {
  const validate = kindValidator(SUITE);
  return validate(value) ? [] : (validate.errors ?? []);
}

/**
 * Loads suites, caching the object and context files they share. Every problem is
 * collected (with file:line:column) rather than thrown.
 */
export class SuiteLoader {
  readonly problems: ReadProblem[] = [];
  private readonly objectFiles = new Map<string, { objects: Record<string, unknown>[]; ok: boolean }>();
  private readonly contexts = new Map<string, Lookups | undefined>();

  load(file: string): Suite | undefined {
    let text: string;
    try {
      text = decodeManifest(readFileSync(file));
    } catch (err) {
      this.problems.push({ file, message: ioMessage(err) });
      return undefined;
    }
    return new SuiteReader(file, text, this).read();
  }

  /** The one object in an object file (path already resolved against the suite's folder). */
  objectFile(path: string, report: (message: string) => void): Record<string, unknown> | undefined {
    let entry = this.objectFiles.get(path);
    if (!entry) {
      let text: string | undefined;
      try {
        text = decodeManifest(readFileSync(path));
      } catch (err) {
        report(`cannot read ${path}: ${ioMessage(err)}`);
        this.objectFiles.set(path, { objects: [], ok: false });
        return undefined;
      }
      const parsed = parseManifests(text, path);
      // The object file's own problems are reported once, where they are.
      this.problems.push(...parsed.problems);
      entry = { objects: parsed.manifests.map((m) => m.object), ok: parsed.problems.length === 0 };
      this.objectFiles.set(path, entry);
      if (!entry.ok) return undefined;
    }
    if (!entry.ok) return undefined;
    if (entry.objects.length !== 1) {
      report(`${path} holds ${entry.objects.length} objects; a case takes a file with exactly one (write variants as a patch or another file)`);
      return undefined;
    }
    return structuredClone(entry.objects[0]!);
  }

  /** Lookups answered by the Services and ResourceInterpreterCustomizations in these files or folders. */
  context(paths: readonly string[], report: (message: string) => void): Lookups | undefined {
    const key = JSON.stringify(paths);
    if (this.contexts.has(key)) return this.contexts.get(key);
    const { objects, problems } = readObjects(paths);
    for (const p of problems) report(`cannot read ${formatProblem(p)}`);
    const lookups = problems.length ? undefined : staticLookups(objects);
    this.contexts.set(key, lookups);
    return lookups;
  }
}

/**
 * Applies a case's patch one operation at a time, as RFC 6902 reads it, and says why each one that
 * does not apply fails. The rfc6902 library takes a replace at an array's `-` as done while it changes
 * nothing, refuses a replace of the whole document, and words a failed test as two `[object Object]`s.
 */
function applyCasePatch(object: Record<string, unknown>, patch: readonly PatchOperation[]): { object: unknown; problems: (string | undefined)[] } {
  let doc: unknown = object;
  const problems = patch.map((op): string | undefined => {
    if (op.path === '' && (op.op === 'replace' || op.op === 'add')) {
      doc = structuredClone(op.value);
      return undefined;
    }
    if (op.op === 'replace' && op.path.endsWith('/-') && Array.isArray(Pointer.fromJSON(op.path.slice(0, -2)).get(doc))) {
      return '"-" names the end of the array, after its last element; replace an element by its index, or add one at "-"';
    }
    const [error] = applyPatch(doc, [op]);
    if (!error) return undefined;
    if (error.name === 'TestError') {
      const actual = Pointer.fromJSON(op.path).get(doc);
      return `${actual === undefined ? 'there is no value there' : `the value there is ${JSON.stringify(actual)}`}, not ${JSON.stringify((op as { value: unknown }).value)}`;
    }
    return error.message || error.name;
  });
  return { object: doc, problems };
}

/** One suite file: its YAML read once, checked against the suite schema, then each case read. */
class SuiteReader {
  private readonly lineCounter = new LineCounter();
  private readonly doc: Document.Parsed;
  /** Whether the text can hold an alias at all; without one no value needs its reading counted. */
  private readonly hasAliases: boolean;
  private readonly dir: string;
  /** This file's problems, reported in the order of the file when it has been read. */
  private readonly problems: { line?: number; column?: number; message: string }[] = [];
  private suite: unknown;
  /** Where the schema found problems, as place texts: a rule on a value there has nothing to add. */
  private readonly schemaFound: string[] = [];

  constructor(
    private readonly file: string,
    text: string,
    private readonly loader: SuiteLoader,
  ) {
    this.dir = dirname(file);
    // Read as kubectl reads manifests, so inline objects mean what they would in a file.
    this.doc = parseDocument(text, { ...KUBECTL_YAML, lineCounter: this.lineCounter, prettyErrors: false });
    this.hasAliases = text.includes('*');
  }

  /** The YAML node at a place (its key's, for a value that is missing or `key:` with nothing after it). */
  private nodeAt(place: readonly Step[], at: 'value' | 'key' = 'value'): Node | undefined {
    let node = this.doc.contents as Node | null | undefined;
    for (const [i, step] of place.entries()) {
      if (isAlias(node)) node = node.resolve(this.doc) as Node | undefined;
      if (isMap(node)) {
        const pair = node.items.find((p) => isScalar(p.key) && p.key.value === step);
        if (!pair) return node;
        node = (i === place.length - 1 && at === 'key') || pair.value == null ? (pair.key as Node) : (pair.value as Node);
      } else if (isSeq(node) && typeof step === 'number') {
        const item = node.items[step] as Node | undefined;
        if (!item) return node;
        node = item;
      } else return node ?? undefined;
    }
    return node ?? undefined;
  }

  private problem(place: readonly Step[], message: string, at: 'value' | 'key' = 'value'): void {
    const node = this.nodeAt(place, at);
    if (!node?.range) {
      this.problems.push({ message });
      return;
    }
    const pos = this.lineCounter.linePos(node.range[0]);
    this.problems.push({ line: pos.line, column: pos.col, message });
  }

  private line(place: readonly Step[]): number {
    const node = this.nodeAt(place);
    return node?.range ? this.lineCounter.linePos(node.range[0]).line : 0;
  }

  private resolve(path: string): string {
    return isAbsolute(path) ? path : join(this.dir, path);
  }

  read(): Suite | undefined {
    if (this.doc.errors.length) {
      // The first error only: the ones after it mostly follow from it.
      const e = this.doc.errors[0]!;
      const pos = this.lineCounter.linePos(e.pos[0]);
      // The yaml library words this one for its callers; a suite's author needs the rule.
      const message = e.code === 'MULTIPLE_DOCS' ? 'a test suite file holds one YAML document; this one has more (put further suites in files of their own)' : `YAML syntax error: ${e.message.split('\n')[0]}`;
      this.loader.problems.push({ file: this.file, line: pos.line, column: pos.col, message });
      return undefined;
    }
    if (!this.doc.contents) {
      this.loader.problems.push({ file: this.file, message: 'empty suite file: expected a mapping with "cases"' });
      return undefined;
    }
    // An alias shares its anchor's value, so memory stays as written; what a bomb costs is the
    // reading, bounded as for manifests (the yaml library's own guard refuses values a thousand
    // times smaller than kubectl reads).
    this.suite = this.doc.toJS({ maxAliasCount: -1 });
    if (this.hasAliases && expandsBeyond(this.suite, MAX_EXPANDED_NODES)) {
      this.problem(this.expandingPlace(), `expands to more than ${MAX_EXPANDED_NODES.toLocaleString('en-US')} values through YAML aliases; refusing it`);
      return this.finish(undefined);
    }
    for (const p of suiteProblems(this.suite, SUITE_SCHEMA as SchemaNode, validateSuite(this.suite))) {
      this.problem(p.place, p.message, p.at);
      this.schemaFound.push(placeText(p.place));
    }
    const suite = isRecord(this.suite) ? this.suite : {};
    const cases: TestCase[] = [];
    const names = new Map<string, number>();
    (Array.isArray(suite.cases) ? suite.cases : []).forEach((value: unknown, i) => {
      const before = this.problems.length;
      const c = this.readCase(value, i);
      // Names are checked on every case, a malformed one included, so a repeat is reported with its other problems.
      const name = caseName(value);
      const earlier = name === undefined ? undefined : names.get(name);
      if (earlier !== undefined) this.problem(['cases', i], `cases[${i}]: the name "${name}" is already used by the case on line ${earlier}`);
      else if (name !== undefined) names.set(name, this.line(['cases', i]));
      if (c && this.problems.length === before) cases.push(c);
    });
    const description = typeof suite.description === 'string' ? suite.description : undefined;
    return this.finish({ file: this.file, ...(description !== undefined ? { description } : {}), cases });
  }

  /** The suite, or undefined with this file's problems reported in the order of the file. */
  private finish(suite: Suite | undefined): Suite | undefined {
    if (this.problems.length === 0) return suite;
    const ordered = this.problems.map((p, i) => ({ p, i })).sort((a, b) => (a.p.line ?? 0) - (b.p.line ?? 0) || (a.p.column ?? 0) - (b.p.column ?? 0) || a.i - b.i);
    for (const { p } of ordered) this.loader.problems.push({ file: this.file, ...p });
    return undefined;
  }

  /** The field of a case (or the case, or the suite) whose value the aliases blow up. */
  private expandingPlace(): Step[] {
    const suite = this.suite as Record<string, unknown>;
    const cases = isRecord(suite) && Array.isArray(suite.cases) ? suite.cases : [];
    for (const [i, c] of cases.entries()) {
      if (!expandsBeyond(c, MAX_EXPANDED_NODES)) continue;
      const field = isRecord(c) ? Object.keys(c).find((k) => expandsBeyond(c[k], MAX_EXPANDED_NODES)) : undefined;
      return field === undefined ? ['cases', i] : ['cases', i, field];
    }
    return [];
  }

  private readCase(value: unknown, i: number): TestCase | undefined {
    if (!isRecord(value)) return undefined;
    const at = (...steps: Step[]): Step[] => ['cases', i, ...steps];
    const what = caseLabel(this.suite, i);
    const operation = value.operation === undefined ? 'CREATE' : (OPERATIONS as readonly unknown[]).includes(value.operation) ? (value.operation as TestOperation) : undefined;

    let object = this.readObject(value.object, at('object'), `${what}: object`);
    if (value.patch !== undefined) {
      const patch = this.readPatch(value.patch, at('patch'));
      if (patch && object) {
        const patched = applyCasePatch(object, patch);
        patched.problems.forEach((problem, j) => {
          if (problem) this.problem(at('patch', j), `${what}: patch[${j}] (${patch[j]!.op} ${patch[j]!.path}) does not apply: ${problem}`);
        });
        if (isRecord(patched.object)) object = patched.object;
        else if (!patched.problems.some(Boolean)) this.problem(at('patch'), `${what}: patch must leave an object, not ${JSON.stringify(patched.object) ?? 'nothing'}`);
      }
    }

    let oldObject: Record<string, unknown> | undefined;
    if (value.oldObject !== undefined) {
      if (operation !== 'UPDATE') this.problem(at('oldObject'), `${what}: oldObject is only for operation: UPDATE`);
      else oldObject = this.readObject(value.oldObject, at('oldObject'), `${what}: oldObject`);
    } else if (operation === 'UPDATE') {
      this.problem(at(), `${what}: operation UPDATE needs "oldObject" (the stored object)`);
    }

    let lookups: Lookups | undefined;
    const paths = typeof value.context === 'string' ? [value.context] : Array.isArray(value.context) ? value.context : undefined;
    if (paths?.length && paths.every((p): p is string => typeof p === 'string' && p !== '')) {
      lookups = this.loader.context(paths.map((p) => this.resolve(p)), (m) => this.problem(at('context'), `${what}: context: ${m}`));
    }

    const expectation = isRecord(value.expect) ? this.readExpect(value.expect, at('expect'), `${what}: expect`) : undefined;
    if (typeof value.name !== 'string' || !object || !operation || !expectation) return undefined;
    const now = typeof value.now === 'string' ? new Date(value.now) : undefined;
    return {
      name: value.name,
      line: this.line(at()),
      object,
      operation,
      ...(oldObject ? { oldObject } : {}),
      ...(value.subResource === 'status' ? { subResource: 'status' } : {}),
      ...(lookups ? { lookups } : {}),
      ...(typeof value.strict === 'boolean' ? { strict: value.strict } : {}),
      ...(typeof value.groupDomain === 'string' ? { groupDomain: value.groupDomain } : {}),
      ...(typeof value.allowNoExecuteTaintPolicy === 'boolean' ? { allowNoExecuteTaintPolicy: value.allowNoExecuteTaintPolicy } : {}),
      ...(now && !Number.isNaN(now.getTime()) ? { now } : {}),
      ...(typeof value.uuid === 'string' ? { uuid: value.uuid } : {}),
      expect: expectation,
    };
  }

  /** A file path (relative to the suite) or an inline mapping, a copy of its own (an alias shares one with its anchor). */
  private readObject(value: unknown, place: Step[], what: string): Record<string, unknown> | undefined {
    if (isRecord(value)) return structuredClone(value);
    if (typeof value !== 'string' || value === '') return undefined;
    return this.loader.objectFile(this.resolve(value), (m) => this.problem(place, `${what}: ${m}`));
  }

  /** A list of JSON Patch operations the schema found well formed, each with the keys its op takes. */
  private readPatch(value: unknown, place: Step[]): PatchOperation[] | undefined {
    if (!Array.isArray(value)) return undefined;
    let ok = true;
    value.forEach((op: unknown, j) => {
      if (!isRecord(op) || typeof op.op !== 'string' || !Object.hasOwn(PATCH_KEYS, op.op)) return void (ok = false);
      const needs = PATCH_KEYS[op.op]!;
      const where = describePlace(this.suite, [...place, j]);
      for (const key of ['path', 'value', 'from']) {
        if (needs.includes(key) && !Object.hasOwn(op, key)) {
          this.problem([...place, j], `${where}: "${op.op}" needs "${key}"`);
          ok = false;
        } else if (!needs.includes(key) && Object.hasOwn(op, key)) {
          this.problem([...place, j, key], `${where}: "${op.op}" takes no "${key}"`);
          ok = false;
        }
      }
      if (typeof op.path !== 'string' || (op.from !== undefined && typeof op.from !== 'string')) ok = false;
    });
    return ok ? (structuredClone(value) as PatchOperation[]) : undefined;
  }

  private readExpect(value: Record<string, unknown>, place: Step[], what: string): Expectation | undefined {
    const before = this.problems.length;
    const expectation: Expectation = {};
    if (typeof value.allowed === 'boolean') expectation.allowed = value.allowed;
    if (value.causes !== undefined) {
      if (value.allowed !== false) this.problem([...place, 'causes'], `${what}.causes: causes are only for allowed: false`);
      else if (Array.isArray(value.causes)) expectation.causes = value.causes.filter(isRecord).map(expectedCause);
    }
    if (Array.isArray(value.warnings) && value.warnings.every((w) => typeof w === 'string')) expectation.warnings = value.warnings as string[];
    if (value.defaults !== undefined) {
      const ops = this.readPatch(value.defaults, [...place, 'defaults']);
      if (ops) expectation.defaults = ops;
    }
    if (this.problems.length > before || this.schemaFound.some((p) => p.startsWith(placeText(place)))) return undefined;
    if (value.allowed === undefined && value.warnings === undefined && value.defaults === undefined) {
      this.problem(place, `${what}: say what to expect: allowed, warnings and/or defaults`);
      return undefined;
    }
    return expectation;
  }
}

/** An expected cause as the schema admitted it, its type in the API's name. */
function expectedCause(c: Record<string, unknown>): ExpectedCause {
  const type = typeof c.type === 'string' && Object.hasOwn(CAUSE_TYPES, c.type) ? CAUSE_TYPES[c.type]! : 'FieldValueInvalid';
  return { field: String(c.field), type, ...(typeof c.message === 'string' ? { message: c.message } : {}) };
}

/** A place as text that a place inside it starts with. */
const placeText = (place: readonly Step[]): string => place.map((s) => `${s}/`).join('');
