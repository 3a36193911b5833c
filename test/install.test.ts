/**
 * The package as a consumer installs it: from the tarball `npm pack` makes (the shape the
 * registry serves) and from a git dependency (which npm builds through the `prepare` script).
 * Each consumer is a fresh project in a temporary directory; dependencies come from npm's cache
 * where it holds them (--prefer-offline), so only package metadata not yet cached is fetched.
 *
 * Slow by nature (npm installs, a git clone that builds itself): one tarball serves every
 * tarball check, and the timeouts are hang guards sized for a busy machine.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const built = existsSync(join(root, 'dist/src/index.js'));
const tsc = join(root, 'node_modules/typescript/bin/tsc');
const MINUTE = 60_000;

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a command to its end, never throwing: the caller judges the exit status. */
function run(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = {}): Promise<Run> {
  return new Promise((done) => {
    execFile(command, args, { cwd, env: { ...process.env, ...env }, maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) => {
      const code = err ? (typeof (err as { code?: unknown }).code === 'number' ? (err as { code: number }).code : 1) : 0;
      done({ code, stdout, stderr });
    });
  });
}

const npm = (args: string[], cwd: string) =>
  // The npm that runs this suite, with no update notice or audit to reach out for.
  run('npm', [...args, '--no-audit', '--no-fund', '--no-update-notifier', '--loglevel=error'], cwd);

/** The size of a directory tree in bytes, as `du --apparent-size` counts it. */
function treeBytes(dir: string): number {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) total += treeBytes(path);
    else if (entry.isFile()) total += statSync(path).size;
  }
  return total;
}

const CLUSTER_OK = `apiVersion: cluster.karmada.io/v1alpha1
kind: Cluster
metadata:
  name: member1
spec:
  syncMode: Push
`;
const CLUSTER_BAD = CLUSTER_OK.replace('Push', 'Sideways');

/** A consumer project: its package.json, and the install of `spec` into it. */
async function consumer(parent: string, name: string, spec: string): Promise<{ dir: string; install: Run }> {
  const dir = join(parent, name);
  mkdirSync(dir);
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name, version: '1.0.0', private: true, type: 'module' }, null, 2));
  const install = await npm(['install', '--prefer-offline', spec], dir);
  return { dir, install };
}

/** What every consumer must be able to do with the installed package. */
async function checkLibraryAndBin(dir: string): Promise<void> {
  const esm = await run(process.execPath, ['--input-type=module', '-e', `
    import { validate, kinds } from 'fleetgate';
    const r = validate({ apiVersion: 'cluster.karmada.io/v1alpha1', kind: 'Cluster', metadata: { name: 'm' }, spec: { syncMode: 'Sideways' } });
    console.log(JSON.stringify({ kinds: kinds.length, fields: r.causes.map((c) => c.field) }));`], dir);
  expect(esm.stderr).toBe('');
  expect(JSON.parse(esm.stdout)).toEqual({ kinds: 13, fields: ['spec.syncMode'] });

  writeFileSync(join(dir, 'ok.yaml'), CLUSTER_OK);
  writeFileSync(join(dir, 'bad.yaml'), CLUSTER_BAD);
  // The bin as npm links it: a symlink in node_modules/.bin that the shell executes.
  const bin = join(dir, 'node_modules/.bin/fleetgate');
  const ok = await run(bin, ['validate', 'ok.yaml'], dir);
  expect(ok.stderr).toBe('');
  expect(ok).toMatchObject({ code: 0 });
  expect(ok.stdout).toContain('1 valid');
  const bad = await run(bin, ['validate', 'bad.yaml'], dir);
  expect(bad.code).toBe(1);
  expect(bad.stdout).toContain('spec.syncMode: Unsupported value: "Sideways"');
}

