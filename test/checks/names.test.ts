import { describe, expect, it } from 'vitest';
import * as names from '../../src/checks/names.js';

type Check = (value: string) => string | undefined;

/** Each predicate: values it accepts, values it rejects, and (where it matters) what the message says. */
function table(check: Check, valid: string[], invalid: string[]): void {
  it.each(valid)('accepts %j', (v) => expect(check(v)).toBeUndefined());
  it.each(invalid)('rejects %j', (v) => expect(check(v)).toEqual(expect.any(String)));
}

describe('dns1123Label', () => {
  table(names.dns1123Label, ['a', '0', 'my-name', '123-abc', 'a'.repeat(63)], ['', 'A', 'a.b', '-a', 'a-', 'a_b', 'a'.repeat(64)]);
  it('names the length limit', () => expect(names.dns1123Label('a'.repeat(64))).toBe('must be no more than 63 characters'));
  it('names no length limit at 63 characters', () => expect(names.dns1123Label('A'.repeat(63))).toMatch(/^a lowercase RFC 1123 label must /));
  it('names both problems, joined', () => expect(names.dns1123Label('A'.repeat(64))).toMatch(/^must be no more than 63 characters; a lowercase RFC 1123 label must /));
});

describe('dns1123Subdomain', () => {
  table(
    names.dns1123Subdomain,
    ['a', 'example.com', 'a-b.c-d', '0.0', `${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(61)}`],
    ['', 'Example.com', 'a..b', '.a', 'a.', 'a_b.com', '-a.com', 'a'.repeat(254)],
  );
  it('allows exactly 253 characters', () => {
    const name = `${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(61)}`;
    expect(name).toHaveLength(253);
    expect(names.dns1123Subdomain(`${name}e`)).toContain('must be no more than 253 characters');
    expect(names.dns1123Subdomain(`${name}E`)).toMatch(/^must be no more than 253 characters; a lowercase RFC 1123 subdomain must /);
    expect(names.dns1123Subdomain(`${name.slice(0, -1)}E`)).toMatch(/^a lowercase RFC 1123 subdomain must /);
  });
});

describe('dns1035Label', () => {
  table(names.dns1035Label, ['a', 'my-name', 'abc-123', 'a'.repeat(63)], ['', '1abc', 'a-', 'A', 'a.b', 'a'.repeat(64)]);
  it('names only the pattern at 63 characters', () => expect(names.dns1035Label('A'.repeat(63))).toMatch(/^a DNS-1035 label must /));
  it('names only the length limit for a well-formed label', () => expect(names.dns1035Label('a'.repeat(64))).toBe('must be no more than 63 characters'));
  it('names both problems, joined', () => expect(names.dns1035Label('1'.repeat(64))).toMatch(/^must be no more than 63 characters; a DNS-1035 label must /));
});

describe('wildcardDns1123Subdomain', () => {
  const longest = `*.${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(59)}`;
  table(names.wildcardDns1123Subdomain, ['*.example.com', '*.a', longest], ['*', '*.', 'foo.*.com', '**.example.com', 'example.com', '*.Example.com', `${longest}d`]);
  it('allows exactly 253 characters', () => {
    expect(longest).toHaveLength(253);
    expect(names.wildcardDns1123Subdomain(`${longest}d`)).toBe('must be no more than 253 characters');
    expect(names.wildcardDns1123Subdomain(`${longest}D`)).toMatch(/^must be no more than 253 characters; a wildcard DNS-1123 subdomain must /);
  });
});

describe('qualifiedName', () => {
  table(
    names.qualifiedName,
    ['MyName', 'my.name', '123-abc', 'a', 'example.com/MyName', 'a_b', 'a'.repeat(63), `${'p'.repeat(253)}/name`],
    ['', '-a', 'a-', 'a b', '/a', 'a/', 'a/b/c', 'Example.com/a', 'a'.repeat(64), `${'p'.repeat(254)}/name`],
  );
  it('explains which part is wrong', () => {
    expect(names.qualifiedName('/a')).toBe('prefix part must be non-empty');
    expect(names.qualifiedName('a/')).toBe('name part must be non-empty');
    expect(names.qualifiedName('a'.repeat(64))).toContain('name part must be no more than 63 characters');
    expect(names.qualifiedName('Bad_/x')).toMatch(/^prefix part /);
    expect(names.qualifiedName(`${'a'.repeat(62)}-`)).toMatch(/^name part must consist /);
    expect(names.qualifiedName(`${'a'.repeat(63)}-`)).toMatch(/^name part must be no more than 63 characters; name part must consist /);
  });
});

describe('labelValue', () => {
  table(names.labelValue, ['', 'MyValue', 'my_value', '12345', 'a.b-c', 'v'.repeat(63)], ['-a', 'a-', 'a b', 'a/b', 'v'.repeat(64)]);
  it('names only the pattern at 63 characters', () => expect(names.labelValue(`-${'v'.repeat(62)}`)).toMatch(/^a valid label must /));
  it('names only the length limit for a well-formed value', () => expect(names.labelValue('v'.repeat(64))).toBe('must be no more than 63 characters'));
  it('names both problems, joined', () => expect(names.labelValue(`-${'v'.repeat(63)}`)).toMatch(/^must be no more than 63 characters; a valid label must /));
});

describe('pathSegmentName', () => {
  table(names.pathSegmentName, ['a', 'Any Thing', 'a.b', '...', 'x..y'], ['.', '..', 'a/b', 'a%b']);
  it('reports every forbidden character', () => expect(names.pathSegmentName('a/%')).toBe("may not contain '/'; may not contain '%'"));
  it('says which dot name it is', () => {
    expect(names.pathSegmentName('.')).toBe("may not be '.'");
    expect(names.pathSegmentName('..')).toBe("may not be '..'");
  });
});

