/**
 * The kinds' validators: precompiled with the build (see compiler.ts) or, when running from
 * source, compiled once per schema.
 */
import { createRequire } from 'node:module';
import type { ValidateFunction } from 'ajv';
import { ajvFormats } from './formats.js';
import { GENERATED_VALIDATORS, compileSchema, schemaHash } from './compiler.js';

interface Precompiled {
  validators: Record<string, ValidateFunction>;
  schemaHashes: Record<string, string>;
}

/** How the precompiled module is read: `require` in production, a stand-in in tests. */
export type ModuleReader = (request: string) => unknown;

/** The build's precompiled validators, or null when running from source (or the build did not make them). */
function loadPrecompiled(read: ModuleReader): Precompiled | null {
  const request = `./${GENERATED_VALIDATORS}`;
  let factory: ((formats: typeof ajvFormats) => Record<string, ValidateFunction>) & { schemaHashes: Record<string, string> };
  try {
    factory = read(request) as typeof factory;
  } catch (err) {
    // Only the module itself missing means "not built"; anything it fails to load is an error.
    const e = err as NodeJS.ErrnoException;
    if (e.code === 'MODULE_NOT_FOUND' && e.message.split('\n', 1)[0]!.includes(request)) return null;
    throw new Error(`cannot load the precompiled validators (${GENERATED_VALIDATORS}): ${e.message.split('\n', 1)[0]}; rebuild with npm run build`, { cause: err });
  }
  return { validators: factory(ajvFormats), schemaHashes: factory.schemaHashes };
}

const compiled = new WeakMap<object, ValidateFunction>();

/** Compiles a schema once; later calls with the same schema object reuse the validator. */
export function compile(schema: object, owner?: string): ValidateFunction {
  let fn = compiled.get(schema);
  if (!fn) {
    fn = compileSchema(schema, owner);
    compiled.set(schema, fn);
  }
  return fn;
}

/**
 * A kindValidator over the precompiled module `read` gives (read at the first use, once): the
 * process has one, below; tests make their own.
 */
export function kindValidatorReading(read: ModuleReader): (rules: { kind: string; schema: object }) => ValidateFunction {
  let precompiled: Precompiled | null | undefined;
  /** A precompiled module that exists but cannot load is an error on every use, not re-read each time. */
  let loadFailure: unknown;
  const byKind = new WeakMap<object, ValidateFunction>();
  return (rules) => {
    let fn = byKind.get(rules);
    if (!fn) {
      if (loadFailure !== undefined) throw loadFailure;
      if (precompiled === undefined) {
        try {
          precompiled = loadPrecompiled(read);
        } catch (err) {
          loadFailure = err;
          throw err;
        }
      }
      const candidate = precompiled?.validators[rules.kind];
      fn = candidate && precompiled!.schemaHashes[rules.kind] === schemaHash(rules.schema) ? candidate : compile(rules.schema, rules.kind);
      byKind.set(rules, fn);
    }
    return fn;
  };
}

/**
 * The validator of a served kind: the precompiled one when the build made it from this very
 * schema (a build that stopped half way, or a watch that rebuilt only the rules, leaves a
 * stale one), otherwise one compiled here. Decided once per kind.
 */
// The build writes the module beside the package's entry point (dist/src/), one folder up.
export const kindValidator = kindValidatorReading(createRequire(new URL('../index.js', import.meta.url)));
