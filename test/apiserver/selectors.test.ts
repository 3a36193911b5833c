import { describe, expect, it } from 'vitest';
import {
  badRequestStatus,
  checkFieldLabels,
  labelValueErrors,
  parseFieldSelector,
  parseLabelSelector,
  qualifiedNameErrors,
  type FieldSelector,
  type LabelSelector,
} from '../../src/apiserver/selectors.js';
import { apiResources } from '../../src/apiserver/resources.js';

const labels = (text: string): LabelSelector => {
  const parsed = parseLabelSelector(text);
  if ('error' in parsed) throw new Error(`${text}: ${parsed.error}`);
  return parsed.selector;
};
const labelError = (text: string): string => {
  const parsed = parseLabelSelector(text);
  if (!('error' in parsed)) throw new Error(`${text} parsed`);
  return parsed.error;
};
const fields = (text: string): FieldSelector => {
  const parsed = parseFieldSelector(text);
  if ('error' in parsed) throw new Error(`${text}: ${parsed.error}`);
  return parsed.selector;
};

const QUALIFIED =
  "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const LABEL_VALUE =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";

describe('label selectors (apimachinery labels.Parse)', () => {
  it.each(['x=a,y=b,z=c', '', 'x!=a,y=b', 'x=', 'x= ', 'x=,z= ', 'x= ,z= ', '!x', 'x>1', 'x>1,z<5'])(
    'parses %j and prints it back without spaces (TestSelectorParse)',
    (text) => expect(labels(text).toString()).toBe(text.replace(/ /g, '')),
  );

  it.each([
    ['\rx', 'x'],
    ['this-is-a-dns.domain.com/key-with-dash', 'this-is-a-dns.domain.com/key-with-dash'],
    ['0.1.2.domain/99 notin (10.10.100.1, tick.tack.clock)', '0.1.2.domain/99 notin (10.10.100.1,tick.tack.clock)'],
    ['foo  in\t (abc)', 'foo in (abc)'],
    ['x notin\n (abc)', 'x notin (abc)'],
    ['x in (abc,)', 'x in (,abc)'],
    ['x in ()', 'x in ()'],
    ['x notin (abc,,def),bar,z in (),w', 'bar,w,x notin (,abc,def),z in ()'],
    ['x notin ( )', 'x notin ()'],
    ['x notin (, a)', 'x notin (,a)'],
    ['a ', 'a'],
    ['a in (x,y,notin, z,in)', 'a in (in,notin,x,y,z)'],
    ['x=a,a=x', 'a=x,x=a'],
    ['in=notin', 'in=notin'],
  ])('parses %j as %j (TestSetSelectorParser)', (text, canonical) => expect(labels(text).toString()).toBe(canonical));

  it.each([
    ['x=a||y=b', `unable to parse requirement: values[0][x]: Invalid value: "a||y": ${LABEL_VALUE}`],
    ['x==a==b', "found '==', expected: ',' or 'end of string'"],
    ['!x=a', "found '=', expected: ',' or 'end of string'"],
    ['x<a', `unable to parse requirement: values[0]: Invalid value: "a": for 'Gt', 'Lt' operators, the value must be an integer`],
    ['x,,y', "found ',', expected: identifier after ','"],
    [',x,y', "found ',', expected: !, identifier, or 'end of string'"],
    ['x nott in (y)', "unable to parse requirement: found 'nott', expected: in, notin, =, ==, !=, gt, lt"],
    ['a in (xyz),', "found '', expected: identifier after ','"],
    ['a in (xyz)b notin ()', "found 'b', expected: ',' or 'end of string'"],
    ['a in (xyz abc)', "unable to parse requirement: found 'abc', expected: ',' or ')'"],
    ['a notin(', "unable to parse requirement: found '', expected: ',', ')' or identifier"],
    ['a in x', "unable to parse requirement: found 'x' expected: '('"],
    ['a (', "unable to parse requirement: found '(', expected: in, notin, =, ==, !=, gt, lt"],
    ['(', "found '(', expected: !, identifier, or 'end of string'"],
    ['x=(', "unable to parse requirement: found '(', expected: identifier"],
    ['!', "unable to parse requirement: found '', expected: identifier"],
  ])('refuses %j: %s', (text, error) => expect(labelError(text)).toBe(error));

  it('checks keys as qualified names, with the parser\'s nil field path', () => {
    expect(labelError('a@b=c')).toBe(`unable to parse requirement: <nil>: Invalid value: "a@b": name part ${QUALIFIED}`);
    expect(labelError('Example.com/x')).toBe(
      "unable to parse requirement: <nil>: Invalid value: \"Example.com/x\": prefix part a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
    );
    expect(labelError('a/b/c')).toBe(
      `unable to parse requirement: <nil>: Invalid value: "a/b/c": a qualified name ${QUALIFIED} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`,
    );
    expect(labelError('/x')).toBe('unable to parse requirement: <nil>: Invalid value: "/x": prefix part must be non-empty');
    expect(labelError(`${'k'.repeat(64)}`)).toBe(`unable to parse requirement: <nil>: Invalid value: "${'k'.repeat(64)}": name part must be no more than 63 characters`);
    expect(labels('example.com/MyName').toString()).toBe('example.com/MyName');
  });

  it('checks values, each under values[i][key] in sorted order, several in one aggregate', () => {
    expect(labelError('x in (b@,a@)')).toBe(
      `unable to parse requirement: [values[0][x]: Invalid value: "a@": ${LABEL_VALUE}, values[1][x]: Invalid value: "b@": ${LABEL_VALUE}]`,
    );
    expect(labelError(`x=${'v'.repeat(64)}`)).toBe(`unable to parse requirement: values[0][x]: Invalid value: "${'v'.repeat(64)}": must be no more than 63 characters`);
    expect(labelError('x>a@')).toBe(
      `unable to parse requirement: [values[0]: Invalid value: "a@": for 'Gt', 'Lt' operators, the value must be an integer, values[0][x]: Invalid value: "a@": ${LABEL_VALUE}]`,
    );
  });

  it('matches labels as Requirement.Matches (TestSelectorMatches)', () => {
    const cases: [string, Record<string, string>, boolean][] = [
      ['', { x: 'y' }, true],
      ['x=y', { x: 'y' }, true],
      ['x=y,z=w', { x: 'y', z: 'w' }, true],
      ['x!=y,z!=w', { x: 'z', z: 'a' }, true],
      ['notin=in', { notin: 'in' }, true],
      ['x', { x: 'z' }, true],
      ['!x', { y: 'z' }, true],
      ['x>1', { x: '2' }, true],
      ['x<1', { x: '0' }, true],
      ['x=z', {}, false],
      ['x=y', { x: 'z' }, false],
      ['x=y,z=w', { x: 'w', z: 'w' }, false],
      ['x!=y,z!=w', { x: 'z', z: 'w' }, false],
      ['x', { y: 'z' }, false],
      ['!x', { x: 'z' }, false],
      ['x>1', { x: '0' }, false],
      ['x<1', { x: '2' }, false],
      ['x>1', { x: 'ten' }, false],
      ['x>1', {}, false],
      ['x in (a,b)', { x: 'b' }, true],
      ['x in (a,b)', {}, false],
      ['x notin (a,b)', {}, true],
      ['x notin (a,b)', { x: 'a' }, false],
      ['x in ()', { x: '' }, true],
      ['x=', { x: '' }, true],
      ['x=', {}, false],
    ];
    for (const [text, set, want] of cases) expect(labels(text).matches(set), `${text} ${JSON.stringify(set)}`).toBe(want);
    expect(labels('!x').matches(undefined)).toBe(true);
    expect(labels('toString').matches({})).toBe(false);
  });

  it('keeps the requirements sorted by key', () => {
    expect(labels('z,!a,m in (2,1)').requirements).toEqual([
      { key: 'a', operator: '!', values: [] },
      { key: 'm', operator: 'in', values: ['1', '2'] },
      { key: 'z', operator: 'exists', values: [] },
    ]);
  });
});

