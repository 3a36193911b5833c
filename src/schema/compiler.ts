/**
 * The one ajv configuration. `npm run build` uses it to turn the kind schemas into
 * a precompiled module (scripts/compile-validators.mjs); without that module (tests
 * run from source) the same configuration compiles schemas at run time. ajv is
 * loaded only when one of these is actually needed: compiling costs hundreds of
 * milliseconds that a precompiled start does not pay.
 */
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import type { Ajv, ValidateFunction } from 'ajv';
import { ajvFormats } from './formats.js';
import { lazyRequire } from '../util/lazy.js';

type AjvModule = typeof import('ajv');

const require = createRequire(import.meta.url);
const load = lazyRequire<AjvModule>('ajv');

/**
 * Kubernetes' schema extensions the kind schemas carry: annotations for the API server (unknown
 * fields kept, server-side apply's merge topology) that validate nothing.
 */
export const KUBERNETES_KEYWORDS = ['x-kubernetes-preserve-unknown-fields', 'x-kubernetes-list-type', 'x-kubernetes-list-map-keys', 'x-kubernetes-map-type'] as const;

function configure(ajv: Ajv): Ajv {
  for (const [name, format] of Object.entries(ajvFormats)) ajv.addFormat(name, format);
  for (const keyword of KUBERNETES_KEYWORDS) ajv.addKeyword({ keyword });
  return ajv;
}

// Not `verbose`: it slows every validation down, while the error path resolves what it needs from the paths.
// No `messages`: causes are worded from each error's keyword and params, so ajv's English is dead code.
export const AJV_OPTIONS = { allErrors: true, strict: true, allowUnionTypes: true, validateFormats: true, inlineRefs: false, messages: false } as const;

let runtimeAjv: Ajv | undefined;

/** Compiles a schema with the shared configuration; `owner` as for splitLargeSubschemas. */
export function compileSchema(schema: object, owner = ''): ValidateFunction {
  runtimeAjv ??= configure(new (load().Ajv)(AJV_OPTIONS));
  return runtimeAjv.compile(addShared(runtimeAjv, splitLargeSubschemas(schema, owner)));
}

/** Shared subschemas already known to each ajv instance. */
const sharedAdded = new WeakMap<Ajv, Set<string>>();

/** Registers the shared subschemas of a split schema with `ajv` (once each) and returns its root. */
function addShared(ajv: Ajv, split: SplitSchema): object {
  let added = sharedAdded.get(ajv);
  if (!added) sharedAdded.set(ajv, (added = new Set()));
  for (const [id, schema] of Object.entries(split.shared)) {
    if (added.has(id)) continue;
    ajv.addSchema(schema);
    added.add(id);
  }
  return split.root;
}

/** Above this many characters of JSON, a subschema becomes a function of its own. */
const SHARE_ABOVE = 800;
const REFERENCING = /"(?:\$id|\$ref|\$anchor|\$dynamicRef|\$dynamicAnchor|\$defs|definitions)":/;

export interface SplitSchema {
  /** The schema, with its large subschemas replaced by references. */
  root: object;
  /** The large subschemas by `$id`, which is a digest of their owner and content. */
  shared: Record<string, object>;
}

/**
 * The schema with every large subschema (innermost first) replaced by a reference to a
 * copy identified by its owner and content. ajv inlines a whole schema into one function,
 * and ClusterResourceBinding's grew past what V8 optimizes (it ran ~4x slower). Referenced
 * schemas are compiled as functions of their own (`inlineRefs: false`), once per owner:
 * within a kind every use of one subschema calls one function. Each kind (the owner) has
 * its own, though: a function that every kind calls (ObjectMeta's, say) reads properties of
 * objects of every kind's shapes, which V8 does several times slower than reads of a few
 * shapes. The schema says the same; only ajv's schemaPath changes, and no cause depends on it.
 */
