/**
 * The body of an apply patch (`application/apply-patch+yaml`): YAML, of which JSON is a part, read
 * as kube-apiserver reads it (go-yaml v2's scalars, the first document only), and the keys a map
 * repeats, which kube reports after the apply under `fieldValidation` Strict (400) or Warn:
 *
 *   error strict decoding YAML: error converting YAML to JSON: yaml: unmarshal errors:
 *     line 4: key "region" already set in map
 *
 * kubectl, Flux and Argo CD send JSON: that is read with JSON.parse, YAML with the `yaml` package.
 */
import { LineCounter, isScalar, parseAllDocuments, visit } from 'yaml';
import { KUBECTL_YAML } from '../input/yaml.js';
import { checkDepth, repeatedKeys, shapeOf, type RepeatedKey } from './body.js';
import { goQuote } from './apply/go-text.js';
import { badRequest } from './status.js';

export interface AppliedBody {
  /** The applied configuration as parsed; the apply module judges whether it is an object. */
  value: unknown;
  /** go-yaml's strict-decoding error for repeated keys, or undefined when there are none. */
  repeatedKeys: string | undefined;
}

export function readAppliedBody(text: string): AppliedBody {
  if (text.trimStart().startsWith('{')) {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      value = undefined; // YAML that starts with a flow mapping, or broken JSON: the YAML reader says which
    }
    if (value !== undefined) {
      const shape = shapeOf(text);
      checkDepth(shape, 'error decoding YAML');
      return { value, repeatedKeys: repeatedText(repeatedKeys(text, value, shape)) };
    }
  }
  return readYaml(text);
}

function readYaml(text: string): AppliedBody {
  const lineCounter = new LineCounter();
  try {
    const doc = parseAllDocuments(text, { ...KUBECTL_YAML, uniqueKeys: false, prettyErrors: false, lineCounter })[0];
    if (!doc) return { value: null, repeatedKeys: undefined };
    const error = doc.errors[0];
    if (error) throw badRequest(`error decoding YAML: ${error.message.split('\n', 1)[0]}`);
    const repeats: RepeatedKey[] = [];
    visit(doc, {
      Map(_, map) {
        const seen = new Set<string>();
        for (const pair of map.items) {
          const key = isScalar(pair.key) ? String(pair.key.value) : JSON.stringify(pair.key);
          // go-yaml names the line of the repeated key's value.
          const at = (pair.value as { range?: [number, number, number] } | null)?.range?.[0] ?? (pair.key as { range?: [number] } | null)?.range?.[0] ?? 0;
          if (seen.has(key)) repeats.push({ key, line: lineCounter.linePos(at).line });
          seen.add(key);
        }
      },
    });
    const value: unknown = doc.toJS({ maxAliasCount: 100 });
    JSON.stringify(value, (_key, v: unknown) => {
      if (typeof v === 'number' && !Number.isFinite(v)) throw badRequest(`error decoding YAML: error converting YAML to JSON: json: unsupported value: ${goFloat(v)}`);
      return v;
    });
    return { value, repeatedKeys: repeatedText(repeats) };
  } catch (err) {
    if (err instanceof RangeError) throw badRequest('error decoding YAML: the document is nested too deeply');
    if (err instanceof Error && err.name === 'ReferenceError') throw badRequest(`error decoding YAML: ${err.message}`); // excessive or unresolved aliases
    throw err;
  }
}

const goFloat = (v: number): string => (Number.isNaN(v) ? 'NaN' : v > 0 ? '+Inf' : '-Inf');

function repeatedText(repeats: readonly RepeatedKey[]): string | undefined {
  if (repeats.length === 0) return undefined;
  return `error converting YAML to JSON: yaml: unmarshal errors:\n${repeats.map((r) => `  line ${r.line}: key ${goQuote(r.key)} already set in map`).join('\n')}`;
}
