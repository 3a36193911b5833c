/**
 * Lua scripts of ResourceInterpreterCustomization, checked without running them: the
 * script must parse in gopher-lua's dialect (Lua 5.1 plus `goto`: luaparse's 5.2 mode,
 * with 5.1's lenient string escapes) and must define the global function the member is
 * for, taking the parameters the control plane passes.
 */
import { lazyRequire } from '../lazy.js';
import { ownCopy } from './memo.js';
import { lineAndColumn } from '../line-column.js';
import { gopherLuaProblem, mayBeRefusedByGopherLua, shebangProblem, type DetailedChunk, type LuaNode, type LuaProblem } from './gopher-lua.js';

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

/** `detailed` adds comments, ranges and locations, which only gopherLuaProblem() needs. */
const parse = (script: string, luaVersion: '5.1' | '5.2', detailed = false) =>
  luaparse().parse(script, { luaVersion, comments: detailed, locations: detailed, ranges: detailed }) as unknown as DetailedChunk;

type LuaSyntaxError = Error & { index?: number };

/** luaparse's errors for escapes that gopher-lua, like Lua 5.1, reads as the escaped character. */
const LENIENT_ESCAPE = /^\[\d+:\d+\] (invalid escape sequence|hexadecimal digit expected|decimal escape too large) near /;
/** Escapes mended one at a time, each a re-parse; past this many, the script gets the first escape error. */
const MAX_MENDED_ESCAPES = 16;

/** Places where separators repeat in a table constructor are mended at most this many times; past that, the error stands. */
const MAX_MENDED_SEPARATORS = 16;
const SEPARATOR_EXPECTED_CLOSE = /^\[\d+:\d+\] '}' expected near '[,;]'$/;
const SPACE = /[ \t\r\n\f\v]/;
const SEPARATOR = /[,;]/;

/**
 * The script's syntax tree as gopher-lua reads it. Its grammar also lets a table constructor's
 * separators repeat once a field has come (`{1,,2}`, `{1;;}`, `{a = 1,;}`), where luaparse
 * wants a field or `}`: each run of repeated separators is blanked out (positions hold) and the
 * script read again. Only white space may stand between two separators; a comment there is left
 * an error (gopher-lua would take it), and so is a separator before the first field (`{,}`), as
 * in gopher-lua.
 */
function parseAsGopherLua(script: string, detailed = false): DetailedChunk {
  let mended = script;
  for (let i = 0; ; i++) {
    try {
      return parseReadingEscapes(mended, detailed);
    } catch (err) {
      const at = i < MAX_MENDED_SEPARATORS ? repeatedSeparatorAt(mended, err as LuaSyntaxError) : undefined;
      if (at === undefined) throw err;
      // The whole run at once (`{1,,,,2}`): one more reading per place, not per separator.
      let end = at;
      while (end < mended.length && (SEPARATOR.test(mended[end]!) || SPACE.test(mended[end]!))) end++;
      mended = `${mended.slice(0, at)}${mended.slice(at, end).replace(/[,;]/g, ' ')}${mended.slice(end)}`;
    }
  }
}

/** Where luaparse stopped at a separator that follows another separator, if that is why it stopped. */
function repeatedSeparatorAt(script: string, err: LuaSyntaxError): number | undefined {
  if (err.index === undefined || !SEPARATOR_EXPECTED_CLOSE.test(err.message)) return undefined;
  let before = err.index - 1;
  while (before >= 0 && SPACE.test(script[before]!)) before--;
  return before >= 0 && SEPARATOR.test(script[before]!) ? err.index : undefined;
}

/**
 * The syntax tree as gopher-lua reads it, but for repeated table separators: Lua 5.1 plus
 * `goto`. luaparse's 5.2 mode has `goto` but rejects escapes that 5.2 made errors (`"\."`,
 * `"\d"`, `"\xZZ"`), which gopher-lua keeps as the plain character. A script 5.2 rejects for
 * that is read by 5.1 mode; one that also uses `goto` is read by 5.2 with each such backslash
 * blanked out (the same length, so positions hold). A script read neither way gets the first
 * error that is not about such an escape.
 */
