/**
 * Runs a TypeScript module of this repository in a child process without a build: the module and
 * every relative import it reaches are transpiled (TypeScript's transpileModule: no type check,
 * the test run does that) into node_modules/.cache, where bare imports (classic-level) resolve
 * from the repository's node_modules as they do for the source.
 */
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const root = fileURLToPath(new URL('../../../', import.meta.url));

export interface ChildModule {
  /** The transpiled entry, to run with `node`. */
  file: string;
  dispose(): Promise<void>;
}

export async function transpileForChild(entry: string): Promise<ChildModule> {
  const outDir = join(root, 'node_modules', '.cache', `fleetgate-child-${process.pid}-${Date.now()}`);
  // The ESM resolver stops looking for a package scope at node_modules: say what these files are.
  await mkdir(outDir, { recursive: true });
  await writeFile(join(outDir, 'package.json'), '{"type":"module"}\n');
  const pending = [resolve(entry)];
  const done = new Set<string>();
  while (pending.length > 0) {
    const file = pending.pop()!;
    if (done.has(file)) continue;
    done.add(file);
    const source = await readFile(file, 'utf8');
    for (const [, specifier] of source.matchAll(/(?:from|import)\s+'(\.{1,2}\/[^']+)\.js'/g)) {
      pending.push(resolve(dirname(file), `${specifier}.ts`));
    }
    const { outputText } = ts.transpileModule(source, {
      fileName: file,
      compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
    });
    const out = join(outDir, relative(root, file).replace(/\.ts$/, '.js'));
    await mkdir(dirname(out), { recursive: true });
    await writeFile(out, outputText);
  }
  return {
    file: join(outDir, relative(root, resolve(entry)).replace(/\.ts$/, '.js')),
    dispose: () => rm(outDir, { recursive: true, force: true }),
  };
}
