/** Finding input files: paths named on the command line, directories searched recursively. */
import { realpathSync, readdirSync, statSync, type Dirent } from 'node:fs';
import { join } from 'node:path';
import { ioMessage, type ReadProblem } from './problems.js';

/** Folders a search through a project passes over: dot folders (.git, .github) and node_modules. */
export const isToolingDirectory = (name: string): boolean => name.startsWith('.') || name === 'node_modules';

export interface WalkOptions {
  /** Whether a file found inside a directory is wanted (files named explicitly always are). */
  accept(path: string): boolean;
  /** Directories not to descend into, by name. */
  skipDirectory?(name: string): boolean;
}

/**
 * Files named by `paths`, directories searched recursively in sorted order for stable
 * output; a path that cannot be read becomes a problem, and the others are still walked.
 */
export function walkFiles(paths: readonly string[], problems: ReadProblem[], options: WalkOptions): string[] {
  const files: string[] = [];
  const seen = new Set<string>();
  // Directories by real path: a symbolic link back up the tree is walked once, not until ELOOP.
  const walkedDirectories = new Set<string>();
  const visit = (path: string, explicit: boolean) => {
    let isDirectory: boolean;
    try {
      isDirectory = statSync(path).isDirectory();
    } catch (err) {
      // A dangling link among files the walk would not read anyway is no problem of the run's.
      if (!explicit && !options.accept(path)) return;
      problems.push({ file: path, message: ioMessage(err) });
      return;
    }
    if (!isDirectory) {
      if (!explicit && !options.accept(path)) return;
      // The same file named twice (or reached twice) is read once.
      const real = realPath(path);
      if (!seen.has(real)) {
        seen.add(real);
        files.push(path);
      }
      return;
    }
    const real = realPath(path);
    if (walkedDirectories.has(real)) return;
    walkedDirectories.add(real);
    let entries: Dirent[];
    try {
      entries = readdirSync(path, { withFileTypes: true });
    } catch (err) {
      problems.push({ file: path, message: ioMessage(err) });
      return;
    }
    for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
      if (entry.isDirectory() && options.skipDirectory?.(entry.name)) continue;
      visit(join(path, entry.name), false);
    }
  };
  for (const path of paths) visit(path, true);
  return files;
}

const realPath = (path: string): string => {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
};

const MANIFEST_FILE = /\.(ya?ml|json)$/i;

/** Manifest files named by `paths`, each once; `-` (standard input) comes last. */
export function expandPaths(paths: readonly string[], problems: ReadProblem[]): string[] {
  const files = walkFiles(paths.filter((path) => path !== '-'), problems, { accept: (file) => MANIFEST_FILE.test(file), skipDirectory: isToolingDirectory });
  return paths.includes('-') ? [...files, '-'] : files;
}
