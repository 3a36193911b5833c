import { describe, expect, it } from 'vitest';
import {
  cleanPath,
  continueExpiredStatus,
  decodeContinue,
  encodeContinue,
  listExpiredStatus,
  listRead,
  parseListOptions,
  parseResourceVersion,
  tooLargeResourceVersionStatus,
  watchExpiredStatus,
  type ListOptions,
} from '../../src/apiserver/list-options.js';
import { apiResources } from '../../src/apiserver/resources.js';

const work = apiResources().find((r) => r.kind === 'Work')!;
const remedy = apiResources().find((r) => r.kind === 'Remedy')!;
const PREFIX = '/work.karmada.io/works/';

const parse = (query: string, resource = work) => parseListOptions(new URLSearchParams(query), resource);
const options = (query: string): ListOptions => {
  const parsed = parse(query);
  if ('status' in parsed) throw new Error(JSON.stringify(parsed.status));
  return parsed.options;
};
const status = (query: string, resource = work) => {
  const parsed = parse(query, resource);
  if (!('status' in parsed)) throw new Error(`${query} was accepted`);
  return parsed.status as { code: number; reason: string; message: string; details?: any };
};
const token = (json: string) => Buffer.from(json).toString('base64url');

describe('parseListOptions: reading the query', () => {
  it('reads what kubectl sends', () => {
    const o = options('limit=500');
    expect([o.limit, o.watch, o.resourceVersion, o.continue, o.timeoutSeconds, o.sendInitialEvents]).toEqual([500, false, '', '', undefined, undefined]);
    const w = options('allowWatchBookmarks=true&fieldSelector=metadata.name%3Dw1&resourceVersion=42&timeoutSeconds=347&watch=true');
    expect([w.watch, w.allowWatchBookmarks, w.resourceVersion, w.timeoutSeconds]).toEqual([true, true, '42', 347]);
    expect(w.fieldSelector.exactMatch('metadata.name')).toBe('w1');
  });

  it('reads booleans as apimachinery: only 0 and false (any case) are false, an empty value is true', () => {
    expect(options('watch=').watch).toBe(true);
    expect(options('watch=yes').watch).toBe(true);
    expect(options('watch=FALSE').watch).toBe(false);
    expect(options('watch=0').watch).toBe(false);
    expect(options('watch=true&watch=false').watch).toBe(true);
  });

  it('refuses a number strconv.ParseInt refuses, timeoutSeconds before limit, with its text', () => {
    expect(status('limit=abc')).toMatchObject({ code: 400, reason: 'BadRequest', message: 'strconv.ParseInt: parsing "abc": invalid syntax' });
    expect(status('limit=').message).toBe('strconv.ParseInt: parsing "": invalid syntax');
    expect(status('limit=%205').message).toBe('strconv.ParseInt: parsing " 5": invalid syntax');
    expect(status('limit=99999999999999999999').message).toBe('strconv.ParseInt: parsing "99999999999999999999": value out of range');
    expect(status('limit=x&timeoutSeconds=1.5').message).toBe('strconv.ParseInt: parsing "1.5": invalid syntax');
    expect(options('limit=-5&timeoutSeconds=%2B30')).toMatchObject({ limit: -5, timeoutSeconds: 30 });
  });

  it('answers a bad selector with its parser\'s text, the label selector first', () => {
    expect(status('labelSelector=x%3D%3Da%3D%3Db&fieldSelector=x')).toMatchObject({ code: 400, message: "found '==', expected: ',' or 'end of string'" });
    expect(status('fieldSelector=x')).toMatchObject({ code: 400, message: "invalid selector: 'x'; can't understand 'x'" });
    expect(options('labelSelector=app%20in%20(a,b)').labelSelector.toString()).toBe('app in (a,b)');
  });

  it('checks the field labels after the options, with the kind\'s words', () => {
    expect(status('fieldSelector=spec.x%3D1')).toMatchObject({ code: 400, message: 'field label not supported: spec.x' });
    expect(status('fieldSelector=metadata.namespace%3Da', remedy).message).toBe('field label not supported: metadata.namespace');
    expect(status('fieldSelector=spec.x%3D1&resourceVersionMatch=Exact').code).toBe(422);
  });
});

