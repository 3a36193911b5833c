/**
 * Go's net/url.Parse, ported: the control plane's components parse URLs with it, and a URL field
 * is valid when it parses there. The WHATWG parser behind `new URL()` differs from it both ways:
 * it repairs what Go refuses (tabs, surrounding space, `\`, `{` in a host) and refuses what Go
 * takes (`https://host:99999`, `<` in a host, `https:host`). test/checks/url-go.test.ts holds this
 * port to Go's own parser.
 *
 * Only what decides validity is ported: the parts and the errors. Unescaped paths and other
 * conveniences of Go's URL type are left out.
 */

export interface GoURL {
  /** Lower-cased, as Go stores it; '' for a relative reference. */
  scheme: string;
  /** Set for `scheme:rest` without a `/` after the colon (`mailto:x`); nothing else is parsed then. */
  opaque: string;
  /** The raw user information before the last `@` of the authority; undefined when there is no `@`. */
  user: string | undefined;
  /** Host and port, unescaped. */
  host: string;
  path: string;
  /** Everything after the first `?` ('' for none or for a lone trailing `?`). */
  rawQuery: string;
  /** Everything after the first `#`, unescaped. */
  fragment: string;
}

export type GoURLResult = { url: GoURL; error?: undefined } | { url?: undefined; error: string };

const fail = (error: string): GoURLResult => ({ error });

/** url.Parse(raw): the parts, or Go's error message (without its `parse "<raw>": ` prefix). */
export function parseGoURL(raw: string): GoURLResult {
  const hash = raw.indexOf('#');
  const beforeFragment = hash < 0 ? raw : raw.slice(0, hash);
  const parsed = parseWithoutFragment(beforeFragment);
  if (parsed.error !== undefined || hash < 0) return parsed;
  const fragment = unescape(raw.slice(hash + 1), 'fragment');
  if (typeof fragment !== 'string') return fail(fragment.error);
  return { url: { ...parsed.url, fragment } };
}

function parseWithoutFragment(raw: string): GoURLResult {
  if (/[\u0000-\u001f\u007f]/.test(raw)) return fail('net/url: invalid control character in URL');
  const url: GoURL = { scheme: '', opaque: '', user: undefined, host: '', path: '', rawQuery: '', fragment: '' };
  if (raw === '*') return { url: { ...url, path: '*' } };
  const scheme = schemeOf(raw);
  if (typeof scheme !== 'string' && 'error' in scheme) return fail(scheme.error);
  let rest = raw;
  if (typeof scheme === 'string') {
    url.scheme = scheme.toLowerCase();
    rest = raw.slice(scheme.length + 1);
  }
  if (rest.endsWith('?') && rest.indexOf('?') === rest.length - 1) {
    rest = rest.slice(0, -1);
  } else {
    const question = rest.indexOf('?');
    if (question >= 0) {
      url.rawQuery = rest.slice(question + 1);
      rest = rest.slice(0, question);
    }
  }
  if (!rest.startsWith('/')) {
    if (url.scheme !== '') return { url: { ...url, opaque: rest } };
    const slash = rest.indexOf('/');
    if ((slash < 0 ? rest : rest.slice(0, slash)).includes(':')) return fail('first path segment in URL cannot contain colon');
  }
  if ((url.scheme !== '' || !rest.startsWith('///')) && rest.startsWith('//')) {
    let authority = rest.slice(2);
    rest = '';
    const slash = authority.indexOf('/');
    if (slash >= 0) {
      rest = authority.slice(slash);
      authority = authority.slice(0, slash);
    }
    const parsed = parseAuthority(authority);
    if ('error' in parsed) return fail(parsed.error);
    url.user = parsed.user;
    url.host = parsed.host;
  }
  const path = unescape(rest, 'path');
  if (typeof path !== 'string') return fail(path.error);
  url.path = path;
  return { url };
}

