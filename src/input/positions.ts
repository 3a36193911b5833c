/**
 * Lines of fields in a YAML document: a second js-yaml parse that records where every node
 * starts, walked along a field's path. Made only for the documents whose problems need one.
 */
import jsyaml from 'js-yaml';
import { KUBECTL_JSYAML_SCHEMA } from './yaml.js';
import type { Segment } from '../engine/path.js';

/** A node of one document as js-yaml composed it. */
export interface PositionNode {
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
export function positionTree(text: string): PositionNode | undefined {
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
export function locate(root: PositionNode | undefined, segments: readonly Segment[]): number | undefined {
  let node = root;
  let line: number | undefined;
  for (const segment of segments) {
    const next = node && step(node, segment);
    if (!next) break;
    ({ node, line } = next);
  }
  return line;
}
