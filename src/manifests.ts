/**
 * Reading manifests the way kubectl does: YAML (multi-document) and JSON files,
 * directories searched recursively for *.yaml, *.yml and *.json, standard input as `-`,
 * and `List` objects unpacked. Every object keeps its file and line; a file that cannot
 * be read or parsed is reported with file:line:column and does not stop the others.
 *
 * Large streams are the common case in CI (a rendered chart, a kustomize build), so
 * documents are parsed with js-yaml, an order of magnitude faster than the `yaml`
 * package; the latter builds its source-position tree only for the documents whose
 * problems need the line of a field.
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import jsyaml from 'js-yaml';
import { LineCounter, isCollection, parseDocument, type Node as YamlNode } from 'yaml';
import { KUBECTL_JSYAML_SCHEMA, KUBECTL_YAML } from './yaml.js';
import { isRecord } from './is.js';

export interface Manifest {
  object: Record<string, unknown>;
  /** Where the object is: the file (or `<stdin>`) and the 1-based line it starts on. */
  file: string;
  line: number;
  /** The line of a field given by its path (`spec.taints[0].effect`), or of its nearest existing parent. */
  lineOf(field: string): number;
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

/**
 * YAML aliases let a few lines stand for an exponentially large document ("billion laughs").
 * js-yaml shares aliased nodes instead of copying them, so parsing is cheap, but anything
 * that walks or prints the object would expand them. Like go-yaml's excessive-aliasing
 * check, a document is refused when it expands to more nodes than any real manifest has.
 */
export const MAX_EXPANDED_NODES = 1_000_000;

