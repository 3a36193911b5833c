import { describe, expect, it } from 'vitest';
import { createRequire } from 'node:module';
import { existsSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const built = existsSync(join(root, 'dist/src/index.js'));

describe.skipIf(!built)('the published package (after npm run build)', () => {
  it('loads by name from CommonJS too, as a TypeScript CommonJS project compiles it', () => {
    // Self-reference through package.json "exports", the way an installed copy resolves.
    const fleetgate = createRequire(join(root, 'package.json'))('fleetgate') as typeof import('../src/index.js');
    const result = fleetgate.validate({ apiVersion: 'cluster.karmada.io/v1alpha1', kind: 'Cluster', metadata: { name: 'm' }, spec: { syncMode: 'Sideways' } });
    expect(result.causes.map((c) => c.field)).toEqual(['spec.syncMode']);
  });

  it('ships no built file whose source is gone', () => {
    const stale: string[] = [];
    const walk = (dir: string) => {
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        const path = join(dir, entry.name);
        if (entry.isDirectory()) walk(path);
        else if (entry.name.endsWith('.js') && !existsSync(join(root, relative(join(root, 'dist'), path)).replace(/\.js$/, '.ts'))) stale.push(path);
      }
    };
    for (const dir of ['dist/src', 'dist/rules']) walk(join(root, dir));
    expect(stale).toEqual([]);
  });
});