describe('qualified names and label values', () => {
  it('follows validation.IsQualifiedName and IsValidLabelValue', () => {
    expect(qualifiedNameErrors('app.kubernetes.io/name')).toEqual([]);
    expect(qualifiedNameErrors('-x')).toEqual([`name part ${QUALIFIED}`]);
    expect(qualifiedNameErrors('x/')).toEqual(['name part must be non-empty', `name part ${QUALIFIED}`]);
    expect(labelValueErrors('')).toEqual([]);
    expect(labelValueErrors('a-b_c.d')).toEqual([]);
    expect(labelValueErrors('-a')).toEqual([LABEL_VALUE]);
  });
});

describe('field selectors (apimachinery fields.ParseSelector)', () => {
  it.each(['x=a,y=b,z=c', '', 'x!=a,y=b', 'x=a||y\\=b', 'x=a\\=\\=b'])('parses %j and prints it back', (text) => expect(fields(text).toString()).toBe(text));

  it.each([
    ['x=a||y=b', 'invalid field selector: unescaped character in value: 61'],
    ['x==a==b', 'invalid field selector: unescaped character in value: 61'],
    ['x=a,b', "invalid selector: 'x=a,b'; can't understand 'b'"],
    ['x in (a)', "invalid selector: 'x in (a)'; can't understand 'x in (a)'"],
    ['x', "invalid selector: 'x'; can't understand 'x'"],
    ['x=a\\b', 'invalid field selector: invalid escape sequence: \\b'],
    ['x=a\\', 'invalid field selector: invalid escape sequence: \\'],
  ])('refuses %j: %s', (text, error) => expect(parseFieldSelector(text)).toEqual({ error }));

  it('sorts the terms and reads ==, = and != and escapes', () => {
    expect(fields('metadata.namespace!=kube-system,metadata.name==m1').terms).toEqual([
      { field: 'metadata.name', operator: '=', value: 'm1' },
      { field: 'metadata.namespace', operator: '!=', value: 'kube-system' },
    ]);
    expect(fields('metadata.name=a\\,b').terms[0]!.value).toBe('a,b');
    expect(fields('=,metadata.name=x').terms).toHaveLength(1);
  });

  it('matches metadata.name and metadata.namespace, absent as empty', () => {
    const object = { metadata: { name: 'm1', namespace: 'ns1' } };
    expect(fields('metadata.name=m1').matches(object)).toBe(true);
    expect(fields('metadata.name=m2').matches(object)).toBe(false);
    expect(fields('metadata.name!=m2,metadata.namespace=ns1').matches(object)).toBe(true);
    expect(fields('metadata.namespace=').matches({ metadata: { name: 'c' } })).toBe(true);
    expect(fields('metadata.namespace!=').matches({ metadata: { name: 'c' } })).toBe(false);
    expect(fields('metadata.name=m1').exactMatch('metadata.name')).toBe('m1');
    expect(fields('metadata.name!=m1').exactMatch('metadata.name')).toBeUndefined();
  });

  const resource = (kind: string) => apiResources().find((r) => r.kind === kind)!;

  it('accepts only the field labels the kind\'s server accepts, with its words', () => {
    expect(checkFieldLabels(fields('metadata.name=a,metadata.namespace=b'), resource('Work'))).toBeUndefined();
    expect(checkFieldLabels(fields('spec.x=1,metadata.name=a'), resource('Work'))).toEqual({ error: 'field label not supported: spec.x' });
    expect(checkFieldLabels(fields('metadata.namespace=b'), resource('Remedy'))).toEqual({ error: 'field label not supported: metadata.namespace' });
    expect(checkFieldLabels(fields('metadata.namespace=,metadata.name=m1'), resource('Cluster'))).toBeUndefined();
    expect(checkFieldLabels(fields('status.phase=x'), resource('Cluster'))).toEqual({
      error: '"status.phase" is not a known field selector: only "metadata.name", "metadata.namespace"',
    });
    expect(checkFieldLabels(fields('b.x=1,a.x=1'), resource('ResourceRegistry'))).toEqual({
      error: '"a.x" is not a known field selector: only "metadata.name", "metadata.namespace"',
    });
  });

  it('gives the 400 Status kube answers with', () => {
    expect(badRequestStatus('field label not supported: spec.x')).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'field label not supported: spec.x',
      reason: 'BadRequest',
      code: 400,
    });
  });
});