/** Whether walking `value` visits more than `limit` nodes; stops as soon as it does. */
function expandsBeyond(value: unknown, limit: number): boolean {
  let count = 0;
  const stack: unknown[] = [value];
  while (stack.length) {
    const node = stack.pop();
    if (++count > limit) return true;
    if (Array.isArray(node)) for (const item of node) stack.push(item);
    else if (typeof node === 'object' && node !== null) for (const key in node) stack.push((node as Record<string, unknown>)[key]);
  }
  return false;
}

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
  const visit = (path: string, explicit: boolean) => {
    let isDirectory: boolean;
    try {
      isDirectory = statSync(path).isDirectory();
    } catch (err) {
      problems.push({ file: path, message: (err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file or directory' : (err as Error).message });
      return;
    }
    if (isDirectory) {
      for (const entry of readdirSync(path, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
        if (entry.isDirectory() && options.skipDirectory?.(entry.name)) continue;
        visit(join(path, entry.name), false);
      }
    } else if (explicit || options.accept(path)) {
      files.push(path);
    }
  };
  for (const path of paths) visit(path, true);
  return files;
}

/** Manifest files named by `paths` (`-` is standard input). */
export function expandPaths(paths: readonly string[], problems: ReadProblem[]): string[] {
  return paths.flatMap((path) => (path === '-' ? ['-'] : walkFiles([path], problems, { accept: (file) => MANIFEST_FILE.test(file) })));
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

/** Resolves field paths to lines within one document's source tree. */
function locate(node: YamlNode | null, lineCounter: LineCounter, segments: (string | number)[], fallback: number): number {
  let current: unknown = node;
  let line = fallback;
  for (const segment of segments) {
    if (!isCollection(current)) break;
    const next = current.get(segment, true) as YamlNode | undefined;
    if (!next?.range) break;
    // A key's line is where the user reads the field; a scalar value shares it. Sequence
    // items have no key: the item itself is the place.
    const pair =
      typeof segment === 'number' ? undefined : (current.items as { key?: { value?: unknown; range?: [number] } }[]).find((item) => item.key?.value === segment);
    line = lineCounter.linePos((pair?.key?.range ?? next.range)[0]).line;
    current = next;
  }
  return line;
}

/** One document of a stream: its text and the line its first line has in the file. */
interface Chunk {
  text: string;
  firstLine: number;
}

/**
 * Splits a stream at its `---` markers. A marker only ever starts a line at column 0
 * (block content is indented), so this needs no YAML parse. The marker line stays with
 * its document, which may carry content after it.
 */
function chunks(text: string): Chunk[] {
  const result: Chunk[] = [];
  const lines = text.split('\n');
  let start = 0;
  for (let i = 1; i <= lines.length; i++) {
    if (i === lines.length || /^---(?:[ \t]|$)/.test(lines[i]!.replace(/\r$/, ''))) {
      result.push({ text: lines.slice(start, i).join('\n'), firstLine: start + 1 });
      start = i;
    }
  }
  return result;
}

/** The first line of a document that carries content (not a marker, comment or blank). */
function contentLine(chunk: Chunk): number {
  const lines = chunk.text.split('\n');
  const i = lines.findIndex((l) => !/^\s*(#.*)?$/.test(l) && !/^(---|\.\.\.)\s*$/.test(l) && !/^%/.test(l));
  return chunk.firstLine + Math.max(i, 0);
}

/** Parses one file's text into its objects. */
export function parseManifests(text: string, file: string): { manifests: Manifest[]; problems: ReadProblem[] } {
  const manifests: Manifest[] = [];
  const problems: ReadProblem[] = [];
  for (const chunk of chunks(text)) {
    let value: unknown;
    try {
      value = jsyaml.load(chunk.text, { schema: KUBECTL_JSYAML_SCHEMA, filename: file });
    } catch (err) {
      const e = err as { reason?: string; mark?: { line: number; column: number }; message: string };
      problems.push({
        file,
        line: e.mark ? chunk.firstLine + e.mark.line : chunk.firstLine,
        column: e.mark ? e.mark.column + 1 : undefined,
        message: `YAML syntax error: ${e.reason ?? e.message.split('\n')[0]}`,
      });
      continue;
    }
    if (value === null || value === undefined) continue;
    const start = contentLine(chunk);
    if (expandsBeyond(value, MAX_EXPANDED_NODES)) {
      problems.push({ file, line: start, message: `document expands to more than ${MAX_EXPANDED_NODES.toLocaleString('en-US')} values through YAML aliases; refusing it` });
      continue;
    }
    if (!isRecord(value)) {
      problems.push({ file, line: start, message: 'document is not an object' });
      continue;
    }

    // The position tree is built on first use, and only for this document.
    let tree: { root: YamlNode | null; lines: LineCounter } | undefined;
    const positions = () => {
      if (!tree) {
        const lines = new LineCounter();
        const doc = parseDocument(chunk.text, { ...KUBECTL_YAML, lineCounter: lines });
        tree = { root: doc.contents as YamlNode | null, lines };
      }
      return tree;
    };
    const lineIn = (prefix: (string | number)[], field: string, fallback: number) => {
      const t = positions();
      return chunk.firstLine - 1 + locate(t.root, t.lines, [...prefix, ...pathSegments(field)], fallback - chunk.firstLine + 1);
    };

    if (typeof value.kind === 'string' && value.kind.endsWith('List') && Array.isArray(value.items)) {
      value.items.forEach((item, i) => {
        const prefix = ['items', i];
        if (!isRecord(item)) {
          problems.push({ file, line: lineIn(prefix, '', start), message: `items[${i}] is not an object` });
          return;
        }
        // An item's line, like a field's, is looked up only if something reports it.
        manifests.push({
          object: item,
          file,
          get line() {
            return lineIn(prefix, '', start);
          },
          lineOf: (field) => lineIn(prefix, field, start),
        });
      });
    } else {
      manifests.push({ object: value, file, line: start, lineOf: (field) => lineIn([], field, start) });
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

/** Every object in `paths` (files or directories), for lookups; problems are returned, not thrown. */
export function readObjects(paths: readonly string[]): { objects: Record<string, unknown>[]; problems: ReadProblem[] } {
  const { manifests, problems } = readManifests(paths, () => '');
  return { objects: manifests.map((m) => m.object), problems };
}

/** `file:line:column` of a problem, as much of it as is known. */
export const problemPosition = (p: ReadProblem): string => `${p.file}${p.line ? `:${p.line}${p.column ? `:${p.column}` : ''}` : ''}`;
