/**
 * The bounds on what YAML aliases add to a document and to a file.
 *
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

export interface Expansion {
  /** The nodes a walk visits, counted up to the limit + 1 (the walk stops there). */
  nodes: number;
  /** Of those, the visits an alias adds: to an object (js-yaml shares an aliased one) seen before, and to all inside it. */
  repeated: number;
}

/** Whether reading a value visits more than `limit` values, counting every visit an alias adds. */
export const expandsBeyond = (value: unknown, limit: number): boolean => expansion(value, limit).nodes > limit;

export function expansion(value: unknown, limit: number): Expansion {
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
