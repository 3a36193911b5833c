import { describe, expect, it } from 'vitest';
import { humanDuration, parseRFC3339, age } from '../../src/apiserver/duration.js';
import { evaluate, parseColumnPath } from '../../src/apiserver/jsonpath.js';
import { goJson, goNumber, goQuote } from '../../src/apiserver/go-text.js';
import { negotiateResource, partialObjectMetadata, partialObjectMetadataList, tableOptions, tableWatchEncoder, toTable } from '../../src/apiserver/table.js';
import { apiResources } from '../../src/apiserver/resources.js';

const S = 1000;
const M = 60 * S;
const H = 60 * M;
const D = 24 * H;
const Y = 365 * D;
const resource = (kind: string) => apiResources().find((r) => r.kind === kind)!;
const NOW = new Date('2025-01-10T12:00:00Z');

describe('humanDuration (apimachinery duration_test.go)', () => {
  it.each([
    [S, '1s'],
    [70 * S, '70s'],
    [190 * S, '3m10s'],
    [70 * M, '70m'],
    [47 * H, '47h'],
    [49 * H, '2d1h'],
    [(8 * 24 + 2) * H, '8d'],
    [367 * D, '367d'],
    [(365 * 2 * 24 + 25) * H, '2y1d'],
    [(365 * 8 * 24 + 2) * H, '8y'],
  ])('%d ms → %s', (ms, want) => expect(humanDuration(ms)).toBe(want));

  it.each([
    [-2 * S, '<invalid>'],
    [-2 * S + 1e-6, '0s'],
    [0, '0s'],
    [S - 1, '0s'],
    [2 * M - 1, '119s'],
    [2 * M, '2m'],
    [2 * M + S, '2m1s'],
    [10 * M - 1, '9m59s'],
    [10 * M, '10m'],
    [10 * M + S, '10m'],
    [3 * H - 1, '179m'],
    [3 * H, '3h'],
    [3 * H + M, '3h1m'],
    [8 * H - 1, '7h59m'],
    [8 * H, '8h'],
    [8 * H + 59 * M, '8h'],
    [2 * D - 1, '47h'],
    [2 * D, '2d'],
    [2 * D + H, '2d1h'],
    [8 * D - 1, '7d23h'],
    [8 * D, '8d'],
    [8 * D + 23 * H, '8d'],
    [2 * Y - 1, '729d'],
    [2 * Y, '2y'],
    [2 * Y + 23 * H, '2y'],
    [2 * Y + 23 * H + 59 * M, '2y'],
    [2 * Y + 24 * H - 1, '2y'],
    [2 * Y + 24 * H, '2y1d'],
    [3 * Y, '3y'],
    [7 * Y, '7y'],
    [8 * Y - 1, '7y364d'],
    [8 * Y, '8y'],
    [8 * Y + 364 * D, '8y'],
    [9 * Y, '9y'],
  ])('boundary %d ms → %s', (ms, want) => expect(humanDuration(ms)).toBe(want));
});

describe('RFC 3339 timestamps as Go parses them', () => {
  it('accepts Z, offsets and fractions', () => {
    expect(parseRFC3339('2025-01-10T12:00:00Z')).toBe(Date.UTC(2025, 0, 10, 12));
    expect(parseRFC3339('2025-01-10T13:30:00+01:30')).toBe(Date.UTC(2025, 0, 10, 12));
    expect(parseRFC3339('2025-01-10T12:00:00.5Z')).toBe(Date.UTC(2025, 0, 10, 12) + 500);
    expect(parseRFC3339('2024-02-29T00:00:00Z')).toBe(Date.UTC(2024, 1, 29));
  });

  it('refuses what Go refuses', () => {
    for (const bad of ['2025-01-10 12:00:00Z', '2025-01-10t12:00:00Z', '2025-13-01T00:00:00Z', '2023-02-29T00:00:00Z', '2025-01-10T24:00:00Z', '2025-01-10T12:00:00', '']) {
      expect(parseRFC3339(bad), bad).toBeUndefined();
    }
  });

  it('ages a timestamp, and says <unknown> for none or the zero time', () => {
    expect(age('2025-01-10T11:59:53Z', NOW)).toBe('7s');
    expect(age(undefined, NOW)).toBe('<unknown>');
    expect(age('0001-01-01T00:00:00Z', NOW)).toBe('<unknown>');
  });
});

