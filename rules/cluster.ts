/** Cluster (cluster.<domain>/v1alpha1, cluster-scoped): a member cluster. */
import { isIP } from 'node:net';
import {
  Arr, Bool, Conditions, Enum, Int32, LocalSecretReference, Obj, Opt, QuantityMap, Quantity, ReqStr, Str, StrList, StringMap, Taint, envelope, listMap,
  type Static,
} from './_shared/schema.js';
import { add, addWarning, addUnlessStored, checkConditions, checkTaintsUnique, checkUnique, child, index, isInt32, isRecord, isString, list, record, warnRepeats } from './_shared/checks.js';
import { duplicate, forbidden, invalid } from '../src/engine/field-error.js';
import { renderValue } from '../src/engine/field.js';
import { CLUSTER_NAME_MAX, clusterName } from '../src/checks/names.js';
import { compareQuantity, parseQuantity, type Quantity as Q } from '../src/checks/quantity.js';
import { memoizeVerdict } from '../src/checks/memo.js';
import { maskTrailingDash } from '../src/engine/metadata.js';
import { parseGoURL } from '../src/checks/go-url.js';
import { hostPortError } from '../src/checks/endpoint.js';
import type { DefaultContext, KindRules, RuleContext } from '../src/engine/rule.js';
import { FieldPath } from '../src/engine/path.js';

/** The paths the rules below report at, made once. */
const METADATA_GENERATE_NAME = FieldPath.of('metadata', 'generateName');
const SPEC_ID = FieldPath.of('spec', 'id');
const STATUS_API_ENABLEMENTS = FieldPath.of('status', 'apiEnablements');
const STATUS_CONDITIONS = FieldPath.of('status', 'conditions');

const SPEC = FieldPath.of('spec');

export const RESOURCE_MODEL_RESOURCES = ['cpu', 'memory', 'storage', 'ephemeral-storage'] as const;
const MODELLED_RESOURCES: ReadonlySet<string> = new Set(RESOURCE_MODEL_RESOURCES);

const ResourceModelRange = Obj({ name: Enum(RESOURCE_MODEL_RESOURCES), min: Quantity(), max: Quantity() });
// grade is an int32 as the spec says; Karmada's uint refuses negative grades.
const ResourceModel = Obj({ grade: Int32(), ranges: Arr(ResourceModelRange, { minItems: 1 }) });

const ClusterSpec = Obj({
  syncMode: Enum(['Push', 'Pull']),
  apiEndpoint: Opt(Str()),
  id: Opt(Str({ maxLength: 128000 })),
  secretRef: Opt(LocalSecretReference),
  impersonatorSecretRef: Opt(LocalSecretReference),
  insecureSkipTLSVerification: Opt(Bool()),
  provider: Opt(Str({ format: 'label-value' })),
  region: Opt(Str({ format: 'label-value' })),
  zone: Opt(Str({ format: 'label-value' })),
  zones: Opt(Arr(Str({ format: 'label-value' }))),
  proxyURL: Opt(Str()),
  proxyHeader: Opt(StringMap()),
  // A taint is identified by its key and effect (kube's own rule for node taints).
  taints: Opt(Arr(Taint, listMap('key', 'effect'))),
  resourceModels: Opt(Arr(ResourceModel)),
});

const ClusterStatus = Obj({
  apiEnablements: Opt(Arr(Obj({ groupVersion: ReqStr(), resources: Opt(Arr(Obj({ kind: ReqStr(), name: ReqStr() }))) }))),
  conditions: Opt(Conditions()),
  kubernetesVersion: Opt(Str()),
  nodeSummary: Opt(Obj({ readyNum: Opt(Int32({ minimum: 0 })), totalNum: Opt(Int32({ minimum: 0 })) })),
  remedyActions: Opt(StrList()),
  resourceSummary: Opt(
    Obj({
      allocatable: Opt(QuantityMap()),
      allocated: Opt(QuantityMap()),
      allocating: Opt(QuantityMap()),
      allocatableModelings: Opt(Arr(Obj({ grade: Int32(), count: Int32({ minimum: 0 }) }))),
    }),
  ),
});