describe('parseListOptions: ValidateListOptions', () => {
  it('answers 422 Invalid on ListOptions with every cause', () => {
    expect(status('resourceVersionMatch=Foo&continue=abc&sendInitialEvents=true')).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message:
        'ListOptions.meta.k8s.io "" is invalid: [resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided, resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden when continue is provided, resourceVersionMatch: Unsupported value: "Foo": supported values: "Exact", "NotOlderThan", "", sendInitialEvents: Forbidden: sendInitialEvents is forbidden for list]',
      reason: 'Invalid',
      details: {
        group: 'meta.k8s.io',
        kind: 'ListOptions',
        causes: [
          { reason: 'FieldValueForbidden', message: 'Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided', field: 'resourceVersionMatch' },
          { reason: 'FieldValueForbidden', message: 'Forbidden: resourceVersionMatch is forbidden when continue is provided', field: 'resourceVersionMatch' },
          { reason: 'FieldValueNotSupported', message: 'Unsupported value: "Foo": supported values: "Exact", "NotOlderThan", ""', field: 'resourceVersionMatch' },
          { reason: 'FieldValueForbidden', message: 'Forbidden: sendInitialEvents is forbidden for list', field: 'sendInitialEvents' },
        ],
      },
      code: 422,
    });
  });

  it('allows resourceVersionMatch on a list only with a resourceVersion, and not Exact with "0"', () => {
    expect(options('resourceVersion=5&resourceVersionMatch=Exact').resourceVersionMatch).toBe('Exact');
    expect(options('resourceVersion=0&resourceVersionMatch=NotOlderThan').resourceVersionMatch).toBe('NotOlderThan');
    expect(status('resourceVersion=0&resourceVersionMatch=Exact').message).toBe(
      'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch "exact" is forbidden for resourceVersion "0"',
    );
    expect(status('resourceVersionMatch=NotOlderThan').details.causes).toHaveLength(1);
  });

  it('defaults a watch from no or "0" resourceVersion to initial events (WatchList, on in kube 1.32)', () => {
    for (const rv of ['', 'resourceVersion=0&']) {
      const o = options(`${rv}watch=true`);
      expect([o.sendInitialEvents, o.resourceVersionMatch]).toEqual([true, 'NotOlderThan']);
    }
    const resumed = options('watch=true&resourceVersion=7');
    expect([resumed.sendInitialEvents, resumed.resourceVersionMatch]).toEqual([undefined, '']);
    const listed = options('resourceVersion=');
    expect(listed.sendInitialEvents).toBeUndefined();
  });

  it('allows sendInitialEvents on a watch only with resourceVersionMatch=NotOlderThan, and that match only with it', () => {
    expect(options('watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&resourceVersion=7')).toMatchObject({ sendInitialEvents: true });
    expect(options('watch=true&sendInitialEvents=false&resourceVersionMatch=NotOlderThan')).toMatchObject({ sendInitialEvents: false });
    expect(status('watch=true&sendInitialEvents=true&resourceVersion=7').message).toBe(
      'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan',
    );
    expect(status('watch=true&resourceVersionMatch=NotOlderThan&resourceVersion=7').message).toBe(
      'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided',
    );
    expect(status('watch=true&sendInitialEvents=true&resourceVersionMatch=Exact&continue=x').details.causes.map((c: any) => c.message)).toEqual([
      'Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan',
      'Unsupported value: "Exact": supported values: "NotOlderThan"',
      'Forbidden: resourceVersionMatch is forbidden when continue is provided',
    ]);
  });

  it('ignores limit and continue on a watch, as kube does', () => {
    expect(options('watch=true&resourceVersion=3&limit=5&continue=abc')).toMatchObject({ limit: 5, continue: 'abc' });
  });
});