describe('Go text', () => {
  it('quotes as strconv.Quote', () => {
    expect(goQuote('a"b\\c')).toBe('"a\\"b\\\\c"');
    expect(goQuote('tab\there\n')).toBe('"tab\\there\\n"');
    expect(goQuote('\x00\x7f')).toBe('"\\x00\\x7f"');
    expect(goQuote('zero\u200bwidth é 日本')).toBe('"zero\\u200bwidth é 日本"');
  });

  it('prints numbers as %v of a decoded JSON number', () => {
    expect([goNumber(3), goNumber(-12), goNumber(1.5), goNumber(123456.5), goNumber(1234567.5), goNumber(0.0001), goNumber(0.00001), goNumber(1e20)]).toEqual([
      '3', '-12', '1.5', '123456.5', '1.2345675e+06', '0.0001', '1e-05', '1e+20',
    ]);
    expect(goNumber(1e30)).toBe('1e+30');
  });

  it('marshals JSON as encoding/json: sorted keys, HTML-safe', () => {
    expect(goJson({ memory: '1Gi', cpu: '1', note: '<a&b>' })).toBe('{"cpu":"1","memory":"1Gi","note":"\\u003ca\\u0026b\\u003e"}');
    expect(goJson([1, 'x', null, true, { b: [], a: {} }])).toBe('[1,"x",null,true,{"a":{},"b":[]}]');
  });
});

describe('printer column JSONPath', () => {
  const conditions = (list: unknown) => ({ status: { conditions: list } });
  const applied = parseColumnPath('.status.conditions[?(@.type=="Applied")].status');

  it('follows fields, [*] and filters', () => {
    const kinds = parseColumnPath('.spec.workload.manifests[*].kind');
    expect(evaluate(kinds, { spec: { workload: { manifests: [{ kind: 'Deployment' }, { kind: 'Service' }, {}] } } })).toEqual({ values: ['Deployment', 'Service'] });
    expect(evaluate(applied, conditions([{ type: 'Other', status: 'False' }, { type: 'Applied', status: 'True' }]))).toEqual({ values: ['True'] });
    expect(evaluate(parseColumnPath('.items[?(@.ready)].name'), { items: [{ ready: false, name: 'a' }, { name: 'b' }] })).toEqual({ values: ['a'] });
    expect(evaluate(parseColumnPath(".a[?(@.n!='x')].n"), { a: [{ n: 'x' }, { n: 'y' }] })).toEqual({ values: ['y'] });
  });

  it('finds nothing for missing keys and nulls, as with AllowMissingKeys', () => {
    expect(evaluate(applied, {})).toEqual({ values: [] });
    expect(evaluate(applied, conditions(null))).toEqual({ values: [] });
    expect(evaluate(parseColumnPath('.spec.x.y'), { spec: { x: 'text' } })).toEqual({ values: [] });
  });

  it('fails where kube fails: a filter over a map, an incomparable value', () => {
    expect(evaluate(applied, conditions({ a: { type: 'Applied', status: 'True' } }))).toHaveProperty('error');
    expect(evaluate(applied, conditions([{ type: 5 }, { type: 'Applied', status: 'True' }]))).toEqual({ error: 'incompatible types for comparison' });
    expect(evaluate(applied, conditions([{ type: null }]))).toEqual({ error: 'invalid type for comparison' });
    expect(evaluate(parseColumnPath('.a[*]'), { a: { x: 1 } })).toHaveProperty('error');
  });

  it('refuses paths outside the subset', () => {
    expect(() => parseColumnPath('.a[0]')).toThrow(/unsupported JSONPath/);
    expect(() => parseColumnPath('{.a}')).toThrow(/unsupported JSONPath/);
  });
});

const work = {
  apiVersion: 'work.karmada.io/v1alpha1',
  kind: 'Work',
  metadata: {
    name: 'w1',
    namespace: 'karmada-es-m1',
    uid: 'u-1',
    resourceVersion: '12',
    creationTimestamp: '2025-01-10T11:55:00Z',
    labels: { a: 'b' },
    managedFields: [{ manager: 'kubectl' }],
  },
  spec: { workload: { manifests: [{ kind: 'Deployment' }, { kind: 'Service' }] } },
  status: { conditions: [{ type: 'Applied', status: 'True', reason: 'Ok', message: '', lastTransitionTime: '2025-01-10T11:56:00Z' }] },
};

