/**
 * The container image, as far as a machine without Docker can check it: the Dockerfile's
 * dependency step run as written, and its default command run as the image runs it (uid 65532,
 * in a working directory that user cannot write, with a /tmp it can).
 */
import { describe, expect, it, onTestFinished } from 'vitest';
import { execFile, spawn } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const built = existsSync(join(root, 'dist/src/cli/bin.js'));
const UID = 65532;

/** The Dockerfile's stages: each one's instructions, continuation lines joined. */
function stages(): Array<{ name?: string; instructions: Array<{ op: string; args: string }> }> {
  const text = readFileSync(join(root, 'Dockerfile'), 'utf8').replace(/\\\n/g, ' ');
  const result: ReturnType<typeof stages> = [];
  for (const line of text.split('\n')) {
    const match = /^([A-Z]+)\s+(.*)$/.exec(line.trim());
    if (!match || line.trim().startsWith('#')) continue;
    const [, op, args] = match as unknown as [string, string, string];
    if (op === 'FROM') result.push({ name: / AS (\S+)$/i.exec(args)?.[1], instructions: [] });
    else result.at(-1)?.instructions.push({ op, args });
  }
  return result;
}

const final = () => stages().at(-1)!.instructions;
const instruction = (op: string) => final().filter((i) => i.op === op).at(-1)?.args;

/** Why the image's user cannot be simulated here, or undefined when it can. */
function noSimulation(): string | undefined {
  if (process.getuid?.() !== 0) return 'needs root to run as uid 65532';
  if (!existsSync('/usr/bin/setpriv')) return 'needs setpriv (util-linux) to run as uid 65532';
  return undefined;
}

const asImageUser = [`--reuid=${UID}`, `--regid=${UID}`, '--clear-groups'];

interface Exit {
  code: number | null;
  stderr: string;
}

/**
 * Runs the image's entrypoint with `args` as uid 65532 in `cwd`, on ephemeral ports; resolves
 * once it has served (then stops it with SIGTERM) or exited.
 */
function runImageCommand(args: string[], cwd: string): Promise<Exit & { served: boolean }> {
  const [node, script] = JSON.parse(instruction('ENTRYPOINT')!) as [string, string];
  expect(node).toBe('node');
  const child = spawn('setpriv', [...asImageUser, process.execPath, join(root, script), ...args, '--port', '0', '--probe-port', '0'], {
    cwd,
    env: { PATH: process.env.PATH, HOME: '/nonexistent', NODE_ENV: 'production' },
  });
  let stderr = '';
  let served = false;
  const guard = setTimeout(() => child.kill('SIGKILL'), 60_000);
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
    if (!served && stderr.includes('fleetgate webhook serving')) {
      served = true;
      child.kill('SIGTERM');
    }
  });
  return new Promise((done) =>
    child.on('exit', (code) => {
      clearTimeout(guard);
      done({ code, stderr, served });
    }),
  );
}

/** A directory like the image's /app: root's, readable by all, writable by no one else. */
function rootOwnedDirectory(): string {
  const dir = join(mkdtempSync(join(tmpdir(), 'fleetgate-image-')), 'app');
  mkdirSync(dir, { mode: 0o755 });
  chmodSync(dir, 0o755);
  return dir;
}

describe('the Dockerfile', () => {
  it('runs the image as uid 65532 with fleetgate serve as its default command', () => {
    expect(instruction('USER')).toBe(`${UID}:${UID}`);
    expect(JSON.parse(instruction('ENTRYPOINT')!)).toEqual(['node', 'dist/src/cli/bin.js']);
    expect(JSON.parse(instruction('CMD')!)[0]).toBe('serve');
  });

  it('installs production dependencies and the Kubernetes client, from the lockfile', { timeout: 5 * 60_000 }, async () => {
    const dependencies = stages().find((s) => s.name === 'dependencies');
    const run = dependencies?.instructions.find((i) => i.op === 'RUN')?.args;
    expect(run).toBeDefined();
    const dir = mkdtempSync(join(tmpdir(), 'fleetgate-image-deps-'));
    onTestFinished(() => rm(dir, { recursive: true, force: true }), 5 * 60_000); // some 100 MB of node_modules
    for (const file of ['package.json', 'package-lock.json']) copyFileSync(join(root, file), join(dir, file));
    // As written, with npm's cache used first: the lockfile pins every version either way.
    const result = await new Promise<Exit>((done) =>
      execFile('sh', ['-c', run!], { cwd: dir, env: { ...process.env, npm_config_prefer_offline: 'true', npm_config_update_notifier: 'false' } }, (err, _out, stderr) =>
        done({ code: err ? 1 : 0, stderr }),
      ),
    );
    expect(result.stderr).not.toMatch(/npm error/);
    expect(result.code).toBe(0);
    const installed = (name: string) => existsSync(join(dir, 'node_modules', name, 'package.json'));
    expect(installed('@kubernetes/client-node')).toBe(true);
    expect(installed('koa')).toBe(true);
    expect(installed('pino-pretty')).toBe(true);
    for (const dev of ['typescript', 'vitest', '@stryker-mutator/core']) expect(installed(dev), dev).toBe(false);
    const locked = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8')).packages['node_modules/@kubernetes/client-node'].version;
    expect(JSON.parse(readFileSync(join(dir, 'node_modules/@kubernetes/client-node/package.json'), 'utf8')).version).toBe(locked);
  });
});

describe.skipIf(!built || noSimulation() !== undefined)(
  `the image's default command, simulated: uid ${UID} in a directory it cannot write (${built ? (noSimulation() ?? 'runs dist/') : 'needs npm run build'})`,
  { timeout: 90_000 },
  () => {
    it('starts with no arguments, writing development certificates under /tmp', async () => {
      const app = rootOwnedDirectory();
      // The image's /tmp, writable by everyone as there: a directory of its own per run.
      const imageTmp = mkdtempSync(join(tmpdir(), 'fleetgate-image-tmp-'));
      chmodSync(imageTmp, 0o1777);
      const args = (JSON.parse(instruction('CMD')!) as string[]).map((a) => a.replace(/^\/tmp\//, `${imageTmp}/`));
      const { code, stderr, served } = await runImageCommand(args, app);
      expect(stderr).toContain(`CA bundle at ${imageTmp}/fleetgate-certs/ca.crt`);
      expect(served).toBe(true);
      expect(code).toBe(0);
    });

    it('without a writable place for development certificates, says which flags to use', async () => {
      // The command the image ran before: `serve` alone, writing ./certs under a root-owned /app.
      const app = rootOwnedDirectory();
      const { code, stderr, served } = await runImageCommand(['serve'], app);
      expect(served).toBe(false);
      expect(code).toBe(1);
      expect(stderr).toBe(
        `fleetgate serve: cannot write development certificates: ${join(app, 'certs')} is not writable (EACCES); ` +
          'pass --cert-dir DIR, a directory holding tls.crt and tls.key, or --dev-cert-dir DIR, a writable directory for development certificates\n',
      );
      expect(existsSync(join(app, 'certs'))).toBe(false);
    });
  },
);