describe('continue tokens', () => {
  it('encode as kube: base64url without padding of {"v","rv","start"} relative to the prefix', () => {
    const t = encodeContinue(`${PREFIX}ns1/w1\u0000`, PREFIX, 17);
    expect(t).not.toContain('=');
    expect(Buffer.from(t, 'base64url').toString()).toBe('{"v":"meta.k8s.io/v1","rv":17,"start":"ns1/w1\\u0000"}');
    expect(decodeContinue(t, PREFIX)).toEqual({ key: `${PREFIX}ns1/w1\u0000`, revision: 17 });
    expect(() => encodeContinue('/other/x', PREFIX, 1)).toThrow('unable to encode next field: the key and key prefix do not match');
  });

  it('decode a token that kube wrote (Go escapes <, > and & and sends field names as it likes)', () => {
    expect(decodeContinue(token('{"v":"meta.k8s.io/v1","rv":3,"start":"a\\u003cb"}'), PREFIX)).toEqual({ key: `${PREFIX}a<b`, revision: 3 });
    expect(decodeContinue(token('{"V":"meta.k8s.io/v1","RV":3,"Start":"x","other":1}'), PREFIX)).toEqual({ key: `${PREFIX}x`, revision: 3 });
    expect(decodeContinue(token('{"v":"meta.k8s.io/v1","rv":-1,"start":"/x"}'), PREFIX)).toEqual({ key: `${PREFIX}x`, revision: -1 });
  });

  it.each([
    ['e30*', 'continue key is not valid: illegal base64 data at input byte 3'],
    ['e30=', 'continue key is not valid: illegal base64 data at input byte 3'],
    ['e30Ae', 'continue key is not valid: illegal base64 data at input byte 4'],
    [token('x'), "continue key is not valid: invalid character 'x' looking for beginning of value"],
    [token(''), 'continue key is not valid: unexpected end of JSON input'],
    [token('{"v":'), 'continue key is not valid: unexpected end of JSON input'],
    [token('{"v" 1}'), "continue key is not valid: invalid character '1' after object key"],
    [token('{"v":"a" "rv":1}'), `continue key is not valid: invalid character '"' after object key:value pair`],
    [token('{"v":tru}'), "continue key is not valid: invalid character '}' in literal true (expecting 'e')"],
    [token('{}x'), "continue key is not valid: invalid character 'x' after top-level value"],
    [token('[]'), 'continue key is not valid: json: cannot unmarshal array into Go value of type storage.continueToken'],
    [token('{"v":1,"rv":1,"start":"x"}'), 'continue key is not valid: json: cannot unmarshal number into Go struct field continueToken.v of type string'],
    [token('{"v":"meta.k8s.io/v1","rv":1.5,"start":"x"}'), 'continue key is not valid: json: cannot unmarshal number 1.5 into Go struct field continueToken.rv of type int64'],
    [token('{"v":"meta.k8s.io/v1","rv":"1","start":"x"}'), 'continue key is not valid: json: cannot unmarshal string into Go struct field continueToken.rv of type int64'],
    [token('{"v":"meta.k8s.io/v2","rv":1,"start":"x"}'), 'continue key is not valid: server does not recognize this encoded version meta.k8s.io/v2'],
    [token('null'), 'continue key is not valid: server does not recognize this encoded version '],
    [token('{"v":"meta.k8s.io/v1","start":"x"}'), 'continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)'],
    [token('{"v":"meta.k8s.io/v1","rv":4}'), 'continue key is not valid: encoded start key empty (version meta.k8s.io/v1)'],
    [token('{"v":"meta.k8s.io/v1","rv":4,"start":"../../secrets/x"}'), 'continue key is not valid: ../../secrets/x'],
    [token('{"v":"meta.k8s.io/v1","rv":4,"start":"ns/"}'), 'continue key is not valid: ns/'],
  ])('refuse %s: %s', (t, error) => expect(decodeContinue(t, PREFIX)).toEqual({ error }));

  it('cleans paths as Go path.Clean', () => {
    expect(['/a/b', '/a//b', '/a/./b', '/a/../b', '/../a', '/a/', '/'].map(cleanPath)).toEqual(['/a/b', '/a/b', '/a/b', '/b', '/a', '/a', '/']);
  });
});

