/**
 * Reading manifests the way kubectl does: YAML (multi-document) and JSON files,
 * directories searched recursively for *.yaml, *.yml and *.json, standard input as `-`,
 * and `List` objects unpacked. Every object keeps its file and line; a file that cannot
 * be read or parsed is reported with file:line:column and does not stop the others.
 *
 * Large streams are the common case in CI (a rendered chart, a kustomize build), so
 * documents are parsed with js-yaml, an order of magnitude faster than the `yaml`
 * package. Lines of fields come from a second js-yaml parse that records where every
 * node starts, made only for the documents whose problems need one.
 */
import { readFileSync, readdirSync, realpathSync, statSync, type Dirent } from 'node:fs';
import { join } from 'node:path';
import jsyaml from 'js-yaml';
import { KUBECTL_JSYAML_SCHEMA } from './yaml.js';
import { isRecord } from '../util/is.js';
import { asPath, type Segment } from '../engine/path.js';
import type { Field } from '../engine/field.js';
import { lineAndColumn } from '../util/line-column.js';
import { decodeManifest, readStdin } from './text.js';

export { decodeManifest };

export interface Manifest {
  object: Record<string, unknown>;
  source: Source;
}

/**
 * Where an object is. Separate from the object, so a report can keep the places of
 * thousands of objects without keeping the objects.
 */
