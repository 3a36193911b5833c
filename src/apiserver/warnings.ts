/**
 * `Warning` response headers as kube-apiserver writes them (RFC 7234 warn-code 299, agent `-`), which
 * kubectl prints as `Warning: <text>`. The text is quoted with `"` and `\` escaped; characters a
 * header cannot carry (controls) become spaces, and the rest goes out as UTF-8.
 */

export function warningHeader(text: string): string {
  // eslint-disable-next-line no-control-regex
  const clean = text.replace(/[\u0000-\u0008\u000a-\u001f\u007f]/g, ' ').replace(/[\\"]/g, (c) => `\\${c}`);
  // Node writes a header value's characters as bytes (latin1): UTF-8 bytes pass through that way.
  return `299 - "${Buffer.from(clean, 'utf8').toString('latin1')}"`;
}

export const warningHeaders = (warnings: readonly string[]): string[] => [...new Set(warnings)].map(warningHeader);
