/**
 * go-yaml's refusal of a mapping used as a key, which js-yaml accepts.
 */

/** What js-yaml names a key that is a mapping. go-yaml, and so kubectl, refuses such a key instead. */
const MAPPING_KEY = '[object Object]';
export const MAPPING_KEY_MESSAGE =
  'YAML syntax error: invalid map key: a mapping cannot be a key (kubectl refuses it too); is a template placeholder such as {{ .Values.x }} left unrendered?';

/**
 * The path to the first mapping found with a mapping as a key (`{{ .Values.x }}`, `? {a: 1}`), or
 * undefined. Only a document with `{` or `?` can hold one; a text that spells the name out is
 * taken at its word.
 */
export function mappingKeyPath(value: unknown, text: string): (string | number)[] | undefined {
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
