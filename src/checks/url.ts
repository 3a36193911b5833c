/**
 * URLs as the control plane reads them. Its Go components parse with `net/url`, which refuses
 * what the WHATWG parser behind `new URL()` quietly repairs: control characters (WHATWG drops
 * tabs and newlines), surrounding spaces (trimmed), and spaces or `\` in the host (`\` becomes
 * `/`). A URL WHATWG accepts can therefore be one the control plane cannot use.
 */

export const CONTROL_CHARACTER = /[\u0000-\u001f\u007f]/;

/** RFC 3986 appendix B: scheme, authority, path, query, fragment; it matches every string without control characters. */
export const URI_PARTS = /^(?:([^:/?#]+):)?(?:\/\/([^/?#]*))?([^?#]*)(?:\?([^#]*))?(?:#(.*))?$/;

/** Why Go's url.Parse would refuse a URL that `new URL()` accepts, or undefined. */
export function repairedByWhatwg(raw: string): string | undefined {
  if (CONTROL_CHARACTER.test(raw)) return 'invalid control character in URL';
  if (raw.trim() !== raw) return 'leading or trailing space';
  const bad = URI_PARTS.exec(raw)![2]?.match(/[\s\\]/)?.[0];
  return bad === undefined ? undefined : `invalid character ${JSON.stringify(bad)} in host name`;
}

/** `user:pw@host:port` → the user information (undefined without an `@`, '' for `@host`) and the rest. */
export function splitAuthority(authority: string): { userInfo: string | undefined; hostPort: string } {
  const at = authority.lastIndexOf('@');
  return at >= 0 ? { userInfo: authority.slice(0, at), hostPort: authority.slice(at + 1) } : { userInfo: undefined, hostPort: authority };
}

/** A URL's user information, as splitAuthority() gives it. */
export const userInfoOf = (raw: string): string | undefined => splitAuthority(URI_PARTS.exec(raw)?.[2] ?? '').userInfo;
