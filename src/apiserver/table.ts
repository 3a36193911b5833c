/**
 * The Table form (`meta.k8s.io/v1` and `v1beta1`) of an object or a list, with the columns Karmada
 * shows: the CRDs' additionalPrinterColumns, Karmada's printer for Cluster, the generic
 * convertor for ResourceRegistry, and the CRD default (Name, Age) for the other kinds.
 *
 *   const rep = negotiateResource(req.headers.accept);          // undefined → 406
 *   if (rep?.convert?.kind === 'Table') {
 *     const options = tableOptions(url.searchParams);          // { status } → 400
 *     body = toTable(resource, listOrObject, { ...options, version: rep.convert.version });
 *   }
 *   // watch: const encoding = tableWatchEncoding(resource, options); each event's form = encoding.next()
 *
 * A Table response's Content-Type stays `application/json`, as kube's.
 */
import { age, parseRFC3339, ZERO_TIME } from './duration.js';
import { evaluate, parseColumnPath, type ColumnPath } from './jsonpath.js';
import { goJson, goNumber, goQuote } from './go-text.js';
import { negotiate, notAcceptableStatus, type EndpointRestrictions, type GroupVersionKind } from './negotiation.js';
import type { ApiResource } from './resources.js';
import { uniformWatchEncoding, type WatchEncoding, type WatchObjectEncoder } from './watch-encoding.js';

export interface ColumnDefinition {
  name: string;
  type: string;
  format: string;
  description: string;
  priority: number;
}

type JsonObject = Record<string, unknown>;
type Row = { cells: unknown[]; object: unknown };
export type IncludeObject = 'Metadata' | 'None' | 'Object';

export interface Table {
  kind: 'Table';
  apiVersion: string;
  metadata: { resourceVersion?: string; continue?: string; remainingItemCount?: number };
  /** null when headers are left out (later events of a Table watch), as kube writes it. */
  columnDefinitions: ColumnDefinition[] | null;
  /** null for an empty ResourceRegistry list, which kube's generic convertor leaves unset. */
  rows: Row[] | null;
}

export interface TableOptions {
  /** What each row carries as `object`: PartialObjectMetadata (default), nothing, or the object. */
  includeObject?: IncludeObject;
  /** Leave out the column definitions. */
  noHeaders?: boolean;
  /** `v1` (default) or `v1beta1` of meta.k8s.io, as the Accept header asked. */
  version?: 'v1' | 'v1beta1';
  /** The time ages are computed against. */
  now?: Date;
}

const NAME_DESCRIPTION = 'Name must be unique within a namespace. Cannot be updated.';
const CREATED_DESCRIPTION = 'CreationTimestamp is a timestamp representing the server time when this object was created.';
const nameColumn = (): ColumnDefinition => ({ name: 'Name', type: 'string', format: 'name', description: NAME_DESCRIPTION, priority: 0 });

interface CrdColumn {
  name: string;
  type: string;
  jsonPath: string;
  description?: string;
}

const AGE: CrdColumn = { name: 'AGE', type: 'date', jsonPath: '.metadata.creationTimestamp' };

/** additionalPrinterColumns of Karmada's CRDs (charts/karmada/_crds/bases), served version. */
const PRINTER_COLUMNS: Readonly<Record<string, readonly CrdColumn[]>> = {
  ResourceInterpreterCustomization: [
    { name: 'TARGET-API-VERSION', type: 'string', jsonPath: '.spec.target.apiVersion' },
    { name: 'TARGET-KIND', type: 'string', jsonPath: '.spec.target.kind' },
    AGE,
  ],
  Work: [
    { name: 'WORKLOAD-KIND', type: 'string', jsonPath: '.spec.workload.manifests[*].kind' },
    { name: 'APPLIED', type: 'string', jsonPath: '.status.conditions[?(@.type=="Applied")].status' },
    AGE,
  ],
  ClusterResourceBinding: [
    { name: 'SCHEDULED', type: 'string', jsonPath: '.status.conditions[?(@.type=="Scheduled")].status' },
    { name: 'FULLYAPPLIED', type: 'string', jsonPath: '.status.conditions[?(@.type=="FullyApplied")].status' },
    AGE,
  ],
  CronFederatedHPA: [
    { name: 'REFERENCE-KIND', type: 'string', jsonPath: '.spec.scaleTargetRef.kind' },
    { name: 'REFERENCE-NAME', type: 'string', jsonPath: '.spec.scaleTargetRef.name' },
    AGE,
  ],
  FederatedResourceQuota: [
    { name: 'OVERALL', type: 'string', jsonPath: '.status.overall' },
    { name: 'OVERALL_USED', type: 'string', jsonPath: '.status.overallUsed' },
  ],
};

