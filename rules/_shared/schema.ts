/**
 * Schema building blocks shared by the kinds. Every object schema closes its
 * properties (unknown fields are reported) except where the API carries raw data.
 *
 * The builders return plain JSON Schema typed with TypeBox's types, so `Static<>`
 * derives each kind's TypeScript type from the very schema ajv enforces. TypeBox is
 * a type-level dependency only: loading its runtime costs a start-up ~70 ms and the
 * server ~14 MB for objects these few literals build just as well.
 */
import type {
  ArrayOptions,
  IntegerOptions,
  ObjectOptions,
  Static,
  StringOptions,
  TArray,
  TBoolean,
  TInteger,
  TObject,
  TOptional,
  TProperties,
  TSchema,
  TString,
  TUnsafe,
} from '@sinclair/typebox';

export type { Static, TSchema };

/** Schemas wrapped by Opt; Obj leaves them out of `required`. */
const optional = new WeakSet<object>();

/** An object with exactly these properties; others are unknown fields. */
export const Obj = <P extends TProperties>(properties: P, options: ObjectOptions = {}): TObject<P> => {
  const required = Object.keys(properties).filter((name) => !optional.has(properties[name]!));
  return { type: 'object', properties, ...(required.length ? { required } : {}), additionalProperties: false, ...options } as unknown as TObject<P>;
};

/** A property that may be absent. The schema is copied, so a shared one stays required elsewhere. */
export const Opt = <S extends TSchema>(schema: S): TOptional<S> => {
  const copy = { ...schema };
  optional.add(copy);
  return copy as TOptional<S>;
};

/** A schema written out by hand, with the TypeScript type it stands for. */
export const Unsafe = <T>(schema: object): TUnsafe<T> => schema as TUnsafe<T>;

export const Str = (options: StringOptions = {}): TString => ({ type: 'string', ...options }) as TString;
/** A required, non-empty string. */
export const ReqStr = (options: StringOptions = {}): TString => Str({ minLength: 1, ...options });
export const Bool = (): TBoolean => ({ type: 'boolean' }) as TBoolean;
/** A closed set of strings, reported as `Unsupported value` with the supported list. */
export const Enum = <const V extends readonly string[]>(values: V) => Unsafe<V[number]>({ type: 'string', enum: [...values] });
export const Arr = <S extends TSchema>(items: S, options: ArrayOptions = {}): TArray<S> => ({ type: 'array', items, ...options }) as unknown as TArray<S>;
export const StrList = (options: ArrayOptions = {}) => Arr(Str(), options);
const Integer = (options: IntegerOptions = {}): TInteger => ({ type: 'integer', ...options }) as TInteger;

export const INT32_MIN = -2147483648;
export const INT32_MAX = 2147483647;
export const Int32 = (range: { minimum?: number; maximum?: number } = {}) =>
  Integer({ minimum: INT32_MIN, maximum: INT32_MAX, ...range });
export const Int64 = (range: { minimum?: number; maximum?: number } = {}) => Integer(range);

/** RFC 3339 timestamp. */
export const Time = () => Str({ format: 'date-time' });

/**
 * map[string]V. Written as `additionalProperties` (as Kubernetes CRDs write maps) rather
 * than TypeBox's Record, whose catch-all key pattern costs a regex test per key.
 */
export const MapOf = <S extends TSchema>(values: S) => Unsafe<Record<string, Static<S>>>({ type: 'object', additionalProperties: values });

/** A resource quantity: `500m`, `4Gi`, or a bare number. */
export const Quantity = () => Unsafe<string | number>({ type: ['string', 'number'], format: 'quantity' });

/** map[string]Quantity, keyed by resource name. */
export const QuantityMap = () => MapOf(Quantity());
export const StringMap = () => MapOf(Str());

/**
 * Merge markers for server-side apply, as Kubernetes schemas write them (they validate nothing):
 * a list is atomic (replaced whole) unless it is a set or a map keyed by some of its items'
 * fields; an object is granular unless it is atomic.
 */
