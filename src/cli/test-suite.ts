/**
 * The policy test-suite format of `fleetgate test` (documented for authors in
 * test/policies/README.md): finding `fleetgate-test.yaml` files, checking them key by
 * key with file:line:column for every mistake, and loading what their cases refer to
 * (object files, JSON Patches, context files) so that running a case needs no I/O.
 */
import { readFileSync } from 'node:fs';
import { basename, dirname, isAbsolute, join } from 'node:path';
import { LineCounter, isAlias, isMap, isScalar, isSeq, parseDocument, type Document, type Node, type Pair, type YAMLMap } from 'yaml';
import { applyPatch, type Operation as PatchOperation } from 'rfc6902';
import { Pointer } from 'rfc6902/pointer.js';
import type { CauseType, Lookups } from '../index.js';
import { staticLookups } from '../server/context.js';
import { MAX_EXPANDED_NODES, decodeManifest, expandsBeyond, formatProblem, ioMessage, isToolingDirectory, parseManifests, readObjects, walkFiles, type ReadProblem } from '../manifests.js';
import { KUBECTL_YAML } from '../yaml.js';
import { isRecord } from '../is.js';
import { isCanonicalDateTime } from '../schema-formats.js';

export const SUITE_FILE_NAMES = ['fleetgate-test.yaml', 'fleetgate-test.yml'];

/**
 * The UUID every permanent-id label defaulted in a case gets unless the case sets `uuid`: the
 * webhook writes a random one, which no expected patch could name.
 */
export const TEST_UUID = '00000000-0000-4000-8000-000000000000';
const UUID_SHAPE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

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

const CAUSE_TYPES: Record<string, CauseType> = {
  Required: 'FieldValueRequired',
  Invalid: 'FieldValueInvalid',
  Duplicate: 'FieldValueDuplicate',
  NotSupported: 'FieldValueNotSupported',
  Forbidden: 'FieldValueForbidden',
  TooLong: 'FieldValueTooLong',
  TooMany: 'FieldValueTooMany',
};
for (const t of Object.values(CAUSE_TYPES)) CAUSE_TYPES[t] = t;

const OPERATIONS: readonly TestOperation[] = ['CREATE', 'UPDATE', 'DELETE'];
const PATCH_OPS: Record<string, { required: string[]; optional: string[] }> = {
  add: { required: ['path', 'value'], optional: [] },
  replace: { required: ['path', 'value'], optional: [] },
  test: { required: ['path', 'value'], optional: [] },
  remove: { required: ['path'], optional: [] },
  move: { required: ['path', 'from'], optional: [] },
  copy: { required: ['path', 'from'], optional: [] },
};

const SUITE_KEYS = ['cases', 'description'];
const CASE_KEYS = ['name', 'object', 'patch', 'operation', 'oldObject', 'subResource', 'context', 'strict', 'groupDomain', 'allowNoExecuteTaintPolicy', 'now', 'uuid', 'expect'];
const EXPECT_KEYS = ['allowed', 'causes', 'warnings', 'defaults'];
const CAUSE_KEYS = ['field', 'type', 'message'];

const list = (keys: readonly string[]) => keys.join(', ');

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

/** Thrown by a read that has already recorded its problem: the case (or field) it was in is given up. */
class ValueRefused extends Error {}

function refusedAsUndefined<T>(read: () => T): T | undefined {
  try {
    return read();
  } catch (err) {
    if (err instanceof ValueRefused) return undefined;
    throw err;
  }
}

/** A case's name as written, when it is a non-empty string; whatever else is wrong with the case. */
function caseName(node: Node): string | undefined {
  const name = isMap(node) ? node.get('name') : undefined;
  return typeof name === 'string' && name !== '' ? name : undefined;
}

/** One suite file: its YAML tree walked key by key. */
class SuiteReader {
  private readonly lineCounter = new LineCounter();
  private readonly doc: Document.Parsed;
  /** Whether the text can hold an alias at all; without one no value needs its reading counted. */
  private readonly hasAliases: boolean;
  private readonly dir: string;

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