/** apiextensions' default when a CRD declares no columns. */
const DEFAULT_CRD_COLUMNS: readonly CrdColumn[] = [{ name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp', description: CREATED_DESCRIPTION }];

/** Karmada's Cluster printer (pkg/printers/internalversion), served with Wide on. */
const CLUSTER_COLUMNS: readonly ColumnDefinition[] = [
  nameColumn(),
  { name: 'Version', type: 'string', format: '', description: 'Kubernetes version of the member cluster.', priority: 0 },
  { name: 'Mode', type: 'string', format: '', description: 'How the cluster syncs resources from the control plane.', priority: 0 },
  { name: 'Ready', type: 'string', format: '', description: 'Whether the cluster is ready to accept workloads.', priority: 0 },
  { name: 'Age', type: 'string', format: '', description: CREATED_DESCRIPTION, priority: 0 },
  { name: 'Zones', type: 'string', format: '', description: 'Failure zones of the member cluster.', priority: 1 },
  { name: 'Region', type: 'string', format: '', description: 'Region of the member cluster.', priority: 1 },
  { name: 'Provider', type: 'string', format: '', description: 'Cloud provider of the member cluster.', priority: 1 },
  { name: 'API-Endpoint', type: 'string', format: '', description: 'API endpoint of the member cluster.', priority: 1 },
  { name: 'Proxy-URL', type: 'string', format: '', description: 'Proxy URL of the member cluster.', priority: 1 },
];

/** k8s.io/apiserver's default convertor, which Karmada's search server uses for ResourceRegistry. */
const GENERIC_COLUMNS: readonly ColumnDefinition[] = [
  nameColumn(),
  { name: 'Created At', type: 'date', format: '', description: CREATED_DESCRIPTION, priority: 0 },
];

interface Printer {
  columns: readonly ColumnDefinition[];
  cells(object: JsonObject, now: Date): unknown[];
  /** kube's generic convertor leaves `rows` unset for an empty list; the others make it []. */
  emptyRows: [] | null;
}

const printers = new WeakMap<ApiResource, Printer>();

/** The printer of a resource: its columns and how a row's cells are made. */
export function printerFor(resource: ApiResource): Printer {
  let printer = printers.get(resource);
  if (printer === undefined) {
    printer = resource.kind === 'Cluster' ? clusterPrinter() : resource.servedBy === 'aggregated' ? genericPrinter() : crdPrinter(PRINTER_COLUMNS[resource.kind] ?? DEFAULT_CRD_COLUMNS);
    printers.set(resource, printer);
  }
  return printer;
}

function crdPrinter(crdColumns: readonly CrdColumn[]): Printer {
  const paths: ColumnPath[] = crdColumns.map((c) => parseColumnPath(c.jsonPath));
  return {
    columns: [
      nameColumn(),
      ...crdColumns.map((c) => ({
        name: c.name,
        type: c.type,
        format: '',
        description: c.description ?? `Custom resource definition column (in JSONPath format): ${c.jsonPath}`,
        priority: 0,
      })),
    ],
    cells: (object, now) => [nameOf(object), ...crdColumns.map((c, i) => crdCell(c.type, paths[i]!, object, now))],
    emptyRows: [],
  };
}

/** apiextensions' tableconvertor: the first value found, as the column's type has it, else null. */
function crdCell(type: string, path: ColumnPath, object: JsonObject, now: Date): unknown {
  const found = evaluate(path, object);
  if ('error' in found || found.values.length === 0) return null;
  const value = found.values[0];
  if (type === 'string') return printText(value);
  if (value === null || value === undefined) return null;
  switch (type) {
    case 'integer':
      return typeof value === 'number' ? Math.trunc(value) : null;
    case 'number':
      return typeof value === 'number' ? value : null;
    case 'boolean':
      return typeof value === 'boolean' ? value : null;
    case 'date':
      if (typeof value !== 'string') return null;
      if (value === '' || value === 'null') return '<unknown>';
      return parseRFC3339(value) === undefined ? '<invalid>' : age(value, now);
    default:
      return null;
  }
}

/** client-go jsonpath's PrintResults of one value: maps and lists as Go's JSON, the rest as `%v`. */
function printText(value: unknown): string {
  if (value === null || value === undefined) return '<no value>';
  if (typeof value === 'object') return goJson(value);
  if (typeof value === 'number') return goNumber(value);
  return String(value);
}

function clusterPrinter(): Printer {
  const orNone = (v: unknown) => (typeof v === 'string' && v !== '' ? v : '<none>');
  return {
    columns: CLUSTER_COLUMNS,
    cells: (object, now) => {
      const spec = asObject(object.spec);
      const status = asObject(object.status);
      const conditions = Array.isArray(status.conditions) ? status.conditions : [];
      const ready = conditions.map(asObject).find((c) => c.type === 'Ready');
      const zones = Array.isArray(spec.zones) ? spec.zones.filter((z): z is string => typeof z === 'string') : [];
      return [
        nameOf(object),
        stringOf(status.kubernetesVersion),
        stringOf(spec.syncMode),
        ready ? stringOf(ready.status) : 'Unknown',
        age(asObject(object.metadata).creationTimestamp, now),
        zones.length ? zones.join(',') : '<none>',
        orNone(spec.region),
        orNone(spec.provider),
        stringOf(spec.apiEndpoint),
        orNone(spec.proxyURL),
      ];
    },
    emptyRows: [],
  };
}

function genericPrinter(): Printer {
  return {
    columns: GENERIC_COLUMNS,
    cells: (object) => {
      const created = asObject(object.metadata).creationTimestamp;
      const time = typeof created === 'string' ? parseRFC3339(created) : undefined;
      return [nameOf(object), new Date(time ?? ZERO_TIME).toISOString().replace(/\.\d{3}Z$/, 'Z')];
    },
    emptyRows: null,
  };
}

const asObject = (v: unknown): JsonObject => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as JsonObject) : {});
const stringOf = (v: unknown): string => (typeof v === 'string' ? v : '');
const nameOf = (object: JsonObject): string => stringOf(asObject(object.metadata).name);