describe('listRead: how the storage is read', () => {
  const read = (query: string) => listRead(options(query), PREFIX);

  it('continues at the token\'s revision and key', () => {
    expect(read(`limit=2&continue=${encodeContinue(`${PREFIX}ns/b\u0000`, PREFIX, 9)}`)).toEqual({ startKey: `${PREFIX}ns/b\u0000`, revision: 9 });
    expect(read(`continue=${encodeContinue(`${PREFIX}ns/b`, PREFIX, -1)}&resourceVersion=0`)).toEqual({ startKey: `${PREFIX}ns/b` });
  });

  it('refuses a bad token and a resourceVersion beside a token with kube\'s 400', () => {
    expect(read('continue=%2A')).toEqual({ status: expect.objectContaining({ code: 400, message: 'invalid continue token: continue key is not valid: illegal base64 data at input byte 0' }) });
    expect(read(`continue=${encodeContinue(`${PREFIX}x`, PREFIX, 9)}&resourceVersion=9`)).toEqual({
      status: expect.objectContaining({ code: 400, message: 'specifying resource version is not allowed when using continue' }),
    });
  });

  it('reads the resourceVersion as the match asks', () => {
    expect(read('')).toEqual({});
    expect(read('resourceVersion=0')).toEqual({});
    expect(read('resourceVersion=12&resourceVersionMatch=Exact')).toEqual({ revision: 12 });
    expect(read('resourceVersion=12&resourceVersionMatch=NotOlderThan')).toEqual({ minRevision: 12 });
    expect(read('resourceVersion=12')).toEqual({ minRevision: 12 });
    expect(read('resourceVersion=12&limit=500')).toEqual({ revision: 12 });
    expect(read('resourceVersion=x1')).toEqual({
      status: expect.objectContaining({
        code: 400,
        message: 'invalid resource version: metadata.resourceVersion: Invalid value: "x1": strconv.ParseUint: parsing "x1": invalid syntax',
      }),
    });
  });

  it('parses resourceVersions as ParseUint', () => {
    expect([parseResourceVersion(''), parseResourceVersion('0'), parseResourceVersion('007')]).toEqual([0, 0, 7]);
    expect(parseResourceVersion('-1')).toMatch(/invalid syntax$/);
    expect(parseResourceVersion('18446744073709551616')).toMatch(/value out of range$/);
  });
});

describe('Status answers', () => {
  it('410 Expired for a compacted list, continue token and watch', () => {
    expect(listExpiredStatus()).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'The resourceVersion for the provided list is too old.',
      reason: 'Expired',
      code: 410,
    });
    const compacted = continueExpiredStatus(`${PREFIX}ns/c\u0000`, PREFIX) as { code: number; message: string; metadata: { continue: string } };
    expect(compacted.code).toBe(410);
    expect(compacted.message).toMatch(/^The provided continue parameter is too old to display a consistent list result\. You can start a new list without the continue parameter, or use the continue token/);
    expect(decodeContinue(compacted.metadata.continue, PREFIX)).toEqual({ key: `${PREFIX}ns/c\u0000`, revision: -1 });
    expect(watchExpiredStatus(5, 100)).toMatchObject({ code: 410, reason: 'Expired', message: 'too old resource version: 5 (100)' });
  });

  it('504 for a resourceVersion the store has not reached', () => {
    expect(tooLargeResourceVersionStatus(90, 80)).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'Timeout: Too large resource version: 90, current: 80',
      reason: 'Timeout',
      details: { causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }], retryAfterSeconds: 1 },
      code: 504,
    });
  });
});