  private problem(node: Node | Pair | null | undefined, message: string): void {
    const offset = node && 'range' in node && node.range ? node.range[0] : node && 'key' in node && isScalar(node.key) && node.key.range ? node.key.range[0] : undefined;
    if (offset === undefined) {
      this.loader.problems.push({ file: this.file, message });
      return;
    }
    const pos = this.lineCounter.linePos(offset);
    this.loader.problems.push({ file: this.file, line: pos.line, column: pos.col, message });
  }

  private line(node: Node): number {
    return node.range ? this.lineCounter.linePos(node.range[0]).line : 0;
  }

  private resolve(path: string): string {
    return isAbsolute(path) ? path : join(this.dir, path);
  }

  /**
   * The node's value. An alias shares its anchor's value, so memory stays as written; what a bomb
   * costs is the reading, bounded as for manifests (the yaml library's own guard refuses values
   * a thousand times smaller than kubectl reads).
   */
  private js(node: Node): unknown {
    const value = node.toJS(this.doc, { maxAliasCount: -1 });
    if (this.hasAliases && expandsBeyond(value, MAX_EXPANDED_NODES)) {
      this.problem(node, `expands to more than ${MAX_EXPANDED_NODES.toLocaleString('en-US')} values through YAML aliases; refusing it`);
      throw new ValueRefused();
    }
    return value;
  }

  /** The pairs of a mapping, reporting unknown and repeated keys. */
  private fields(node: Node, allowed: readonly string[], what: string): Map<string, Node> | undefined {
    if (isAlias(node)) node = (node.resolve(this.doc) as Node | undefined) ?? node;
    if (!isMap(node)) {
      this.problem(node, `${what} must be a mapping`);
      return undefined;
    }
    const fields = new Map<string, Node>();
    for (const pair of (node as YAMLMap<unknown, unknown>).items) {
      const key = isScalar(pair.key) ? pair.key.value : undefined;
      if (typeof key !== 'string') {
        this.problem(pair.key as Node, `${what}: keys must be strings`);
        continue;
      }
      if (!allowed.includes(key)) {
        this.problem(pair.key as Node, `${what}: unknown key "${key}" (expected one of: ${list(allowed)})`);
        continue;
      }
      // A key with no value (`key:`) has a null scalar, or no node at all.
      const value = (pair.value ?? undefined) as Node | undefined;
      fields.set(key, value ?? (pair.key as Node));
    }
    return fields;
  }

  private string(node: Node, what: string, allowEmpty = false): string | undefined {
    const value = this.js(node);
    if (typeof value !== 'string' || (!allowEmpty && value === '')) {
      // YAML 1.1 reads `n`, `no`, `on` as booleans and `1.0` as a number: say what was read, and how to keep it text.
      const read = typeof value === 'string' ? 'an empty string' : `${JSON.stringify(value) ?? String(value)} (${value === null ? 'null' : typeof value})`;
      this.problem(node, `${what} must be a ${allowEmpty ? '' : 'non-empty '}string, got ${read}${typeof value === 'boolean' || typeof value === 'number' ? '; quote it to keep it text' : ''}`);
      return undefined;
    }
    return value;
  }

  private boolean(node: Node, what: string): boolean | undefined {
    const value = this.js(node);
    if (typeof value !== 'boolean') {
      this.problem(node, `${what} must be true or false`);
      return undefined;
    }
    return value;
  }