export function splitLargeSubschemas(schema: object, owner = ''): SplitSchema {
  const shared: Record<string, object> = {};
  const hoist = (node: unknown): unknown => {
    const split = visit(node);
    const json = JSON.stringify(split);
    // A subschema that names or refers to others stays where its references resolve.
    if (json.length <= SHARE_ABOVE || REFERENCING.test(json)) return split;
    const id = `fleetgate:schema/${createHash('sha256').update(`${owner}\n`).update(json).digest('hex').slice(0, 20)}`;
    shared[id] = { ...(split as object), $id: id };
    return { $ref: id };
  };
  const visit = (node: unknown): unknown => {
    if (!isObject(node)) return node;
    const copy: Record<string, unknown> = { ...node };
    if (isObject(copy.properties)) copy.properties = Object.fromEntries(Object.entries(copy.properties).map(([k, v]) => [k, hoist(v)]));
    if (isObject(copy.items)) copy.items = hoist(copy.items);
    if (isObject(copy.additionalProperties)) copy.additionalProperties = hoist(copy.additionalProperties);
    return copy;
  };
  return { root: visit(schema) as object, shared };
}

const isObject = (v: unknown): v is object => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * A short digest of a schema and of everything that shapes its compiled code (the ajv
 * version and options, the splitting, the formats): the generated module records one per
 * kind, so a stale one is noticed.
 */
export const schemaHash = (schema: object): string => createHash('sha256').update(compilerFingerprint()).update(JSON.stringify(schema)).digest('hex').slice(0, 32);

/** Bump when the generated code changes shape for reasons the fingerprint cannot see (the code-point rewrite, say). */
const GENERATOR_REVISION = 8;

let fingerprint: string | undefined;
function compilerFingerprint(): string {
  fingerprint ??= JSON.stringify({
    ajv: (require('ajv/package.json') as { version: string }).version,
    options: AJV_OPTIONS,
    shareAbove: SHARE_ABOVE,
    formats: Object.entries(ajvFormats).map(([name, f]) => [name, typeof f === 'object' && f !== null && 'type' in f ? f.type : typeof f]),
    revision: GENERATOR_REVISION,
  });
  return fingerprint;
}

/** The file the build writes next to schema.js. */
export const GENERATED_VALIDATORS = 'validators.generated.cjs';

/** A rewrite of ajv's generated code that keeps what it checks and how it reports. */
export type Rewrite = (code: string) => string;

/**
 * The rewrites of ajv's generated code the build makes, each kept for what `npm run bench:rewrites`
 * measures it saves (the figures are next to each; runs of 2026-11-28 on a shared machine whose
 * noise is about ±10%: CPU time without the rewrite / with it, median and quartiles), and two that
 * bound memory and time on lists of bad items (keepFirstErrors, stopLoopsPastTheBound). Applied in
 * this order: pathsOnlyOnError reads the error sites errorsOutOfLine leaves, keepFirstErrors the
 * sites of both, stopLoopsPastTheBound the count keepFirstErrors keeps.
 */
export const REWRITES: readonly Rewrite[] = [countCodePointsOnlyWhenNeeded, errorsOutOfLine, pathsOnlyOnError, keepFirstErrors, stopLoopsPastTheBound];

/**
 * CommonJS source of a factory that, given the formats, returns one validator per name,
 * compiled from `schemas`; it also carries each schema's hash. CommonJS so that it loads
 * synchronously on first use: no top-level await in the library, nothing loaded at import.
 */
export function standaloneModule(schemas: Record<string, object>, rewrites: readonly Rewrite[] = REWRITES): string {
  const ajvModule = load();
  const standaloneCode = require('ajv/dist/standalone/index.js').default as (ajv: Ajv, refs: Record<string, string>) => string;
  const ajv = configure(new ajvModule.Ajv({ ...AJV_OPTIONS, code: { source: true, formats: ajvModule._`formats` } }));
  const refs: Record<string, string> = {};
  const hashes: Record<string, string> = {};
  for (const [name, schema] of Object.entries(schemas)) {
    ajv.addSchema(addShared(ajv, splitLargeSubschemas(schema, name)), name);
    refs[name] = name;
    hashes[name] = schemaHash(schema);
  }
  const code = rewrites.reduce((text, rewrite) => rewrite(text), standaloneCode(ajv, refs));
  return [
    '// Generated by scripts/compile-validators.mjs from the kind schemas; do not edit.',
    "'use strict';",
    'module.exports = function validators(formats) {',
    '  const exports = {};',
    code,
    '  return exports;',
    '};',
    `module.exports.schemaHashes = ${JSON.stringify(hashes)};`,
    '',
  ].join('\n');
}