const isList = (value: JsonObject): boolean => Array.isArray(value.items);

/** ObjectMeta's fields in Go's order: what meta.AsPartialObjectMetadata copies. */
const OBJECT_META_FIELDS = [
  'name',
  'generateName',
  'namespace',
  'selfLink',
  'uid',
  'resourceVersion',
  'generation',
  'creationTimestamp',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
  'labels',
  'annotations',
  'ownerReferences',
  'finalizers',
  'managedFields',
] as const;

/** The PartialObjectMetadata of an object (`meta.k8s.io/<version>`), as a Table row or a metadata-only answer carries it. */
export function partialObjectMetadata(object: JsonObject, version: 'v1' | 'v1beta1' = 'v1'): JsonObject {
  const source = asObject(object.metadata);
  const metadata: JsonObject = {};
  for (const field of OBJECT_META_FIELDS) {
    if (source[field] !== undefined) metadata[field] = source[field];
    else if (field === 'creationTimestamp') metadata[field] = null;
  }
  return { kind: 'PartialObjectMetadata', apiVersion: `meta.k8s.io/${version}`, metadata };
}

/** The PartialObjectMetadataList of a list (`as=PartialObjectMetadataList`), keeping its list metadata. */
export function partialObjectMetadataList(list: JsonObject, version: 'v1' | 'v1beta1' = 'v1'): JsonObject {
  const items = Array.isArray(list.items) ? list.items.map((item) => partialObjectMetadata(asObject(item), version)) : [];
  return { kind: 'PartialObjectMetadataList', apiVersion: `meta.k8s.io/${version}`, metadata: listMetadata(list), items };
}

/** A list's (or a single object's) metadata as a Table or a list answer carries it. */
function listMetadata(value: JsonObject): Table['metadata'] {
  const source = asObject(value.metadata);
  const metadata: Table['metadata'] = {};
  if (typeof source.resourceVersion === 'string' && source.resourceVersion !== '') metadata.resourceVersion = source.resourceVersion;
  if (isList(value)) {
    if (typeof source.continue === 'string' && source.continue !== '') metadata.continue = source.continue;
    if (typeof source.remainingItemCount === 'number') metadata.remainingItemCount = source.remainingItemCount;
  }
  return metadata;
}

/** The Table of `value`: a list (rows in its order) or a single object (one row). */
export function toTable(resource: ApiResource, value: JsonObject, options: TableOptions = {}): Table {
  const printer = printerFor(resource);
  const version = options.version ?? 'v1';
  const now = options.now ?? new Date();
  const include = options.includeObject ?? 'Metadata';
  const items = isList(value) ? (value.items as unknown[]).map(asObject) : [value];
  const rows = items.map((item) => ({
    cells: printer.cells(item, now),
    object: include === 'None' ? null : include === 'Object' ? item : partialObjectMetadata(item, version),
  }));
  return {
    kind: 'Table',
    apiVersion: `meta.k8s.io/${version}`,
    metadata: listMetadata(value),
    columnDefinitions: options.noHeaders ? null : [...printer.columns],
    rows: rows.length === 0 && isList(value) ? printer.emptyRows : rows,
  };
}