  read(): Suite | undefined {
    const before = this.loader.problems.length;
    if (this.doc.errors.length) {
      // The first error only: the ones after it mostly follow from it.
      const e = this.doc.errors[0]!;
      const pos = this.lineCounter.linePos(e.pos[0]);
      // The yaml library words this one for its callers; a suite's author needs the rule.
      const message = e.code === 'MULTIPLE_DOCS' ? 'a test suite file holds one YAML document; this one has more (put further suites in files of their own)' : `YAML syntax error: ${e.message.split('\n')[0]}`;
      this.loader.problems.push({ file: this.file, line: pos.line, column: pos.col, message });
      return undefined;
    }
    const root = this.doc.contents;
    if (!root) {
      this.problem(null, 'empty suite file: expected a mapping with "cases"');
      return undefined;
    }
    const top = this.fields(root, SUITE_KEYS, 'suite');
    if (!top) return undefined;
    const description = top.has('description') ? refusedAsUndefined(() => this.string(top.get('description')!, 'description', true)) : undefined;
    const casesNode = top.get('cases');
    if (!casesNode) {
      this.problem(root, 'suite: missing "cases" (a list of test cases)');
      return undefined;
    }
    if (!isSeq(casesNode) || casesNode.items.length === 0) {
      this.problem(casesNode, 'cases must be a non-empty list');
      return undefined;
    }
    const cases: TestCase[] = [];
    // Names are checked on every case, a malformed one included, so a repeat is reported with its other problems.
    const names = new Map<string, number>();
    casesNode.items.forEach((item, i) => {
      const c = refusedAsUndefined(() => this.readCase(item as Node, i));
      const name = caseName(item as Node);
      const earlier = name === undefined ? undefined : names.get(name);
      if (earlier !== undefined) {
        this.problem(item as Node, `cases[${i}]: the name "${name}" is already used by the case on line ${earlier}`);
        return;
      }
      if (name !== undefined) names.set(name, this.line(item as Node));
      if (c) cases.push(c);
    });
    if (this.loader.problems.length > before) return undefined;
    return { file: this.file, ...(description !== undefined ? { description } : {}), cases };
  }

  private readCase(node: Node, i: number): TestCase | undefined {
    const before = this.loader.problems.length;
    // The case's name, when it has a usable one, names it in every problem, even the first.
    const named = caseName(node);
    const what = named === undefined ? `cases[${i}]` : `case "${named}"`;
    const f = this.fields(node, CASE_KEYS, what);
    if (!f) return undefined;
    const nameNode = f.get('name');
    const name = nameNode ? this.string(nameNode, `${what}: name`) : undefined;
    if (!nameNode) this.problem(node, `${what}: missing "name"`);

    const operationNode = f.get('operation');
    let operation: TestOperation = 'CREATE';
    if (operationNode) {
      const value = this.js(operationNode);
      if (typeof value === 'string' && (OPERATIONS as readonly string[]).includes(value)) operation = value as TestOperation;
      else this.problem(operationNode, `${what}: operation must be one of ${list(OPERATIONS)}`);
    }

    const objectNode = f.get('object');
    let object: Record<string, unknown> | undefined;
    if (!objectNode) this.problem(node, `${what}: missing "object" (a file path relative to the suite, or the object inline)`);
    else object = this.readObject(objectNode, `${what}: object`);

    const patchNode = f.get('patch');
    if (patchNode) {
      const patch = this.readPatch(patchNode, `${what}: patch`);
      if (patch && object) {
        const patched = applyCasePatch(object, patch);
        patched.problems.forEach((problem, j) => {
          if (problem) this.problem((patchNode as { items: Node[] }).items[j], `${what}: patch[${j}] (${patch[j]!.op} ${patch[j]!.path}) does not apply: ${problem}`);
        });
        if (isRecord(patched.object)) object = patched.object;
        else if (!patched.problems.some(Boolean)) this.problem(patchNode, `${what}: patch must leave an object, not ${JSON.stringify(patched.object) ?? 'nothing'}`);
      }
    }

    const oldNode = f.get('oldObject');
    let oldObject: Record<string, unknown> | undefined;
    if (oldNode) {
      if (operation !== 'UPDATE') this.problem(oldNode, `${what}: oldObject is only for operation: UPDATE`);
      else oldObject = this.readObject(oldNode, `${what}: oldObject`);
    } else if (operation === 'UPDATE') {
      this.problem(node, `${what}: operation UPDATE needs "oldObject" (the stored object)`);
    }

    let subResource: string | undefined;
    const subNode = f.get('subResource');
    if (subNode) {
      const value = this.js(subNode);
      if (value === 'status') subResource = value;
      else this.problem(subNode, `${what}: subResource must be "status" (the only subresource these kinds have)`);
    }

    let lookups: Lookups | undefined;
    const contextNode = f.get('context');
    if (contextNode) {
      const value = this.js(contextNode);
      const paths = typeof value === 'string' ? [value] : Array.isArray(value) && value.length && value.every((v) => typeof v === 'string' && v) ? (value as string[]) : undefined;
      if (!paths || paths.includes('')) this.problem(contextNode, `${what}: context must be a file or folder path, or a list of them`);
      else lookups = this.loader.context(paths.map((p) => this.resolve(p)), (m) => this.problem(contextNode, `${what}: context: ${m}`));
    }

    const strict = f.has('strict') ? this.boolean(f.get('strict')!, `${what}: strict`) : undefined;
    const allowNoExecuteTaintPolicy = f.has('allowNoExecuteTaintPolicy') ? this.boolean(f.get('allowNoExecuteTaintPolicy')!, `${what}: allowNoExecuteTaintPolicy`) : undefined;
    const groupDomain = f.has('groupDomain') ? this.string(f.get('groupDomain')!, `${what}: groupDomain`) : undefined;
    let now: Date | undefined;
    const nowNode = f.get('now');
    if (nowNode) {
      const value = this.js(nowNode);
      // The date-time format timestamps in objects are held to: every field in range, February 30 included.
      const date = typeof value === 'string' && isCanonicalDateTime(value) ? new Date(value) : undefined;
      if (!date || Number.isNaN(date.getTime())) this.problem(nowNode, `${what}: now must be an RFC 3339 time such as 2026-01-01T00:00:00Z`);
      else now = date;
    }
    let uuid: string | undefined;
    const uuidNode = f.get('uuid');
    if (uuidNode) {
      const value = this.js(uuidNode);
      // Lower case, as crypto.randomUUID and Go's uuid write them.
      if (typeof value === 'string' && UUID_SHAPE.test(value)) uuid = value;
      else this.problem(uuidNode, `${what}: uuid must be a UUID in lower case, such as ${TEST_UUID}`);
    }

    const expectNode = f.get('expect');
    let expectation: Expectation | undefined;
    if (!expectNode) this.problem(node, `${what}: missing "expect"`);
    else expectation = this.readExpect(expectNode, `${what}: expect`);

    if (this.loader.problems.length > before || name === undefined || !object || !expectation) return undefined;
    return {
      name,
      line: this.line(node),
      object,
      operation,
      ...(oldObject ? { oldObject } : {}),
      ...(subResource ? { subResource } : {}),
      ...(lookups ? { lookups } : {}),
      ...(strict !== undefined ? { strict } : {}),
      ...(groupDomain !== undefined ? { groupDomain } : {}),
      ...(allowNoExecuteTaintPolicy !== undefined ? { allowNoExecuteTaintPolicy } : {}),
      ...(now ? { now } : {}),
      ...(uuid ? { uuid } : {}),
      expect: expectation,
    };
  }

