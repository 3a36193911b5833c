import { describe, expect, it, vi } from 'vitest';
import { examples } from '../fixtures/index.js';
import { changed } from '../helpers.js';

const lookups = vi.hoisted(() => ({ kinds: [] as unknown[] }));

vi.mock('../../rules/index.js', async (importOriginal) => {
  const registry = await importOriginal<typeof import('../../rules/index.js')>();
  return {
    ...registry,
    rulesFor: (kind: unknown) => {
      lookups.kinds.push(kind);
      return registry.rulesFor(kind);
    },
  };
});

const { runCase } = await import('../../src/cli/test-run.js');

describe('a policy-test case', () => {
  it('looks its kind up once, for validation and defaulting alike', async () => {
    const cluster = changed(examples.find((e) => e.kind === 'Cluster')!, (o) => (o.spec.syncMode = 'Sometimes'));
    lookups.kinds.length = 0;
    const outcome = await runCase(
      { file: 'suite.yaml', cases: [] },
      { name: 'both', line: 1, object: cluster, operation: 'CREATE', expect: { allowed: false, causes: [{ field: 'spec.syncMode', type: 'FieldValueNotSupported' }], defaults: [] } },
    );
    expect(lookups.kinds).toEqual(['Cluster']);
    // What it answers is what validate() and applyDefaults() answer.
    expect(outcome.actual.causes?.map((c) => [c.field, c.message])).toEqual([['spec.syncMode', 'Unsupported value: "Sometimes": supported values: "Push", "Pull"']]);
    expect(outcome.actual.defaults).toEqual(expect.any(Array));
  });

  it('of a kind fleetgate does not serve is refused as validate() refuses it, after one lookup', async () => {
    lookups.kinds.length = 0;
    const outcome = await runCase(
      { file: 'suite.yaml', cases: [] },
      { name: 'pod', line: 1, object: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' } }, operation: 'CREATE', expect: { allowed: false, defaults: [] } },
    );
    expect(lookups.kinds).toEqual(['Pod']);
    expect(outcome.actual.causes?.map((c) => [c.type, c.field])).toEqual([['FieldValueNotSupported', 'kind']]);
    expect(outcome.actual.defaults).toEqual([]);
  });
});
