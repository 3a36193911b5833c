/**
 * Lua scripts of ResourceInterpreterCustomization, checked without running them: the
 * script must parse in gopher-lua's dialect (Lua 5.1 plus `goto`: luaparse's 5.2 mode,
 * with 5.1's lenient string escapes) and must define the global function the member is
 * for, taking the parameters the control plane passes.
 */
import { lazyRequire } from '../util/lazy.js';
import { ownCopy } from './memo.js';
import { lineAndColumn } from '../util/line-column.js';
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
function parse(script: string, luaVersion: '5.1' | '5.2', detailed = false): DetailedChunk {
  const options = { luaVersion, comments: detailed, locations: detailed, ranges: detailed };
  try {
    return luaparse().parse(script, options) as unknown as DetailedChunk;
  } catch (err) {
    if (!(err instanceof TypeError)) throw err;
    // luaparse keeps its lexer's last token between calls, and an unexpected character in the
    // first token of the first script a process reads finds none: it fails on that. Reading an
    // empty chunk gives it one; the error is then the syntax error it is.
    luaparse().parse('', { luaVersion });
    return luaparse().parse(script, options) as unknown as DetailedChunk;
  }
}

/**
 * The character the lexer stopped at, when it met one that starts no Lua token (`ü`, `$`, `&`
 * in 5.1): its error says "near" the last token it kept, which may be another script's, so that
 * part is dropped. Told from errors at a token by the column, which the lexer counts from 1.
 */