export const schema = Obj({ ...envelope, spec: ClusterSpec, status: Opt(ClusterStatus) });
export type Cluster = Static<typeof schema>;
export type ResourceModel = Static<typeof ResourceModel>;

const API_ENDPOINT_FORMAT = 'desired format: hostname, hostname:port, IP or IP:port';
const BARE_HOST_PORT = /^(\[[0-9A-Fa-f:.]+\]|[^:/?#@\s[\]]+)(?::\d+)?$/;

/**
 * `hostname`, `hostname:port`, `IP`, `IP:port` as the spec says, and the `https://host:port` URLs in
 * use today: those as Karmada checks them (Go's url.Parse, a host, no user, query or fragment), with a
 * host and port the spec's forms allow.
 */
const apiEndpointError = memoizeVerdict((endpoint: string): string | undefined => {
  if (endpoint.includes('://') || endpoint.startsWith('//')) {
    const { url, error } = parseGoURL(endpoint);
    if (error !== undefined) return `apiEndpoint must be a valid URL: ${error}; ${API_ENDPOINT_FORMAT}`;
    if (url.host === '') return `host must be provided; ${API_ENDPOINT_FORMAT}`;
    if (url.user !== undefined) return 'user information is not permitted in the URL';
    if (url.fragment !== '') return 'fragments are not permitted in the URL';
    if (url.rawQuery !== '') return 'query parameters are not permitted in the URL';
    const hostProblem = hostPortError(url.host);
    return hostProblem && `${hostProblem}; ${API_ENDPOINT_FORMAT}`;
  }
  // A bare IPv6 address is an IP too; only with a port does it need its brackets.
  if (isIP(endpoint) === 6) return undefined;
  if (!BARE_HOST_PORT.test(endpoint)) return `apiEndpoint must be a valid endpoint; ${API_ENDPOINT_FORMAT}`;
  const hostProblem = hostPortError(endpoint);
  return hostProblem && `${hostProblem}; ${API_ENDPOINT_FORMAT}`;
});

/** Karmada's check: Go's url.Parse and one of three schemes (the host is not checked). */
const proxyURLError = memoizeVerdict((proxy: string): string | undefined => {
  const { url, error } = parseGoURL(proxy);
  if (error !== undefined) return `proxyURL must be a valid URL: ${error}`;
  if (!['http', 'https', 'socks5'].includes(url.scheme)) return `unsupported scheme "${url.scheme}", must be http, https, or socks5`;
  return undefined;
});

const storedSpec = (field: string) => (old: Record<string, unknown>): unknown => record(old.spec)[field];

/**
 * The API server names an object from its generateName by appending 5 random characters, and a
 * cluster's name may have 48: a longer prefix makes only names it refuses. A prefix that is too
 * long as a name, once masked, is already refused as a name is (checkMetadata).
 */
const GENERATED_SUFFIX_LENGTH = 5;
const MAX_GENERATE_NAME = CLUSTER_NAME_MAX - GENERATED_SUFFIX_LENGTH;

function checkGenerateName(cluster: Cluster, ctx: RuleContext): void {
  const { name, generateName } = record(cluster.metadata);
  if ((isString(name) && name !== '') || !isString(generateName)) return;
  if (generateName.length > MAX_GENERATE_NAME && maskTrailingDash(generateName).length <= CLUSTER_NAME_MAX) {
    add(ctx, invalid(METADATA_GENERATE_NAME, generateName, `must be no more than ${MAX_GENERATE_NAME} characters: the API server appends ${GENERATED_SUFFIX_LENGTH} random characters, and a cluster name may have ${CLUSTER_NAME_MAX}`));
  }
}

function validate(cluster: Cluster, ctx: RuleContext): void {
  checkGenerateName(cluster, ctx);
  const spec = record(cluster.spec);
  const path = SPEC;
  // `karmadactl join` copies the kubeconfig's server; a Cluster stored with one Karmada took must
  // stay writable by its controllers (taints, finalizers), so a kept endpoint only warns.
  if (isString(spec.apiEndpoint) && spec.apiEndpoint !== '') {
    const problem = apiEndpointError(spec.apiEndpoint);
    if (problem) addUnlessStored(ctx, invalid(child(path, 'apiEndpoint'), spec.apiEndpoint, problem), spec.apiEndpoint, storedSpec('apiEndpoint'));
  }
  if (isString(spec.proxyURL) && spec.proxyURL !== '') {
    const problem = proxyURLError(spec.proxyURL);
    if (problem) addUnlessStored(ctx, invalid(child(path, 'proxyURL'), spec.proxyURL, problem), spec.proxyURL, storedSpec('proxyURL'));
  }
  if (isString(spec.zone) && spec.zone !== '') {
    addWarning(ctx, child(path, 'zone'), 'spec.zone is deprecated and never used; use spec.zones');
    if (list(spec.zones).length > 0) add(ctx, forbidden(child(path, 'zone'), 'may not be set together with spec.zones; zone is deprecated, use zones only'));
  }
  warnRepeats(ctx, list(spec.zones), child(path, 'zones'), (zone) => (isString(zone) ? zone : undefined), (zone) => `zone ${renderValue(zone)}`);
  checkTaintsUnique(ctx, spec.taints, child(path, 'taints'));
  checkResourceModels(ctx, spec.resourceModels, child(path, 'resourceModels'));
}

const rangeNamed = (ranges: readonly ParsedRange[], name: string): ParsedRange | undefined => ranges.find((r) => r.name === name);

interface ParsedRange {
  name: string;
  min: Q | undefined;
  max: Q | undefined;
  minText: unknown;
  maxText: unknown;
  j: number;
}

/** A grade as the schema admits it (an int32), or undefined where the schema reports it. */
const int32Grade = (grade: unknown): number | undefined => (isInt32(grade) ? grade : undefined);

/** The lowest of the grades the schema admits, or undefined when it admits none. */
function lowestGrade(grades: readonly (number | undefined)[]): number | undefined {
  let lowest: number | undefined;
  for (const grade of grades) if (grade !== undefined && (lowest === undefined || grade < lowest)) lowest = grade;
  return lowest;
}

/** Where a range's field is: the model's index, the range's, the field. Built only for a cause. */
type RangePath = (i: number, j: number, field: string) => FieldPath;

/** A range of a grade after the first: min at least 0 and max above it, as the range is half-open. */
function checkRangeBounds(ctx: RuleContext, range: ParsedRange, i: number, at: RangePath): void {
  const { min, max } = range;
  if (min && min.num < 0n) add(ctx, invalid(at(i, range.j, 'min'), range.minText, 'must be greater than or equal to 0'));
  if (min && max && compareQuantity(max, min) <= 0) {
    add(ctx, invalid(at(i, range.j, 'max'), range.maxText, `must be greater than min (${String(range.minText)}): ranges are half-open [min, max)`));
  }
}

/**
 * A range of the first grade, whose min acts as zero whatever it says (Karmada sets it to 0
 * before validating): any min will do, and max must exceed 0.
 */
function checkFirstGradeRangeBounds(ctx: RuleContext, range: ParsedRange, grade: number, i: number, at: RangePath): void {
  if (range.max && range.max.num <= 0n) {
    add(ctx, invalid(at(i, range.j, 'max'), range.maxText, `must be greater than 0: the min of the first grade (grade ${grade}) acts as zero, and ranges are half-open [min, max)`));
  }
}

/**
 * Each range is half-open with max > min, the min of the first (lowest) grade acting as zero;
 * every grade models the same resources; the grades, ordered, form one continuous interval per
 * resource (a grade's max is the next grade's min). Quantities compare by value, so `1` meets `1000m`.
 */
function checkResourceModels(ctx: RuleContext, models: unknown, path: FieldPath): void {
  const items = list(models);
  checkUnique(ctx, items, (m) => record(m).grade, (m, i) => duplicate(child(index(path, i), 'grade'), record(m).grade));
  // A grade the schema refused (fractional, outside int32) cannot place its model among the others:
  // neither its neighbours nor whether its min acts as zero is known, so its bounds wait for the grade.
  const grades = items.map((m) => int32Grade(record(m).grade));
  const firstGrade = lowestGrade(grades);
  // A grade's ranges in list order: at most one per modelled resource, so arrays beat maps here.
  const parsed: { grade: number; i: number; ranges: ParsedRange[]; complete: boolean }[] = [];
  // Paths are built only for causes: a valid Cluster has dozens of ranges.
  const rangePath: RangePath = (i, j, field) => child(index(child(index(path, i), 'ranges'), j), field);
  for (let i = 0; i < items.length; i++) {
    const m = record(items[i]);
    const grade = grades[i];
    const rangeList = list(m.ranges);
    const ranges: ParsedRange[] = [];
    let complete = rangeList.length > 0;
    for (let j = 0; j < rangeList.length; j++) {
      const r = record(rangeList[j]);
      const name = r.name;
      // Unsupported names are reported by the schema; leaving them out keeps one mistake to one cause.
      if (!isString(name) || !MODELLED_RESOURCES.has(name)) {
        complete = false;
        continue;
      }
      if (rangeNamed(ranges, name)) {
        add(ctx, duplicate(rangePath(i, j, 'name'), name));
        continue;
      }
      const range: ParsedRange = { name, min: parseQuantity(r.min), max: parseQuantity(r.max), minText: r.min, maxText: r.max, j };
      ranges.push(range);
      if (grade === undefined) continue;
      if (grade === firstGrade) checkFirstGradeRangeBounds(ctx, range, grade, i, rangePath);
      else checkRangeBounds(ctx, range, i, rangePath);
    }
    if (grade !== undefined) parsed.push({ grade, i, ranges, complete });
  }
  // Without every grade the order of the models is unknown; the neighbours of a missing one would be blamed for a gap.
  const allGraded = parsed.length === items.length;

  // Models are usually listed by grade already.
  if (parsed.some((p, k) => k > 0 && parsed[k - 1]!.grade > p.grade)) parsed.sort((a, b) => a.grade - b.grade);
  // Every grade models every resource that any grade models. Grades whose ranges already
  // drew a cause (none given, an unsupported name) are not blamed a second time.
  const modelled: string[] = [];
  for (const p of parsed) for (const { name } of p.ranges) if (!modelled.includes(name)) modelled.push(name);
  for (const p of parsed) {
    if (p.ranges.length === modelled.length || !p.complete) continue;
    const names = [...modelled].sort();
    const missing = names.filter((name) => !rangeNamed(p.ranges, name));
    add(ctx, invalid(child(index(path, p.i), 'ranges'), p.ranges.map((r) => r.name), `every grade must model the same resources (${names.join(', ')}); missing ${missing.join(', ')}`));
  }
  // Karmada pairs the ranges of neighbouring grades by position, so the order must agree too;
  // each grade is held to the lowest one, so only a grade out of line is blamed.
  const reference = parsed.find((p) => p.complete && p.ranges.length === modelled.length);
  const order = reference ? reference.ranges.map((r) => r.name) : [];
  for (const p of parsed) {
    if (!reference || p === reference || !p.complete || p.ranges.length !== order.length) continue;
    const at = p.ranges.findIndex((range, j) => range.name !== order[j]);
    if (at >= 0) {
      add(ctx, invalid(rangePath(p.i, p.ranges[at]!.j, 'name'), p.ranges[at]!.name, `must be ${order[at]}: every grade lists its resources in the same order as grade ${reference.grade} (${order.join(', ')})`));
    }
  }
  // A repeated grade is reported as a duplicate; which of its models meets its neighbours is unknown.
  // The models are sorted, so a grade's repeats are its neighbours in the list.
  const sameGrade = (a: number, b: number) => parsed[a]?.grade === parsed[b]?.grade;
  for (let k = 1; allGraded && k < parsed.length; k++) {
    const prev = parsed[k - 1]!;
    const cur = parsed[k]!;
    if (sameGrade(k - 2, k - 1) || sameGrade(k - 1, k) || sameGrade(k, k + 1)) continue;
    for (const range of cur.ranges) {
      const before = rangeNamed(prev.ranges, range.name);
      if (!before?.max || !range.min) continue;
      if (compareQuantity(before.max, range.min) !== 0) {
        add(
          ctx,
          invalid(
            rangePath(cur.i, range.j, 'min'),
            range.minText,
            `must equal the max of ${range.name} in grade ${prev.grade} (${String(before.maxText)}) so the grades form one continuous interval`,
          ),
        );
      }
    }
  }
}

function validateStatus(cluster: Cluster, ctx: RuleContext): void {
  const status = record(cluster.status);
  checkConditions(ctx, status.conditions, STATUS_CONDITIONS);
  checkUnique(ctx, list(status.apiEnablements), (a) => record(a).groupVersion, (a, i) =>
    duplicate(child(index(STATUS_API_ENABLEMENTS, i), 'groupVersion'), record(a).groupVersion),
  );
}

function validateUpdate(cluster: Cluster, old: Cluster, ctx: RuleContext): void {
  const id = record(cluster.spec).id;
  const oldId = record(old.spec).id;
  if (isString(oldId) && oldId !== '' && id !== oldId) {
    addWarning(ctx, SPEC_ID, 'spec.id changed: the cluster ID identifies the cluster and composes multi-cluster service DNS names; change it only deliberately');
  }
}

const MAX_INT64 = '9223372036854775807';

/** Quantity text for n GiB as Kubernetes would print it (`4Gi`, `1Ti`). */
const gib = (n: bigint): string => (n === 0n ? '0' : n % 1024n === 0n ? `${n / 1024n}Ti` : `${n}Gi`);

/**
 * The spec's default models: grade 0 cpu [0,1) memory [0,4Gi); grade 1 cpu [1,2) memory
 * [4Gi,16Gi); grades 2–7 cpu [2^(g-1), 2^g) memory [2^(g+2), 2^(g+3)) GiB; grade 8 from
 * cpu 128 and memory 1024Gi, unbounded (max is the largest int64, as Karmada writes it).
 */
export function defaultResourceModels(): ResourceModel[] {
  const models: ResourceModel[] = [];
  for (let grade = 0; grade <= 8; grade++) {
    let cpu: [string, string];
    let memory: [string, string];
    if (grade === 0) [cpu, memory] = [['0', '1'], ['0', gib(4n)]];
    else if (grade === 1) [cpu, memory] = [['1', '2'], [gib(4n), gib(16n)]];
    else if (grade <= 7) {
      cpu = [String(2 ** (grade - 1)), String(2 ** grade)];
      memory = [gib(2n ** BigInt(grade + 2)), gib(2n ** BigInt(grade + 3))];
    } else [cpu, memory] = [['128', MAX_INT64], [gib(1024n), MAX_INT64]];
    models.push({
      grade,
      ranges: [
        { name: 'cpu', min: cpu[0], max: cpu[1] },
        { name: 'memory', min: memory[0], max: memory[1] },
      ],
    });
  }
  return models;
}

/** RFC 3339 with second precision, as Kubernetes writes metav1.Time. */
const rfc3339 = (d: Date): string => d.toISOString().replace(/\.\d{3}Z$/, 'Z');

function defaults(cluster: Cluster, ctx: DefaultContext): void {
  // A malformed spec gets no patch (one that could not apply): validation reports it.
  if (!isRecord(cluster.spec)) return;
  const spec = cluster.spec;
  // Only none (absent, null or empty): models of the wrong type are validation's to refuse, not to replace.
  const models: unknown = spec.resourceModels;
  if (ctx.operation === 'CREATE' && (models == null || (Array.isArray(models) && models.length === 0))) {
    ctx.set(['spec', 'resourceModels'], defaultResourceModels());
  }
  list<Record<string, unknown>>(spec.taints).forEach((taint, i) => {
    if (taint && taint.effect === 'NoExecute' && taint.timeAdded == null) ctx.set(['spec', 'taints', i, 'timeAdded'], rfc3339(ctx.now));
  });
}

export const rules: KindRules<Cluster> = {
  kind: 'Cluster',
  group: 'cluster',
  version: 'v1alpha1',
  plural: 'clusters',
  scope: 'Cluster',
  statusSubresource: true,
  schema,
  nameError: clusterName,
  validate,
  validateStatus,
  validateUpdate,
  defaults,
};
