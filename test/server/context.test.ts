import { describe, expect, it } from 'vitest';
import { staticLookups } from '../../src/lookups/static.js';

const ric = (apiVersion: string, name: string) => ({ apiVersion, kind: 'ResourceInterpreterCustomization', metadata: { name }, spec: {} });

describe('staticLookups', () => {
  it("counts customizations in the configured group only, or in any group domain's config group when none is given", () => {
    const objects = [ric('config.karmada.io/v1alpha1', 'ours'), ric('config.example.org/v1alpha1', 'other-domain'), ric('notkarmada.example.com/v9', 'foreign')];
    const names = (groupDomain?: string) => (staticLookups(objects, groupDomain).listResourceInterpreterCustomizations!() as { metadata: { name: string } }[]).map((o) => o.metadata.name);
    expect(names('karmada.io')).toEqual(['ours']);
    expect(names('example.org')).toEqual(['other-domain']);
    expect(names()).toEqual(['ours', 'other-domain']);
  });

  it('answers Services of apiVersion v1 by namespace and name', () => {
    const lookups = staticLookups([{ apiVersion: 'v1', kind: 'Service', metadata: { name: 'hl', namespace: 'ns' }, spec: { clusterIP: 'None' } }]);
    expect(lookups.getService!('ns', 'hl')).toMatchObject({ spec: { clusterIP: 'None' } });
    expect(lookups.getService!('ns', 'other')).toBeUndefined();
  });
});
