import { describe, expect, it } from 'vitest';
import { readdirSync } from 'node:fs';
import { apiVersion, ruleModules, rulesFor } from '../rules/index.js';
import type { KindRules } from '../src/engine/rule.js';

const moduleFiles = readdirSync(new URL('../rules/', import.meta.url)).filter((f) => f.endsWith('.ts') && f !== 'index.ts' && f !== 'types.ts');

describe('the registry', () => {
  it('holds every rule module, with each field the module defines', async () => {
    expect(ruleModules).toHaveLength(moduleFiles.length);
    for (const file of moduleFiles) {
      const { rules } = (await import(`../rules/${file}`)) as { rules: KindRules };
      const registered = rulesFor(rules.kind)!;
      for (const [field, value] of Object.entries(rules)) expect([rules.kind, field, registered[field as keyof KindRules]]).toEqual([rules.kind, field, value]);
    }
  });

  it('gives every kind the same object shape, so reading a field stays one map check', () => {
    expect(new Set(ruleModules.map((r) => Object.keys(r).join()))).toHaveProperty('size', 1);
  });

  it("gives a kind's apiVersion under the group domain asked for", () => {
    const custom = { ...rulesFor('Cluster')!, group: 'test', version: 'v9' };
    expect(apiVersion(custom)).toBe('test.karmada.io/v9');
    expect(apiVersion(custom, 'example.com')).toBe('test.example.com/v9');
    expect(apiVersion(custom)).toBe('test.karmada.io/v9');
  });
});