/** The scheme (as written) when `raw` starts with one and a colon; the whole string is a path otherwise. */
function schemeOf(raw: string): string | { error: string } | { none: true } {
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i]!;
    if (/[A-Za-z]/.test(c)) continue;
    if (/[0-9+.-]/.test(c)) {
      if (i === 0) return { none: true };
      continue;
    }
    if (c === ':') return i === 0 ? { error: 'missing protocol scheme' } : raw.slice(0, i);
    return { none: true };
  }
  return { none: true };
}

function parseAuthority(authority: string): { user: string | undefined; host: string } | { error: string } {
  const at = authority.lastIndexOf('@');
  const host = parseHost(at < 0 ? authority : authority.slice(at + 1));
  if (typeof host !== 'string') return host;
  if (at < 0) return { user: undefined, host };
  const user = authority.slice(0, at);
  if (!/^[A-Za-z0-9\-._:~!$&'()*+,;=%@]*$/.test(user)) return { error: 'net/url: invalid userinfo' };
  // Go unescapes the name and the password apart; a `:` is no hex digit, so one pass finds the same errors.
  const unescaped = unescape(user, 'userinfo');
  return typeof unescaped === 'string' ? { user, host } : unescaped;
}

function parseHost(host: string): string | { error: string } {
  if (host.startsWith('[')) {
    const close = host.lastIndexOf(']');
    if (close < 0) return { error: "missing ']' in host" };
    const colonPort = host.slice(close + 1);
    if (!validOptionalPort(colonPort)) return { error: `invalid port ${goQuote(colonPort)} after host` };
    // RFC 6874: a zone, `%25` then the zone itself, may follow an IPv6 address.
    const zone = host.slice(0, close).indexOf('%25');
    if (zone >= 0) {
      const parts = [unescape(host.slice(0, zone), 'host'), unescape(host.slice(zone, close), 'zone'), unescape(host.slice(close), 'host')];
      for (const part of parts) if (typeof part !== 'string') return part;
      return parts.join('');
    }
  } else {
    const colon = host.lastIndexOf(':');
    if (colon >= 0 && !validOptionalPort(host.slice(colon))) return { error: `invalid port ${goQuote(host.slice(colon))} after host` };
  }
  return unescape(host, 'host');
}

const validOptionalPort = (colonPort: string): boolean => colonPort === '' || /^:[0-9]*$/.test(colonPort);

type EscapeMode = 'path' | 'host' | 'zone' | 'userinfo' | 'fragment';

/** Go's unescape: only its errors matter here, and host bytes Go refuses to take unescaped. */
function unescape(s: string, mode: EscapeMode): string | { error: string } {
  let out = '';
  for (let i = 0; i < s.length; ) {
    const c = s[i]!;
    if (c === '%') {
      const escape = s.slice(i, i + 3);
      if (!/^%[0-9A-Fa-f]{2}$/.test(escape)) return { error: `invalid URL escape ${goQuote(escape)}` };
      const byte = parseInt(escape.slice(1), 16);
      if (mode === 'host' && byte < 0x80 && escape !== '%25') return { error: `invalid URL escape ${goQuote(escape)}` };
      // Go's shouldEscape(v, encodeHost) is true for every byte past ASCII.
      if (mode === 'zone' && escape !== '%25' && byte !== 0x20 && (byte >= 0x80 || hostNeedsEscape(String.fromCharCode(byte)))) {
        return { error: `invalid URL escape ${goQuote(escape)}` };
      }
      out += String.fromCharCode(byte);
      i += 3;
      continue;
    }
    if ((mode === 'host' || mode === 'zone') && c.charCodeAt(0) < 0x80 && hostNeedsEscape(c)) {
      return { error: `invalid character ${goQuote(c)} in host name` };
    }
    out += c;
    i++;
  }
  // Escaped bytes are kept as Latin-1 code units: only whether the text parses, and its ASCII, matter here.
  return out;
}

/** Go's shouldEscape(c, encodeHost) for ASCII: what a host may not hold unescaped. */
const hostNeedsEscape = (c: string): boolean => !/[A-Za-z0-9!$&'()*+,;=:[\]<>"\-_.~]/.test(c);

/** Go's %q for the short ASCII strings these messages quote. */
const goQuote = (s: string): string => JSON.stringify(s);
