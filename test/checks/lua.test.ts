import { describe, expect, it } from 'vitest';
import { luaScriptError } from '../../src/checks/lua.js';
import { gopherLuaProblem, type LuaNode } from '../../src/checks/gopher-lua.js';
import { heapAfterGcMiB } from '../heap.js';
import { createRequire } from 'node:module';
import { vi } from 'vitest';

const retain = { name: 'Retain', params: ['desiredObj', 'observedObj'] } as const;
const health = { name: 'InterpretHealth', params: ['observedObj'] } as const;

describe('luaScriptError', () => {
  const valid: [string, string][] = [
    ['a global function declaration', 'function Retain(desiredObj, observedObj)\n  return desiredObj\nend'],
    ['other parameter names', 'function Retain(a, b) return a end'],
    ['an assigned function', 'Retain = function(desired, observed) return desired end'],
    ['helpers and locals around it', 'local function keep(x) return x end\nfunction Retain(d, o)\n  d.spec = keep(o.spec)\n  return d\nend'],
    ['varargs', 'function Retain(...) return ... end'],
    ['named parameters then varargs', 'function Retain(desired, ...) return desired end'],
    ['goto and labels (gopher-lua)', 'function Retain(d, o)\n  for i = 1, 3 do\n    if i == 2 then goto continue end\n  ::continue::\n  end\n  return d\nend'],
    ['a redefinition: the last one counts', 'function Retain(a) end\nfunction Retain(a, b) return a end'],
    ['comments', '-- keep replicas\nfunction Retain(d, o) --[[ block ]] return d end'],
    // gopher-lua keeps an unknown escape as the character, as Lua 5.1 does; Lua 5.2 made it an error.
    ['escapes Lua 5.1 keeps as the character', 'function Retain(d, o)\n  if string.find(d.metadata.name, "\\.") then return o end\n  return d\nend'],
    ['goto next to a lenient escape', 'function Retain(d, o)\n  local dot = "\\d"\n  goto done\n  ::done::\n  return d\nend'],
  ];
  it.each(valid)('accepts %s', (_name, script) => expect(luaScriptError(script, retain)).toBeUndefined());

  it('reports a syntax error with its line and column (counted from 1)', () => {
    expect(luaScriptError('function Retain(d, o)\n  return d +\nend', retain)).toBe("Lua syntax error at line 3, column 1: <expression> expected near 'end'");
    expect(luaScriptError('function Retain(d, o)\n  if d then return d\nend', retain)).toMatch(/^Lua syntax error at line \d+, column \d+: /);
    expect(luaScriptError('function Retain(d, o) return d', retain)).toMatch(/^Lua syntax error at line 1, column \d+: 'end' expected/);
    expect(luaScriptError('x = = 1', retain)).toMatch(/^Lua syntax error at line 1, column 5: /);
    // Lexer errors count columns like parser errors; past a lenient escape, the script's real problem.
    expect(luaScriptError('x = 1\ny = "abc\\q"\nfunction Retain(d, o) return d end', retain)).toBeUndefined();
    expect(luaScriptError('x = 1\ny = 0x\nfunction Retain(d, o) return d end', retain)).toBe("Lua syntax error at line 2, column 7: malformed number near '0x'");
    expect(luaScriptError('x = 1\ny = "abc\\q\nfunction Retain(d, o) goto e ::e:: return d end', retain)).toMatch(/^Lua syntax error at line 2, column \d+: unfinished string near /);
  });

  // What gopher-lua refuses although Lua 5.2 (luaparse) takes it; lua-gopher.test.ts checks against gopher-lua itself.
  const body = (lines: string) => `function Retain(d, o)\n${lines}\nreturn d\nend`;
  const gopherOnly: [string, string, string][] = [
    ['a hexadecimal exponent', 'local x = 0x1p4', "line 2, column 11: malformed number near '0x1p4' (Lua 5.1 has no hexadecimal fractions or exponents)"],
    ['a hexadecimal fraction', 'local x = 0xA.8', "line 2, column 11: malformed number near '0xA.8' (Lua 5.1 has no hexadecimal fractions or exponents)"],
    ['a statement after break', 'while true do break local y = 1 end', "line 2, column 15: 'break' must be the last statement of its block"],
    ['two semicolons after break', 'while true do break; ; end', "line 2, column 22: 'break' must be the last statement of its block; one ';' may follow it"],
    ['a form feed between tokens', 'local x = 1\f', 'line 2, column 12: invalid token \\f (form feed) between tokens'],
    ['a vertical tab between tokens', 'local\vx = 1', 'line 2, column 6: invalid token \\v (vertical tab) between tokens'],
    ['--[= that opens no long comment', '--[=x\nlocal x = 1', 'line 2, column 1: invalid multiline comment'],
  ];
  it.each(gopherOnly)('refuses, as gopher-lua does, %s', (_name, lines, where) => {
    expect(luaScriptError(body(lines), retain)).toBe(`Lua syntax error at ${where}`);
  });
  const gopherAlso: [string, string][] = [
    ['hexadecimal integers', 'local x = 0x1e5 + 0XFF'],
    ['break with one semicolon', 'while true do break; end'],
    ['break last in each branch', 'for i = 1, 2 do if i then break else break end end'],
    ['form feed and vertical tab in strings and comments', 'x = "a\fb" -- c\vd\ny = [[e\ff]]'],
    ['--[ then a comment, and long comments', '--[x\n--[=[ ok ]=]\nlocal x = 1 --[==[ a ]] b ]==]'],
    // gopher-lua since 2017 (yuin/gopher-lua#150) reads a `(` on the next line as a call, as Lua 5.2 does.
    ['( on the same line after )', 'f() (g)()'],
    ['( on the line after )', 'f()\n(g)()'],
    ['( on the line after a parenthesized expression', 'local pick = (cond and f or g)\n    (observedObj)'],
    ['( on the line after a name', 'local a = f\n(g)'],
    ['a long chain of calls and fields', `x = a${'.b'.repeat(25000)}\ny = f${'(1)'.repeat(20000)}\nwhile true do break end`],
  ];
  it.each(gopherAlso)('accepts, as gopher-lua does, %s', (_name, lines) => expect(luaScriptError(body(lines), retain)).toBeUndefined());

  it('takes a table constructor\'s separators repeated after a field, as gopher-lua\'s grammar does', () => {
    for (const table of ['{1,,2}', '{1;;}', '{1,2,;}', '{a = 1,, b = 2}', '{1,\n  ,2}', '{{1,,2},,}', '{1,,,,,,,,,,,,,,,,,,,,2}']) {
      expect(luaScriptError(body(`local t = ${table}`), retain)).toBeUndefined();
    }
    // Before the first field, between call arguments, or without a separator at all, it is no table gopher-lua reads either.
    expect(luaScriptError(body('local t = {,}'), retain)).toBe("Lua syntax error at line 2, column 12: '}' expected near ','");
    for (const wrong of ['local t = {;}', 'local t = {,1}', 'f(1,,2)', 'local t = {1 2}', 'local a,, b = 1']) {
      expect(luaScriptError(body(wrong), retain)).toMatch(/^Lua syntax error at line 2, /);
    }
    // Each place costs a second reading of the script, so the places are bounded: past 16, the error stands.
    const tables = (n: number) => body(Array.from({ length: n }, (_, i) => `local t${i} = {1,,2}`).join('\n'));
    expect(luaScriptError(tables(16), retain)).toBeUndefined();
    expect(luaScriptError(tables(17), retain)).toBe("Lua syntax error at line 18, column 16: '}' expected near ','");
  });

  describe('the cost of mending', () => {
    // The same module object the checker loads: every reading of a script goes through its parse().
    const luaparse = createRequire(import.meta.url)('luaparse') as { parse: (input: string, options?: object) => unknown };
    /** Runs `check` and returns how many times, and how many characters in all, luaparse read. */
    function readings(check: () => void): { count: number; units: number } {
      const spy = vi.spyOn(luaparse, 'parse');
      try {
        check();
        return { count: spy.mock.calls.length, units: spy.mock.calls.reduce((sum, [input]) => sum + (input as string).length, 0) };
      } finally {
        spy.mockRestore();
      }
    }
    // `goto` keeps 5.1 mode from reading the escapes at once; a `break` makes the tree be read in detail as well.
    const escapesAndSeparators = (filler: string) =>
      `::top::\n${filler}${Array.from({ length: 15 }, (_, i) => `local s${i} = "\\."\n`).join('')}` +
      `${Array.from({ length: 16 }, (_, i) => `local t${i} = {1,,2}\n`).join('')}while true do break end\nfunction Retain(d, o) return d end\n`;

    it('reads a script once per mended place, escapes and separators together, and its detail once more', () => {
      const script = escapesAndSeparators('');
      let verdict: string | undefined = 'not run';
      const { count } = readings(() => (verdict = luaScriptError(script, retain)));
      expect(verdict).toBeUndefined();
      // The first reading, 5.1 mode once, 15 escapes, 16 separator places, and the detailed tree: 34.
      expect(count).toBeLessThanOrEqual(34);
    });

    it('bounds the re-reading of a long script by the text read, not by the places', () => {
      // 400 KiB of statements: each reading costs about a tenth of a second.
      const script = escapesAndSeparators('local x = 1 + 2 * 3\n'.repeat(20_000));
      const { units } = readings(() => luaScriptError(script, retain));
      // The first reading and the detailed one, plus at most 1 MiB of re-reading.
      expect(units).toBeLessThanOrEqual(2 * script.length + 1024 * 1024);
    });
  });

  it('says so when a script nests deeper than the parser can read', () => {
    const deep = (open: string, close: string) => `function Retain(d, o) return ${open.repeat(50_000)}1${close.repeat(50_000)} end`;
    for (const script of [deep('(', ')'), deep('{', '}'), `function Retain(d, o) return 1${' .. 1'.repeat(50_000)} end`]) {
      expect(luaScriptError(script, retain)).toMatch(/^Lua syntax error: the script nests too deeply to be read \(/);
    }
  });

  it("calls a stray '...' an unexpected symbol, where luaparse has no name for its token", () => {
    expect(luaScriptError('function Retain(d, o) return d end\n...', retain)).toBe("Lua syntax error at line 2, column 1: unexpected symbol '...' near '<eof>'");
  });

  it('names a character that starts no token, the same in a fresh process as after other scripts', async () => {
    // luaparse keeps its lexer's last token between calls: the first script of a process failed on
    // it ("Cannot read properties of undefined"), a later one said "near" another script's token.
    const require = createRequire(import.meta.url);
    delete require.cache[require.resolve('luaparse')];
    vi.resetModules();
    const fresh = (await import('../../src/checks/lua.js')).luaScriptError;
    const cases: [string, string][] = [
      ['ünï', "Lua syntax error at line 1, column 1: unexpected symbol 'ü'"],
      ['x = 1\n  y = $', "Lua syntax error at line 2, column 7: unexpected symbol '$'"],
      ['😀', "Lua syntax error at line 1, column 1: unexpected symbol '😀'"],
    ];
    for (const [script, message] of cases) expect(fresh(script, retain)).toBe(message);
    luaScriptError('metadata = "v1alpha1"\nfunction Retain(d, o) return d end', retain);
    for (const [script, message] of cases) expect(luaScriptError(`${script} `, retain)).toBe(message);
  });

  it('refuses a #! first line, which gopher-lua does not skip in a script loaded from a string', () => {
    const shebang = "Lua syntax error at line 1, column 1: unexpected symbol '#' (a script loaded from a string, as Karmada loads it, may not start with a '#!' line)";
    expect(luaScriptError('#!/usr/bin/lua\nfunction Retain(desiredObj, observedObj) return desiredObj end', retain)).toBe(shebang);
    expect(luaScriptError('#!\nfunction Retain(d, o) return d end', retain)).toBe(shebang);
    // gopher-lua stops at the first token, so the first line is the problem whatever follows.
    expect(luaScriptError('#!/usr/bin/lua\nfunction Retain(d, o) return d +\nend', retain)).toBe(shebang);
    expect(luaScriptError('#!/usr/bin/lua\nwhile true do break local y = 1 end\nfunction Retain(d, o) return d end', retain)).toBe(shebang);
    // Any other first line starting with '#' is refused at the same place.
    expect(luaScriptError('# keeps replicas\nfunction Retain(d, o) return d end', retain)).toMatch(/^Lua syntax error at line 1, column 1: /);
  });
  it('accepts # as the length operator and inside strings and comments', () => {
    expect(luaScriptError('function Retain(d, o)\n  if #o.spec.containers > 0 then return o end\n  return d\nend', retain)).toBeUndefined();
    expect(luaScriptError('-- #!/usr/bin/lua\nfunction Retain(d, o) return "#!" end', retain)).toBeUndefined();
  });

  it('walks a syntax tree of any depth without running out of stack', () => {
    // luaparse builds call and field chains iteratively, so a script can nest them arbitrarily deep.
    let expression: LuaNode = { type: 'Identifier', name: 'a' };
    for (let i = 0; i < 200_000; i++) expression = { type: 'MemberExpression', base: expression, identifier: { type: 'Identifier', name: 'b' } };
    const chunk = { type: 'Chunk', body: [{ type: 'CallStatement', expression }], comments: [] };
    expect(() => gopherLuaProblem('', chunk)).not.toThrow();
  });

  it('requires the global function the member is for', () => {
    const missing = 'the script must define the global function Retain(desiredObj, observedObj)';
    expect(luaScriptError('x = 1', retain)).toBe(missing);
    expect(luaScriptError('', retain)).toBe(missing);
    expect(luaScriptError('function retain(d, o) return d end', retain)).toBe(missing);
    expect(luaScriptError('local function Retain(d, o) return d end', retain)).toBe(missing);
    expect(luaScriptError('local Retain = function(d, o) return d end', retain)).toBe(missing);
    expect(luaScriptError('function M.Retain(d, o) return d end', retain)).toBe(missing);
    expect(luaScriptError('if true then function Retain(d, o) return d end end', retain)).toBe(missing);
    expect(luaScriptError('Retain = 1', retain)).toBe(missing);
    expect(luaScriptError('_G.retain = function(d, o) return d end', retain)).toBe(missing);
    expect(luaScriptError('T.Retain = function(d, o) return d end', retain)).toBe(missing);
  });

  it('finds the function wherever loading the script surely defines it: in a do block, or through _G', () => {
    expect(luaScriptError('do\n  local keep = 1\n  function Retain(d, o) return d end\nend', retain)).toBeUndefined();
    expect(luaScriptError('do do Retain = function(d, o) return d end end end', retain)).toBeUndefined();
    expect(luaScriptError('_G.Retain = function(d, o) return d end', retain)).toBeUndefined();
    expect(luaScriptError('_G["Retain"] = function(d, o) return d end', retain)).toBeUndefined();
    expect(luaScriptError("_G['Retain'] = function(d, o) return d end", retain)).toBeUndefined();
    expect(luaScriptError('do function Retain(d) return d end end', retain)).toBe('function Retain must take 2 parameters: Retain(desiredObj, observedObj)');
    // The last definition is the one the control plane calls.
    expect(luaScriptError('function Retain(d) return d end\ndo function Retain(d, o) return d end end', retain)).toBeUndefined();
    expect(luaScriptError('do function Retain(d, o) return d end end\nfunction Retain(d) return d end', retain)).toEqual(expect.stringContaining('must take 2 parameters'));
  });

  it('requires the parameters the control plane passes', () => {
    expect(luaScriptError('function Retain(d) return d end', retain)).toBe('function Retain must take 2 parameters: Retain(desiredObj, observedObj)');
    expect(luaScriptError('function Retain(d, o, extra) return d end', retain)).toBe('function Retain must take 2 parameters: Retain(desiredObj, observedObj)');
    expect(luaScriptError('function Retain(a, b, ...) return a end', retain)).toBeUndefined();
    expect(luaScriptError('function InterpretHealth() return true end', health)).toBe('function InterpretHealth must take 1 parameter: InterpretHealth(observedObj)');
    expect(luaScriptError('function InterpretHealth(observedObj) return true end', health)).toBeUndefined();
  });

  it('keeps answers for the same script apart by signature', () => {
    const script = 'function Retain(d) return d end';
    expect(luaScriptError(script, { name: 'Retain', params: ['desiredObj'] })).toBeUndefined();
    expect(luaScriptError(script, retain)).toEqual(expect.stringContaining('must take 2 parameters'));
  });

  it('keeps a script cut from a long document without keeping the document', () => {
    const before = heapAfterGcMiB();
    for (let i = 0; i < 64; i++) {
      // js-yaml hands out scalars as slices of the document's text.
      const script = `function Retain(desiredObj, observedObj) return ${i} end`;
      const document = `${script}\n${'#'.repeat(1024 * 1024)}`;
      expect(luaScriptError(document.slice(0, script.length), retain)).toBeUndefined();
    }
    expect(heapAfterGcMiB() - before).toBeLessThan(16);
  });
});

