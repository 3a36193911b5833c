/**
 * Reading manifests the way kubectl does: YAML (multi-document) and JSON files,
 * directories searched recursively for *.yaml, *.yml and *.json, standard input as `-`,
 * and `List` objects unpacked. Every object keeps its file and line; a file that cannot
 * be read or parsed is reported with file:line:column and does not stop the others.
 *
 * Large streams are the common case in CI (a rendered chart, a kustomize build), so
 * documents are parsed with js-yaml, an order of magnitude faster than the `yaml`
 * package. This module puts the steps together: files.ts finds the files, yaml-stream.ts
 * cuts a stream into documents, alias-guards.ts and mapping-keys.ts refuse what kubectl
 * would not read, lists.ts unpacks lists, positions.ts finds the line of a field.
 */
import { readFileSync } from 'node:fs';
import jsyaml from 'js-yaml';
import { KUBECTL_JSYAML_SCHEMA } from './yaml.js';
import { isRecord } from '../util/is.js';
import { asPath, type Segment } from '../engine/path.js';
import type { Field } from '../engine/field.js';
import { decodeManifest, readStdin } from './text.js';
import { ioMessage, type ReadProblem } from './problems.js';
import { expandPaths } from './files.js';
import { expansion, MAX_EXPANDED_NODES, MAX_EXPANDED_NODES_PER_FILE } from './alias-guards.js';
import { MAPPING_KEY_MESSAGE, mappingKeyPath } from './mapping-keys.js';
import { chunks, contentLine, markIn, type YamlMark } from './yaml-stream.js';
import { locate, positionTree, type PositionNode } from './positions.js';
import { isList, listItems } from './lists.js';

export { decodeManifest };
export type { ReadProblem };

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

export interface ReadResult {
  manifests: Manifest[];
  problems: ReadProblem[];
  files: number;
}

/** Parses one file's text into its objects. */
export function parseManifests(text: string, file: string): { manifests: Manifest[]; problems: ReadProblem[] } {
  const problems: ReadProblem[] = [];
  const manifests = [...manifestsIn(text, file, problems)];
  return { manifests, problems };
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

    if (isList(value)) {
      for (const { object, name, prefix } of listItems(value)) {
        if (!object) {
          problems.push({ file, line: lineIn(prefix, '', start), message: `${name} is not an object` });
          continue;
        }
        // An item's line, like a field's, is looked up only if something reports it.
        const source: Source = {
          file,
          get line() {
            return lineIn(prefix, '', start);
          },
          lineOf: (field) => lineIn(prefix, field, start),
        };
        yield { object, source };
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
