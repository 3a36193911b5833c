import { describe, expect, it } from 'vitest';
import { checkUnique, fingerprint } from '../../rules/_shared/checks.js';
import { duplicate } from '../../src/engine/field.js';
import type { RuleContext } from '../../src/engine/rule.js';
import { validate } from '../../src/index.js';
import { changed, Duplicate, expectCauses, Forbidden, Invalid, Required, type Case } from '../helpers.js';
import { cluster } from '../fixtures/cluster.js';
import { policy } from '../fixtures/clustertaintpolicy.js';

const duplicatesIn = (keys: unknown[]) => {
  const ctx = { causes: [] } as unknown as RuleContext;
  checkUnique(ctx, keys, (k) => k, (k, i) => duplicate(`list[${i}]`, k));
  return ctx.causes.map((c) => c.field);
};

describe('checkUnique', () => {
  it('reports each repeated key at the later item, in short and in long lists alike', () => {
    expect(duplicatesIn(['a', 'b', 'a', 'a'])).toEqual(['list[2]', 'list[3]']);
    const long = Array.from({ length: 40 }, (_, i) => `k${i % 30}`);
    expect(duplicatesIn(long)).toEqual(Array.from({ length: 10 }, (_, i) => `list[${30 + i}]`));
  });

  it('compares compound keys element by element, in short and in long lists alike', () => {
    expect(duplicatesIn([['a', 'b'], ['ab'], ['a', 'b', ''], ['a', 'b'], ['a', 'c'], ['a', 'b']])).toEqual(['list[3]', 'list[5]']);
    expect(duplicatesIn([['a', 'b'], 'a,b', ['a', 'b']])).toEqual(['list[2]']);
    const long = Array.from({ length: 20 }, (_, i) => ['v1', `k${i % 18}`]);
    expect(duplicatesIn(long)).toEqual(['list[18]', 'list[19]']);
  });

  it('tells a string from a number with the same text, and ignores absent keys', () => {
    expect(duplicatesIn(['1', 1, '', '', null, null, undefined, undefined])).toEqual([]);
    expect(duplicatesIn([{ a: 1 }, { a: 1 }])).toEqual(['list[1]']);
    expect(duplicatesIn([true, 'true', true])).toEqual(['list[2]']);
    const objects = Array.from({ length: 20 }, (_, i) => ({ n: i % 18 }));
    expect(duplicatesIn(objects)).toEqual(['list[18]', 'list[19]']);
    expect(duplicatesIn(Array.from({ length: 20 }, (_, i) => (i < 10 ? String(i) : i - 10)))).toEqual([]);
  });

  it('tells numbers apart that have the same JSON', () => {
    expect(duplicatesIn([Infinity, NaN, -Infinity])).toEqual([]);
    expect(duplicatesIn([NaN, NaN])).toEqual(['list[1]']);
  });

  it('compares a compound key that holds more than strings by its JSON', () => {
    expect(duplicatesIn([['a', { n: 1 }], ['a', { n: 1 }], ['a', { n: 2 }]])).toEqual(['list[1]']);
  });

  it('never reports a key seen once, whatever its text', () => {
    expect(duplicatesIn(['Stryker was here', 'x'])).toEqual([]);
  });
});

describe('fingerprint', () => {
  it('does not depend on key order', () => {
    const a = { scheduleTime: 't1', executionTime: 't2', appliedMinReplicas: 1, appliedMaxReplicas: 9 };
    const b = { appliedMaxReplicas: 9, appliedMinReplicas: 1, executionTime: 't2', scheduleTime: 't1' };
    expect(fingerprint(b)).toBe(fingerprint(a));
    expect(fingerprint({ ...a, appliedMaxReplicas: 8 })).not.toBe(fingerprint(a));
  });
});

describe('label selectors, cluster affinity and taints (through ClusterTaintPolicy and Cluster)', () => {
  const selector = (edit: (s: any) => void) => (o: any) => edit(o.spec.targetClusters.labelSelector);
  const at = 'spec.targetClusters.labelSelector';
  const cases: Case[] = [
    { name: 'In without values', edit: selector((s) => (s.matchExpressions[0].values = [])), want: [Required(`${at}.matchExpressions[0].values`)] },
    { name: 'Exists with values', edit: selector((s) => (s.matchExpressions[1].values = ['yes'])), want: [Forbidden(`${at}.matchExpressions[1].values`)] },
    { name: 'DoesNotExist with values', edit: selector((s) => (s.matchExpressions[1] = { key: 'managed', operator: 'DoesNotExist', values: ['yes'] })), want: [Forbidden(`${at}.matchExpressions[1].values`)] },
    { name: 'DoesNotExist without values', edit: selector((s) => (s.matchExpressions[1] = { key: 'managed', operator: 'DoesNotExist' })), want: [] },
    { name: 'a label value that is not a string is blamed once', edit: selector((s) => (s.matchLabels.env = -1)), want: [Invalid(`${at}.matchLabels[env]`)] },
    {
      name: 'a null label value is no label, and the expression checks still run',
      edit: selector((s) => {
        s.matchLabels.env = null;
        s.matchExpressions[1].values = ['yes'];
      }),
      want: [Forbidden(`${at}.matchExpressions[1].values`)],
    },
    {
      name: 'taints without a key are not duplicates of each other',
      edit: (o) => {
        delete o.spec.taints[0].key;
        delete o.spec.taints[1].key;
        o.spec.taints[1].effect = 'NoSchedule';
      },
      want: [Required('spec.taints[0].key'), Required('spec.taints[1].key')],
    },
    {
      name: 'taints without an effect are not duplicates of each other',
      edit: (o) => {
        delete o.spec.taints[0].effect;
        delete o.spec.taints[1].effect;
      },
      want: [Required('spec.taints[0].effect'), Required('spec.taints[1].effect')],
    },
  ];

  it.each(cases)('$name', ({ edit, want, options }) => {
    expectCauses(changed(policy, edit), want, options);
  });

  it('words the selector causes as Kubernetes does', () => {
    const messages = (edit: (s: any) => void) => validate(changed(policy, selector(edit))).causes.map((c) => c.message);
    expect(messages((s) => (s.matchExpressions[0].values = []))).toEqual(["Required value: must be specified when `operator` is 'In' or 'NotIn'"]);
    expect(messages((s) => (s.matchExpressions[1] = { key: 'managed', operator: 'DoesNotExist', values: ['yes'] }))).toEqual([
      "Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
    ]);
  });

  it('names the duplicate taint by key and effect, as Karmada does', () => {
    const result = expectCauses(
      changed(cluster, (o) => o.spec.taints.push({ key: 'cluster.karmada.io/not-ready', effect: 'NoSchedule' })),
      [Duplicate('spec.taints[3]')],
    );
    expect(result.causes[0]!.message).toBe('Duplicate value: {"key":"cluster.karmada.io/not-ready","effect":"NoSchedule"}: taints must be unique by key and effect pair');
  });
});