/**
 * The Table form of a watch's events (kube's watchEmbeddedEncoder): each event's object becomes a
 * one-row Table and only the first carries the column definitions. A Status (an ERROR event's
 * object) passes unchanged, and uses up the headers as in kube; a BOOKMARK's object becomes a row
 * as well, as kube does. Each encoder names its form, so a row is encoded once per event for every
 * watcher asking for the same form (its AGE is the one computed then).
 */
export function tableWatchEncoding(resource: ApiResource, options: Omit<TableOptions, 'noHeaders'> = {}): WatchEncoding {
  const form = (noHeaders: boolean): WatchObjectEncoder => ({
    id: `Table;v=${options.version ?? 'v1'};includeObject=${options.includeObject ?? 'Metadata'};headers=${!noHeaders};${resource.group}/${resource.plural}`,
    encode: (object) => (object.kind === 'Status' ? object : toTable(resource, object, { ...options, noHeaders, now: options.now ?? new Date() })),
  });
  const withHeaders = form(false);
  const withoutHeaders = form(true);
  let headersSent = false;
  return {
    next: () => {
      const encoder = headersSent ? withoutHeaders : withHeaders;
      headersSent = true;
      return encoder;
    },
  };
}

/** tableWatchEncoding as one function: each call encodes the next event's object. */
export function tableWatchEncoder(resource: ApiResource, options: Omit<TableOptions, 'noHeaders'> = {}): (object: JsonObject) => JsonObject {
  const encoding = tableWatchEncoding(resource, options);
  return (object) => encoding.next().encode(object) as JsonObject;
}

/** The PartialObjectMetadata form of a watch's events (a Status passes unchanged). */
export function partialObjectMetadataWatchEncoding(version: 'v1' | 'v1beta1'): WatchEncoding {
  return uniformWatchEncoding({ id: `PartialObjectMetadata;v=${version}`, encode: (object) => (object.kind === 'Status' ? object : partialObjectMetadata(object, version)) });
}

/** A conversion a resource endpoint serves, from the Accept header. */
export interface ResourceRepresentation {
  /** Table, PartialObjectMetadata or PartialObjectMetadataList of meta.k8s.io; undefined for the object as it is. */
  convert?: { kind: 'Table' | 'PartialObjectMetadata' | 'PartialObjectMetadataList'; version: 'v1' | 'v1beta1' };
  /** Always `application/json`: kube does not name the conversion in a resource response's Content-Type. */
  contentType: string;
  /** `stream=watch` was asked. */
  stream?: string;
}

const META_GROUP = 'meta.k8s.io';

/** RequestScope.AllowsMediaTypeTransform for a JSON-only custom resource endpoint. */
const RESOURCE: EndpointRestrictions = {
  allowsTransform: (type, subType, target: GroupVersionKind | undefined) => {
    if (target === undefined) return true;
    if (target.group !== META_GROUP || (target.version !== 'v1' && target.version !== 'v1beta1')) return false;
    if (target.kind === 'Table') return type === 'application' && (subType === 'json' || subType === 'yaml');
    return target.kind === 'PartialObjectMetadata' || target.kind === 'PartialObjectMetadataList';
  },
  allowsStream: (schema) => schema === 'watch',
};

const RESOURCE_TYPES = ['application/json'] as const;

/**
 * The representation a resource request asks for: kubectl get sends
 * `application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json`.
 * Undefined when nothing offered is acceptable: answer notAcceptableStatus(['application/json']), 406.
 */
export function negotiateResource(accept: string | undefined): ResourceRepresentation | undefined {
  const choice = negotiate(accept, RESOURCE_TYPES, RESOURCE);
  if (!choice) return undefined;
  const convert = choice.convert && { kind: choice.convert.kind as 'Table', version: choice.convert.version as 'v1' | 'v1beta1' };
  return { ...(convert ? { convert } : {}), contentType: 'application/json', ...(choice.stream ? { stream: choice.stream } : {}) };
}

export const resourceNotAcceptableStatus = (): JsonObject => notAcceptableStatus(RESOURCE_TYPES);

/**
 * The table options of the query (`includeObject`), or the 400 kube answers for a bad one:
 * `Unable to convert to Table as requested: includeObject: Invalid value: "x": must be 'Metadata', 'Object', 'None', or empty`.
 */
export function tableOptions(query: URLSearchParams): { includeObject: IncludeObject } | { status: JsonObject } {
  const value = query.get('includeObject') ?? '';
  if (value === '' || value === 'Metadata' || value === 'None' || value === 'Object') return { includeObject: (value || 'Metadata') as IncludeObject };
  return {
    status: {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: `Unable to convert to Table as requested: includeObject: Invalid value: ${goQuote(value)}: must be 'Metadata', 'Object', 'None', or empty`,
      reason: 'BadRequest',
      code: 400,
    },
  };
}