export interface Source {
  /** The file, or `<stdin>`. */
  file: string;
  /** The 1-based line the object starts on. */
  readonly line: number;
  /** The line of a field (a cause's path, or its text `spec.taints[0].effect`), or of its nearest existing parent. */
  lineOf(field: Field): number;
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
/**
 * What aliases add to all the documents of one file (or stream) together: a file of thousands
 * of documents each just under the bound above took 18 s a MiB to read.
 */
export const MAX_EXPANDED_NODES_PER_FILE = 4_000_000;

interface Expansion {
  /** The nodes a walk visits, counted up to the limit + 1 (the walk stops there). */
  nodes: number;
  /** Of those, the visits an alias adds: to an object (js-yaml shares an aliased one) seen before, and to all inside it. */
  repeated: number;
}

/** Whether reading a value visits more than `limit` values, counting every visit an alias adds. */
export const expandsBeyond = (value: unknown, limit: number): boolean => expansion(value, limit).nodes > limit;

function expansion(value: unknown, limit: number): Expansion {
  let nodes = 0;
  let repeated = 0;
  const seen = new Set<object>();
  const stack: { node: unknown; repeat: boolean }[] = [{ node: value, repeat: false }];
  while (stack.length) {
    const { node, repeat: insideRepeat } = stack.pop()!;
    if (++nodes > limit) break;
    if (typeof node !== 'object' || node === null) {
      if (insideRepeat) repeated++;
      continue;
    }
    const repeat = insideRepeat || seen.has(node);
    if (repeat) repeated++;
    else seen.add(node);
    if (Array.isArray(node)) for (const item of node) stack.push({ node: item, repeat });
    else for (const key in node) stack.push({ node: (node as Record<string, unknown>)[key], repeat });
  }
  return { nodes, repeated };
}

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

/**
 * A failure to read a file as a problem's message: the condition, without Node's syscall and
 * path (the problem names the file already). Other errors keep their own message.
 */
export function ioMessage(err: unknown): string {
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return 'no such file or directory';
  if (code === 'EACCES' || code === 'EPERM') return 'permission denied';
  if (code === 'ELOOP') return 'too many levels of symbolic links';
  if (code === 'EISDIR') return 'is a directory';
  return (err as Error).message;
}

/** Manifest files named by `paths`, each once; `-` (standard input) comes last. */
export function expandPaths(paths: readonly string[], problems: ReadProblem[]): string[] {
  const files = walkFiles(paths.filter((path) => path !== '-'), problems, { accept: (file) => MANIFEST_FILE.test(file), skipDirectory: isToolingDirectory });
  return paths.includes('-') ? [...files, '-'] : files;
}

/** A node of one document as js-yaml composed it. */
interface PositionNode {
  /** 0-based line within the document's text where the node was opened. */
  line: number;
  kind: string | null;
  result: unknown;
  /**
   * A mapping's keys and values, alternating; a sequence's items; nothing for other nodes.
   * A key without a value (`? k` alone, `{k, ...}`) breaks the alternation, so fields after
   * it may not be found and resolve to the mapping's line.
   */
  children: PositionNode[];
  /** A large mapping's keys, each with its position among the children, made on first lookup. */
  keyPositions?: Map<string, number>;
}

/**
 * Parses a document's text again, with the same schema, recording the line of every
 * node. js-yaml reports each node it composes as an `open` and a `close` event, nested
 * like the document, so a stack of open nodes rebuilds the tree.
 */
function positionTree(text: string): PositionNode | undefined {
  const open: PositionNode[] = [];
  let root: PositionNode | undefined;
  jsyaml.load(text, {
    schema: KUBECTL_JSYAML_SCHEMA,
    listener(event, state) {
      if (event === 'open') {
        open.push({ line: state.line, kind: null, result: undefined, children: [] });
        return;
      }
      const node = open.pop()!;
      node.kind = state.kind;
      node.result = state.result;
      settle(node);
      const parent = open.at(-1);
      if (parent) parent.children.push(node);
      else root = node;
    },
  });
  return root;
}

const isCollection = (node: PositionNode) => node.kind === 'mapping' || node.kind === 'sequence';

/**
 * Drops what js-yaml composed on the way to a node but did not keep. Where a block mapping
 * may start (`- {a: 1}`), js-yaml first reads a would-be key and, finding no `:`, keeps
 * what it read as the whole node: a scalar then has that attempt as a child, and a flow
 * collection is the only child of a node with the same value.
 */
function settle(node: PositionNode): void {
  if (!isCollection(node)) {
    node.children = [];
    return;
  }
  const only = node.children.length === 1 ? node.children[0]! : undefined;
  if (only && only.kind === node.kind && only.result === node.result) node.children = only.children;
}

/**
 * The node of a sequence's item. js-yaml composes no node for an empty item (a `-` with
 * nothing after it), so when there are fewer nodes than items the others are matched by
 * value, in order. A null item is then ambiguous (empty, or an explicit `null` whose node
 * belongs to a later item) and is left to the sequence's own line.
 */
function itemNode(sequence: PositionNode, index: number): PositionNode | undefined {
  const items = sequence.result as unknown[];
  if (sequence.children.length === items.length) return sequence.children[index];
  if (items[index] === null) return undefined;
  let next = 0;
  for (let i = 0; i <= index && i < items.length; i++) {
    const candidate = sequence.children[next];
    if (candidate && Object.is(candidate.result, items[i])) {
      if (i === index) return candidate;
      next++;
    }
  }
  return undefined;
}

/**
 * One step down a path: the child node and the line a reader finds it on. A field's line is
 * its key's (a scalar value shares it; a nested one starts below it); an item has no key,
 * so it is the item's own line. Keys compare as js-yaml turned them into property names.
 */
function step(node: PositionNode, segment: string | number): { node: PositionNode; line: number } | undefined {
  if (node.kind === 'mapping') {
    const at = keyPosition(node, String(segment));
    if (at !== undefined) return { node: node.children[at + 1]!, line: node.children[at]!.line };
  } else if (node.kind === 'sequence' && typeof segment === 'number') {
    const item = itemNode(node, segment);
    if (item) return { node: item, line: item.line };
  }
  return undefined;
}

/** Mappings with more keys than this are indexed: a report can look up a line for each of thousands of labels. */
const SCANNED_KEYS = 32;

/** Where the first key named `key` stands among a mapping's children (a value follows it), or undefined. */
function keyPosition(mapping: PositionNode, key: string): number | undefined {
  const { children } = mapping;
  if (children.length <= 2 * SCANNED_KEYS) {
    for (let i = 0; i + 1 < children.length; i += 2) if (String(children[i]!.result) === key) return i;
    return undefined;
  }
  if (!mapping.keyPositions) {
    mapping.keyPositions = new Map();
    for (let i = 0; i + 1 < children.length; i += 2) {
      const name = String(children[i]!.result);
      if (!mapping.keyPositions.has(name)) mapping.keyPositions.set(name, i);
    }
  }
  return mapping.keyPositions.get(key);
}

/** The 0-based line of the field at `segments`, or of its nearest existing parent; undefined when not even the first segment exists. */
function locate(root: PositionNode | undefined, segments: readonly Segment[]): number | undefined {
  let node = root;
  let line: number | undefined;
  for (const segment of segments) {
    const next = node && step(node, segment);
    if (!next) break;
    ({ node, line } = next);
  }
  return line;
}

/** One document of a stream: its text and the line its first line has in the file. */
interface Chunk {
  text: string;
  firstLine: number;
}

/** A `---` marker at the start of a line (other than the first), followed by a space, a tab or the line's end. */
const MARKER = /\n---(?=[ \t\n]|\r\n|\r?$)/g;

/** How many `\n` are in `text`. */
function countNewlines(text: string): number {
  let count = 0;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) count++;
  return count;
}

