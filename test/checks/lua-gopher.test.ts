/**
 * Lua scripts against gopher-lua's own LoadString (test/checks/gopherlua/main.go, built with
 * Debian's golang-github-yuin-gopher-lua-dev), which is all Karmada's webhook does with them.
 * fleetgate must refuse every script of lua-corpus.ts gopher-lua refuses; it may refuse one
 * gopher-lua loads only where that is no valid Lua at all (below). Without Go this is skipped
 * with the reason in its title (CI sets FLEETGATE_GO_TESTS_REQUIRED=1 so it fails instead).
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { luaScriptError } from '../../src/checks/lua.js';
import { askGoProgram, buildGoProgram, goUnavailable } from '../../scripts/go-lib.mjs';
import { luaCorpus } from './lua-corpus.js';
import { goReference } from '../go-reference.js';

const SOURCE = fileURLToPath(new URL('./gopherlua/main.go', import.meta.url));
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const reference = goReference('test/checks/lua-gopher', 'Lua scripts agree with gopher-lua', goUnavailable(['github.com/yuin/gopher-lua'], ['golang-go', 'golang-github-yuin-gopher-lua-dev']));
const RETAIN = { name: 'Retain', params: ['desiredObj', 'observedObj'] };

function gopherVerdicts(scripts: readonly string[]): (string | undefined)[] {
  reference.assertAvailable();
  return askGoProgram(buildGoProgram(SOURCE, 'gopher-lua', ROOT), scripts).map((line) => (line === 'ok' ? undefined : line.replace(/^err /, '')));
}

/**
 * gopher-lua loads these, though they are no Lua (5.1 or any other): its number scanner takes a
 * dangling exponent (`1e`, `1.5e+`), whose value is then NaN.
 */
const NOT_LUA = [/\d[eE][+-]?(?!\d)/];

/**
 * Debian's snapshot (2017-09-15) keeps its "ambiguous syntax" flag once raised; the gopher-lua
 * Karmada runs resets it on every token (yuin/gopher-lua#150, December 2017), so a `(` on the
 * line after a `)` is a call there, as in Lua 5.2. Where the snapshot says this, it is not the
 * reference.
 */
const FIXED_SINCE_2017 = 'ambiguous syntax (function call x new statement)';

describe.skipIf(reference.skip)(reference.title, () => {
  it('refuses every script gopher-lua refuses, and only those, but for what is no Lua at all', () => {
    const corpus = luaCorpus();
    const gopher = gopherVerdicts(corpus);
    const disagreements = corpus.flatMap((script, i) => {
      const ours = luaScriptError(script, RETAIN);
      const theirs = gopher[i];
      if ((ours === undefined) === (theirs === undefined)) return [];
      if (theirs === undefined && NOT_LUA.some((re) => re.test(script))) return [];
      if (theirs?.includes(FIXED_SINCE_2017)) return [];
      return [`${JSON.stringify(script)}: gopher-lua ${theirs ?? 'loads it'}; fleetgate ${ours ?? 'accepts'}`];
    });
    expect(corpus.length).toBeGreaterThan(1500);
    expect(disagreements).toEqual([]);
  });
});
