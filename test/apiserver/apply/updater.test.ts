/**
 * Merge, ownership and pruning at the level of structured-merge-diff's Updater: maps and
 * structs, atomic lists, sets, keyed lists; conflicts, force, several appliers and updaters.
 * Managers are plain names here; identifiers, stripping and times are apply.test.ts's business.
 */
import { describe, expect, it } from 'vitest';
import { checkLists } from '../../../src/apiserver/apply/check-lists.js';
import { compareObjects } from '../../../src/apiserver/apply/compare.js';
import { FieldSet } from '../../../src/apiserver/apply/field-set.js';
import { mergeValues } from '../../../src/apiserver/apply/merge.js';
import { pathText, fieldElement as f } from '../../../src/apiserver/apply/path-element.js';
import { reconcileWithSchema } from '../../../src/apiserver/apply/reconcile.js';
import { toFieldSet } from '../../../src/apiserver/apply/to-field-set.js';
import { topologyOf, type Topology } from '../../../src/apiserver/apply/topology.js';
import { ApplyConflicts, applyConfiguration, recordUpdate, type ManagerSets, type Schema } from '../../../src/apiserver/apply/updater.js';
import { fromFieldsV1 } from '../../../src/apiserver/apply/fields-v1.js';

const str = { type: 'string' };
const schemaOf = (topology: object): Schema => ({ topology: topologyOf(topology), apiVersion: 'v1' });

const structs = schemaOf({
  type: 'object',
  properties: {
    a: str,
    b: str,
    s: { type: 'object', properties: { x: str, y: str, inner: { type: 'object', properties: { z: str } } } },
    m: { type: 'object', additionalProperties: str },
    deep: { type: 'object', additionalProperties: { type: 'object', properties: { p: str, q: str } } },
    atomicMap: { type: 'object', additionalProperties: str, 'x-kubernetes-map-type': 'atomic' },
    open: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
  },
});
const sets = schemaOf({ type: 'object', properties: { list: { type: 'array', items: str, 'x-kubernetes-list-type': 'set' } } });
const atomic = schemaOf({ type: 'object', properties: { list: { type: 'array', items: str }, objs: { type: 'array', items: { type: 'object', properties: { name: str } } } } });
const keyed = schemaOf({
  type: 'object',
  properties: {
    list: {
      type: 'array',
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['name'],
      items: { type: 'object', properties: { name: str, value: str, other: str, tags: { type: 'array', items: str, 'x-kubernetes-list-type': 'set' } } },
    },
    ports: {
      type: 'array',
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['port', 'protocol'],
      items: { type: 'object', properties: { port: { type: 'integer' }, protocol: { type: 'string', default: 'TCP' }, name: str } },
    },
  },
});

type Op =
  | { apply: Record<string, unknown>; by: string; force?: boolean; conflicts?: string[] }
  | { update: Record<string, unknown>; by: string };

interface State {
  object: unknown;
  managers: ManagerSets;
}

/** Runs the operations from an empty object; an apply expecting conflicts must get exactly those and change nothing. */
function run(schema: Schema, ops: Op[], start: State = { object: {}, managers: new Map() }): State {
  let { object, managers } = start;
  for (const op of ops) {
    if ('update' in op) {
      managers = recordUpdate(object, op.update, managers, op.by, schema);
      object = op.update;
      continue;
    }
    const out = applyConfiguration(object, op.apply, managers, op.by, op.force ?? false, schema);
    if (op.conflicts) {
      expect(out).toBeInstanceOf(ApplyConflicts);
      const got = [...(out as ApplyConflicts).byManager].flatMap(([m, set]) => set.paths().map((p) => `${m}: ${pathText(p)}`));
      expect(got.sort()).toEqual([...op.conflicts].sort());
      continue;
    }
    if (out instanceof ApplyConflicts) throw new Error(`unexpected conflicts: ${[...out.byManager].map(([m, s]) => `${m}: ${s}`).join('; ')}`);
    managers = out.managers;
    if (out.object !== undefined) object = out.object;
  }
  return { object, managers };
}

