/**
 * The merge topology of a kind, read from its JSON Schema as kube-apiserver reads a CRD's
 * (kube-openapi's schemaconv): objects with properties are structs and `additionalProperties`
 * objects are maps, both granular unless `x-kubernetes-map-type: atomic`; lists are atomic
 * unless `x-kubernetes-list-type` is `set`, or `map` with `x-kubernetes-list-map-keys`; what the
 * schema leaves open (`x-kubernetes-preserve-unknown-fields`, no type) is deduced from the value:
 * maps granular, lists atomic.
 *
 * One difference on purpose: kube refuses an applied field its schema does not declare (a 500,
 * "field not declared in schema"); here such a field is deduced like an open one, and the API
 * server's field validation then refuses (Strict) or drops (Ignore) it with its usual answer.
 */
import { isRecord } from '../../util/is.js';

export type Topology = Scalar | MapTopology | ListTopology | Deduced;

interface Scalar {
  readonly kind: 'scalar';
}
interface Deduced {
  readonly kind: 'deduced';
}
export interface MapTopology {
  readonly kind: 'map';
  /** Named fields (a struct's properties); other keys take `elements`. */
  readonly fields: ReadonlyMap<string, Topology>;
  readonly elements: Topology;
  readonly atomic: boolean;
}
export interface ListTopology {
  readonly kind: 'list';
  /** Atomic lists are replaced whole; associative ones merge item by item. */
  readonly associative: boolean;
  /** The key fields of a `map` list; empty for a `set` (items are their own keys). */
  readonly keys: readonly string[];
  /** Defaults the schema gives key fields, used for items that leave a key field out. */
  readonly keyDefaults: ReadonlyMap<string, unknown>;
  readonly elements: Topology;
}

export const SCALAR: Topology = { kind: 'scalar' };
export const DEDUCED: Topology = { kind: 'deduced' };
const DEDUCED_MAP: MapTopology = { kind: 'map', fields: new Map(), elements: DEDUCED, atomic: false };
const ATOMIC_DEDUCED_MAP: MapTopology = { kind: 'map', fields: new Map(), elements: DEDUCED, atomic: true };
const DEDUCED_LIST: ListTopology = { kind: 'list', associative: false, keys: [], keyDefaults: new Map(), elements: DEDUCED };

/** The schema keywords this reads (declared to ajv as annotations: they validate nothing). */
export const TOPOLOGY_KEYWORDS = ['x-kubernetes-list-type', 'x-kubernetes-list-map-keys', 'x-kubernetes-map-type'] as const;

const cache = new WeakMap<object, Topology>();

/** The topology a schema describes; computed once per schema object. */
export function topologyOf(schema: object): Topology {
  let t = cache.get(schema);
  if (!t) {
    t = build(schema as Record<string, unknown>);
    cache.set(schema, t);
  }
  return t;
}

const SCALAR_TYPES = new Set(['string', 'number', 'integer', 'boolean', 'null']);

function build(s: Record<string, unknown>): Topology {
  const types = Array.isArray(s.type) ? (s.type as unknown[]) : s.type === undefined ? [] : [s.type];
  const open = s['x-kubernetes-preserve-unknown-fields'] === true;
  if (types.includes('array') || (types.length === 0 && isRecord(s.items))) return buildList(s);
  const properties = isRecord(s.properties) ? s.properties : undefined;
  const additional = isRecord(s.additionalProperties) ? s.additionalProperties : undefined;
  if (types.includes('object') || properties || additional) {
    if (!properties && !additional) return s['x-kubernetes-map-type'] === 'atomic' ? ATOMIC_DEDUCED_MAP : DEDUCED;
    const fields = new Map<string, Topology>();
    for (const [name, child] of Object.entries(properties ?? {})) if (isRecord(child)) fields.set(name, topologyOf(child));
    const elements = additional && !open ? topologyOf(additional) : DEDUCED;
    return { kind: 'map', fields, elements, atomic: s['x-kubernetes-map-type'] === 'atomic' };
  }
  if (types.length > 0 && types.every((t) => typeof t === 'string' && SCALAR_TYPES.has(t))) return SCALAR;
  return DEDUCED;
}

function buildList(s: Record<string, unknown>): ListTopology {
  const items = isRecord(s.items) ? s.items : {};
  const elements = topologyOf(items);
  const listType = s['x-kubernetes-list-type'];
  const keys = Array.isArray(s['x-kubernetes-list-map-keys']) ? (s['x-kubernetes-list-map-keys'] as unknown[]).filter((k): k is string => typeof k === 'string') : [];
  if (listType === 'set') return { kind: 'list', associative: true, keys: [], keyDefaults: new Map(), elements };
  if (listType === 'map' && keys.length > 0) {
    const properties = isRecord(items.properties) ? items.properties : {};
    const keyDefaults = new Map<string, unknown>();
    for (const k of keys) {
      const p = properties[k];
      if (isRecord(p) && p.default !== undefined) keyDefaults.set(k, p.default);
    }
    return { kind: 'list', associative: true, keys, keyDefaults, elements };
  }
  return { kind: 'list', associative: false, keys: [], keyDefaults: new Map(), elements };
}

/**
 * What `topology` means for `value`: a deduced one, or one the value does not fit (a string where
 * the schema has a map), takes the value's own shape. Null and absent values keep the topology.
 */
export function resolve(topology: Topology, value: unknown): Exclude<Topology, Deduced> {
  if (value === undefined || value === null) return topology.kind === 'deduced' ? DEDUCED_MAP : topology;
  if (isRecord(value)) return topology.kind === 'map' ? topology : DEDUCED_MAP;
  if (Array.isArray(value)) return topology.kind === 'list' ? topology : DEDUCED_LIST;
  return SCALAR as Scalar;
}

/** The topology of a map's entry: the named field's, else the map's elements'. */
export const fieldTopology = (map: MapTopology, name: string): Topology => map.fields.get(name) ?? map.elements;
