import { describe, expect, it, vi } from 'vitest';
import { validate, type ValidationResult } from '../../src/index.js';
import { CUSTOMIZATION_FUNCTIONS } from '../../rules/resourceinterpretercustomization.js';
import { causesOf, changed, expectCauses, Forbidden, Invalid, NotSupported, Required, type Case } from '../helpers.js';

import { retention, replicaResource, statusAggregation, healthInterpretation, dependencyInterpretation, ric } from '../fixtures/resourceinterpretercustomization.js';

const NOT_CHECKED = 'conflicts with other ResourceInterpreterCustomizations not checked: no lookups were supplied';
const script = (member: string) => `spec.customizations.${member}.luaScript`;
const members = Object.keys(CUSTOMIZATION_FUNCTIONS) as (keyof typeof CUSTOMIZATION_FUNCTIONS)[];

const setRetention = (luaScript: string) => (o: any) => (o.spec.customizations.retention.luaScript = luaScript);

describe('ResourceInterpreterCustomization', () => {
  it('accepts a realistic customization of apps/v1 Deployment', () => {
    const result = expectCauses(ric, []);
    // The only warning: the conflict check needs the other customizations.
    expect(result.warnings).toEqual([NOT_CHECKED]);
  });

  const cases: Case[] = [
    // metadata
    { name: 'name not a DNS subdomain', edit: (o) => (o.metadata.name = 'Deployment_Rules'), want: [Invalid('metadata.name')] },
    // spec and target
    { name: 'spec missing', edit: (o) => delete o.spec, want: [Required('spec')] },
    { name: 'target missing', edit: (o) => delete o.spec.target, want: [Required('spec.target')] },
    { name: 'target apiVersion missing', edit: (o) => delete o.spec.target.apiVersion, want: [Required('spec.target.apiVersion')] },
    { name: 'target apiVersion empty', edit: (o) => (o.spec.target.apiVersion = ''), want: [Required('spec.target.apiVersion')] },
    { name: 'target apiVersion with three parts', edit: (o) => (o.spec.target.apiVersion = 'apps/v1/deployments'), want: [Invalid('spec.target.apiVersion')] },
    { name: 'target apiVersion with an empty group', edit: (o) => (o.spec.target.apiVersion = '/v1'), want: [Invalid('spec.target.apiVersion')] },
    { name: 'target apiVersion of the core group', edit: (o) => Object.assign(o.spec.target, { apiVersion: 'v1', kind: 'Pod' }), want: [] },
    { name: 'target apiVersion of a custom group', edit: (o) => Object.assign(o.spec.target, { apiVersion: 'workload.example.io/v1alpha1', kind: 'Workload' }), want: [] },
    { name: 'target kind missing', edit: (o) => delete o.spec.target.kind, want: [Required('spec.target.kind')] },
    { name: 'target kind empty', edit: (o) => (o.spec.target.kind = ''), want: [Required('spec.target.kind')] },
    { name: 'target kind with a slash', edit: (o) => (o.spec.target.kind = 'apps/Deployment'), want: [Invalid('spec.target.kind')] },
    { name: 'target kind not a string', edit: (o) => (o.spec.target.kind = 3), want: [Invalid('spec.target.kind')] },
    // customizations
    { name: 'customizations missing', edit: (o) => delete o.spec.customizations, want: [Required('spec.customizations')] },
    { name: 'customizations empty', edit: (o) => (o.spec.customizations = {}), want: [] },
    { name: 'member without luaScript', edit: (o) => (o.spec.customizations.retention = {}), want: [Required(script('retention'))] },
    { name: 'member with an empty luaScript', edit: (o) => (o.spec.customizations.healthInterpretation.luaScript = ''), want: [Required(script('healthInterpretation'))] },
    { name: 'luaScript not a string', edit: (o) => (o.spec.customizations.retention.luaScript = 42), want: [Invalid(script('retention'))] },
    { name: 'member not an object', edit: (o) => (o.spec.customizations.retention = retention), want: [Invalid('spec.customizations.retention')] },
    {
      name: 'componentResource (Karmada member) with GetComponents',
      edit: (o) => (o.spec.customizations.componentResource = { luaScript: 'function GetComponents(desiredObj)\n  return {}\nend' }),
      want: [],
    },
    // Lua scripts: parsed, never executed
    { name: 'syntax error', edit: setRetention('function Retain(desiredObj, observedObj)\n  return desiredObj +\nend'), want: [Invalid(script('retention'))] },
    { name: 'unterminated function', edit: setRetention('function Retain(desiredObj, observedObj)\n  return desiredObj'), want: [Invalid(script('retention'))] },
    { name: 'a #! first line (gopher-lua loads scripts as strings and does not skip it)', edit: setRetention('#!/usr/bin/lua\nfunction Retain(desiredObj, observedObj)\n  return desiredObj\nend'), want: [Invalid(script('retention'))] },
    { name: 'the length operator #', edit: setRetention('function Retain(desiredObj, observedObj)\n  if #observedObj.spec.template.spec.containers > 0 then return observedObj end\n  return desiredObj\nend'), want: [] },
    { name: 'function missing', edit: setRetention('x = 1'), want: [Invalid(script('retention'))] },
    { name: 'function under another name', edit: setRetention('function Retention(desiredObj, observedObj)\n  return desiredObj\nend'), want: [Invalid(script('retention'))] },
    { name: 'too few parameters', edit: setRetention('function Retain(desiredObj)\n  return desiredObj\nend'), want: [Invalid(script('retention'))] },
    { name: 'too many parameters', edit: setRetention('function Retain(a, b, c)\n  return a\nend'), want: [Invalid(script('retention'))] },
    { name: 'local function is not visible to the interpreter', edit: setRetention('local function Retain(desiredObj, observedObj)\n  return desiredObj\nend'), want: [Invalid(script('retention'))] },
    { name: 'function assigned to the global name', edit: setRetention('Retain = function(desiredObj, observedObj)\n  return desiredObj\nend'), want: [] },
    { name: 'variadic function', edit: setRetention('function Retain(...)\n  local desiredObj = ...\n  return desiredObj\nend'), want: [] },
    {
      name: 'goto is accepted (gopher-lua supports it)',
      edit: setRetention(
        'function Retain(desiredObj, observedObj)\n  for i = 1, 3 do\n    if i == 2 then goto continue end\n    desiredObj.spec.replicas = i\n    ::continue::\n  end\n  return desiredObj\nend',
      ),
      want: [],
    },
    {
      name: 'helper functions beside the entry point',
      edit: setRetention('local function keep(d, o, f)\n  d.spec[f] = o.spec[f]\nend\nfunction Retain(desiredObj, observedObj)\n  keep(desiredObj, observedObj, "paused")\n  return desiredObj\nend'),
      want: [],
    },
    {
      name: 'one cause per bad script',
      edit: (o) => {
        o.spec.customizations.retention.luaScript = 'function Retain(d, o) return d';
        o.spec.customizations.replicaRevision.luaScript = 'function ReviseReplica(obj) return obj end';
      },
      want: [Invalid(script('retention')), Invalid(script('replicaRevision'))],
    },
    // every member expects its own function
    ...members.map(
      (member): Case => ({
        name: `${member} must define ${CUSTOMIZATION_FUNCTIONS[member].name}`,
        edit: (o) => (o.spec.customizations[member] = { luaScript: 'function Interpret(obj)\n  return obj\nend' }),
        want: [Invalid(script(member))],
      }),
    ),
    ...members.map(
      (member): Case => ({
        name: `${member} with ${CUSTOMIZATION_FUNCTIONS[member].name}(${CUSTOMIZATION_FUNCTIONS[member].params.join(', ')})`,
        edit: (o) => {
          const fn = CUSTOMIZATION_FUNCTIONS[member];
          o.spec.customizations[member] = { luaScript: `function ${fn.name}(${fn.params.join(', ')})\n  return ${fn.params[0]}\nend` };
        },
        want: [],
      }),
    ),
    // status: content not shown by the spec
    { name: 'status content is free', edit: (o) => (o.status = { anything: true }), want: [] },
  ];

  it.each(cases)('$name', ({ edit, want, options }) => {
    expectCauses(changed(ric, edit), want, options);
  });

  it('points at the line and column of a syntax error', () => {
    const bad = changed(ric, setRetention('function Retain(desiredObj, observedObj)\n  return desiredObj +\nend'));
    const [cause] = validate(bad).causes;
    expect(cause!.field).toBe(script('retention'));
    expect(cause!.message).toMatch(/Lua syntax error at line 3, column 1: /);
    const shebang = changed(ric, setRetention('#!/usr/bin/lua\nfunction Retain(desiredObj, observedObj)\n  return desiredObj\nend'));
    expect(validate(shebang).causes).toEqual([
      expect.objectContaining({ type: 'FieldValueInvalid', field: script('retention'), message: expect.stringMatching(/Lua syntax error at line 1, column 1: unexpected symbol '#'/) }),
    ]);
  });

  it('names the function and parameters the script must define', () => {
    const missing = validate(changed(ric, setRetention('x = 1'))).causes[0]!;
    expect(missing.message).toContain('the script must define the global function Retain(desiredObj, observedObj)');
    const arity = validate(changed(ric, setRetention('function Retain(d)\n  return d\nend'))).causes[0]!;
    expect(arity.message).toContain('function Retain must take 2 parameters: Retain(desiredObj, observedObj)');
  });

  it('reports unknown members as warnings, or as errors when strict', () => {
    const extra = changed(ric, (o) => (o.spec.customizations.pruning = { luaScript: 'function Prune(o) return o end' }));
    expect(validate(extra).warnings).toEqual(expect.arrayContaining(['unknown field "spec.customizations.pruning"']));
    expectCauses(extra, [Forbidden('spec.customizations.pruning')], { strict: true });
  });

  it('has no immutable fields on UPDATE', () => {
    const retargeted = changed(ric, (o) => (o.spec.target = { apiVersion: 'apps/v1', kind: 'StatefulSet' }));
    expectCauses(retargeted, [], { operation: 'UPDATE', oldObject: ric });
  });

  it('validates only metadata and status on the status subresource', () => {
    const statusWrite = changed(ric, (o) => {
      o.spec.customizations.retention.luaScript = 'not lua at all (';
      o.status = [];
    });
    const result = expectCauses(statusWrite, [Invalid('status')], { operation: 'UPDATE', subResource: 'status', oldObject: ric });
    expect(result.warnings).toEqual([]);
  });

  it('checks apiVersion against the group domain', () => {
    expectCauses(ric, [NotSupported('apiVersion')], { groupDomain: 'example.org' });
  });
});