describe('clusterName', () => {
  table(names.clusterName, ['member1', 'a', 'm'.repeat(48)], ['', 'm'.repeat(49), 'Member1', 'member.one', 'member_1', '-member']);
  it('says an empty name is empty', () => expect(names.clusterName('')).toBe('must be not empty'));
  it('names the 48-character limit', () => expect(names.clusterName('m'.repeat(49))).toBe('must be no more than 48 characters'));
  it('names only the 48-character limit past 63 too, as Karmada does', () => expect(names.clusterName('m'.repeat(70))).toBe('must be no more than 48 characters'));
});

describe('portName', () => {
  table(names.portName, ['http', 'h2c', 'web-8080', 'a'.repeat(15)], ['', '8080', 'HTTP', 'a--b', '-http', 'http-', 'a_b', 'a'.repeat(16)]);
  it.each([
    ['a_b', 'must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)'],
    ['8080', 'must contain at least one letter (a-z)'],
    ['a--b', 'must not contain consecutive hyphens'],
    ['http-', 'must not begin or end with a hyphen'],
    ['-', 'must contain at least one letter (a-z); must not begin or end with a hyphen'],
  ])('says what is wrong with %j', (v, message) => expect(names.portName(v)).toBe(message));
});

describe('fullyQualifiedDomainName', () => {
  table(names.fullyQualifiedDomainName, ['example.com', 'example.com.', 'a.b.c'], ['example', 'example.', 'Example.com', 'a..b', `${'a'.repeat(64)}.com`]);
  it('needs two segments', () => expect(names.fullyQualifiedDomainName('localhost')).toBe('should be a domain with at least two segments separated by dots'));
  it('checks every label against 63 characters', () => expect(names.fullyQualifiedDomainName(`${'a'.repeat(64)}.com`)).toContain('63'));
  it('checks the labels after a 63-character one', () => {
    expect(names.fullyQualifiedDomainName(`${'a'.repeat(63)}.com`)).toBeUndefined();
    expect(names.fullyQualifiedDomainName(`${'a'.repeat(63)}.${'b'.repeat(64)}.com`)).toBe('must be no more than 63 characters');
  });
});

describe('ipAddress', () => {
  // Kubernetes parses with ParseIPSloppy: leading zeros in IPv4 octets and IPv6 groups are fine, a value past 255 or ffff is not.
  table(
    names.ipAddress,
    ['10.9.8.7', '0.0.0.0', '2001:db8::ffff', '::1', '::ffff:10.0.0.1', '010.009.008.007', '10.0.0.0001',
      '00001::', '2001:0db8:00000000001::1', '::ffff:010.0.0.1', '::0000000001.2.3.4'],
    ['', '10.0.0', '10.0.0.256', '10.0.0.0256', 'example.com', '2001:db8::g', 'fe80::1%eth0', '10.0.0.1:80', '10.0.0.1.5',
      '12345::', '000012345::', '::ffff:010.0.0.256', '::ffff:1.2.3', '1:2:3:4:5:6:7:00001:9', '10000::', '00001:10000::'],
  );
  it('gives an example', () => expect(names.ipAddress('10.0.0')).toBe('must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)'));
});

describe('dnsHostname', () => {
  table(names.dnsHostname, ['example.com', 'a', '256.1.1.1'], ['10.0.0.1', '010.0.0.1', '10.0.0.0001', '::1', 'Example.com', 'a_b']);
  it('says an IP is not a DNS name', () => expect(names.dnsHostname('10.0.0.1')).toBe('must be a DNS name, not an IP address'));
});

describe('camelCaseWithDomain (condition types)', () => {
  table(names.camelCaseWithDomain, ['Ready', 'NetworkReady', 'A1', 'example.com/NetworkReady'], ['', 'ready', 'Network Ready', 'network_ready', 'Example.com/Ready', '/Ready', 'example.com/ready', 'a/b/Ready']);
  it('says which part is wrong', () => {
    expect(names.camelCaseWithDomain('Example.com/Ready')).toMatch(/^prefix part a lowercase RFC 1123 subdomain must /);
    expect(names.camelCaseWithDomain('example.com/ready')).toBe("must be CamelCase (e.g. 'Ready'), optionally prefixed by a domain and '/' (e.g. 'example.com/Ready')");
  });
});

describe('camelCase (condition reasons)', () => {
  table(names.camelCase, ['ClusterReady', 'A', 'Ready2'], ['', 'clusterReady', 'Cluster Ready', 'Cluster_Ready', 'example.com/Ready']);
  it('says what a CamelCase identifier is', () => expect(names.camelCase('clusterReady')).toBe("must be a CamelCase identifier (e.g. 'ClusterReady'): an upper-case letter followed by letters and digits"));
});

describe('groupVersion', () => {
  table(names.groupVersion, ['v1', 'apps/v1', 'rbac.authorization.k8s.io/v1'], ['apps/v1/beta', '/v1', 'apps/', '']);
  it('uses the ParseGroupVersion wording for more than one slash, which Go refuses', () => expect(names.groupVersion('a/b/c')).toBe('unexpected GroupVersion string: a/b/c'));
  it('says which part is empty in its own words: Go takes these, they name no version', () => {
    expect(names.groupVersion('apps/')).toBe("the version after '/' must not be empty (e.g. 'apps/v1', or 'v1' for the core group)");
    expect(names.groupVersion('/v1')).toBe("the group before '/' must not be empty: write 'v1' for the core group");
    expect(names.groupVersion('/')).toBe("the version after '/' must not be empty (e.g. 'apps/v1', or 'v1' for the core group)");
  });
  it('says an empty group/version is empty', () => expect(names.groupVersion('')).toBe('must not be empty'));
});
