/**
 * Lua snippets where gopher-lua and luaparse's 5.2 mode may part: numbers, `break` placement,
 * whitespace between tokens, comment openers, `(` after `)` across lines; ordinary statements
 * around them; and seeded random mixes. Each snippet goes inside a function body, so that
 * parsing is the only question; last come first lines before a function (a `#!` line) and
 * table constructors with repeated separators. Deterministic.
 *
 * Left out, because Debian's gopher-lua (2017) differs there from the one Karmada runs: `goto`
 * and labels (added since), escapes other than Lua 5.1's (now read as the plain character) and
 * non-ASCII identifiers. Its "ambiguous syntax" error, fixed since, is set aside by the test.
 */
const NUMBERS = ['0x1p4', '0xA.8', '0x1P-2', '0X.8', '0x', '0x1e5', '1e5', '1E+5', '.5', '5.', '3..2', '08', '0x1g', '1.2.3', '0xffffffffffffffffff', '1e400', '0x1p', '0x1.', '00', '0.', '7'];
const BREAKS = [
  'while true do break end', 'while true do break; end', 'while true do break local y = 1 end', 'while true do break; local y = 1 end',
  'for i=1,2 do if i then break end end', 'for i=1,2 do if i then break else local z = 1 end end', 'repeat break until true',
  'repeat break; until true', 'repeat break local q = 1 until true', 'while true do do break end local y = 1 end', 'while true do break break end',
  'for k, v in pairs(t) do if v then break end; local w = v end', 'while true do break; ; end', 'break',
];
const SPACES = ['\f', '\v', '\t', '\r', '\r\n', ' ', '\u00a0'];
const COMMENTS = ['--[=x', '--[==]', '--[=', '--[', '--[[ ok ]]', '--[=[ ok ]=]', '--[x', '--[==[ a ]] b ]==]', '---[=x', '-- plain', '--[==['];
const CALL_LAYOUTS = [
  'f()\n(g)()', 'f()\n(g)', 'local a = f()\n(g)', 'local a = (f)\n(g)', 'f() -- c\n(g)()', 'f() --[[c]]\n(g)()', 'f() --[[c]](g)()',
  'f()\n\n(g)()', 'f()\r\n(g)()', 'f()\t\n\t(g)()', 'f() (g)()', 'f\n(g)', 'a.b()\n(c)', 'x = f()\n-- c\n\n(g)()', 'f()--c\n--d\n(g)()',
  'f()[1]\n(g)', 'f"s"\n(g)', 't{}\n(g)', '(f)\n(g)', 'f()\n--[[c]]\n(g)()', 'f() --[[c\n]] (g)()', 'f() --[[c\n]]\n(g)()', 'f(\n)\n(g)',
  'f()\n("s")', 'f()\n(function() end)()',
];
/** Table constructors: gopher-lua's grammar lets separators repeat after the first field (`{1,,2}`). */
const TABLES = ['{1,,2}', '{1;;}', '{1,2,;}', '{1,,,2}', '{1,\n  ,2}', '{a = 1,, b = 2}', '{[1] = 2;,}', '{{1,,2},,}', '{1,,}', '{,}', '{,1}', '{;}', '{1 2}', '{1,, ,}'];
const OPENINGS = ['#!/usr/bin/lua', '#!', '#! lua', '# comment', '#', '\n#!/usr/bin/lua', ' #!/usr/bin/lua', '--#!/usr/bin/lua', '-- plain'];
const STATEMENTS = [
  'local x = 1', 'x = "a" .. "b"', 'local t = { a = 1, [2] = "b"; 3 }', 'if a then b() elseif c then d() else e() end',
  'for i = 1, 10, 2 do x = x + i end', 'for k, v in pairs(t) do x[k] = v end', 'while x < 10 do x = x + 1 end',
  'repeat x = x - 1 until x == 0', 'local function f(a, ...) return select("#", ...) end', 'do local y = 2 end',
  'x = #t + -y ^ 2 % 3', 'x = not a and b or c', 'local s = [[long\nstring]]', 'local s = [==[with ]] inside]==]',
  'x = t.a.b[c]:d("e")', 'f{1, 2}', 'f"str"', 'x = a ~= b', 'x = (f())', 'return', 'local a, b = f()',
  'x = "tab\\there\\nnewline\\\\ \\"q\\" \\065"', "x = 'single'", 'x = 1 -- trailing comment', ';',
];

export function luaCorpus(): string[] {
  const snippets = new Set<string>();
  for (const n of NUMBERS) snippets.add(`local x = ${n}`);
  for (const b of BREAKS) snippets.add(b);
  for (const s of SPACES) {
    for (const snippet of [`local x${s}= 1`, `local x = 1${s}`, `x = "a${s}b"`, `-- c${s}omment`, `x = [[a${s}b]]`, `f()${s}(g)`, `${s}local y = 2`]) snippets.add(snippet);
  }
  for (const c of COMMENTS) {
    snippets.add(`${c}\nlocal x = 1`);
    snippets.add(`local x = 1 ${c}`);
  }
  for (const c of CALL_LAYOUTS) snippets.add(c);
  for (const s of STATEMENTS) snippets.add(s);

  const pool = [...snippets];
  let seed = 0x10a;
  const pick = () => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return pool[seed % pool.length]!;
  };
  const joins = ['\n', ' ', '; ', '\n\n', ' -- c\n'];
  for (let i = 0; i < 1500; i++) {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    const join = joins[seed % joins.length]!;
    snippets.add([pick(), pick(), pick()].join(join));
  }
  const scripts = [...snippets].map((snippet) => `function Retain(desiredObj, observedObj)\n${snippet}\nreturn desiredObj\nend`);
  // First lines luaparse skips (a shebang, as the lua command skips it in a file) but gopher-lua's LoadString does not.
  const tables = TABLES.map((table) => `function Retain(desiredObj, observedObj)\nlocal t = ${table}\nreturn desiredObj\nend`);
  return [...scripts, ...OPENINGS.map((opening) => `${opening}\nfunction Retain(desiredObj, observedObj) return #desiredObj end`), ...tables];
}
