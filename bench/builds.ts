/**
 * Builds (or flag sets) to compare in one run, as the A/B harnesses of fresh `fleetgate serve`
 * processes take them: `name=dir[,flag...]`. `dir` holds a built checkout (dir/dist/src/cli/bin.js);
 * a flag is added to `fleetgate serve`'s, except `--node=FLAG` (given to Node itself:
 * `--node=--max-semi-space-size=4`) and `--env=NAME=VALUE` (set in the server's environment:
 * `--env=MALLOC_ARENA_MAX=2`).
 */
import { resolve } from 'node:path';

export interface Build {
  name: string;
  bin: string;
  flags: string[];
  /** Node's own flags, given as `--node=--flag`. */
  nodeArgs: string[];
  /** The server's environment additions, given as `--env=NAME=VALUE`. */
  env: Record<string, string>;
}

export function parseBuilds(specs: readonly string[]): Build[] {
  return specs.map((spec) => {
    const [name, rest] = [spec.slice(0, spec.indexOf('=')), spec.slice(spec.indexOf('=') + 1)];
    const [dir, ...flags] = rest.split(',');
    if (!name || !dir) throw new Error(`--build must be name=dir[,flag...], got "${spec}"`);
    const env: Record<string, string> = {};
    for (const flag of flags.filter((f) => f.startsWith('--env='))) {
      const [key, ...value] = flag.slice('--env='.length).split('=');
      if (!key) throw new Error(`--env= needs NAME=VALUE, got "${flag}"`);
      env[key] = value.join('=');
    }
    return {
      name,
      bin: resolve(dir, 'dist/src/cli/bin.js'),
      flags: flags.filter((f) => !f.startsWith('--node=') && !f.startsWith('--env=')),
      nodeArgs: flags.filter((f) => f.startsWith('--node=')).map((f) => f.slice('--node='.length)),
      env,
    };
  });
}

/** A build as a table row names it: its name and what it adds. */
export function buildLabel(build: Build): string {
  const added = [...build.nodeArgs, ...Object.entries(build.env).map(([k, v]) => `${k}=${v}`), ...build.flags];
  return build.name + (added.length ? ` (${added.join(' ')})` : '');
}

/** Runs `sample` for each build in turn, `samples` times over, so a busy machine weighs on all alike; the samples by build name. */
export async function alternating<S>(builds: readonly Build[], samples: number, sample: (build: Build) => Promise<S>): Promise<Map<string, S[]>> {
  const runs = new Map<string, S[]>(builds.map((b) => [b.name, []]));
  for (let s = 0; s < samples; s++)
    for (const build of builds) {
      runs.get(build.name)!.push(await sample(build));
      process.stderr.write('.');
    }
  process.stderr.write('\n');
  return runs;
}