/**
 * Splits a stream at its `---` markers. A marker only ever starts a line at column 0
 * (block content is indented), so this needs no YAML parse. The marker line stays with
 * its document, which may carry content after it; the line break before it does not.
 */
function chunks(text: string): Chunk[] {
  const result: Chunk[] = [];
  let start = 0;
  let firstLine = 1;
  for (const marker of text.matchAll(MARKER)) {
    const chunk = text.slice(start, marker.index);
    result.push({ text: chunk, firstLine });
    firstLine += countNewlines(chunk) + 1;
    start = marker.index + 1;
  }
  result.push({ text: text.slice(start), firstLine });
  return withDirectivesJoined(result).map(withoutByteOrderMark).map(withoutLeadingDocumentEnds);
}

/**
 * Directives (`%YAML 1.1`) belong to the document whose `---` follows them: the directive
 * lines that end a chunk (the first of a stream, or after a `...`) move to the next one.
 */
function withDirectivesJoined(split: Chunk[]): Chunk[] {
  const joined: Chunk[] = [];
  for (let i = 0; i < split.length; i++) {
    const chunk = split[i]!;
    const next = split[i + 1];
    // Directives are rare: only a chunk with a line starting with % is looked at line by line.
    if (!next || !(chunk.text.startsWith('%') || chunk.text.includes('\n%'))) {
      joined.push(chunk);
      continue;
    }
    const lines = chunk.text.split('\n');
    let tail = lines.length;
    while (tail > 0 && (DIRECTIVE.test(lines[tail - 1]!) || BLANK_OR_COMMENT.test(lines[tail - 1]!))) tail--;
    if (lines.slice(tail).some((l) => DIRECTIVE.test(l))) {
      split[i + 1] = { text: `${lines.slice(tail).join('\n')}\n${next.text}`, firstLine: chunk.firstLine + tail };
      if (tail > 0) joined.push({ text: lines.slice(0, tail).join('\n'), firstLine: chunk.firstLine });
      continue;
    }
    joined.push(chunk);
  }
  return joined;
}

/** YAML allows a byte order mark at the start of any document (files saved on Windows, then concatenated). */
function withoutByteOrderMark(chunk: Chunk): Chunk {
  const bom = /^(---[^\n]*\n)?\uFEFF/.exec(chunk.text);
  return bom ? { ...chunk, text: `${bom[1] ?? ''}${chunk.text.slice(bom[0].length)}` } : chunk;
}

