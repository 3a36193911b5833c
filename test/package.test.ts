import { describe, expect, it } from 'vitest';
import { createRequire } from 'node:module';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { KUBE_CLIENT_RANGE } from '../src/server/kube.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const built = existsSync(join(root, 'dist/src/index.js'));

describe.skipIf(!built)('the published package (after npm run build)', () => {
  it('loads by name from CommonJS too, as a TypeScript CommonJS project compiles it', () => {
    // Self-reference through package.json "exports", the way an installed copy resolves.
    const fleetgate = createRequire(join(root, 'package.json'))('fleetgate') as typeof import('../src/index.js');
    const result = fleetgate.validate({ apiVersion: 'cluster.karmada.io/v1alpha1', kind: 'Cluster', metadata: { name: 'm' }, spec: { syncMode: 'Sideways' } });
    expect(result.causes.map((c) => c.field)).toEqual(['spec.syncMode']);
  });

  it('leaves the bin executable after every build, so `npx fleetgate` works in the checkout', () => {
    // tsc writes dist/src/cli/bin.js anew (mode 0644) on each build; npm made it executable only at install.
    expect(statSync(join(root, 'dist/src/cli/bin.js')).mode & 0o111).toBe(0o111);
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

describe('package.json', () => {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));

  it('builds on every path a consumer installs by: prepare runs for git dependencies, npm pack and publish', () => {
    // npm runs `prepack` only for pack and publish; a git dependency gets `prepare` alone.
    expect(pkg.scripts.prepare).toBe('npm run build');
    expect(pkg.scripts.prepack).toBeUndefined();
  });

  it('makes the Kubernetes client an optional peer, asked for in the words of the serve error', () => {
    expect(pkg.dependencies['@kubernetes/client-node']).toBeUndefined();
    expect(pkg.peerDependencies['@kubernetes/client-node']).toBe(KUBE_CLIENT_RANGE);
    expect(pkg.peerDependenciesMeta['@kubernetes/client-node']).toEqual({ optional: true });
    expect(pkg.devDependencies['@kubernetes/client-node']).toBe(KUBE_CLIENT_RANGE);
  });
});
