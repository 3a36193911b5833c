/**
 * Accept-header negotiation as kube-apiserver does it (apiserver `endpoints/handlers/negotiation`
 * over munnerz/goautoneg), for the representations this server offers: discovery documents and
 * resource responses as JSON, optionally converted (`;as=Table;g=meta.k8s.io;v=v1`).
 *
 *   const choice = negotiate(req.headers.accept, ['application/json'], tableRestrictions);
 *   if (!choice) → 406 (notAcceptableStatus)
 *   choice.convert → { group, version, kind } or undefined
 *
 * Hand-written: clients read the representation off the response's Content-Type, and which clause
 * wins (q values, wildcards, the order of equal clauses, the as/g/v parameters and the endpoint's
 * allowed conversions) must be kube's exactly; no npm negotiator keeps kube's rules (goautoneg's
 * sort, its treatment of parameters, the restrictions).
 */

export interface AcceptClause {
  type: string;
  subType: string;
  q: number;
  params: Record<string, string>;
}

/** goautoneg.ParseAccept: clauses split on `,` and `;`, sorted by q, then concrete before wildcard. */
export function parseAccept(header: string): AcceptClause[] {
  const clauses: AcceptClause[] = [];
  for (const rawPart of header.split(',')) {
    const [range = '', ...rawParams] = trimSpaces(rawPart).split(';');
    const [rawType, rest] = splitOnce(range, '/');
    const type = trimSpaces(rawType);
    let subType: string;
    if (rest === '') {
      if (type !== '*') continue;
      subType = '*';
    } else {
      const [rawSubType, extra] = splitOnce(rest, '/');
      if (extra !== '') continue;
      subType = trimSpaces(rawSubType);
    }
    const clause: AcceptClause = { type, subType, q: 1, params: {} };
    for (const param of rawParams) {
      const [rawToken, rawValue] = splitOnce(param, '=');
      if (rawValue === '') continue;
      const [value, extra] = splitOnce(rawValue, '=');
      if (extra !== '') continue;
      const token = trimSpaces(rawToken);
      if (token === 'q') clause.q = parseGoFloat32(value);
      else clause.params[token] = trimSpaces(value);
    }
    clauses.push(clause);
  }
  return insertionSort(clauses, lessClause);
}

/** goautoneg's nextSplitElement: the text before the first `sep` and the text after it ('' when absent). */
function splitOnce(s: string, sep: string): [string, string] {
  const at = s.indexOf(sep);
  return at < 0 ? [s, ''] : [s.slice(0, at), s.slice(at + 1)];
}

/** goautoneg trims only ASCII spaces (not tabs). */
const trimSpaces = (s: string): string => s.replace(/^ +| +$/g, '');

/** strconv.ParseFloat(s, 32): a syntax error gives 0, an out-of-range value ±Inf. */
function parseGoFloat32(s: string): number {
  if (/^[+-]?(inf|infinity)$/i.test(s)) return s.startsWith('-') ? -Infinity : Infinity;
  if (/^nan$/i.test(s)) return NaN;
  if (!/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(s)) return 0;
  return Math.fround(Number(s));
}

/** goautoneg's Less, which is not a strict order: the outcome depends on the sort, reproduced below. */
function lessClause(a: AcceptClause, b: AcceptClause): boolean {
  if (a.q > b.q) return true;
  if (a.type !== '*' && b.type === '*') return true;
  if (a.subType !== '*' && b.subType === '*') return true;
  return false;
}

/**
 * Go's sort.Sort on up to 12 elements is this insertion sort; Accept headers have fewer clauses.
 * (Longer ones go through pdqsort in Go, whose order for goautoneg's non-strict Less this does
 * not reproduce.)
 */
function insertionSort<T>(items: T[], less: (a: T, b: T) => boolean): T[] {
  for (let i = 1; i < items.length; i++) {
    for (let j = i; j > 0 && less(items[j]!, items[j - 1]!); j--) {
      [items[j - 1], items[j]] = [items[j]!, items[j - 1]!];
    }
  }
  return items;
}

export interface GroupVersionKind {
  group: string;
  version: string;
  kind: string;
}

/** What an endpoint accepts, as apiserver's EndpointRestrictions. */
export interface EndpointRestrictions {
  /** Whether the endpoint can serve this media type converted to `target` (undefined: unconverted). */
  allowsTransform(type: string, subType: string, target: GroupVersionKind | undefined): boolean;
  /** Whether the endpoint streams with this `stream=` schema (`watch`). */
  allowsStream(schema: string): boolean;
}

export interface MediaTypeChoice {
  /** The media type served, e.g. `application/json`. */
  mediaType: string;
  /** The conversion asked for by the `as`, `g` and `v` parameters, if any. */
  convert?: GroupVersionKind;
  /** `pretty=1` in the clause. */
  pretty: boolean;
  /** `stream=watch`. */
  stream?: string;
}

/**
 * negotiation.NegotiateMediaTypeOptions: the first clause (in parseAccept's order) that names one
 * of `offered` (or a wildcard) and whose parameters the endpoint allows. An absent or empty header
 * takes the first offered type; undefined when nothing is acceptable (406).
 */
export function negotiate(accept: string | undefined, offered: readonly string[], restrictions: EndpointRestrictions): MediaTypeChoice | undefined {
  if (!accept) return offered[0] === undefined ? undefined : { mediaType: offered[0], pretty: false };
  for (const clause of parseAccept(accept)) {
    for (const mediaType of offered) {
      const [type = '', subType = ''] = mediaType.split('/');
      const matches =
        (clause.type === type && (clause.subType === subType || clause.subType === '*')) || (clause.type === '*' && clause.subType === '*');
      if (!matches) continue;
      const choice = acceptOptions(clause.params, type, subType, restrictions);
      if (choice) return { ...choice, mediaType };
    }
  }
  return undefined;
}

function acceptOptions(
  params: Record<string, string>,
  type: string,
  subType: string,
  restrictions: EndpointRestrictions,
): Omit<MediaTypeChoice, 'mediaType'> | undefined {
  let convert: GroupVersionKind | undefined;
  let pretty = false;
  let stream: string | undefined;
  for (const [key, value] of Object.entries(params)) {
    if (key === 'as' || key === 'g' || key === 'v') {
      convert ??= { group: '', version: '', kind: '' };
      if (key === 'as') convert.kind = value;
      else if (key === 'g') convert.group = value;
      else convert.version = value;
    } else if (key === 'stream') {
      if (value !== '' && !restrictions.allowsStream(value)) return undefined;
      stream = value;
    } else if (key === 'sv') {
      // No endpoint here serves another version of its group ("AllowsServerVersion" is false).
      if (value !== '') return undefined;
    } else if (key === 'pretty') pretty = value === '1';
  }
  if (!restrictions.allowsTransform(type, subType, convert)) return undefined;
  return { convert, pretty, ...(stream === undefined ? {} : { stream }) };
}

/** An endpoint that serves only unconverted representations (DefaultEndpointRestrictions). */
export const PLAIN: EndpointRestrictions = {
  allowsTransform: (_type, _subType, target) => target === undefined,
  allowsStream: (schema) => schema === 'watch',
};

/** The 406 Status kube answers: `only the following media types are accepted: …`. */
export function notAcceptableStatus(offered: readonly string[]): Record<string, unknown> {
  return {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: `only the following media types are accepted: ${offered.join(', ')}`,
    reason: 'NotAcceptable',
    code: 406,
  };
}
