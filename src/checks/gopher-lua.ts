/**
 * What gopher-lua refuses although luaparse's 5.2 mode, which reads its `goto`, takes it. Each
 * comes from gopher-lua's lexer or grammar (the same in its 2017 and current sources), and
 * test/checks/lua-gopher.test.ts holds them to gopher-lua itself:
 *  - hexadecimal fractions and exponents (`0x1p4`, `0xA.8`): its number scanner stops at them;
 *  - `break` before the end of its block: as in Lua 5.1, `break` is a block's last statement;
 *  - form feed and vertical tab between tokens: it skips only spaces, tabs and line breaks;
 *  - `--[=` not opening a long bracket: it reads any `--[=` as the start of one;
 *  - a `#!` first line: luaparse blanks it, as the `lua` command skips one in a file, but
 *    LoadString, which Karmada calls, reads the `#` as a token.
 * (Its "ambiguous syntax" for a `(` on the line after a `)` is not among them: the gopher-lua
 * Karmada runs resets that flag on every token, so the error never fires; yuin/gopher-lua#150.)
 */

export interface LuaNode {
  type: string;
  range?: [number, number];
  loc?: { start: { line: number; column: number } };
  [key: string]: unknown;
}

export interface DetailedChunk {
  body: LuaNode[];
  comments?: LuaComment[];
}

type LuaComment = LuaNode & { raw: string };
/** Comments by the offset they start at. */
type CommentIndex = ReadonlyMap<number, LuaComment>;

export interface LuaProblem {
  /** Offset in the script. */
  at: number;
  message: string;
}

/** A `#!` first line: gopher-lua stops at its `#`, so it is the problem whatever the rest of the script holds. */
export function shebangProblem(script: string): LuaProblem | undefined {
  if (!script.startsWith('#!')) return undefined;
  return { at: 0, message: "unexpected symbol '#' (a script loaded from a string, as Karmada loads it, may not start with a '#!' line)" };
}

/** Cheap signs of the problems below; a script without any needs no second, detailed parse. */
const SIGNS = /0[xX][0-9a-fA-F]*[.pP]|\bbreak\b|[\f\v]|--\[=/;

export const mayBeRefusedByGopherLua = (script: string): boolean => SIGNS.test(script);

/** The first problem, by position, in a script luaparse parsed with comments, ranges and locations. */
export function gopherLuaProblem(script: string, chunk: DetailedChunk): LuaProblem | undefined {
  const problems: LuaProblem[] = [];
  const comments = chunk.comments ?? [];
  const commentAt = new Map(comments.flatMap((c) => (c.range ? [[c.range[0], c] as const] : [])));
  const literals: [number, number][] = [];
  walk(chunk, (node) => {
    if (node.type === 'StringLiteral' && node.range) literals.push(node.range);
    if (node.type === 'NumericLiteral' && node.range && /^0[xX][0-9a-fA-F]*[.pP]/.test(String(node.raw))) {
      problems.push({ at: node.range[0], message: `malformed number near '${String(node.raw)}' (Lua 5.1 has no hexadecimal fractions or exponents)` });
    }
    const body = node.body;
    if (Array.isArray(body)) {
      body.slice(0, -1).forEach((statement: LuaNode) => {
        if (statement.type === 'BreakStatement' && statement.range) {
          problems.push({ at: statement.range[0], message: "'break' must be the last statement of its block" });
        }
      });
      const last = body[body.length - 1] as LuaNode | undefined;
      if (last?.type === 'BreakStatement' && last.range) {
        const extra = secondSemicolonAfter(script, last.range[1], commentAt);
        if (extra !== undefined) problems.push({ at: extra, message: "'break' must be the last statement of its block; one ';' may follow it" });
      }
    }
  });
  for (const comment of comments) {
    if (comment.range && /^--\[=+(?![=[])/.test(comment.raw)) problems.push({ at: comment.range[0], message: 'invalid multiline comment' });
  }
  // Strings and comments do not overlap, so sorted by start they are sorted by end too.
  const skipped = [...literals, ...comments.flatMap((c) => (c.range ? [c.range] : []))].sort((a, b) => a[0] - b[0]);
  for (const m of script.matchAll(/[\f\v]/g)) {
    if (!inside(skipped, m.index)) {
      problems.push({ at: m.index, message: `invalid token ${m[0] === '\f' ? '\\f (form feed)' : '\\v (vertical tab)'} between tokens` });
    }
  }
  return problems.sort((a, b) => a.at - b.at)[0];
}

/** After a `break`, one `;` may close the block; gopher-lua's grammar takes no second. */
function secondSemicolonAfter(script: string, from: number, commentAt: CommentIndex): number | undefined {
  let semicolons = 0;
  for (let offset = from; offset < script.length; ) {
    const comment = commentAt.get(offset);
    if (comment?.range) offset = comment.range[1];
    else if (/\s/.test(script[offset]!)) offset++;
    else if (script[offset] === ';') {
      if (++semicolons === 2) return offset;
      offset++;
    } else return undefined;
  }
  return undefined;
}

/** Whether `offset` lies in one of the sorted, disjoint ranges. */
function inside(ranges: readonly (readonly [number, number])[], offset: number): boolean {
  let low = 0;
  let high = ranges.length - 1;
  while (low <= high) {
    const mid = (low + high) >> 1;
    const [start, end] = ranges[mid]!;
    if (offset < start) high = mid - 1;
    else if (offset >= end) low = mid + 1;
    else return true;
  }
  return false;
}

/** Every node, parents before children; iterative, as a long call or operator chain nests thousands deep. */
function walk(root: unknown, visit: (node: LuaNode) => void): void {
  const pending: unknown[] = [root];
  while (pending.length > 0) {
    const node = pending.pop();
    if (Array.isArray(node)) {
      for (let i = node.length - 1; i >= 0; i--) pending.push(node[i]);
      continue;
    }
    if (node === null || typeof node !== 'object') continue;
    const record = node as LuaNode;
    if (typeof record.type === 'string') visit(record);
    for (const key in record) {
      const value = record[key];
      if (value !== null && typeof value === 'object' && key !== 'loc' && key !== 'range' && key !== 'comments') pending.push(value);
    }
  }
}

