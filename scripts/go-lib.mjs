// Builds the small Go programs the tests use as references (the chart renderer, robfig/cron's
// parser), in GOPATH mode against Debian's Go packages: no module download, no network.
// Types in go-lib.d.mts.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Where Debian's golang-*-dev packages install their sources. */
export const GOPATH = '/usr/share/gocode';

function goEnv() {
  return { ...process.env, GO111MODULE: 'off', GOPATH, GOCACHE: join(tmpdir(), 'fleetgate-gocache'), GOFLAGS: '' };
}

/**
 * Why a program importing `goPackages` cannot be built here, with the apt-get line that fixes it,
 * or undefined when it can.
 * @param {readonly string[]} goPackages import paths, e.g. 'github.com/robfig/cron'
 * @param {readonly string[]} debianPackages what provides the toolchain and those imports
 */
export function goUnavailable(goPackages, debianPackages) {
  const install = `install: apt-get install -y ${debianPackages.join(' ')}`;
  const go = spawnSync('go', ['version'], { encoding: 'utf8' });
  if (go.error || go.status !== 0) return `no Go toolchain (\`go\` not found); ${install}`;
  for (const pkg of goPackages) {
    if (!existsSync(join(GOPATH, 'src', pkg))) return `Go package ${pkg} missing under ${GOPATH}; ${install}`;
  }
  return undefined;
}

/**
 * Builds `source` (one main.go) once per content and Go version, into the temp directory, and
 * returns the binary's path. Parallel test workers may race; each builds aside and renames.
 * @param {string} source path of the main.go
 * @param {string} name a name for the binary and its cache folder
 * @param {string} cwd where to run `go build`
 */
export function buildGoProgram(source, name, cwd) {
  const goVersion = spawnSync('go', ['version'], { encoding: 'utf8' }).stdout.trim();
  const hash = createHash('sha256').update(readFileSync(source)).update(goVersion).digest('hex').slice(0, 16);
  const dir = join(tmpdir(), `fleetgate-${name}-${hash}`);
  const binary = join(dir, name);
  if (existsSync(binary)) return binary;
  mkdirSync(dir, { recursive: true });
  const work = mkdtempSync(join(dir, 'build-'));
  const out = spawnSync('go', ['build', '-o', join(work, name), source], { cwd, encoding: 'utf8', env: goEnv() });
  if (out.status !== 0) throw new Error(`go build of ${source} failed:\n${out.stderr}${out.stdout}`);
  renameSync(join(work, name), binary);
  rmSync(work, { recursive: true, force: true });
  return binary;
}

/**
 * Runs a reference program that reads one JSON string per line and answers one line per input;
 * returns its answers, in order.
 * @param {string} binary from buildGoProgram()
 * @param {readonly string[]} inputs
 * @param {readonly string[]} [args] command-line arguments
 */
export function askGoProgram(binary, inputs, args = []) {
  const run = spawnSync(binary, [...args], { input: `${inputs.map((s) => JSON.stringify(s)).join('\n')}\n`, encoding: 'utf8', maxBuffer: 1 << 26 });
  if (run.status !== 0) throw new Error(`${binary} failed: ${run.stderr}`);
  const answers = run.stdout.split('\n').slice(0, inputs.length);
  if (answers.length !== inputs.length) throw new Error(`${binary} answered ${answers.length} of ${inputs.length} inputs`);
  return answers;
}