/** Each manager's paths, as text. */
const owned = (state: State): Record<string, string[]> =>
  Object.fromEntries([...state.managers].sort(([a], [b]) => (a < b ? -1 : 1)).map(([m, vs]) => [m, vs.set.paths().map(pathText)]));

describe('maps and structs', () => {
  it('own exactly the fields an applier applies; a struct field alone is owned by nobody', () => {
    const s = run(structs, [{ apply: { a: '1', s: { x: 'x' }, m: { k: 'v' } }, by: 'alice' }]);
    expect(s.object).toEqual({ a: '1', s: { x: 'x' }, m: { k: 'v' } });
    expect(owned(s)).toEqual({ alice: ['.a', '.m.k', '.s.x'] });
  });

  it('change nothing when the same configuration is applied again', () => {
    const first = run(structs, [{ apply: { a: '1', s: { x: 'x' } }, by: 'alice' }]);
    const again = applyConfiguration(first.object, { a: '1', s: { x: 'x' } }, first.managers, 'alice', false, structs);
    expect(again).not.toBeInstanceOf(ApplyConflicts);
    expect((again as { object: unknown }).object).toBeUndefined();
  });

  it('prune what the applier stopped applying, a struct with nothing left in it too', () => {
    const s = run(structs, [
      { apply: { a: '1', b: '2', s: { x: 'x', inner: { z: 'z' } } }, by: 'alice' },
      { apply: { a: '1' }, by: 'alice' },
    ]);
    expect(s.object).toEqual({ a: '1' });
    expect(owned(s)).toEqual({ alice: ['.a'] });
  });

  it('keep a field another manager owns when the applier stops applying it', () => {
    const s = run(structs, [
      { apply: { a: '1', b: '2' }, by: 'alice' },
      { apply: { b: '2' }, by: 'bob' },
      { apply: { a: '1' }, by: 'alice' },
    ]);
    expect(s.object).toEqual({ a: '1', b: '2' });
    expect(owned(s)).toEqual({ alice: ['.a'], bob: ['.b'] });
  });

  it('keep a field an updater set, even inside a struct the applier stopped applying', () => {
    const s = run(structs, [
      { apply: { s: { x: 'x' } }, by: 'alice' },
      { update: { s: { x: 'x', y: 'y' } }, by: 'controller' },
      { apply: {}, by: 'alice' },
    ]);
    expect(s.object).toEqual({ s: { y: 'y' } });
    expect(owned(s)).toEqual({ controller: ['.s.y'] });
  });

  it('leave alone what nobody owns', () => {
    const s = run(structs, [{ apply: { a: '1' }, by: 'alice' }], { object: { b: 'unowned' }, managers: new Map() });
    expect(s.object).toEqual({ b: 'unowned', a: '1' });
    const pruned = run(structs, [{ apply: {}, by: 'alice' }], s);
    expect(pruned.object).toEqual({ b: 'unowned' });
  });

  it('report a conflict on a field another applier owns with another value, and change nothing', () => {
    run(structs, [
      { apply: { a: '1', s: { x: 'x' } }, by: 'alice' },
      { apply: { a: '2', s: { x: 'other' } }, by: 'bob', conflicts: ['alice: .a', 'alice: .s.x'] },
    ]);
  });

  it('let two appliers own a field they set to the same value', () => {
    const s = run(structs, [
      { apply: { a: '1' }, by: 'alice' },
      { apply: { a: '1' }, by: 'bob' },
    ]);
    expect(owned(s)).toEqual({ alice: ['.a'], bob: ['.a'] });
    const afterAlice = run(structs, [{ apply: {}, by: 'alice' }], s);
    expect(afterAlice.object).toEqual({ a: '1' });
    expect(owned(afterAlice)).toEqual({ bob: ['.a'] });
  });

  it('hand a field over on force, removing it from the former owner', () => {
    const s = run(structs, [
      { apply: { a: '1', b: 'b' }, by: 'alice' },
      { apply: { a: '2' }, by: 'bob', force: true },
    ]);
    expect(s.object).toEqual({ a: '2', b: 'b' });
    expect(owned(s)).toEqual({ alice: ['.b'], bob: ['.a'] });
  });

  it('give an updater what it changes, taken from the applier without conflict; the applier conflicts next', () => {
    const s = run(structs, [
      { apply: { a: '1', b: 'b' }, by: 'alice' },
      { update: { a: '2', b: 'b' }, by: 'controller' },
      { apply: { a: '1', b: 'b' }, by: 'alice', conflicts: ['controller: .a'] },
    ]);
    expect(owned(s)).toEqual({ alice: ['.b'], controller: ['.a'] });
  });

  it('count a struct an update creates as the updater’s, with what is in it', () => {
    const s = run(structs, [{ update: { s: { x: 'x', inner: { z: 'z' } } }, by: 'controller' }]);
    expect(owned(s)).toEqual({ controller: ['.s', '.s.inner', '.s.x', '.s.inner.z'] });
  });

  it('take a removed field from every owner', () => {
    const s = run(structs, [
      { apply: { a: '1', b: 'b' }, by: 'alice' },
      { update: { b: 'b' }, by: 'editor' },
    ]);
    expect(owned(s)).toEqual({ alice: ['.b'] });
  });

  it('own map keys one by one, and an atomic map only whole', () => {
    const s = run(structs, [
      { apply: { m: { k1: 'v' }, atomicMap: { k1: 'v' } }, by: 'alice' },
      { apply: { m: { k2: 'v' } }, by: 'bob' },
    ]);
    expect(s.object).toEqual({ m: { k1: 'v', k2: 'v' }, atomicMap: { k1: 'v' } });
    expect(owned(s)).toEqual({ alice: ['.atomicMap', '.m.k1'], bob: ['.m.k2'] });
    run(structs, [{ apply: { atomicMap: { k2: 'v' } }, by: 'bob', conflicts: ['alice: .atomicMap'] }], s);
  });

  it('own an empty map or a null as the field itself', () => {
    const s = run(structs, [{ apply: { m: {}, s: null }, by: 'alice' }]);
    expect(owned(s)).toEqual({ alice: ['.m', '.s'] });
  });

  it('own every key of an open subtree, maps granular, lists whole', () => {
    const s = run(structs, [{ apply: { open: { a: { b: 1 }, l: [1, 2] } }, by: 'alice' }]);
    expect(owned(s)).toEqual({ alice: ['.open.a', '.open.l', '.open.a.b'] });
  });

  it('remove a map entry the applier owned although another manager owns a field inside it', () => {
    // The entry itself (a map key) was the applier's alone, so it goes with what is in it. The
    // map left empty becomes null, as structured-merge-diff leaves it: the server drops the null.
    const s = run(structs, [
      { apply: { a: 'a', deep: { e: { p: 'p' } } }, by: 'alice' },
      { update: { a: 'a', deep: { e: { p: 'p', q: 'q' } } }, by: 'controller' },
      { apply: { a: 'a' }, by: 'alice' },
    ]);
    expect(s.object).toEqual({ a: 'a', deep: null });
  });
});