function parseReadingEscapes(script: string, detailed: boolean): DetailedChunk {
  try {
    return parse(script, '5.2', detailed);
  } catch (err) {
    const first = err as LuaSyntaxError;
    if (!LENIENT_ESCAPE.test(first.message)) throw first;
    try {
      return parse(script, '5.1', detailed);
    } catch {
      let mended = script;
      let error = first;
      for (let i = 0; i < MAX_MENDED_ESCAPES && LENIENT_ESCAPE.test(error.message) && error.index !== undefined; i++) {
        const backslash = mended.lastIndexOf('\\', error.index);
        if (backslash < 0) break;
        mended = `${mended.slice(0, backslash)} ${mended.slice(backslash + 1)}`;
        try {
          return parse(mended, '5.2', detailed);
        } catch (next) {
          error = next as LuaSyntaxError;
        }
      }
      // Past the escapes, the script's real problem; if the escapes never ran out, the first one.
      throw LENIENT_ESCAPE.test(error.message) ? first : error;
    }
  }
}

/**
 * luaparse's errors raised while reading characters, whose columns already count from 1; the
 * others, raised at a token, count from 0. (Its error objects do not say which is which.)
 */
const LEXER_ERROR =
  /^\[\d+:\d+\] (unfinished string|malformed number|decimal escape too large|invalid escape sequence|hexadecimal digit expected|missing '.*' near|UTF-8 value too large|ambiguous syntax|code unit U\+)/;

/** Line and column (counted from 1, as editors and gopher-lua count) of a luaparse error. */
function position(err: LuaSyntaxError & { line?: number; column?: number }): { line: number; column: number } | undefined {
  if (err.line === undefined || err.column === undefined) return undefined;
  return { line: err.line, column: LEXER_ERROR.test(err.message) ? err.column : err.column + 1 };
}

function check(script: string, fn: LuaFunctionSpec): string | undefined {
  const shebang = shebangProblem(script);
  if (shebang) return syntaxError(script, shebang);
  let chunk: DetailedChunk;
  try {
    chunk = parseAsGopherLua(script);
  } catch (err) {
    const e = err as LuaSyntaxError & { line?: number; column?: number };
    const message = e.message.replace(/^\[\d+:\d+\]\s*/, '');
    const at = position(e);
    return at ? `Lua syntax error at line ${at.line}, column ${at.column}: ${message}` : `Lua syntax error: ${message}`;
  }
  if (mayBeRefusedByGopherLua(script)) {
    const problem = gopherLuaProblem(script, parseAsGopherLua(script, true));
    if (problem) return syntaxError(script, problem);
  }
  const signature = `${fn.name}(${fn.params.join(', ')})`;
  const definition = findGlobalFunction(chunk.body, fn.name);
  if (!definition) return `the script must define the global function ${signature}`;
  const params = definition.parameters as LuaNode[];
  const named = params.filter((p) => p.type === 'Identifier').length;
  const variadic = params.some((p) => p.type === 'VarargLiteral');
  if (named !== fn.params.length && !(variadic && named <= fn.params.length)) {
    return `function ${fn.name} must take ${fn.params.length} parameter${fn.params.length === 1 ? '' : 's'}: ${signature}`;
  }
  return undefined;
}

function syntaxError(script: string, problem: LuaProblem): string {
  const at = lineAndColumn(script, problem.at);
  return `Lua syntax error at line ${at.line}, column ${at.column}: ${problem.message}`;
}

/** `function Name(...) end` or `Name = function(...) end` at the top level of the chunk. */
function findGlobalFunction(body: LuaNode[], name: string): LuaNode | undefined {
  let found: LuaNode | undefined;
  for (const statement of body) {
    if (statement.type === 'FunctionDeclaration' && !statement.isLocal) {
      const id = statement.identifier as LuaNode | null;
      if (id?.type === 'Identifier' && id.name === name) found = statement;
    } else if (statement.type === 'AssignmentStatement') {
      const vars = statement.variables as LuaNode[];
      const values = statement.init as LuaNode[];
      vars.forEach((v, i) => {
        if (v.type === 'Identifier' && v.name === name && values[i]?.type === 'FunctionDeclaration') found = values[i];
      });
    }
  }
  return found;
}