/** The validators of a standaloneModule() source, loaded in this process as the library loads the built one. */
export function validatorsFromSource(code: string): Record<string, ValidateFunction> {
  const module = { exports: {} as unknown };
  new Function('module', 'exports', 'require', code)(module, module.exports, require);
  return (module.exports as (formats: typeof ajvFormats) => Record<string, ValidateFunction>)(ajvFormats);
}

/**
 * ajv checks minLength and maxLength in code points, as Kubernetes does, by walking the
 * string: a call per checked string. A string of n UTF-16 units has between n/2 and n code
 * points, so its `.length` alone decides most checks; the walk is kept for the rest. Every
 * call is rewritten or the build fails, so a change in ajv's output cannot slip through.
 * Without it validation takes 2.16x–2.19x the CPU time on valid objects, 1.55x–1.57x on objects
 * with mistakes (bench:rewrites).
 */
export function countCodePointsOnlyWhenNeeded(code: string): string {
  const fn = /const (func\d+) = require\("ajv\/dist\/runtime\/ucs2length"\)\.default;/.exec(code)?.[1];
  if (!fn) {
    if (code.includes('ucs2length')) throw new Error("ajv's output reaches ucs2length in an unexpected way; update countCodePointsOnlyWhenNeeded");
    return code;
  }
  let rewritten = 0;
  const out = code.replace(new RegExp(`\\b${fn}\\((data\\d*)\\) ([<>]) (\\d+)`, 'g'), (_, data: string, op: string, limit: string) => {
    rewritten++;
    return op === '>'
      ? `(${data}.length > ${limit} && ${fn}(${data}) > ${limit})`
      : `(${data}.length < ${limit} || (${data}.length < ${2 * Number(limit)} && ${fn}(${data}) < ${limit}))`;
  });
  const calls = code.split(`${fn}(`).length - 1;
  if (calls !== rewritten) throw new Error(`expected to rewrite all ${calls} code point counts in ajv's output, rewrote ${rewritten}`);
  return out;
}

/** The shared function the generated code calls to record an error. */
const ADD_ERROR = 'fleetgateAddError';

/**
 * ajv writes out every error object, and the code to append it, right where its check
 * fails: two thirds of the generated code, none of it run for a valid value, yet compiled
 * and laid out between the checks that are. Each such site becomes a call to one shared
 * function that builds the same object. Every site is rewritten or the build fails, so a
 * change in ajv's output cannot slip through. Without it (and so without pathsOnlyOnError, which
 * reads what it leaves) validation takes 1.16x–1.20x the CPU time on valid objects (the checks
 * sit closer together), 1.04x–1.05x on objects with mistakes, and the module is 752 KiB
 * instead of 595 (bench:rewrites).
 */
