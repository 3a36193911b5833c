/**
 * Reading manifests the way kubectl does: YAML (multi-document, YAML 1.1 scalars such as
 * `yes`/`no`) and JSON files, directories searched recursively for *.yaml, *.yml and
 * *.json, standard input as `-`, and `List` objects unpacked. Every object keeps its
 * file and line; a file that cannot be read or parsed is reported with file:line:column
 * and does not stop the others.
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { LineCounter, isCollection, parseAllDocuments, type Node as YamlNode } from 'yaml';
import { KUBECTL_YAML } from '../yaml.js';

export interface Manifest {
  object: Record<string, unknown>;
  /** Where the object is: the file (or `<stdin>`) and the 1-based line it starts on. */
  file: string;
  line: number;
  /** The line of a field given by its path (`spec.taints[0].effect`), or of its nearest existing parent. */
  lineOf(field: string): number;
}

/** `spec.taints[0].effect` → ['spec', 'taints', 0, 'effect']; `spec.overall[cpu]` → [..., 'cpu']. */
function pathSegments(field: string): (string | number)[] {
  const segments: (string | number)[] = [];
  for (const m of field.matchAll(/([^.[\]]+)|\[([^\]]*)\]/g)) {
    if (m[1] !== undefined) segments.push(m[1]);
    else segments.push(/^\d+$/.test(m[2]!) ? Number(m[2]) : m[2]!);
  }
  return segments;
}

function locator(node: YamlNode, lineCounter: LineCounter, fallback: number): (field: string) => number {
  return (field) => {
    let current: unknown = node;
    let line = fallback;
    for (const segment of pathSegments(field)) {
      if (!isCollection(current)) break;
      const next = current.get(segment, true) as YamlNode | undefined;
      if (!next?.range) break;
      // A key's line is where the user reads the field; a scalar value shares it.
      const pair = (current.items as { key?: { value?: unknown; range?: [number] } }[]).find((item, i) =>
        typeof segment === 'number' ? i === segment : item.key?.value === segment,
      );
      line = lineCounter.linePos((pair?.key?.range ?? next.range)[0]).line;
      current = next;
    }
    return line;
  };
}

export interface ReadProblem {
  file: string;
  line?: number;
  column?: number;
  message: string;
}

export interface ReadResult {
  manifests: Manifest[];
  problems: ReadProblem[];
  files: number;
}

const MANIFEST_FILE = /\.(ya?ml|json)$/i;
const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Files named by `paths` (directories expanded, sorted for stable output). */
export function expandPaths(paths: readonly string[], problems: ReadProblem[]): string[] {
  const files: string[] = [];
  const visit = (path: string, explicit: boolean) => {
    let isDirectory: boolean;
    try {
      isDirectory = statSync(path).isDirectory();
    } catch (err) {
      problems.push({ file: path, message: (err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file or directory' : (err as Error).message });
      return;
    }
    if (isDirectory) {
      for (const entry of readdirSync(path).sort()) visit(join(path, entry), false);
    } else if (explicit || MANIFEST_FILE.test(path)) {
      files.push(path);
    }
  };
  for (const path of paths) {
    if (path === '-') files.push('-');
    else visit(path, true);
  }
  return files;
}

/** Parses one file's text into its objects. */
export function parseManifests(text: string, file: string): { manifests: Manifest[]; problems: ReadProblem[] } {
  const manifests: Manifest[] = [];
  const problems: ReadProblem[] = [];
  const lineCounter = new LineCounter();
  const docs = parseAllDocuments(text, { ...KUBECTL_YAML, lineCounter, prettyErrors: false });
  const list = Array.isArray(docs) ? docs : [docs];
  for (const doc of list) {
    if (doc.errors.length) {
      const e = doc.errors[0]!;
      const pos = lineCounter.linePos(e.pos[0]);
      problems.push({ file, line: pos.line, column: pos.col, message: `YAML syntax error: ${e.message.split('\n')[0]}` });
      continue;
    }
    const contents = doc.contents;
    if (contents === null) continue;
    const start = lineCounter.linePos(contents.range[0]).line;
    let value: unknown;
    try {
      value = doc.toJS({ maxAliasCount: 1000 });
    } catch (err) {
      problems.push({ file, line: start, message: (err as Error).message });
      continue;
    }
    if (value === null || value === undefined) continue;
    if (!isRecord(value)) {
      problems.push({ file, line: start, message: 'document is not an object' });
      continue;
    }
    if (typeof value.kind === 'string' && value.kind.endsWith('List') && Array.isArray(value.items)) {
      const items = (contents as { get?: (k: string, keep: boolean) => { items?: { range?: [number] }[] } }).get?.('items', true)?.items ?? [];
      value.items.forEach((item, i) => {
        const itemLine = items[i]?.range ? lineCounter.linePos(items[i]!.range![0]).line : start;
        const itemNode = items[i] as YamlNode | undefined;
        if (isRecord(item)) manifests.push({ object: item, file, line: itemLine, lineOf: itemNode ? locator(itemNode, lineCounter, itemLine) : () => itemLine });
        else problems.push({ file, line: itemLine, message: `items[${i}] is not an object` });
      });
    } else {
      manifests.push({ object: value, file, line: start, lineOf: locator(contents, lineCounter, start) });
    }
  }
  return { manifests, problems };
}

/** Reads every manifest in `paths`; `-` reads `stdin`. */
export function readManifests(paths: readonly string[], stdin: () => string = () => readFileSync(0, 'utf8')): ReadResult {
  const problems: ReadProblem[] = [];
  const files = expandPaths(paths, problems);
  const manifests: Manifest[] = [];
  for (const file of files) {
    let text: string;
    try {
      text = file === '-' ? stdin() : readFileSync(file, 'utf8');
    } catch (err) {
      problems.push({ file, message: (err as Error).message });
      continue;
    }
    const parsed = parseManifests(text, file === '-' ? '<stdin>' : file);
    manifests.push(...parsed.manifests);
    problems.push(...parsed.problems);
  }
  return { manifests, problems, files: files.length };
}