describe.skipIf(!built)('installing the package (after npm run build; slow: npm installs into temporary projects)', () => {
  const work = mkdtempSync(join(tmpdir(), 'fleetgate-install-'));
  let tarball = '';
  let tarballConsumer: { dir: string; install: Run };

  beforeAll(async () => {
    // The build npm test has just made, packed as `npm publish` would upload it. --ignore-scripts:
    // `prepare` would rebuild dist/ under the feet of the suites running beside this one.
    const pack = await npm(['pack', '--ignore-scripts', '--json', '--pack-destination', work], root);
    expect(pack.stderr).toBe('');
    tarball = join(work, (JSON.parse(pack.stdout) as Array<{ filename: string }>)[0]!.filename);
    tarballConsumer = await consumer(work, 'from-tarball', tarball);
  }, 10 * MINUTE);
  // Thousands of installed files: on a busy machine their removal alone can take half a minute.
  afterAll(() => rm(work, { recursive: true, force: true }), 5 * MINUTE);

  it('packs the built library, its types, the bin, LICENSE and CHANGELOG, and no tests or benchmarks', async () => {
    const listing = await run('tar', ['-tvzf', tarball], work);
    expect(listing.code).toBe(0);
    const entries = listing.stdout.trim().split('\n').map((line) => ({ mode: line.split(/\s+/)[0]!, path: line.split(/\s+/).at(-1)! }));
    const paths = entries.map((e) => e.path);
    for (const path of ['package/package.json', 'package/README.md', 'package/LICENSE', 'package/CHANGELOG.md', 'package/dist/src/index.js', 'package/dist/src/index.d.ts', 'package/dist/src/validators.generated.cjs', 'package/dist/certs/tinyca.js']) {
      expect(paths).toContain(path);
    }
    expect(entries.find((e) => e.path === 'package/dist/src/cli/bin.js')?.mode).toBe('-rwxr-xr-x');
    expect(paths.filter((p) => /^package\/(dist\/)?(test|bench)\//.test(p) || (p.endsWith('.ts') && !p.endsWith('.d.ts')))).toEqual([]);
  });

  it('installs from the tarball: ESM import, the bin, and no Kubernetes client for library consumers', async () => {
    expect(tarballConsumer.install.stderr).toBe('');
    expect(tarballConsumer.install.code).toBe(0);
    await checkLibraryAndBin(tarballConsumer.dir);
    // @kubernetes/client-node (some 50 MB) is an optional peer, only for `serve --kubeconfig`.
    const modules = join(tarballConsumer.dir, 'node_modules');
    expect(existsSync(join(modules, '@kubernetes/client-node'))).toBe(false);
    const mib = treeBytes(modules) / 2 ** 20;
    console.info(`install weight from the tarball: ${mib.toFixed(1)} MiB in node_modules`);
    expect(mib).toBeLessThan(60);
  }, 5 * MINUTE);

  it('loads from CommonJS with require() (Node 20.19 and later)', async () => {
    writeFileSync(join(tarballConsumer.dir, 'consumer.cjs'), `
      const { validate, formatCause } = require('fleetgate');
      const r = validate({ apiVersion: 'cluster.karmada.io/v1alpha1', kind: 'Cluster', metadata: { name: 'm' }, spec: { syncMode: 'Sideways' } });
      console.log(r.causes.map(formatCause).join('\\n'));`);
    const cjs = await run(process.execPath, ['consumer.cjs'], tarballConsumer.dir);
    expect(cjs.stderr).toBe('');
    expect(cjs.stdout).toContain('spec.syncMode: Unsupported value: "Sideways"');
  }, MINUTE);

  it('type-checks an ESM and a CommonJS TypeScript consumer against the shipped declarations', async () => {
    const dir = tarballConsumer.dir;
    mkdirSync(join(dir, 'src'), { recursive: true });
    const body = (imports: string) => `${imports}
const cluster: Cluster = { apiVersion: 'cluster.karmada.io/v1alpha1', kind: 'Cluster', metadata: { name: 'm' }, spec: { syncMode: 'Push' } };
const result: ValidationResult = validate(cluster);
const first: Cause | undefined = result.causes[0];
// The kind types are real: a sync mode outside the enum must not type-check.
// @ts-expect-error
const wrong: Cluster = { apiVersion: 'cluster.karmada.io/v1alpha1', kind: 'Cluster', metadata: { name: 'm' }, spec: { syncMode: 'Sideways' } };
export const used = [first, wrong, kinds.length];
`;
    writeFileSync(join(dir, 'src/esm.ts'), body(`import { validate, kinds, type Cluster, type Cause, type ValidationResult } from 'fleetgate';`));
    writeFileSync(join(dir, 'src/cjs.cts'), body(`import { validate, kinds, type Cluster, type Cause, type ValidationResult } from 'fleetgate';`));
    writeFileSync(
      join(dir, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: { module: 'nodenext', moduleResolution: 'nodenext', target: 'es2022', strict: true, noEmit: true, skipLibCheck: false, types: [] },
        include: ['src'],
      }),
    );
    const check = await run(process.execPath, [tsc, '-p', 'tsconfig.json'], dir);
    expect(check.stdout + check.stderr).toBe('');
    expect(check.code).toBe(0);
  }, 3 * MINUTE);

  it('says what to install when serve --kubeconfig needs the Kubernetes client, before writing anything', async () => {
    const dir = tarballConsumer.dir;
    writeFileSync(join(dir, 'kubeconfig'), 'apiVersion: v1\nkind: Config\n');
    const serve = await run(join(dir, 'node_modules/.bin/fleetgate'), ['serve', '--port', '0', '--probe-port', '0', '--kubeconfig', 'kubeconfig'], dir);
    expect(serve.code).toBe(1);
    expect(serve.stderr).toContain('--kubeconfig needs the optional package @kubernetes/client-node');
    expect(serve.stderr).toContain('npm install @kubernetes/client-node@^1.4.0');
    expect(existsSync(join(dir, 'certs'))).toBe(false);
  }, MINUTE);

  it.skipIf(!existsSync(join(root, '.git')))('installs from a git dependency (git+file://), which npm builds with the prepare script (needs a git checkout)', async () => {
    const rev = await run('git', ['rev-parse', 'HEAD'], root);
    expect(rev.code).toBe(0);
    // The committed tree at HEAD, as `npm install git+https://…#<commit>` would fetch it.
    const fromGit = await consumer(work, 'from-git', `git+file://${root}#${rev.stdout.trim()}`);
    expect(fromGit.install.stderr).toBe('');
    expect(fromGit.install.code).toBe(0);
    await checkLibraryAndBin(fromGit.dir);
  }, 15 * MINUTE);
});