export function errorsOutOfLine(code: string): string {
  const site =
    /const (err\d+) = \{instancePath(?::([^;]*?))?,schemaPath:("[^"\\]*"),keyword:("[^"\\]*"),params:(\{(?:[^;{}"]|"(?:[^"\\]|\\.)*")*\})\};if\(vErrors === null\)\{vErrors = \[\1\];\}else \{vErrors\.push\(\1\);\}errors\+\+;/g;
  let rewritten = 0;
  const out = code.replace(site, (_, _name: string, instancePath: string | undefined, schemaPath: string, keyword: string, params: string) => {
    rewritten++;
    return `vErrors = ${ADD_ERROR}(vErrors, ${instancePath ?? 'instancePath'}, ${schemaPath}, ${keyword}, ${params});errors++;`;
  });
  const sites = code.match(/\bconst err\d+ = /g)?.length ?? 0;
  if (sites !== rewritten) throw new Error(`expected to move all ${sites} error sites out of ajv's output, moved ${rewritten}; update errorsOutOfLine`);
  const addError = `function ${ADD_ERROR}(errors, instancePath, schemaPath, keyword, params) { const error = { instancePath, schemaPath, keyword, params }; if (errors === null) return [error]; errors.push(error); return errors; }`;
  return `${addError}\n${out}`;
}

/** The shared function the generated code calls to take in the errors of a referenced schema. */
const ADD_NESTED_ERRORS = 'fleetgateAddNestedErrors';

/**
 * ajv hands every referenced schema's function an options object with the data's path, built
 * by string concatenation (an array item's index turned into text) on every call, though only
 * an error ever reads it. Each function now validates with paths relative to its own data, and
 * its caller prefixes them when it takes in the errors. None of the generated functions reads
 * the other options (parentData, rootData: those serve `$data` and dynamic references), which
 * the rewrite checks. Every site is rewritten or the build fails. The smallest of the three:
 * without it the validators alone take 1.03x (0.83–1.19) and 1.08x (0.94–1.18) the CPU time on
 * valid objects, 1.02x–1.05x on objects with mistakes (bench:rewrites), and validate() as a
 * whole 1.04x (0.99–1.13; bench:ab of a build without it against one with it).
 */
export function pathsOnlyOnError(code: string): string {
  const head = /function (validate\d+)\(data, \{instancePath="", parentData, parentDataProperty, rootData=data\}=\{\}\)\{/g;
  const call =
    /if\(!\((validate\d+)\(([^()]*?), \{instancePath:([^{}]*?),parentData:[^,{}]*,parentDataProperty:[^,{}]*,rootData\}\)\)\)\{vErrors = vErrors === null \? \1\.errors : vErrors\.concat\(\1\.errors\);errors = vErrors\.length;\}/g;
  let heads = 0;
  let calls = 0;
  const out = code
    .replace(head, (_, name: string) => {
      heads++;
      return `function ${name}(data){const instancePath = "";`;
    })
    .replace(call, (_, name: string, data: string, path: string) => {
      calls++;
      return `if(!(${name}(${data}))){vErrors = ${ADD_NESTED_ERRORS}(vErrors, ${name}.errors, ${path});errors = vErrors.length;}`;
    });
  const functions = code.match(/\bfunction validate\d+\(/g)?.length ?? 0;
  const sites = code.match(/\{instancePath:/g)?.length ?? 0;
  if (heads !== functions || calls !== sites || /\b(?:parentData|parentDataProperty|rootData)\b/.test(out)) {
    throw new Error(`expected to rewrite all ${functions} functions and ${sites} calls in ajv's output, rewrote ${heads} and ${calls}; update pathsOnlyOnError`);
  }
  const addNested = `function ${ADD_NESTED_ERRORS}(errors, nested, path) { for (const error of nested) error.instancePath = path + error.instancePath; if (errors === null) return nested; for (const error of nested) errors.push(error); return errors; }`;
  return `${addNested}\n${out}`;
}

/** The shared function the generated code calls to take in the first of a referenced schema's errors. */
const KEEP_NESTED_ERRORS = 'fleetgateKeepNestedErrors';

/**
 * The most error objects a precompiled validator keeps; it counts the rest. ajv, with allErrors,
 * builds one per failing value: a 7 MiB review whose list held 3.5 million bad items made 3.5
 * million (1.8 GiB, 6 s in the library; the webhook's RSS reached 1.8 GiB after one such request
 * and 4.3 after three), of which the schema pass reads a few thousand (it stops at
 * CAUSES_RECORDED causes that refuse the object; see pass.ts).
 */
export const ERRORS_KEPT = 10_000;

/**
 * Keeps the first ERRORS_KEPT errors of a validation, in ajv's order, and counts the rest: past
 * the bound an error site builds nothing (not even its path and params), a function takes in a
 * referenced one's errors only while there is room, and each function leaves its count in
 * `errorCount` beside its `errors` (the count ajv keeps in `errors`, which its code otherwise
 * reads from the list's length). Where an anyOf drops the errors of a branch that failed, the
 * list is cut to what it held before the branch, which is never more than it holds. Every site
 * is rewritten or the build fails. It costs nothing measurable on the library's corpus (bench:ab
 * of a build without it: 1.006x, quartiles 0.98–1.04).
 */
export function keepFirstErrors(code: string): string {
  let sites = 0;
  let nested = 0;
  let ends = 0;
  let resets = 0;
  const out = code
    .replaceAll(`vErrors = ${ADD_ERROR}(vErrors, `, () => {
      sites++;
      return `vErrors = vErrors !== null && vErrors.length >= ${ERRORS_KEPT} ? vErrors : ${ADD_ERROR}(vErrors, `;
    })
    .replace(new RegExp(`vErrors = ${ADD_NESTED_ERRORS}\\(vErrors, (validate\\d+)\\.errors, ([^;]*?)\\);errors = vErrors\\.length;`, 'g'), (_, name: string, path: string) => {
      nested++;
      return `vErrors = ${KEEP_NESTED_ERRORS}(vErrors, ${name}.errors, ${path});errors += ${name}.errorCount;`;
    })
    .replace(/(validate\d+)\.errors = vErrors;return errors === 0;/g, (_, name: string) => {
      ends++;
      return `${name}.errors = vErrors;${name}.errorCount = errors;return errors === 0;`;
    })
    .replace(/vErrors\.length = (_errs\d+);/g, (_, before: string) => {
      resets++;
      return `vErrors.length = Math.min(vErrors.length, ${before});`;
    });
  const expected = {
    sites: code.split(`${ADD_ERROR}(vErrors, `).length - 1,
    nested: code.split(`${ADD_NESTED_ERRORS}(vErrors, `).length - 1,
    ends: code.match(/\bfunction validate\d+\(/g)?.length ?? 0,
    resets: code.match(/vErrors\.length = /g)?.length ?? 0,
  };
  const done = { sites, nested, ends, resets };
  if (JSON.stringify(done) !== JSON.stringify(expected) || out.includes('errors = vErrors.length')) {
    throw new Error(`keepFirstErrors rewrote ${JSON.stringify(done)} of ajv's output, expected ${JSON.stringify(expected)}; update it`);
  }
  const keepNested = `function ${KEEP_NESTED_ERRORS}(errors, nested, path) { const room = errors === null ? ${ERRORS_KEPT} : ${ERRORS_KEPT} - errors.length; const taken = nested.length <= room ? nested : nested.slice(0, room); for (const error of taken) error.instancePath = path + error.instancePath; if (errors === null) return taken; for (const error of taken) errors.push(error); return errors; }`;
  // The helper it replaces is called no more.
  return `${keepNested}\n${out.replace(new RegExp(`^function ${ADD_NESTED_ERRORS}\\(.*\\n`, 'm'), '')}`;
}

/**
 * Stops a loop over a list's items or an object's keys once the bound is passed and the loop has
 * found a mistake of its own: past ERRORS_KEPT nothing more is kept, so the rest of such a loop
 * is work for nothing. Without it a list of 38.8 million bad items (built from shared references,
 * which a library caller can hand in) took the library 3 s. The loop's value is already invalid,
 * so an anyOf branch holding it fails as it would have, and the next branch's loops count from their
 * own start; the count stays above ERRORS_KEPT, so the schema pass still knows it read only part.
 * The count is then a lower bound. A `contains` loop, whose item errors a later success drops,
 * must not stop early: the build fails if ajv's output has one, as it does for any loop this does
 * not recognize. Its check in every loop costs nothing measurable (bench:ab against the build
 * without it: 0.998x, quartiles 0.990–1.018).
 */
export function stopLoopsPastTheBound(code: string): string {
  if (!code.includes('.errorCount = errors;')) throw new Error('stopLoopsPastTheBound reads the count keepFirstErrors leaves; apply it after keepFirstErrors');
  if (code.includes('"contains"')) throw new Error("ajv's output has a contains loop, which must not stop early; update stopLoopsPastTheBound");
  let loops = 0;
  const stop = (start: string) => `if(errors > ${ERRORS_KEPT} && errors > ${start})break;`;
  const out = code
    .replace(/for\(let (i\d+)=0; \1<(len\d+); \1\+\+\)\{/g, (_, i: string, len: string) => {
      loops++;
      return `const ${i}Errors = errors;for(let ${i}=0; ${i}<${len}; ${i}++){${stop(`${i}Errors`)}`;
    })
    .replace(/for\(const (key\d+) in (data\d*)\)\{/g, (_, key: string, data: string) => {
      loops++;
      return `const ${key}Errors = errors;for(const ${key} in ${data}){${stop(`${key}Errors`)}`;
    });
  // The helpers keepFirstErrors and pathsOnlyOnError add walk an error list, not the data.
  const expected = (code.match(/\bfor *\(/g)?.length ?? 0) - (code.match(/\bfor \(const error of /g)?.length ?? 0);
  if (loops !== expected) throw new Error(`stopLoopsPastTheBound rewrote ${loops} of the ${expected} loops in ajv's output; update it`);
  return out;
}

