/**
 * URLs that probe Go's net/url.Parse and the four URL fields built on it: each part of a valid
 * URL replaced by well- and ill-formed variants, then seeded random mixes. Deterministic.
 */
const SCHEMES = ['https', 'HTTPS', 'http', 'Http', 'socks5', 'ftp', 'h2+x.y-z', '1http', '', '+a', 'ht tp', 'ht_tp'];
const SEPARATORS = ['://', ':/', ':', ':///', '//', ':\\\\', ':////'];
const USERS = ['', 'u@', 'u:p@', '@', ':@', 'u%41@', 'u%zz@', 'u p@', 'u@v@', 'ü@', "a!$&'()*+,;=~.-_@", 'u/@', 'u[x]@'];
const HOSTS = [
  'example.com', 'EXAMPLE.com', 'example.com.', '10.0.0.1', '10.0.0.256', '127.1', '0x7f.0.0.1', '1.2.3.4.5', 'localhost',
  '[::1]', '[::1', '::1', '[fe80::1%25eth0]', '[fe80::1%eth0]', '[fe80::1%25%41]', '[fe80::1%25%2f]', '[fe80::1%25%c3%bc]', '[fe80::1%25%20]', '[fe80::1%25%7e]', '[::ffff:1.2.3.4]', '[1::2::3]', '[v1.x]', '[]',
  'exa mple.com', 'exa_mple.com', 'a{b}.com', 'a<b>.com', 'a"b.com', 'a|b.com', 'a^b.com', 'a`b.com', 'a!b.com', "a'b.com",
  'a(b).com', 'a*b.com', 'a+b.com', 'a,b.com', 'a;b.com', 'a=b.com', 'a$b.com', 'a&b.com', 'a~b.com', 'a\\b.com', 'a%b.com',
  'ex%41mple.com', 'ex%zzmple.com', 'ex%c3%bcmple.com', 'ex%25mple.com', 'münchen.de', 'xn--mnchen-3ya.de', '例え.jp',
  'a..b', '.a', '', ' ', 'a\u00a0b', 'a\u200bb', 'h.svc', 'svc.ns.svc.cluster.local',
];
const PORTS = ['', ':6443', ':0', ':1', ':65535', ':65536', ':99999', ':', ':a', ':-1', ':+1', ':00443', ':4294967297', '::1', ':1:2'];
const TAILS = [
  '', '/', '/p', '/p/q', '/a b', '/%zz', '/%41', '/%', '?', '?a=1', '??', '?%zz', '#', '#f', '#%zz', '#a#b', '/p?x#y', '\\p',
  '/p:q', '?#', '#?', '/é', '/\u00a0', ' ', '\t', '\n', '\u007f', '/\u0000',
];

export function urlCorpus(): string[] {
  const corpus = new Set<string>();
  const base = { scheme: 'https', sep: '://', user: '', host: 'example.com', port: ':6443', tail: '/p' };
  const join = (p: typeof base) => `${p.scheme}${p.sep}${p.user}${p.host}${p.port}${p.tail}`;
  for (const scheme of SCHEMES) for (const sep of SEPARATORS) corpus.add(join({ ...base, scheme, sep }));
  for (const user of USERS) corpus.add(join({ ...base, user }));
  for (const host of HOSTS) for (const port of ['', ':6443', ':99999']) corpus.add(join({ ...base, host, port }));
  for (const port of PORTS) for (const host of ['example.com', '[::1]', '10.0.0.1']) corpus.add(join({ ...base, host, port }));
  for (const tail of TAILS) for (const port of ['', ':6443']) corpus.add(join({ ...base, port, tail }));
  for (const s of [' https://example.com', 'https://example.com ', '\thttps://example.com', '*', '', 'example.com', 'example.com:6443',
    '10.0.0.1:6443', '//example.com', '///example.com', 'mailto:x@y', 'https:example.com', 'https:/example.com', ':foo', 'a:b:c']) corpus.add(s);

  let seed = 0x0421;
  const pick = <T>(items: readonly T[]): T => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return items[seed % items.length]!;
  };
  for (let i = 0; i < 4000; i++) {
    corpus.add(join({ scheme: pick(SCHEMES), sep: pick(SEPARATORS), user: pick(USERS), host: pick(HOSTS), port: pick(PORTS), tail: pick(TAILS) }));
  }
  return [...corpus];
}