describe('atomic lists', () => {
  it('replace the list whole and own it as one field', () => {
    const s = run(atomic, [
      { apply: { list: ['a', 'b'], objs: [{ name: 'x' }] }, by: 'alice' },
      { apply: { list: ['c'] }, by: 'alice' },
    ]);
    expect(s.object).toEqual({ list: ['c'] });
    expect(owned(s)).toEqual({ alice: ['.list'] });
  });

  it('conflict on any other list, co-own the same list', () => {
    const s = run(atomic, [
      { apply: { list: ['a', 'b'] }, by: 'alice' },
      { apply: { list: ['a', 'b'] }, by: 'bob' },
      { apply: { list: ['a'] }, by: 'bob', conflicts: ['alice: .list'] },
    ]);
    expect(owned(s)).toEqual({ alice: ['.list'], bob: ['.list'] });
  });

  it('pass to an updater that appends to it', () => {
    const s = run(atomic, [
      { apply: { list: ['a'] }, by: 'alice' },
      { update: { list: ['a', 'b'] }, by: 'controller' },
    ]);
    expect(owned(s)).toEqual({ controller: ['.list'] });
  });
});

describe('set lists', () => {
  it('merge items, keeping the live items where they stood and the applied ones in order', () => {
    const s = run(sets, [
      { apply: { list: ['a', 'c'] }, by: 'alice' },
      { update: { list: ['a', 'b', 'c', 'd'] }, by: 'controller' },
      { apply: { list: ['a', 'aprime', 'c', 'cprime'] }, by: 'alice' },
    ]);
    expect(s.object).toEqual({ list: ['a', 'b', 'aprime', 'c', 'd', 'cprime'] });
    expect(owned(s)).toEqual({ alice: ['.list[="a"]', '.list[="aprime"]', '.list[="c"]', '.list[="cprime"]'], controller: ['.list[="b"]', '.list[="d"]'] });
  });

  it('prune an item the applier dropped unless another manager owns it', () => {
    const s = run(sets, [
      { apply: { list: ['a', 'b', 'c'] }, by: 'alice' },
      { apply: { list: ['c'] }, by: 'bob' },
      { apply: { list: ['a'] }, by: 'alice' },
    ]);
    expect(s.object).toEqual({ list: ['a', 'c'] });
  });

  it('own no item and prune nothing owned by others when an empty set is applied', () => {
    const s = run(sets, [
      { apply: { list: ['a'] }, by: 'alice' },
      { update: { list: ['a', 'b'] }, by: 'controller' },
      { apply: { list: [] }, by: 'alice' },
    ]);
    expect(s.object).toEqual({ list: ['b'] });
    expect(owned(s)).toEqual({ controller: ['.list[="b"]'] });
  });

  it('refuse an applied set naming an item twice, and maps or null as items', () => {
    expect(checkLists({ list: ['a', 'b', 'a'] }, sets.topology, false)).toEqual(['.list: duplicate entries for key [="a"]']);
    expect(checkLists({ list: [{}] }, sets.topology, false)).toEqual([".list: element 0: associative list without keys has an element that's a map type"]);
    expect(checkLists({ list: ['a', null] }, sets.topology, false)).toEqual([".list: element 1: associative list without keys has an element that's an explicit null"]);
    expect(checkLists({ list: ['a', 'a'] }, sets.topology, true)).toEqual([]);
  });
});

