import { describe, expect, it } from 'vitest';
import { parseGoURL, type GoURL } from '../../src/checks/go-url.js';

/**
 * Go's net/url.Parse answers (Debian's Go 1.19) for what url-corpus.ts does not probe: a reference
 * made only of a query or a fragment, a colon ending a first segment, escapes and characters
 * around an IPv6 zone, and bytes just past ASCII in a host.
 */
describe('parseGoURL', () => {
  const parses: [string, string, Partial<GoURL>][] = [
    ['a fragment alone, with a colon', '#a:b', { scheme: '', host: '', fragment: 'a:b' }],
    ['a query alone, with a colon', '?a:b', { scheme: '', host: '', rawQuery: 'a:b' }],
    ['an escaped byte past ASCII in the host', 'https://a%80b.com', { scheme: 'https' }],
    ['U+0080 in the host', 'https://a\u0080b.com', { scheme: 'https', host: 'a\u0080b.com' }],
    ['an IPv6 zone and a port', 'https://[fe80::1%25eth0]:8443/x', { host: '[fe80::1%eth0]:8443', path: '/x' }],
    ['an escaped space in an IPv6 zone', 'https://[fe80::1%25en%2030]/', { host: '[fe80::1%en 30]', path: '/' }],
  ];
  it.each(parses)('parses %s: %j', (_name, raw, want) => expect(parseGoURL(raw)).toEqual({ url: expect.objectContaining(want) }));

  // No rule reads these two yet; they are held to Go so that the port stays a port.
  const parts: [string, Pick<GoURL, 'scheme' | 'opaque' | 'host' | 'path'>][] = [
    ['', { scheme: '', opaque: '', host: '', path: '' }],
    ['///x', { scheme: '', opaque: '', host: '', path: '///x' }],
    ['https:///x', { scheme: 'https', opaque: '', host: '', path: '/x' }],
    ['*', { scheme: '', opaque: '', host: '', path: '*' }],
    ['https:opaque/x', { scheme: 'https', opaque: 'opaque/x', host: '', path: '' }],
    ['a/b/c', { scheme: '', opaque: '', host: '', path: 'a/b/c' }],
    ['https://h/p/q?x#f', { scheme: 'https', opaque: '', host: 'h', path: '/p/q' }],
    ['//h', { scheme: '', opaque: '', host: 'h', path: '' }],
  ];
  it.each(parts)('splits %j into opaque and path as Go does', (raw, want) => expect(parseGoURL(raw)).toEqual({ url: expect.objectContaining(want) }));

  const refuses: [string, string, string][] = [
    ['a bad escape in a fragment alone', '#%zz', 'invalid URL escape "%zz"'],
    ['a colon ending the first segment', '1a:', 'first path segment in URL cannot contain colon'],
    ['an escaped ASCII byte in IPv6 without a zone', 'https://[fe80::1%41]', 'invalid URL escape "%41"'],
    ['an escaped ASCII byte before the zone', 'https://[fe80::%41%25eth0]', 'invalid URL escape "%41"'],
    ['a "{" before the zone', 'https://[fe80::{%25eth0]', 'invalid character "{" in host name'],
    ['a "{" in the zone', 'https://[fe80::1%25eth{0]', 'invalid character "{" in host name'],
  ];
  it.each(refuses)('refuses %s: %j', (_name, raw, error) => expect(parseGoURL(raw)).toEqual({ error }));
});
