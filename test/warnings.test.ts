import { describe, expect, it } from 'vitest';
import { validate, MAX_WARNINGS, type ValidationResult } from '../src/index.js';
import { cluster } from './fixtures/cluster.js';
import { cronDeployment } from './fixtures/cronfederatedhpa.js';
import { ingress } from './fixtures/multiclusteringress.js';
import { mcs } from './fixtures/multiclusterservice.js';
import { config } from './fixtures/resourceinterpreterwebhookconfiguration.js';
import { ric } from './fixtures/resourceinterpretercustomization.js';
import { examples } from './fixtures/index.js';
import { changed } from './helpers.js';

/** Each warning's field and the start of its text. */
const placed = (result: ValidationResult) => result.warningDetails.map((w) => [w.field, w.message]);

describe('warnings name the field they are about', () => {
  it('list the same texts, in the same order, as `warnings`', () => {
    for (const example of examples) {
      const result = validate(changed(example, (o) => ((o.spec ?? o).bogus = 1)));
      expect(result.warningDetails.map((w) => w.message)).toEqual(result.warnings);
      expect(result.warningDetails.some((w) => w.field.endsWith('bogus'))).toBe(true);
    }
  });

  it('an unknown field, a deprecated field and a repeat: the field itself', () => {
    const result = validate(changed(cluster, (o) => {
      o.spec.bogus = 1;
      o.spec.zones = ['a', 'a'];
      o.spec.zone = 'a';
      o.metadata.namespace = 'default';
    }));
    expect(placed(result)).toEqual([
      ['metadata.namespace', expect.stringMatching(/^metadata\.namespace: ignored: /)],
      ['spec.zones[1]', 'spec.zones[1]: zone "a" is already listed at spec.zones[0]'],
      ['spec.bogus', 'unknown field "spec.bogus"'],
      ['spec.zone', 'spec.zone is deprecated and never used; use spec.zones'],
    ]);
  });

  it('rules of other kinds: the annotation, the deprecated list, the schedule, the rule without replicas, the ignored url', () => {
    const annotated = validate(changed(ingress, (o) => (o.metadata.annotations = { 'kubernetes.io/ingress.class': 'other' })));
    expect(placed(annotated).map(([field]) => field)).toEqual(['metadata.annotations[kubernetes.io/ingress.class]', 'metadata.annotations[kubernetes.io/ingress.class]']);
    expect(placed(validate(changed(mcs, (o) => (o.spec.range = { providerClusters: ['m1'] }))))).toContainEqual(['spec.range', expect.stringMatching(/^spec\.range is deprecated/)]);
    const cron = validate(changed(cronDeployment, (o) => {
      o.spec.rules[0].schedule = '@every 500ms';
      delete o.spec.rules[1].targetReplicas;
    }));
    expect(placed(cron).map(([field]) => field)).toEqual(['spec.rules[0].schedule', 'spec.rules[1]']);
    const both = validate(changed(config, (o) => (o.webhooks[0].clientConfig.service = { namespace: 'a', name: 'b' })), { lookups: { getService: () => undefined } }) as ValidationResult;
    expect(placed(both)).toContainEqual(['webhooks[0].clientConfig.url', expect.stringMatching(/^webhooks\[0\]\.clientConfig: url is ignored/)]);
  });

  it('an update: the value kept as stored, and a changed cluster ID', () => {
    const stored = changed(cluster, (o) => (o.spec.region = 5));
    const kept = validate(changed(stored, (o) => (o.metadata.labels = { team: 'sre' })), { operation: 'UPDATE', oldObject: stored });
    expect(placed(kept)).toEqual([['spec.region', expect.stringMatching(/^spec\.region: Invalid value: 5: .*\(as stored/)]]);
    const renumbered = validate(changed(cluster, (o) => (o.spec.id = 'another')), { operation: 'UPDATE', oldObject: cluster });
    expect(placed(renumbered)).toEqual([['spec.id', expect.stringMatching(/^spec\.id changed/)]]);
  });

  it('about how the object was checked: no field', () => {
    expect(placed(validate(ric))).toEqual([['', 'conflicts with other ResourceInterpreterCustomizations not checked: no lookups were supplied']]);
    expect(placed(validate(cluster, { operation: 'UPDATE' }))).toEqual([['', expect.stringMatching(/^update rules \(immutable fields\) not checked/)]]);
    expect(placed(validate(cluster, { operation: 'UPDATE', oldObject: cluster, subResource: 'scale' }))).toEqual([['', expect.stringMatching(/^subresource "scale" not judged/)]]);
  });

  it('a repeated text once, with the field of its first; past the bound, a last one that says so', () => {
    const twice = validate(changed(cluster, (o) => (o.spec.zones = ['a', 'a', 'a'])));
    expect(placed(twice)).toEqual([
      ['spec.zones[1]', 'spec.zones[1]: zone "a" is already listed at spec.zones[0]'],
      ['spec.zones[2]', 'spec.zones[2]: zone "a" is already listed at spec.zones[0]'],
    ]);
    const many = validate(changed(cluster, (o) => (o.spec.zones = Array.from({ length: MAX_WARNINGS + 5 }, () => 'a'))));
    expect(many.warningDetails).toHaveLength(MAX_WARNINGS + 1);
    expect(many.warningDetails.at(-1)).toEqual({ field: '', message: many.warnings.at(-1) });
    expect(many.warningDetails[0]).toEqual({ field: 'spec.zones[1]', message: many.warnings[0] });
  });
});