describe('keyed lists', () => {
  it('merge items by key, each applier owning its items and what it set in them', () => {
    const s = run(keyed, [
      { apply: { list: [{ name: 'a', value: '1' }] }, by: 'alice' },
      { apply: { list: [{ name: 'b', value: '2' }, { name: 'a', other: 'o' }] }, by: 'bob' },
    ]);
    expect(s.object).toEqual({ list: [{ name: 'b', value: '2' }, { name: 'a', value: '1', other: 'o' }] });
    expect(owned(s)).toEqual({
      alice: ['.list[name="a"]', '.list[name="a"].name', '.list[name="a"].value'],
      bob: ['.list[name="a"]', '.list[name="b"]', '.list[name="a"].name', '.list[name="a"].other', '.list[name="b"].name', '.list[name="b"].value'],
    });
  });

  it('conflict on a field of an item another applier set, by path with the key', () => {
    run(keyed, [
      { apply: { list: [{ name: 'a', value: '1' }] }, by: 'alice' },
      { apply: { list: [{ name: 'a', value: '2' }] }, by: 'bob', conflicts: ['alice: .list[name="a"].value'] },
    ]);
  });

  it('prune an item the applier dropped, keeping one another manager co-owns', () => {
    const s = run(keyed, [
      { apply: { list: [{ name: 'a' }, { name: 'b' }, { name: 'c', value: 'v' }] }, by: 'alice' },
      { apply: { list: [{ name: 'c' }] }, by: 'bob' },
      { apply: { list: [{ name: 'a' }] }, by: 'alice' },
    ]);
    // b goes; c stays (bob owns the item) but loses the value only alice set.
    expect(s.object).toEqual({ list: [{ name: 'a' }, { name: 'c' }] });
  });

  it('place applied items in applied order around the live items the configuration does not name', () => {
    const start = run(keyed, [{ update: { list: [{ name: 'a' }, { name: 'b' }, { name: 'c' }] }, by: 'controller' }]);
    const s = run(keyed, [{ apply: { list: [{ name: 'c' }, { name: 'a', value: 'v' }] }, by: 'alice' }], start);
    expect(s.object).toEqual({ list: [{ name: 'b' }, { name: 'c' }, { name: 'a', value: 'v' }] });
  });

  it('name items by several keys, a missing key taking its schema default', () => {
    const s = run(keyed, [{ apply: { ports: [{ port: 80, name: 'http' }, { port: 80, protocol: 'UDP' }] }, by: 'alice' }]);
    expect(owned(s).alice).toContain('.ports[port=80,protocol="TCP"].name');
    expect(owned(s).alice).toContain('.ports[port=80,protocol="UDP"].protocol');
  });

  it('merge a set inside an item', () => {
    const s = run(keyed, [
      { apply: { list: [{ name: 'a', tags: ['x'] }] }, by: 'alice' },
      { apply: { list: [{ name: 'a', tags: ['y'] }] }, by: 'bob' },
    ]);
    expect(s.object).toEqual({ list: [{ name: 'a', tags: ['x', 'y'] }] });
  });

  it('collapse items a stored object repeats into the applied one', () => {
    const start: State = { object: { list: [{ name: 'a', value: '1' }, { name: 'a', value: '2' }, { name: 'b' }] }, managers: new Map() };
    const s = run(keyed, [{ apply: { list: [{ name: 'a', other: 'o' }] }, by: 'alice' }], start);
    expect(s.object).toEqual({ list: [{ name: 'a', other: 'o' }, { name: 'b' }] });
  });

  it('refuse items without their keys, or named twice in an applied configuration', () => {
    expect(checkLists({ list: [{ value: 'v' }] }, keyed.topology, false)).toEqual(['.list: element 0: associative list with keys has an element that omits all key fields ["name"] (and doesn\'t have default values for any key fields)']);
    expect(checkLists({ list: [{ name: 'a' }, { name: 'a' }] }, keyed.topology, false)).toEqual(['.list: duplicate entries for key [name="a"]']);
    expect(checkLists({ list: ['x'] }, keyed.topology, false)).toEqual(['.list: element 0: associative list with keys may not have non-map elements']);
  });
});