/** Blank and comment lines, and at least one `...` among them, at the start of a part that no `---` opens. */
const LEADING_DOCUMENT_ENDS = /^(?:[ \t]*(?:#[^\n]*)?\r?\n|\.\.\.(?:[ \t]+#[^\n]*)?[ \t]*\r?\n)*\.\.\.(?:[ \t]+#[^\n]*)?[ \t]*(?:\r?\n|$)/;

/**
 * A `...` before any document ends nothing: go-yaml skips it, so kubectl reads the document
 * after it, where js-yaml would count an empty document first and refuse the part as two.
 * Each such marker becomes blank, so lines keep their numbers.
 */
function withoutLeadingDocumentEnds(chunk: Chunk): Chunk {
  const lead = LEADING_DOCUMENT_ENDS.exec(chunk.text);
  if (!lead) return chunk;
  const blanked = lead[0].replace(/^\.\.\.(?=[ \t#\r\n]|$)/gm, '   ');
  return { ...chunk, text: blanked + chunk.text.slice(lead[0].length) };
}

/** Lines without content: blank, a comment, a marker (with a comment at most) or a directive. */
const BLANK_OR_COMMENT = /^\s*(?:#.*)?\r?$/;
const MARKER_LINE = /^(?:---|\.\.\.)(?:\s+#.*)?\s*$/;
const DIRECTIVE = /^%/;

/** The first line of a document that carries content (not a marker, comment or blank). */
function contentLine(chunk: Chunk): number {
  const { text } = chunk;
  for (let start = 0, line = chunk.firstLine; ; line++) {
    const end = text.indexOf('\n', start);
    const content = text.slice(start, end === -1 ? text.length : end);
    if (!BLANK_OR_COMMENT.test(content) && !MARKER_LINE.test(content) && !DIRECTIVE.test(content)) return line;
    if (end === -1) return chunk.firstLine;
    start = end + 1;
  }
}

/** What js-yaml names a key that is a mapping. go-yaml, and so kubectl, refuses such a key instead. */
const MAPPING_KEY = '[object Object]';
const MAPPING_KEY_MESSAGE =
  'YAML syntax error: invalid map key: a mapping cannot be a key (kubectl refuses it too); is a template placeholder such as {{ .Values.x }} left unrendered?';

/**
 * The path to the first mapping found with a mapping as a key (`{{ .Values.x }}`, `? {a: 1}`), or
 * undefined. Only a document with `{` or `?` can hold one; a text that spells the name out is
 * taken at its word.
 */
function mappingKeyPath(value: unknown, text: string): (string | number)[] | undefined {
  if (text.includes(MAPPING_KEY)) return undefined;
  const seen = new Set<object>();
  const visits: { node: unknown; parent: number; segment: string | number }[] = [{ node: value, parent: -1, segment: '' }];
  const stack = [0];
  while (stack.length) {
    const at = stack.pop()!;
    const { node } = visits[at]!;
    if (typeof node !== 'object' || node === null || seen.has(node)) continue;
    seen.add(node);
    if (!Array.isArray(node) && Object.hasOwn(node, MAPPING_KEY)) {
      const path: (string | number)[] = [];
      for (let i = at; i > 0; i = visits[i]!.parent) path.unshift(visits[i]!.segment);
      return path;
    }
    const entries: [string | number, unknown][] = Array.isArray(node) ? node.map((item, i) => [i, item]) : Object.entries(node);
    for (const [segment, child] of entries) {
      if (typeof child !== 'object' || child === null) continue;
      stack.push(visits.length);
      visits.push({ node: child, parent: at, segment });
    }
  }
  return undefined;
}

/** Parses one file's text into its objects. */
export function parseManifests(text: string, file: string): { manifests: Manifest[]; problems: ReadProblem[] } {
  const problems: ReadProblem[] = [];
  const manifests = [...manifestsIn(text, file, problems)];
  return { manifests, problems };
}

/** Where js-yaml says its error is: line and column from 0, and the offset into the text. */
interface YamlMark {
  line: number;
  column: number;
  position?: number;
}

/**
 * A mark's line and column in `text`. js-yaml sets them for every error but one: a NUL byte,
 * which it places by offset alone, on line 0 at a column past that line's end.
 */
function markIn(text: string, mark: YamlMark): { line: number; column: number } {
  const firstLineEnd = text.indexOf('\n');
  if (mark.line !== 0 || mark.position === undefined || mark.column <= (firstLineEnd < 0 ? text.length : firstLineEnd)) return mark;
  const at = lineAndColumn(text, mark.position);
  return { line: at.line - 1, column: at.column - 1 };
}

/** The objects of one file's text, one document at a time; problems are added to `problems`. */
function* manifestsIn(text: string, file: string, problems: ReadProblem[]): Generator<Manifest> {
  let expansionLeft = MAX_EXPANDED_NODES_PER_FILE;
  for (const chunk of chunks(text)) {
    let value: unknown;
    try {
      value = jsyaml.load(chunk.text, { schema: KUBECTL_JSYAML_SCHEMA, filename: file });
    } catch (err) {
      const e = err as { reason?: string; mark?: YamlMark; message: string };
      const at = e.mark ? markIn(chunk.text, e.mark) : undefined;
      problems.push({
        file,
        line: at ? chunk.firstLine + at.line : chunk.firstLine,
        column: at ? at.column + 1 : undefined,
        message: `YAML syntax error: ${e.reason ?? e.message.split('\n')[0]}`,
      });
      continue;
    }
    if (value === null || value === undefined) continue;
    const start = contentLine(chunk);
    // Without an anchor (`&`) there is no alias to expand, and no need to walk the document.
    if (chunk.text.includes('&')) {
      const { nodes, repeated } = expansion(value, MAX_EXPANDED_NODES);
      if (nodes > MAX_EXPANDED_NODES) {
        problems.push({ file, line: start, message: `document expands to more than ${MAX_EXPANDED_NODES.toLocaleString('en-US')} values through YAML aliases; refusing it` });
        continue;
      }
      // Only what aliases add counts here: a document without any (a `&` in a URL) adds nothing.
      if (repeated > expansionLeft) {
        expansionLeft = 0;
        problems.push({ file, line: start, message: `the documents of this file expand to more than ${MAX_EXPANDED_NODES_PER_FILE.toLocaleString('en-US')} values through YAML aliases; refusing this one` });
        continue;
      }
      expansionLeft -= repeated;
    }
    const keyedByMapping = chunk.text.includes('{') || chunk.text.includes('?') ? mappingKeyPath(value, chunk.text) : undefined;
    if (keyedByMapping) {
      const line = keyedByMapping.length ? locate(positionTree(chunk.text), keyedByMapping) : undefined;
      problems.push({ file, line: line === undefined ? start : chunk.firstLine + line, message: MAPPING_KEY_MESSAGE });
      continue;
    }
    if (!isRecord(value)) {
      problems.push({ file, line: start, message: 'document is not an object' });
      continue;
    }

    // The position tree is built on first use, and only for this document.
    let tree: PositionNode | undefined;
    const lineIn = (prefix: Segment[], field: Field, fallback: number) => {
      tree ??= positionTree(chunk.text);
      const line = locate(tree, [...prefix, ...asPath(field).segments()]);
      return line === undefined ? fallback : chunk.firstLine + line;
    };

    if (typeof value.kind === 'string' && value.kind.endsWith('List') && Array.isArray(value.items)) {
      // The API server's typed lists (`ServiceList` from `kubectl get --raw`) leave kind and apiVersion out of their items.
      const itemKind = value.kind === 'List' ? undefined : value.kind.slice(0, -'List'.length);
      for (const [i, rawItem] of value.items.entries()) {
        const prefix = ['items', i];
        if (!isRecord(rawItem)) {
          problems.push({ file, line: lineIn(prefix, '', start), message: `items[${i}] is not an object` });
          continue;
        }
        const item = itemKind && rawItem.kind === undefined ? { apiVersion: value.apiVersion, kind: itemKind, ...rawItem } : rawItem;
        // An item's line, like a field's, is looked up only if something reports it.
        const source: Source = {
          file,
          get line() {
            return lineIn(prefix, '', start);
          },
          lineOf: (field) => lineIn(prefix, field, start),
        };
        yield { object: item, source };
      }
    } else {
      yield { object: value, source: { file, line: start, lineOf: (field) => lineIn([], field, start) } };
    }
  }
}

/**
 * The manifests of `files` (`-` is standard input), one at a time as each file is
 * parsed: a caller that keeps only what it reports lets the objects go as it goes,
 * which for a stream of thousands halves the memory and the garbage collector's work.
 * Problems are added to `problems`.
 */
export function* streamManifests(files: readonly string[], problems: ReadProblem[], stdin: () => string = readStdin): Generator<Manifest> {
  for (const file of files) {
    let text: string;
    try {
      text = file === '-' ? stdin() : decodeManifest(readFileSync(file));
    } catch (err) {
      problems.push({ file, message: ioMessage(err) });
      continue;
    }
    yield* manifestsIn(text, file === '-' ? '<stdin>' : file, problems);
  }
}

/** Reads every manifest in `paths`; `-` reads `stdin`. */
export function readManifests(paths: readonly string[], stdin: () => string = readStdin): ReadResult {
  const problems: ReadProblem[] = [];
  const files = expandPaths(paths, problems);
  const manifests = [...streamManifests(files, problems, stdin)];
  return { manifests, problems, files: files.length };
}

/** Every object in `paths` (files or directories), for lookups; problems are returned, not thrown. */
export function readObjects(paths: readonly string[]): { objects: Record<string, unknown>[]; problems: ReadProblem[] } {
  // Standard input belongs to the objects under review; read here it would silently be empty.
  const stdin = paths.includes('-') ? [{ file: '-', message: 'standard input cannot be read here; give a file or a directory' }] : [];
  const { manifests, problems } = readManifests(paths.filter((path) => path !== '-'), () => '');
  return { objects: manifests.map((m) => m.object), problems: [...stdin, ...problems] };
}

/** `file:line:column` of a problem, as much of it as is known. */
export const problemPosition = (p: ReadProblem): string => `${p.file}${p.line ? `:${p.line}${p.column ? `:${p.column}` : ''}` : ''}`;

/** `file:line:column: message`, the way a problem is printed on its own. */
export const formatProblem = (p: ReadProblem): string => `${problemPosition(p)}: ${p.message}`;