function unexpectedCharacter(script: string, err: LuaSyntaxError & { column?: number }): string | undefined {
  const index = err.index;
  if (index === undefined || index >= script.length || !/^\[\d+:\d+\] unexpected symbol '/.test(err.message)) return undefined;
  const lineStart = Math.max(script.lastIndexOf('\n', index - 1), script.lastIndexOf('\r', index - 1)) + 1;
  if (err.column !== index - lineStart + 1) return undefined;
  return String.fromCodePoint(script.codePointAt(index)!);
}

type LuaSyntaxError = Error & { index?: number };

/** luaparse's errors for escapes that gopher-lua, like Lua 5.1, reads as the escaped character. */
const LENIENT_ESCAPE = /^\[\d+:\d+\] (invalid escape sequence|hexadecimal digit expected|decimal escape too large) near /;
/** Lenient escapes mended, one re-reading each; past this many, the script gets the first escape error. */
const MAX_MENDED_ESCAPES = 16;

/** Places where separators repeat in a table constructor are mended at most this many times; past that, the error stands. */
const MAX_MENDED_SEPARATORS = 16;
const SEPARATOR_EXPECTED_CLOSE = /^\[\d+:\d+\] '}' expected near '[,;]'$/;
const SPACE = /[ \t\r\n\f\v]/;
const SEPARATOR = /[,;]/;

/**
 * Characters re-read in all while mending one script. A reading costs about 0.3 s per MiB, and
 * a script may be megabytes long: without this, 32 places to mend in a 1 MiB script would cost
 * ten seconds of one request. Every re-reading of a script up to 30 KiB fits; a longer script
 * with many places gets the error at the first place past the budget.
 */
const REREAD_BUDGET = 1024 * 1024;

/** A script as gopher-lua reads it: its syntax tree, and the text and mode that gave it. */
interface Reading {
  chunk: DetailedChunk;
  /** The script with the mended places blanked out: the same length, so positions hold. */
  text: string;
  version: '5.1' | '5.2';
}

/**
 * The script's syntax tree as gopher-lua reads it: Lua 5.1 plus `goto`. That is luaparse's 5.2
 * mode, with two differences mended where luaparse stops at them, each blanked out (positions
 * hold) and the script read again, the mends kept from one reading to the next:
 * - Escapes 5.2 made errors (`"\."`, `"\d"`, `"\xZZ"`), which gopher-lua keeps as the plain
 *   character. At the first, the script is read in 5.1 mode; one that also uses `goto` (or needs
 *   other mending) has each such backslash blanked instead. A script read neither way gets the
 *   first error that is not about such an escape, or the first escape error if they never ran out.
 * - A table constructor's separators repeated once a field has come (`{1,,2}`, `{1;;}`,
 *   `{a = 1,;}`), where luaparse wants a field or `}`: each run is blanked out. Only white space
 *   may stand between two separators; a comment there is left an error (gopher-lua would take
 *   it), and so is a separator before the first field (`{,}`), as in gopher-lua.
 */
function readAsGopherLua(script: string): Reading {
  let text = script;
  let reread = 0;
  let escapesMended = 0;
  let separatorsMended = 0;
  let firstEscapeError: LuaSyntaxError | undefined;
  const mayReread = () => reread + text.length <= REREAD_BUDGET;
  for (;;) {
    let err: LuaSyntaxError;
    try {
      return { chunk: parse(text, '5.2'), text, version: '5.2' };
    } catch (error) {
      err = error as LuaSyntaxError;
    }
    if (LENIENT_ESCAPE.test(err.message)) {
      if (!firstEscapeError) {
        firstEscapeError = err;
        if (mayReread()) {
          reread += text.length;
          try {
            return { chunk: parse(text, '5.1'), text, version: '5.1' };
          } catch {
            // Not 5.1 either (`goto`, or a place still to mend): the escapes are blanked one by one.
          }
        }
      }
      const backslash = err.index === undefined ? -1 : text.lastIndexOf('\\', err.index);
      if (backslash < 0 || escapesMended >= MAX_MENDED_ESCAPES || !mayReread()) throw firstEscapeError;
      text = `${text.slice(0, backslash)} ${text.slice(backslash + 1)}`;
      escapesMended++;
    } else {
      const at = separatorsMended < MAX_MENDED_SEPARATORS && mayReread() ? repeatedSeparatorAt(text, err) : undefined;
      if (at === undefined) throw err;
      // The whole run at once (`{1,,,,2}`): one more reading per place, not per separator.
      let end = at;
      while (end < text.length && (SEPARATOR.test(text[end]!) || SPACE.test(text[end]!))) end++;
      text = `${text.slice(0, at)}${text.slice(at, end).replace(/[,;]/g, ' ')}${text.slice(end)}`;
      separatorsMended++;
    }
    reread += text.length;
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

/**
 * luaparse descends by recursion, so a script nested some thousands of levels deep (parentheses,
 * table constructors, blocks, a long chain of `..`) runs it out of stack. Such a script is refused,
 * saying why, where gopher-lua might still load it.
 */
const NESTED_TOO_DEEPLY = 'Lua syntax error: the script nests too deeply to be read (thousands of levels of parentheses, tables, blocks or right-associative operators such as ..)';

function check(script: string, fn: LuaFunctionSpec): string | undefined {
  const shebang = shebangProblem(script);
  if (shebang) return syntaxError(script, shebang);
  let reading: Reading;
  try {
    reading = readAsGopherLua(script);
  } catch (err) {
    if (err instanceof RangeError) return NESTED_TOO_DEEPLY;
    const e = err as LuaSyntaxError & { line?: number; column?: number };
    const character = unexpectedCharacter(script, e);
    if (character !== undefined) return `Lua syntax error at line ${e.line}, column ${e.column}: unexpected symbol '${character}'`;
    // luaparse has no name for the vararg token's type, and says "unexpected undefined '...'".
    const message = e.message.replace(/^\[\d+:\d+\]\s*/, '').replace(/^unexpected undefined /, 'unexpected symbol ');
    const at = position(e);
    return at ? `Lua syntax error at line ${at.line}, column ${at.column}: ${message}` : `Lua syntax error: ${message}`;
  }
  if (mayBeRefusedByGopherLua(script)) {
    // The mended text, read once more in detail: its positions are the script's.
    let detailed: DetailedChunk;
    try {
      detailed = parse(reading.text, reading.version, true);
    } catch (err) {
      if (err instanceof RangeError) return NESTED_TOO_DEEPLY;
      throw err;
    }
    const problem = gopherLuaProblem(script, detailed);
    if (problem) return syntaxError(script, problem);
  }
  const signature = `${fn.name}(${fn.params.join(', ')})`;
  const definition = findGlobalFunction(reading.chunk.body, fn.name);
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

/**
 * `function Name(...) end`, `Name = function(...) end` or the same through `_G` (`_G.Name`,
 * `_G["Name"]`) where loading the chunk surely runs it: at the top level or in `do` blocks. A
 * definition under a condition or a loop is not sure to happen; a later definition replaces an
 * earlier one, as it does when the script runs.
 */
function findGlobalFunction(body: LuaNode[], name: string): LuaNode | undefined {
  let found: LuaNode | undefined;
  // In source order, a do block's statements before those after it; a stack, as blocks nest without bound.
  const frames: { block: LuaNode[]; next: number }[] = [{ block: body, next: 0 }];
  while (frames.length) {
    const frame = frames[frames.length - 1]!;
    const statement = frame.block[frame.next++];
    if (!statement) {
      frames.pop();
    } else if (statement.type === 'FunctionDeclaration' && !statement.isLocal) {
      if (namesGlobal(statement.identifier as LuaNode | null, name)) found = statement;
    } else if (statement.type === 'AssignmentStatement') {
      const values = statement.init as LuaNode[];
      (statement.variables as LuaNode[]).forEach((v, i) => {
        if (namesGlobal(v, name) && values[i]?.type === 'FunctionDeclaration') found = values[i];
      });
    } else if (statement.type === 'DoStatement') {
      frames.push({ block: statement.body as LuaNode[], next: 0 });
    }
  }
  return found;
}

/** Whether an assignment's target is the global `name`: `name`, `_G.name` or `_G["name"]`. */
function namesGlobal(target: LuaNode | null, name: string): boolean {
  if (!target) return false;
  if (target.type === 'Identifier') return target.name === name;
  const base = target.base as LuaNode | undefined;
  if (base?.type !== 'Identifier' || base.name !== '_G') return false;
  if (target.type === 'MemberExpression') return target.indexer === '.' && (target.identifier as LuaNode).name === name;
  const index = target.index as LuaNode | undefined;
  return target.type === 'IndexExpression' && index?.type === 'StringLiteral' && (index.raw === `"${name}"` || index.raw === `'${name}'`);
}