describe('the pieces', () => {
  it('merges a configuration over the live object: scalars replaced, null kept for a scalar, a null map ignored', () => {
    const t: Topology = structs.topology;
    expect(mergeValues({ a: '1', s: { x: 'x' } }, { a: null, s: null }, t)).toEqual({ a: null, s: { x: 'x' } });
    expect(mergeValues(undefined, { m: {} }, t)).toEqual({ m: {} });
  });

  it('compares, counting a granular field that appears or disappears itself', () => {
    const c = compareObjects({ a: '1', b: 'b' }, { a: '2', s: { x: 'x' } }, structs.topology);
    expect(c.modified.paths().map(pathText)).toEqual(['.a']);
    expect(c.added.paths().map(pathText)).toEqual(['.s', '.s.x']);
    expect(c.removed.paths().map(pathText)).toEqual(['.b']);
  });

  it('collects the fields of an object', () => {
    expect(toFieldSet({ list: [{ name: 'a', tags: ['t'] }] }, keyed.topology).paths().map(pathText)).toEqual(['.list[name="a"]', '.list[name="a"].name', '.list[name="a"].tags[="t"]']);
  });

  it('collapses ownership inside what the schema now makes atomic, and leaves a fitting set alone', () => {
    const old = fromFieldsV1({ 'f:list': { 'i:0': {} }, 'f:atomicMap': { 'f:k': {} }, 'f:m': { 'f:k': {} } });
    const nowAtomic = reconcileWithSchema(old, schemaOf({ type: 'object', properties: { list: { type: 'array', items: str }, atomicMap: structs.topology.kind === 'map' ? { type: 'object', additionalProperties: str, 'x-kubernetes-map-type': 'atomic' } : {}, m: { type: 'object', additionalProperties: str } } }).topology);
    expect(nowAtomic?.paths().map(pathText)).toEqual(['.atomicMap', '.list', '.m.k']);
    expect(reconcileWithSchema(FieldSet.of([f('a')]), structs.topology)).toBeUndefined();
  });
});