export const LIST_ATOMIC = { 'x-kubernetes-list-type': 'atomic' } as const;
export const LIST_SET = { 'x-kubernetes-list-type': 'set' } as const;
export const listMap = (...keys: string[]) => ({ 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': keys }) as const;
export const MAP_ATOMIC = { 'x-kubernetes-map-type': 'atomic' } as const;

/** Embedded objects the API keeps as they are (manifests, raw status). */
export const RawObject = (options: { readonly 'x-kubernetes-map-type'?: 'atomic' } = {}) =>
  Unsafe<Record<string, unknown>>({ type: 'object', 'x-kubernetes-preserve-unknown-fields': true, ...options });
export const RawValue = () => Unsafe<unknown>({ 'x-kubernetes-preserve-unknown-fields': true });

export const OwnerReference = Obj({
  apiVersion: ReqStr(),
  kind: ReqStr(),
  name: ReqStr(),
  uid: ReqStr(),
  controller: Opt(Bool()),
  blockOwnerDeletion: Opt(Bool()),
});

export const ObjectMeta = Obj({
  name: Opt(Str()),
  generateName: Opt(Str()),
  namespace: Opt(Str()),
  uid: Opt(Str()),
  resourceVersion: Opt(Str()),
  generation: Opt(Int64({ minimum: 0 })),
  creationTimestamp: Opt(Unsafe<string | null>({ type: ['string', 'null'], format: 'date-time' })),
  deletionTimestamp: Opt(Time()),
  deletionGracePeriodSeconds: Opt(Int64({ minimum: 0 })),
  labels: Opt(StringMap()),
  annotations: Opt(StringMap()),
  finalizers: Opt(StrList(LIST_SET)),
  ownerReferences: Opt(Arr(OwnerReference, listMap('uid'))),
  managedFields: Opt(Arr(RawObject(), LIST_ATOMIC)),
  selfLink: Opt(Str()),
});

/** The envelope every kind shares; `apiVersion` and `kind` are checked against the registry. */
export const envelope = {
  apiVersion: ReqStr(),
  kind: ReqStr(),
  metadata: ObjectMeta,
};

export const LocalSecretReference = Obj({ name: ReqStr(), namespace: ReqStr() });

/** The values of Condition.status, and so of anything that matches a condition's status. */
export const CONDITION_STATUSES = ['True', 'False', 'Unknown'] as const;

export const Condition = Obj({
  type: ReqStr({ maxLength: 316, format: 'camel-case-with-domain' }),
  status: Enum(CONDITION_STATUSES),
  lastTransitionTime: Time(),
  reason: ReqStr({ maxLength: 1024, format: 'camel-case' }),
  message: Str({ maxLength: 32768 }),
  observedGeneration: Opt(Int64({ minimum: 0 })),
});
export type Condition = Static<typeof Condition>;
/** Conditions, one per type: server-side apply merges them by type. */
export const Conditions = () => Arr(Condition, listMap('type'));

export const LabelSelectorRequirement = Obj({
  key: ReqStr({ format: 'qualified-name' }),
  operator: Enum(['In', 'NotIn', 'Exists', 'DoesNotExist']),
  values: Opt(StrList(LIST_ATOMIC)),
});
/** Kubernetes' LabelSelector is an atomic struct: a selector is applied whole. */
export const LabelSelector = Obj(
  {
    matchLabels: Opt(StringMap()),
    matchExpressions: Opt(Arr(LabelSelectorRequirement, LIST_ATOMIC)),
  },
  MAP_ATOMIC,
);

/** Cluster field selectors: only provider, region and zone, only In and NotIn. */
export const ClusterFieldSelectorRequirement = Obj({
  key: Enum(['provider', 'region', 'zone']),
  operator: Enum(['In', 'NotIn']),
  values: Opt(StrList(LIST_ATOMIC)),
});
export const FieldSelector = Obj({ matchExpressions: Opt(Arr(ClusterFieldSelectorRequirement)) });

export const ClusterAffinity = Obj({
  clusterNames: Opt(StrList()),
  exclude: Opt(StrList()),
  fieldSelector: Opt(FieldSelector),
  labelSelector: Opt(LabelSelector),
});

export const TaintEffect = Enum(['NoSchedule', 'PreferNoSchedule', 'NoExecute']);
export const Taint = Obj({
  key: ReqStr({ format: 'qualified-name' }),
  value: Opt(Str({ format: 'label-value' })),
  effect: TaintEffect,
  timeAdded: Opt(Time()),
});
export type Taint = Static<typeof Taint>;

/** A network port, 1 to 65535. */
export const Port = () => Int32({ minimum: 1, maximum: 65535 });

/** Health of a propagated resource in a member cluster (Work manifests, binding status). */
export const ResourceHealth = () => Enum(['Healthy', 'Unhealthy', 'Unknown']);

/** A load balancer's port status: MultiClusterIngress and MultiClusterService give it the same rules. */
export const PortStatus = Obj({
  port: Int32(),
  protocol: Enum(['TCP', 'UDP', 'SCTP']),
  // CamelCase for built-in values, <domain>/CamelCase for provider-specific ones.
  error: Opt(Str({ maxLength: 316, format: 'camel-case-with-domain' })),
});
