/**
 * Kubernetes name and value syntaxes (k8s.io/apimachinery/pkg/util/validation).
 * Each check returns the problem as a message, or undefined when the value is fine,
 * so callers attach their own field path. Most are remembered (memoizeVerdict): namespaces,
 * cluster names, label keys and values, condition types recur across objects and across
 * every UPDATE of one object, and a bounded lookup is cheaper than the expression.
 */
import { isIP } from 'node:net';
import { memoizeVerdict } from './memo.js';

const DNS1123_LABEL = /^[a-z0-9](?:[-a-z0-9]*[a-z0-9])?$/;
const DNS1123_SUBDOMAIN = /^[a-z0-9](?:[-a-z0-9]*[a-z0-9])?(?:\.[a-z0-9](?:[-a-z0-9]*[a-z0-9])?)*$/;
const DNS1035_LABEL = /^[a-z](?:[-a-z0-9]*[a-z0-9])?$/;
const QUALIFIED_NAME_PART = /^(?:[A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const LABEL_VALUE = /^(?:(?:[A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;
/** `Ready`, `example.com/SomethingHappened`: CamelCase with an optional DNS-subdomain prefix. */
const CAMEL_CASE = /^[A-Z][A-Za-z0-9]*$/;

/** A DNS-subdomain prefix, '/', a 63-character name: the longest qualified name (and domain-prefixed CamelCase name). */
const QUALIFIED_NAME_MAX = 253 + 1 + 63;

const maxLen = (n: number) => `must be no more than ${n} characters`;

const QUALIFIED_NAME_FORMAT =
  "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const QUALIFIED_NAME_SHAPE = `a qualified name ${QUALIFIED_NAME_FORMAT} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`;
const DNS1123_SUBDOMAIN_FORMAT =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const LABEL_VALUE_FORMAT =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";

export const dns1123Label = memoizeVerdict(dns1123LabelProblem, { longestKey: 63 });

function dns1123LabelProblem(value: string): string | undefined {
  if (value.length <= 63 && DNS1123_LABEL.test(value)) return undefined;
  const problems: string[] = [];
  if (value.length > 63) problems.push(maxLen(63));
  if (!DNS1123_LABEL.test(value)) {
    problems.push(
      "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
    );
  }
  return problems.length ? problems.join('; ') : undefined;
}

export const dns1123Subdomain = memoizeVerdict(dns1123SubdomainProblem, { longestKey: 253 });

function dns1123SubdomainProblem(value: string): string | undefined {
  if (value.length <= 253 && DNS1123_SUBDOMAIN.test(value)) return undefined;
  const problems: string[] = [];
  if (value.length > 253) problems.push(maxLen(253));
  if (!DNS1123_SUBDOMAIN.test(value)) {
    problems.push(DNS1123_SUBDOMAIN_FORMAT);
  }
  return problems.length ? problems.join('; ') : undefined;
}

export const dns1035Label = memoizeVerdict(dns1035LabelProblem, { longestKey: 63 });

function dns1035LabelProblem(value: string): string | undefined {
  if (value.length <= 63 && DNS1035_LABEL.test(value)) return undefined;
  const problems: string[] = [];
  if (value.length > 63) problems.push(maxLen(63));
  if (!DNS1035_LABEL.test(value)) {
    problems.push(
      "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')",
    );
  }
  return problems.length ? problems.join('; ') : undefined;
}

/** `*.example.com`; a bare `*` or a wildcard past the first label is not one. */
export function wildcardDns1123Subdomain(value: string): string | undefined {
  const problems: string[] = [];
  if (value.length > 253) problems.push(maxLen(253));
  if (!value.startsWith('*.') || !DNS1123_SUBDOMAIN.test(value.slice(2))) {
    problems.push(
      "a wildcard DNS-1123 subdomain must start with '*.', followed by a valid DNS subdomain, which must consist of lower case alphanumeric characters, '-' or '.' and end with an alphanumeric character (e.g. '*.example.com', regex used for validation is '\\*\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
    );
  }
  return problems.length ? problems.join('; ') : undefined;
}

/**
 * Label keys, annotation keys, finalizers, taint keys: `[prefix/]name`. The same few keys
 * (`app`, `app.kubernetes.io/name`, `node.kubernetes.io/unreachable`) recur in every object.
 */
export const qualifiedName = memoizeVerdict(qualifiedNameProblem, { longestKey: QUALIFIED_NAME_MAX });

function qualifiedNameProblem(value: string): string | undefined {
  // Most keys are fine: one regex answers them without splitting or building messages.
  const slash = value.indexOf('/');
  const namePart = slash < 0 ? value : value.slice(slash + 1);
  if (namePart.length <= 63 && QUALIFIED_NAME_PART.test(namePart) && (slash < 0 || (slash > 0 && slash <= 253 && DNS1123_SUBDOMAIN.test(value.slice(0, slash))))) {
    return undefined;
  }
  const parts = value.split('/');
  let name: string;
  const problems: string[] = [];
  if (parts.length === 1) {
    name = parts[0]!;
  } else if (parts.length === 2) {
    const prefix = parts[0]!;
    name = parts[1]!;
    if (prefix.length === 0) problems.push('prefix part must be non-empty');
    else {
      const p = dns1123Subdomain(prefix);
      if (p) problems.push(`prefix part ${p}`);
    }
  } else {
    return QUALIFIED_NAME_SHAPE;
  }
  if (name.length === 0) problems.push('name part must be non-empty');
  else {
    if (name.length > 63) problems.push(`name part ${maxLen(63)}`);
    if (!QUALIFIED_NAME_PART.test(name)) {
      problems.push(`name part ${QUALIFIED_NAME_FORMAT}`);
    }
  }
  return problems.length ? problems.join('; ') : undefined;
}

export const labelValue = memoizeVerdict(labelValueProblem, { longestKey: 63 });

function labelValueProblem(value: string): string | undefined {
  if (value.length <= 63 && LABEL_VALUE.test(value)) return undefined;
  const problems: string[] = [];
  if (value.length > 63) problems.push(maxLen(63));
  if (!LABEL_VALUE.test(value)) {
    problems.push(LABEL_VALUE_FORMAT);
  }
  return problems.length ? problems.join('; ') : undefined;
}

/** Go's len(): bytes of the UTF-8 text. */
const byteLength = (s: string) => Buffer.byteLength(s, 'utf8');

/**
 * validation.IsQualifiedName as a list, each message on its own, as Go returns it: what the
 * API server's label selector parser joins into its errors. (qualifiedName above, which the
 * rules use, words an empty name part without the regex's message: both are tested as they are.)
 */
export function qualifiedNameErrors(value: string): string[] {
  const errors: string[] = [];
  const parts = value.split('/');
  if (parts.length > 2) return [QUALIFIED_NAME_SHAPE];
  const name = parts.length === 2 ? parts[1]! : parts[0]!;
  if (parts.length === 2) {
    const prefix = parts[0]!;
    if (prefix === '') errors.push('prefix part must be non-empty');
    else {
      if (byteLength(prefix) > 253) errors.push(`prefix part ${maxLen(253)}`);
      if (!DNS1123_SUBDOMAIN.test(prefix)) errors.push(`prefix part ${DNS1123_SUBDOMAIN_FORMAT}`);
    }
  }
  if (name === '') errors.push('name part must be non-empty');
  else if (byteLength(name) > 63) errors.push(`name part ${maxLen(63)}`);
  if (!QUALIFIED_NAME_PART.test(name)) errors.push(`name part ${QUALIFIED_NAME_FORMAT}`);
  return errors;
}

/** validation.IsValidLabelValue as a list (see qualifiedNameErrors). */
export function labelValueErrors(value: string): string[] {
  const errors: string[] = [];
  if (byteLength(value) > 63) errors.push(maxLen(63));
  if (!LABEL_VALUE.test(value)) errors.push(LABEL_VALUE_FORMAT);
  return errors;
}

/** Names that appear as one URL path segment (the API server's minimum for any object name). */
export function pathSegmentName(value: string): string | undefined {
  if (value.length > 2 && !value.includes('/') && !value.includes('%')) return undefined;
  if (value === '.') return "may not be '.'";
  if (value === '..') return "may not be '..'";
  const problems: string[] = [];
  if (value.includes('/')) problems.push("may not contain '/'");
  if (value.includes('%')) problems.push("may not contain '%'");
  return problems.length ? problems.join('; ') : undefined;
}

/** The longest member-cluster name Karmada takes. */
export const CLUSTER_NAME_MAX = 48;

/** Member-cluster names: a DNS-1123 label of at most 48 characters (Karmada's `ValidateClusterName`). */
export const clusterName = memoizeVerdict(clusterNameProblem, { longestKey: CLUSTER_NAME_MAX });

function clusterNameProblem(value: string): string | undefined {
  if (value.length === 0) return 'must be not empty';
  // Karmada stops at the length: the label's own 63-character limit would only repeat it.
  if (value.length > CLUSTER_NAME_MAX) return maxLen(CLUSTER_NAME_MAX);
  return dns1123Label(value);
}

/** IANA service port names (`IsValidPortName`). */
export function portName(value: string): string | undefined {
  const problems: string[] = [];
  if (value.length > 15) problems.push(maxLen(15));
  if (!/^[-a-z0-9]+$/.test(value)) problems.push('must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)');
  if (!/[a-z]/.test(value)) problems.push('must contain at least one letter (a-z)');
  if (value.includes('--')) problems.push('must not contain consecutive hyphens');
  if (value.startsWith('-') || value.endsWith('-')) problems.push('must not begin or end with a hyphen');
  return problems.length ? problems.join('; ') : undefined;
}

/** A fully qualified domain name: a DNS subdomain with at least two labels; one trailing dot is allowed. */
export const fullyQualifiedDomainName = memoizeVerdict(fullyQualifiedDomainNameProblem, { longestKey: 254 });

function fullyQualifiedDomainNameProblem(value: string): string | undefined {
  const name = value.endsWith('.') ? value.slice(0, -1) : value;
  const sub = dns1123Subdomain(name);
  if (sub) return sub;
  const labels = name.split('.');
  if (labels.length < 2) return 'should be a domain with at least two segments separated by dots';
  for (const label of labels) {
    // A valid subdomain's labels are well formed; only their length can be wrong.
    if (label.length > 63) return dns1123Label(label);
  }
  return undefined;
}

/**
 * An address as Kubernetes reads one, with ParseIPSloppy (Go 1.16's net.ParseIP): numbers may
 * carry any number of leading zeros, which node's isIP refuses: IPv4 octets (`010.0.0.1`), IPv6
 * groups (`00001::`) and the IPv4 tail of an IPv6 address (`::ffff:010.0.0.1`). An IPv6 zone
 * (`fe80::1%eth0`), which node accepts, is not an address. test/checks/ip-sloppy.test.ts holds
 * this to ParseIPSloppy itself.
 */
export function isIPSloppy(value: string): boolean {
  if (value.includes('%')) return false;
  if (isIP(value) !== 0) return true;
  if (SLOPPY_IPV4.test(value)) return isSloppyIPv4(value);
  // Without the leading zeros, the address must be one node's isIP takes.
  if (!value.includes(':')) return false;
  const groups = value.split(':');
  const last = groups.length - 1;
  const plain = groups.map((group, i) => {
    if (i === last && SLOPPY_IPV4.test(group)) return isSloppyIPv4(group) ? group.split('.').map(Number).join('.') : '-';
    return /^[0-9A-Fa-f]+$/.test(group) ? group.replace(/^0+(?=.)/, '') : group;
  });
  return isIP(plain.join(':')) === 6;
}

const SLOPPY_IPV4 = /^\d+(?:\.\d+){3}$/;
const isSloppyIPv4 = (value: string): boolean => value.split('.').every((octet) => Number(octet) <= 255);

export const ipAddress = memoizeVerdict(ipAddressProblem, { longestKey: 45 });

function ipAddressProblem(value: string): string | undefined {
  return isIPSloppy(value) ? undefined : 'must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)';
}

/** A DNS name that is not an IP address (ingress hostnames). */
export const dnsHostname = memoizeVerdict(dnsHostnameProblem, { longestKey: 253 });

function dnsHostnameProblem(value: string): string | undefined {
  if (isIPSloppy(value)) return 'must be a DNS name, not an IP address';
  return dns1123Subdomain(value);
}

/** CamelCase with an optional `<domain>/` prefix: condition types, port-status `error` values. */
export const camelCaseWithDomain = memoizeVerdict(camelCaseWithDomainProblem, { longestKey: QUALIFIED_NAME_MAX });

function camelCaseWithDomainProblem(value: string): string | undefined {
  const slash = value.indexOf('/');
  const name = slash >= 0 ? value.slice(slash + 1) : value;
  if (slash >= 0) {
    const prefix = dns1123Subdomain(value.slice(0, slash));
    if (prefix) return `prefix part ${prefix}`;
  }
  return CAMEL_CASE.test(name) ? undefined : "must be CamelCase (e.g. 'Ready'), optionally prefixed by a domain and '/' (e.g. 'example.com/Ready')";
}

/** Condition reasons: a CamelCase identifier without prefix. */
export const camelCase = memoizeVerdict(camelCaseProblem, { longestKey: QUALIFIED_NAME_MAX });

function camelCaseProblem(value: string): string | undefined {
  return CAMEL_CASE.test(value) ? undefined : "must be a CamelCase identifier (e.g. 'ClusterReady'): an upper-case letter followed by letters and digits";
}

/** `group/version` or `version` (schema.ParseGroupVersion). */
export function groupVersion(value: string): string | undefined {
  // `version` or `group/version`, no part empty; read without splitting, as every apiVersion passes here.
  const slash = value.indexOf('/');
  if (slash < 0) return value.length > 0 ? undefined : 'must not be empty';
  // Go's ParseGroupVersion refuses only a second slash; an empty part it takes, though it names no version.
  if (value.indexOf('/', slash + 1) >= 0) return `unexpected GroupVersion string: ${value}`;
  if (slash === value.length - 1) return "the version after '/' must not be empty (e.g. 'apps/v1', or 'v1' for the core group)";
  if (slash === 0) return "the group before '/' must not be empty: write 'v1' for the core group";
  return undefined;
}