  /** A file path (relative to the suite) or an inline mapping. */
  private readObject(node: Node, what: string): Record<string, unknown> | undefined {
    // Inline (a mapping, or an alias of one: `object: *base`); each read is a fresh copy.
    const path = this.js(node);
    if (isRecord(path)) return path;
    if (typeof path !== 'string' || path === '') {
      this.problem(node, `${what} must be a file path or an inline object`);
      return undefined;
    }
    return this.loader.objectFile(this.resolve(path), (m) => this.problem(node, `${what}: ${m}`));
  }

  private readPatch(node: Node, what: string): PatchOperation[] | undefined {
    if (!isSeq(node)) {
      this.problem(node, `${what} must be a list of JSON Patch operations ({op, path, value})`);
      return undefined;
    }
    const ops: PatchOperation[] = [];
    node.items.forEach((item, j) => {
      const op = this.readPatchOp(item as Node, `${what}[${j}]`);
      if (op) ops.push(op);
    });
    return ops.length === node.items.length ? ops : undefined;
  }

  private readPatchOp(node: Node, what: string): PatchOperation | undefined {
    const f = this.fields(node, ['op', 'path', 'value', 'from'], what);
    if (!f) return undefined;
    const opNode = f.get('op');
    const op = opNode ? this.js(opNode) : undefined;
    const shape = typeof op === 'string' ? PATCH_OPS[op] : undefined;
    if (!shape) {
      this.problem(opNode ?? node, `${what}: op must be one of ${list(Object.keys(PATCH_OPS))}`);
      return undefined;
    }
    let ok = true;
    for (const key of ['path', 'value', 'from']) {
      if (shape.required.includes(key) && !f.has(key)) {
        this.problem(node, `${what}: "${op}" needs "${key}"`);
        ok = false;
      } else if (!shape.required.includes(key) && f.has(key)) {
        this.problem(f.get(key)!, `${what}: "${op}" takes no "${key}"`);
        ok = false;
      }
    }
    for (const key of ['path', 'from']) {
      const n = f.get(key);
      if (!n) continue;
      const pointer = this.js(n);
      if (typeof pointer !== 'string' || (pointer !== '' && !pointer.startsWith('/'))) {
        this.problem(n, `${what}: ${key} must be a JSON Pointer such as /spec/taints/0/effect`);
        ok = false;
      }
    }
    if (!ok) return undefined;
    const result: Record<string, unknown> = { op, path: this.js(f.get('path')!) };
    if (f.has('from')) result.from = this.js(f.get('from')!);
    if (f.has('value')) result.value = this.js(f.get('value')!);
    return result as unknown as PatchOperation;
  }

