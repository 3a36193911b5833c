/**
 * Schema building blocks shared by the kinds. Every object schema closes its
 * properties (unknown fields are reported) except where the API carries raw data.
 */
import { Type, type TProperties, type TSchema, type ObjectOptions, type ArrayOptions, type StringOptions, type Static } from '@sinclair/typebox';

export { Type, type Static };

/** An object with exactly these properties; others are unknown fields. */
export const Obj = <P extends TProperties>(properties: P, options: ObjectOptions = {}) =>
  Type.Object(properties, { additionalProperties: false, ...options });

export const Opt = Type.Optional;
export const Str = (options: StringOptions = {}) => Type.String(options);
/** A required, non-empty string. */
export const ReqStr = (options: StringOptions = {}) => Type.String({ minLength: 1, ...options });
export const Bool = () => Type.Boolean();
/** A closed set of strings, reported as `Unsupported value` with the supported list. */
export const Enum = <const V extends readonly string[]>(values: V) => Type.Unsafe<V[number]>({ type: 'string', enum: [...values] });
export const Arr = <S extends TSchema>(items: S, options: ArrayOptions = {}) => Type.Array(items, options);
export const StrList = (options: ArrayOptions = {}) => Type.Array(Type.String(), options);

export const INT32_MIN = -2147483648;
export const INT32_MAX = 2147483647;
export const Int32 = (range: { minimum?: number; maximum?: number } = {}) =>
  Type.Integer({ minimum: INT32_MIN, maximum: INT32_MAX, ...range });
export const Int64 = (range: { minimum?: number; maximum?: number } = {}) => Type.Integer(range);

/** RFC 3339 timestamp. */
export const Time = () => Type.String({ format: 'date-time' });

/**
 * map[string]V. Written as `additionalProperties` (as Kubernetes CRDs write maps) rather
 * than TypeBox's Record, whose catch-all key pattern costs a regex test per key.
 */
export const MapOf = <S extends TSchema>(values: S) => Type.Unsafe<Record<string, Static<S>>>({ type: 'object', additionalProperties: values });

/** A resource quantity: `500m`, `4Gi`, or a bare number. */
export const Quantity = () => Type.Unsafe<string | number>({ type: ['string', 'number'], format: 'quantity' });

/** map[string]Quantity, keyed by resource name. */
export const QuantityMap = () => MapOf(Quantity());
export const StringMap = () => MapOf(Type.String());

/** Embedded objects the API keeps as they are (manifests, raw status). */
export const RawObject = () =>
  Type.Unsafe<Record<string, unknown>>({ type: 'object', 'x-kubernetes-preserve-unknown-fields': true });
export const RawValue = () => Type.Unsafe<unknown>({ 'x-kubernetes-preserve-unknown-fields': true });

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
  creationTimestamp: Opt(Type.Unsafe<string | null>({ type: ['string', 'null'], format: 'date-time' })),
  deletionTimestamp: Opt(Time()),
  deletionGracePeriodSeconds: Opt(Int64({ minimum: 0 })),
  labels: Opt(StringMap()),
  annotations: Opt(StringMap()),
  finalizers: Opt(StrList()),
  ownerReferences: Opt(Arr(OwnerReference)),
  managedFields: Opt(Arr(RawObject())),
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

export const LabelSelectorRequirement = Obj({
  key: ReqStr({ format: 'qualified-name' }),
  operator: Enum(['In', 'NotIn', 'Exists', 'DoesNotExist']),
  values: Opt(StrList()),
});
export const LabelSelector = Obj({
  matchLabels: Opt(StringMap()),
  matchExpressions: Opt(Arr(LabelSelectorRequirement)),
});

/** Cluster field selectors: only provider, region and zone, only In and NotIn. */
export const ClusterFieldSelectorRequirement = Obj({
  key: Enum(['provider', 'region', 'zone']),
  operator: Enum(['In', 'NotIn']),
  values: Opt(StrList()),
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
