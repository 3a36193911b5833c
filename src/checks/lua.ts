/**
 * Lua scripts of ResourceInterpreterCustomization, checked without running them:
 * the script must parse (gopher-lua's dialect: Lua 5.1 plus `goto`, hence luaparse's
 * 5.2 mode) and must define the global function the member is for, taking the
 * parameters the control plane passes.
 */
import { lazyRequire } from '../lazy.js';
import { ownCopy } from './memo.js';

const luaparse = lazyRequire<typeof import('luaparse')>('luaparse');

export interface LuaFunctionSpec {
  name: string;
  params: readonly string[];
}

// Verdicts per function spec, then per script: a key built by concatenating the script would
// copy and hash kilobytes on every call, cache hits included. Specs are the kinds' constants,
// so the object itself keys the first level.
const cache = new WeakMap<LuaFunctionSpec, Map<string, string | null>>();
const CACHE_LIMIT_PER_FUNCTION = 256;
const MAX_CACHED_SCRIPT_LENGTH = 64 * 1024;
/** All kept scripts together, in UTF-16 units: a few MiB whatever the mix of specs and lengths. */
const MAX_CACHED_UNITS = 4 * 1024 * 1024;
let cachedUnits = 0;

/** Returns the problem with `script`, or undefined when it parses and defines `fn`. */
export function luaScriptError(script: string, fn: LuaFunctionSpec): string | undefined {
  // Kept verdicts are bounded in number; very long scripts are not kept, so they stay bounded in memory.
  if (script.length > MAX_CACHED_SCRIPT_LENGTH) return check(script, fn);
  let verdicts = cache.get(fn);
  if (!verdicts) cache.set(fn, (verdicts = new Map()));
  // One lookup: each is a hash and a comparison of the whole script. null stands for "no problem".
  const kept = verdicts.get(script);
  if (kept !== undefined) return kept ?? undefined;
  const result = check(script, fn);
  if (verdicts.size >= CACHE_LIMIT_PER_FUNCTION || cachedUnits + script.length > MAX_CACHED_UNITS) {
    for (const [kept] of verdicts) cachedUnits -= kept.length;
    verdicts.clear();
  }
  // Another spec's scripts may still fill the budget; then this one is simply not kept.
  if (cachedUnits + script.length <= MAX_CACHED_UNITS) {
    verdicts.set(ownCopy(script), result ?? null);
    cachedUnits += script.length;
  }
  return result;
}

type Node = { type: string; [k: string]: unknown };

function check(script: string, fn: LuaFunctionSpec): string | undefined {
  let chunk: { body: Node[] };
  try {
    chunk = luaparse().parse(script, { luaVersion: '5.2', comments: false, locations: false, ranges: false }) as unknown as { body: Node[] };
  } catch (err) {
    const e = err as Error & { line?: number; column?: number };
    const message = e.message.replace(/^\[\d+:\d+\]\s*/, '');
    // luaparse counts columns from 0; editors and gopher-lua count from 1.
    return e.line !== undefined && e.column !== undefined
      ? `Lua syntax error at line ${e.line}, column ${e.column + 1}: ${message}`
      : `Lua syntax error: ${message}`;
  }
  const signature = `${fn.name}(${fn.params.join(', ')})`;
  const definition = findGlobalFunction(chunk.body, fn.name);
  if (!definition) return `the script must define the global function ${signature}`;
  const params = definition.parameters as Node[];
  const named = params.filter((p) => p.type === 'Identifier').length;
  const variadic = params.some((p) => p.type === 'VarargLiteral');
  if (named !== fn.params.length && !(variadic && named <= fn.params.length)) {
    return `function ${fn.name} must take ${fn.params.length} parameter${fn.params.length === 1 ? '' : 's'}: ${signature}`;
  }
  return undefined;
}

/** `function Name(...) end` or `Name = function(...) end` at the top level of the chunk. */
function findGlobalFunction(body: Node[], name: string): Node | undefined {
  let found: Node | undefined;
  for (const statement of body) {
    if (statement.type === 'FunctionDeclaration' && !statement.isLocal) {
      const id = statement.identifier as Node | null;
      if (id?.type === 'Identifier' && id.name === name) found = statement;
    } else if (statement.type === 'AssignmentStatement') {
      const vars = statement.variables as Node[];
      const values = statement.init as Node[];
      vars.forEach((v, i) => {
        if (v.type === 'Identifier' && v.name === name && values[i]?.type === 'FunctionDeclaration') found = values[i];
      });
    }
  }
  return found;
}