  private readExpect(node: Node, what: string): Expectation | undefined {
    const before = this.loader.problems.length;
    const f = this.fields(node, EXPECT_KEYS, what);
    if (!f) return undefined;
    const expectation: Expectation = {};
    if (f.has('allowed')) {
      const allowed = this.boolean(f.get('allowed')!, `${what}.allowed`);
      if (allowed !== undefined) expectation.allowed = allowed;
    }
    const causesNode = f.get('causes');
    if (causesNode) {
      if (expectation.allowed !== false) {
        this.problem(causesNode, `${what}.causes: causes are only for allowed: false`);
      } else if (!isSeq(causesNode) || causesNode.items.length === 0) {
        this.problem(causesNode, `${what}.causes must be a non-empty list of {field, type}; leave it out to accept any denial`);
      } else {
        expectation.causes = [];
        causesNode.items.forEach((item, j) => {
          const cause = this.readCause(item as Node, `${what}.causes[${j}]`);
          if (cause) expectation.causes!.push(cause);
        });
      }
    }
    const warningsNode = f.get('warnings');
    if (warningsNode) {
      const value = this.js(warningsNode);
      if (!Array.isArray(value) || !value.every((w) => typeof w === 'string' && w !== '')) {
        this.problem(warningsNode, `${what}.warnings must be a list of non-empty strings (each must occur in some warning; [] means none)`);
      } else expectation.warnings = value as string[];
    }
    const defaultsNode = f.get('defaults');
    if (defaultsNode) {
      if (isSeq(defaultsNode) && defaultsNode.items.length === 0) expectation.defaults = [];
      else {
        const ops = this.readPatch(defaultsNode, `${what}.defaults`);
        if (ops) expectation.defaults = ops;
      }
    }
    if (this.loader.problems.length > before) return undefined;
    if (expectation.allowed === undefined && expectation.warnings === undefined && expectation.defaults === undefined) {
      this.problem(node, `${what}: say what to expect: allowed, warnings and/or defaults`);
      return undefined;
    }
    return expectation;
  }

  private readCause(node: Node, what: string): ExpectedCause | undefined {
    const f = this.fields(node, CAUSE_KEYS, what);
    if (!f) return undefined;
    const fieldNode = f.get('field');
    const typeNode = f.get('type');
    if (!fieldNode) this.problem(node, `${what}: missing "field" (a path such as spec.taints[0].effect)`);
    if (!typeNode) this.problem(node, `${what}: missing "type" (e.g. Required or FieldValueRequired)`);
    if (!fieldNode || !typeNode) return undefined;
    const field = this.string(fieldNode, `${what}.field`, true);
    const typeName = this.js(typeNode);
    const type = typeof typeName === 'string' && Object.hasOwn(CAUSE_TYPES, typeName) ? CAUSE_TYPES[typeName] : undefined;
    if (!type) this.problem(typeNode, `${what}.type must be one of ${list(Object.keys(CAUSE_TYPES).filter((t) => !t.startsWith('FieldValue')))} (or the API names, FieldValueRequired, ...)`);
    const message = f.has('message') ? this.string(f.get('message')!, `${what}.message`) : undefined;
    if (field === undefined || !type || (f.has('message') && message === undefined)) return undefined;
    return { field, type, ...(message !== undefined ? { message } : {}) };
  }
}