describe('ResourceInterpreterCustomization context rule (conflicting customizations)', () => {
  const other = (name: string, target: { apiVersion: string; kind: string }, customizations: Record<string, { luaScript: string }>) => ({
    apiVersion: 'config.karmada.io/v1alpha1',
    kind: 'ResourceInterpreterCustomization',
    metadata: { name },
    spec: { target, customizations },
  });
  const deployment = { apiVersion: 'apps/v1', kind: 'Deployment' };

  const check = (existing: unknown[], object: unknown = ric): ValidationResult => {
    const result = validate(object, { lookups: { listResourceInterpreterCustomizations: () => existing } });
    expect(result).not.toBeInstanceOf(Promise);
    return result as ValidationResult;
  };

  it('denies a member another customization of the same target already sets', () => {
    const result = check([other('deployment-retain', deployment, { retention: { luaScript: retention } })]);
    expect(causesOf(result)).toEqual([Forbidden('spec.customizations.retention')]);
    expect(result.causes[0]!.message).toBe(
      'Forbidden: conflicts with ResourceInterpreterCustomization "deployment-retain" which already sets retention for apps/v1, Kind=Deployment; only one customization may set retention for a resource type',
    );
    expect(result.warnings).toEqual([]);
  });

  it('reports every conflicting member and every rival, but never dependencyInterpretation', () => {
    const result = check([
      other('a', deployment, {
        retention: { luaScript: retention },
        replicaResource: { luaScript: replicaResource },
        dependencyInterpretation: { luaScript: dependencyInterpretation },
      }),
      other('b', deployment, { retention: { luaScript: retention }, healthInterpretation: { luaScript: healthInterpretation } }),
    ]);
    expect(causesOf(result)).toEqual([
      Forbidden('spec.customizations.healthInterpretation'),
      Forbidden('spec.customizations.replicaResource'),
      Forbidden('spec.customizations.retention'),
      Forbidden('spec.customizations.retention'),
    ]);
    expect(result.causes.map((c) => c.message)).toEqual(
      expect.arrayContaining([expect.stringContaining('"a" which already sets retention'), expect.stringContaining('"b" which already sets retention')]),
    );
  });

  it('checks componentResource as well (Karmada member)', () => {
    const withComponents = changed(ric, (o) => (o.spec.customizations = { componentResource: { luaScript: 'function GetComponents(d) return {} end' } }));
    const result = check([other('a', deployment, { componentResource: { luaScript: 'function GetComponents(d) return {} end' } })], withComponents);
    expect(causesOf(result)).toEqual([Forbidden('spec.customizations.componentResource')]);
  });

  it.each([
    ['itself (UPDATE)', other('declarative-configuration-deployment', deployment, { retention: { luaScript: retention } })],
    ['another apiVersion', other('a', { apiVersion: 'apps/v1beta2', kind: 'Deployment' }, { retention: { luaScript: retention } })],
    ['another kind', other('a', { apiVersion: 'apps/v1', kind: 'StatefulSet' }, { retention: { luaScript: retention } })],
    ['a kind differing in case only', other('a', { apiVersion: 'apps/v1', kind: 'deployment' }, { retention: { luaScript: retention } })],
    ['only dependencyInterpretation', other('a', deployment, { dependencyInterpretation: { luaScript: dependencyInterpretation } })],
    ['a member with an empty script', other('a', deployment, { retention: { luaScript: '' } })],
    ['a member this one does not set', other('a', deployment, { componentResource: { luaScript: 'function GetComponents(d) return {} end' } })],
  ])('allows a customization beside %s', (_name, existing) => {
    expect(check([existing]).causes).toEqual([]);
  });

  it.each([
    ['an empty target apiVersion', { apiVersion: '', kind: 'Deployment' }, 'spec.target.apiVersion'],
    ['no target apiVersion', { kind: 'Deployment' }, 'spec.target.apiVersion'],
    ['an empty target kind', { apiVersion: 'apps/v1', kind: '' }, 'spec.target.kind'],
  ])('denies a customization with %s for that alone, without looking for conflicts', (_name, target, field) => {
    const incomplete = changed(ric, (o) => (o.spec.target = target));
    expect(validate(incomplete).warnings).toEqual([]);
    // A rival stored with the same incomplete target (Karmada lets empty strings through).
    const list = vi.fn(() => [other('a', target as { apiVersion: string; kind: string }, { retention: { luaScript: retention } })]);
    expect(causesOf(validate(incomplete, { lookups: { listResourceInterpreterCustomizations: list } }) as ValidationResult)).toEqual([Required(field)]);
    expect(list).not.toHaveBeenCalled();
  });

  it('ignores malformed listed objects', () => {
    const result = check([null, 'x', {}, { metadata: { name: 'a' } }, { metadata: { name: 'b' }, spec: { target: deployment, customizations: 'all' } }]);
    expect(result.causes).toEqual([]);
  });

  it('waits for an asynchronous listing', async () => {
    const pending = validate(ric, {
      lookups: { listResourceInterpreterCustomizations: async () => [other('a', deployment, { statusAggregation: { luaScript: statusAggregation } })] },
    });
    expect(pending).toBeInstanceOf(Promise);
    const result = await pending;
    expect(causesOf(result)).toEqual([Forbidden('spec.customizations.statusAggregation')]);
    expect(result.allowed).toBe(false);
    const allowed = await validate(ric, { lookups: { listResourceInterpreterCustomizations: async () => [] } });
    expect(allowed.allowed).toBe(true);
  });

  it('adds conflicts to the other causes', () => {
    const bad = changed(ric, setRetention('x = 1'));
    const result = check([other('a', deployment, { retention: { luaScript: retention } })], bad);
    expect(causesOf(result)).toEqual([Forbidden('spec.customizations.retention'), Invalid(script('retention'))]);
  });

  it('accepts lookups without the listing, and says the rule was skipped', () => {
    const result = validate(ric, { lookups: {} }) as ValidationResult;
    expect(result.causes).toEqual([]);
    expect(result.warnings).toEqual(['conflicts with other ResourceInterpreterCustomizations not checked: the lookups have no listResourceInterpreterCustomizations']);
  });

  it('takes any thenable as an asynchronous answer, not only this realm\'s Promise', async () => {
    const rival = [other('a', deployment, { retention: { luaScript: retention } })];
    const thenable = { then: (done: (v: unknown) => void) => done(rival) };
    const result = await validate(ric, { lookups: { listResourceInterpreterCustomizations: () => thenable as never } });
    expect(causesOf(result)).toContainEqual(Forbidden('spec.customizations.retention'));
  });

  // Relies on the engine consulting KindRules.lookupsApply.
  it('skips the conflict check when only dependencies are customized', () => {
    const dependenciesOnly = changed(ric, (o) => (o.spec.customizations = { dependencyInterpretation: { luaScript: dependencyInterpretation } }));
    expect(validate(dependenciesOnly).warnings).toEqual([]);
    const list = vi.fn(() => [other('a', deployment, { dependencyInterpretation: { luaScript: dependencyInterpretation } })]);
    expect((validate(dependenciesOnly, { lookups: { listResourceInterpreterCustomizations: list } }) as ValidationResult).causes).toEqual([]);
    expect(list).not.toHaveBeenCalled();
    expect(validate(ric).warnings).toEqual([NOT_CHECKED]);
  });
});