describe('toTable', () => {
  it('gives a CRD kind its printer columns: the first value of a string column, ages as kubectl prints them', () => {
    const table = toTable(resource('Work'), { kind: 'WorkList', apiVersion: 'work.karmada.io/v1alpha1', metadata: { resourceVersion: '30', continue: 'abc', remainingItemCount: 4 }, items: [work] }, { now: NOW });
    expect(table.kind).toBe('Table');
    expect(table.apiVersion).toBe('meta.k8s.io/v1');
    expect(table.metadata).toEqual({ resourceVersion: '30', continue: 'abc', remainingItemCount: 4 });
    expect(table.columnDefinitions!.map((c) => [c.name, c.type, c.format, c.priority])).toEqual([
      ['Name', 'string', 'name', 0],
      ['WORKLOAD-KIND', 'string', '', 0],
      ['APPLIED', 'string', '', 0],
      ['AGE', 'date', '', 0],
    ]);
    expect(table.columnDefinitions![1]!.description).toBe('Custom resource definition column (in JSONPath format): .spec.workload.manifests[*].kind');
    expect(table.rows).toEqual([
      {
        cells: ['w1', 'Deployment', 'True', '5m'],
        object: {
          kind: 'PartialObjectMetadata',
          apiVersion: 'meta.k8s.io/v1',
          metadata: {
            name: 'w1',
            namespace: 'karmada-es-m1',
            uid: 'u-1',
            resourceVersion: '12',
            creationTimestamp: '2025-01-10T11:55:00Z',
            labels: { a: 'b' },
            managedFields: [{ manager: 'kubectl' }],
          },
        },
      },
    ]);
  });

  it('leaves a cell null when nothing is found or kube would fail', () => {
    const bare = { metadata: { name: 'w2' }, spec: {}, status: { conditions: [{ type: 7 }] } };
    expect(toTable(resource('Work'), bare, { now: NOW }).rows![0]!.cells).toEqual(['w2', null, null, null]);
  });

  it('prints maps in a string column as Go JSON (FederatedResourceQuota OVERALL), with no AGE column', () => {
    const quota = { metadata: { name: 'q' }, spec: { overall: { cpu: '1' } }, status: { overall: { memory: '1Gi', cpu: '1' } } };
    const table = toTable(resource('FederatedResourceQuota'), quota, { now: NOW });
    expect(table.columnDefinitions!.map((c) => c.name)).toEqual(['Name', 'OVERALL', 'OVERALL_USED']);
    expect(table.rows![0]!.cells).toEqual(['q', '{"cpu":"1","memory":"1Gi"}', null]);
  });

  it('gives a CRD kind without printer columns the default Name and Age', () => {
    const table = toTable(resource('Remedy'), { metadata: { name: 'r', creationTimestamp: '2025-01-08T10:00:00Z' } }, { now: NOW });
    expect(table.columnDefinitions!.map((c) => [c.name, c.type])).toEqual([
      ['Name', 'string'],
      ['Age', 'date'],
    ]);
    expect(table.rows![0]!.cells).toEqual(['r', '2d2h']);
    expect(toTable(resource('Remedy'), { metadata: { name: 'r', creationTimestamp: 'yesterday' } }, { now: NOW }).rows![0]!.cells).toEqual(['r', '<invalid>']);
  });

  it("prints Cluster with Karmada's printer, wide columns at priority 1", () => {
    const cluster = {
      metadata: { name: 'm1', creationTimestamp: '2025-01-10T08:48:00Z', resourceVersion: '5' },
      spec: { syncMode: 'Push', apiEndpoint: 'https://10.0.0.1:6443', zones: ['z1', 'z2'] },
      status: { kubernetesVersion: 'v1.31.2', conditions: [{ type: 'Ready', status: 'True' }] },
    };
    const table = toTable(resource('Cluster'), cluster, { now: NOW });
    expect(table.columnDefinitions!.map((c) => `${c.name}:${c.priority}`)).toEqual([
      'Name:0', 'Version:0', 'Mode:0', 'Ready:0', 'Age:0', 'Zones:1', 'Region:1', 'Provider:1', 'API-Endpoint:1', 'Proxy-URL:1',
    ]);
    expect(table.rows![0]!.cells).toEqual(['m1', 'v1.31.2', 'Push', 'True', '3h12m', 'z1,z2', '<none>', '<none>', 'https://10.0.0.1:6443', '<none>']);
    expect(table.metadata).toEqual({ resourceVersion: '5' });
    const fresh = { metadata: { name: 'm2' }, spec: { syncMode: 'Pull', region: 'eu' } };
    expect(toTable(resource('Cluster'), fresh, { now: NOW }).rows![0]!.cells).toEqual(['m2', '', 'Pull', 'Unknown', '<unknown>', '<none>', 'eu', '<none>', '', '<none>']);
  });

  it('prints ResourceRegistry with the generic convertor: Name and Created At, rows unset when empty', () => {
    const table = toTable(resource('ResourceRegistry'), { metadata: { name: 'rr', creationTimestamp: '2025-01-10T13:00:00.25+01:00' } }, { now: NOW });
    expect(table.columnDefinitions!.map((c) => [c.name, c.type])).toEqual([
      ['Name', 'string'],
      ['Created At', 'date'],
    ]);
    expect(table.rows![0]!.cells).toEqual(['rr', '2025-01-10T12:00:00Z']);
    expect(toTable(resource('ResourceRegistry'), { metadata: { name: 'x' } }).rows![0]!.cells).toEqual(['x', '0001-01-01T00:00:00Z']);
    expect(toTable(resource('ResourceRegistry'), { metadata: {}, items: [] }).rows).toBeNull();
    expect(toTable(resource('Work'), { metadata: {}, items: [] }).rows).toEqual([]);
  });

  it('carries the object as asked: metadata (default, with creationTimestamp null when unset), none, or whole', () => {
    const object = { metadata: { name: 'p', extra: 'dropped' }, spec: {} };
    expect(partialObjectMetadata(object, 'v1beta1')).toEqual({ kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1beta1', metadata: { name: 'p', creationTimestamp: null } });
    expect(toTable(resource('Remedy'), object, { includeObject: 'None' }).rows![0]!.object).toBeNull();
    expect(toTable(resource('Remedy'), object, { includeObject: 'Object' }).rows![0]!.object).toBe(object);
    const beta = toTable(resource('Remedy'), object, { version: 'v1beta1' });
    expect([beta.apiVersion, (beta.rows![0]!.object as any).apiVersion]).toEqual(['meta.k8s.io/v1beta1', 'meta.k8s.io/v1beta1']);
    expect(toTable(resource('Remedy'), object, { noHeaders: true }).columnDefinitions).toBeNull();
  });

  it('makes the metadata-only list form', () => {
    expect(partialObjectMetadataList({ kind: 'WorkList', metadata: { resourceVersion: '9', continue: 'c' }, items: [{ metadata: { name: 'a' }, spec: {} }] })).toEqual({
      kind: 'PartialObjectMetadataList',
      apiVersion: 'meta.k8s.io/v1',
      metadata: { resourceVersion: '9', continue: 'c' },
      items: [{ kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: { name: 'a', creationTimestamp: null } }],
    });
  });

  it('encodes a watch as one-row Tables, only the first with column definitions', () => {
    const encode = tableWatchEncoder(resource('Work'), { now: NOW });
    const first = encode(work) as any;
    const second = encode({ ...work, metadata: { ...work.metadata, resourceVersion: '13' } }) as any;
    expect(first.columnDefinitions).toHaveLength(4);
    expect(first.rows).toHaveLength(1);
    expect(second.columnDefinitions).toBeNull();
    expect(second.metadata).toEqual({ resourceVersion: '13' });
    const status = { kind: 'Status', apiVersion: 'v1', status: 'Failure', code: 410 };
    const afterError = tableWatchEncoder(resource('Work'));
    expect(afterError(status)).toBe(status);
    expect((afterError(work) as any).columnDefinitions).toBeNull();
  });
});

describe('negotiateResource and tableOptions', () => {
  const KUBECTL_GET = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json';

  it('recognizes the Table form kubectl get asks for, v1 first', () => {
    expect(negotiateResource(KUBECTL_GET)).toEqual({ convert: { kind: 'Table', version: 'v1' }, contentType: 'application/json' });
    expect(negotiateResource('application/json;as=Table;v=v1beta1;g=meta.k8s.io')?.convert).toEqual({ kind: 'Table', version: 'v1beta1' });
  });

  it('falls back to the object for conversions not served, and to nothing for other types', () => {
    expect(negotiateResource('application/json;as=Table;v=v2;g=meta.k8s.io,application/json')).toEqual({ contentType: 'application/json' });
    expect(negotiateResource('application/json;as=Deployment;v=v1;g=apps,application/json')).toEqual({ contentType: 'application/json' });
    expect(negotiateResource('application/json;as=Table;v=v2;g=meta.k8s.io')).toBeUndefined();
    expect(negotiateResource('application/yaml')).toBeUndefined();
    expect(negotiateResource(undefined)).toEqual({ contentType: 'application/json' });
    expect(negotiateResource('application/json;stream=watch')).toEqual({ contentType: 'application/json', stream: 'watch' });
    expect(negotiateResource('application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io')?.convert).toEqual({ kind: 'PartialObjectMetadataList', version: 'v1' });
  });

  it("reads includeObject, refusing a bad one with kube's 400", () => {
    expect(tableOptions(new URLSearchParams(''))).toEqual({ includeObject: 'Metadata' });
    expect(tableOptions(new URLSearchParams('includeObject=None'))).toEqual({ includeObject: 'None' });
    expect(tableOptions(new URLSearchParams('includeObject=All'))).toEqual({
      status: {
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message: `Unable to convert to Table as requested: includeObject: Invalid value: "All": must be 'Metadata', 'Object', 'None', or empty`,
        reason: 'BadRequest',
        code: 400,
      },
    });
  });
});
