/**
 * List and watch query options as kube-apiserver reads and checks them, and the continue token
 * of a paged list (apiserver storage/continue.go).
 *
 *   const parsed = parseListOptions(url.searchParams, resource);
 *   if ('status' in parsed) → answer parsed.status (400 BadRequest or 422 Invalid), as kube does
 *   const { options } = parsed;        // selectors parsed, WatchList defaults applied
 *   const read = listRead(options, keyPrefix);
 *   if ('status' in read) → answer read.status (400)
 *   storage.list(keyPrefix, { revision: read.revision, startKey: read.startKey, limit: options.limit, ... })
 *   // read.minRevision: the list must be at least this fresh (else wait, then tooLargeResourceVersionStatus)
 *   // next page: metadata.continue = encodeContinue(result.continueKey, keyPrefix, result.revision)
 *
 * The order of the checks is kube's: the query's numbers, the label selector, the field selector
 * (400 BadRequest with the parser's text); then ValidateListOptions (422 Invalid on
 * `ListOptions.meta.k8s.io ""`); then the field labels the kind supports (400); then, as the
 * storage reads them, the continue token and the resourceVersion (400).
 */
import { aggregate, type Cause } from '../index.js';
import { goJson, goQuote } from './go-text.js';
import { badRequestStatus, checkFieldLabels, parseFieldSelector, parseLabelSelector, type FieldSelector, type LabelSelector } from './selectors.js';
import type { ApiResource } from './resources.js';

type Status = Record<string, unknown>;

export interface ListOptions {
  labelSelector: LabelSelector;
  fieldSelector: FieldSelector;
  watch: boolean;
  allowWatchBookmarks: boolean;
  /** As given; '' when absent. */
  resourceVersion: string;
  /** As given (after the WatchList defaults); '' when absent. */
  resourceVersionMatch: string;
  /** undefined when absent. */
  timeoutSeconds?: number;
  /** 0 when absent; a negative limit, like 0, means no limit. */
  limit: number;
  continue: string;
  /**
   * undefined when absent. With WatchList on (kube 1.32's default), a watch with no or a "0"
   * resourceVersion and neither this nor resourceVersionMatch gets sendInitialEvents=true and
   * resourceVersionMatch=NotOlderThan: the legacy "current state first" watch.
   */
  sendInitialEvents?: boolean;
}

/** Reads, checks and defaults the list or watch options of a request on `resource`'s collection. */
export function parseListOptions(query: URLSearchParams, resource: Pick<ApiResource, 'namespaced' | 'servedBy'>): { options: ListOptions } | { status: Status } {
  const first = (name: string): string | undefined => query.get(name) ?? undefined;
  const bool = (name: string): boolean | undefined => {
    const value = first(name);
    // runtime.Convert_Slice_string_To_bool: only "0" and "false" (any case) are false, even "" is true.
    return value === undefined ? undefined : !(value === '0' || value.toLowerCase() === 'false');
  };
  const timeout = int64Param(first('timeoutSeconds'));
  if (typeof timeout === 'string') return { status: badRequestStatus(timeout) };
  const limit = int64Param(first('limit'));
  if (typeof limit === 'string') return { status: badRequestStatus(limit) };

  const labels = parseLabelSelector(first('labelSelector') ?? '');
  if ('error' in labels) return { status: badRequestStatus(labels.error) };
  const fields = parseFieldSelector(first('fieldSelector') ?? '');
  if ('error' in fields) return { status: badRequestStatus(fields.error) };

  const options: ListOptions = {
    labelSelector: labels.selector,
    fieldSelector: fields.selector,
    watch: bool('watch') ?? false,
    allowWatchBookmarks: bool('allowWatchBookmarks') ?? false,
    resourceVersion: first('resourceVersion') ?? '',
    resourceVersionMatch: first('resourceVersionMatch') ?? '',
    ...(timeout === undefined ? {} : { timeoutSeconds: timeout }),
    limit: limit ?? 0,
    continue: first('continue') ?? '',
    ...(bool('sendInitialEvents') === undefined ? {} : { sendInitialEvents: bool('sendInitialEvents') }),
  };
  setWatchListDefaults(options);

  const causes = validateListOptions(options);
  if (causes.length) return { status: invalidListOptionsStatus(causes) };

  const unsupported = checkFieldLabels(fields.selector, resource);
  if (unsupported) return { status: badRequestStatus(unsupported.error) };
  return { options };
}

/** runtime.Convert_Slice_string_To_int64: strconv.ParseInt's error text for anything else. */
function int64Param(value: string | undefined): number | undefined | string {
  if (value === undefined) return undefined;
  if (!/^[+-]?\d+$/.test(value)) return `strconv.ParseInt: parsing ${goQuote(value)}: invalid syntax`;
  const n = BigInt(value);
  if (n < -(2n ** 63n) || n >= 2n ** 63n) return `strconv.ParseInt: parsing ${goQuote(value)}: value out of range`;
  return Number(n);
}

/** internalversion.SetListOptionsDefaults with the WatchList feature on. */
function setWatchListDefaults(options: ListOptions): void {
  if (options.sendInitialEvents !== undefined || options.resourceVersionMatch !== '') return;
  if (options.watch && (options.resourceVersion === '' || options.resourceVersion === '0')) {
    options.sendInitialEvents = true;
    options.resourceVersionMatch = 'NotOlderThan';
  }
}

const forbidden = (field: string, detail: string): Cause => ({ type: 'FieldValueForbidden', field, message: `Forbidden: ${detail}` });
const notSupported = (field: string, value: string, supported: string[]): Cause => ({
  type: 'FieldValueNotSupported',
  field,
  message: `Unsupported value: ${goQuote(value)}: supported values: ${supported.map(goQuote).join(', ')}`,
});

/** apimachinery's meta/internalversion/validation.ValidateListOptions (WatchList on). */
export function validateListOptions(options: ListOptions): Cause[] {
  const causes: Cause[] = [];
  const match = options.resourceVersionMatch;
  if (options.watch) {
    if (options.sendInitialEvents !== undefined && match !== 'NotOlderThan') {
      causes.push(forbidden('resourceVersionMatch', 'sendInitialEvents requires setting resourceVersionMatch to NotOlderThan'));
    }
    if (match !== '') {
      if (options.sendInitialEvents === undefined) {
        causes.push(forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided'));
      }
      if (match !== 'NotOlderThan') causes.push(notSupported('resourceVersionMatch', match, ['NotOlderThan']));
      if (options.continue !== '') causes.push(forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden when continue is provided'));
    }
    return causes;
  }
  if (match !== '') {
    if (options.resourceVersion === '') causes.push(forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden unless resourceVersion is provided'));
    if (options.continue !== '') causes.push(forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden when continue is provided'));
    if (match !== 'Exact' && match !== 'NotOlderThan') causes.push(notSupported('resourceVersionMatch', match, ['Exact', 'NotOlderThan', '']));
    if (match === 'Exact' && options.resourceVersion === '0') {
      causes.push(forbidden('resourceVersionMatch', 'resourceVersionMatch "exact" is forbidden for resourceVersion "0"'));
    }
  }
  if (options.sendInitialEvents !== undefined) causes.push(forbidden('sendInitialEvents', 'sendInitialEvents is forbidden for list'));
  return causes;
}

/** errors.NewInvalid(ListOptions.meta.k8s.io, "", causes): 422. */
function invalidListOptionsStatus(causes: Cause[]): Status {
  return {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: `ListOptions.meta.k8s.io "" is invalid: ${aggregate(causes)}`,
    reason: 'Invalid',
    details: { group: 'meta.k8s.io', kind: 'ListOptions', causes: causes.map((c) => ({ reason: c.type, message: c.message, field: c.field })) },
    code: 422,
  };
}

export interface ListRead {
  /** Read exactly at this revision (a continue token's, resourceVersionMatch=Exact, or a paged legacy read). */
  revision?: number;
  /** Serve the newest revision, which must be at least this (NotOlderThan, or an unpaged legacy read). */
  minRevision?: number;
  /** Start at this key, inclusive (from the continue token). */
  startKey?: string;
}

/** How a list reads its storage (etcd3 store's resolveGetListRev), or kube's 400 for a bad token or resourceVersion. */
export function listRead(options: ListOptions, keyPrefix: string): ListRead | { status: Status } {
  if (options.continue !== '') {
    const token = decodeContinue(options.continue, keyPrefix);
    if ('error' in token) return { status: badRequestStatus(`invalid continue token: ${token.error}`) };
    if (options.resourceVersion !== '' && options.resourceVersion !== '0') {
      return { status: badRequestStatus('specifying resource version is not allowed when using continue') };
    }
    return { startKey: token.key, ...(token.revision > 0 ? { revision: token.revision } : {}) };
  }
  if (options.resourceVersion === '') return {};
  const rv = parseResourceVersion(options.resourceVersion);
  if (typeof rv === 'string') return { status: badRequestStatus(`invalid resource version: ${rv}`) };
  if (rv === 0) return {};
  if (options.resourceVersionMatch === 'Exact') return { revision: rv };
  if (options.resourceVersionMatch === '' && options.limit > 0) return { revision: rv };
  return { minRevision: rv };
}

/**
 * APIObjectVersioner.ParseResourceVersion: "" and "0" are 0; anything but a decimal uint64 is
 * the error text kube gives (`metadata.resourceVersion: Invalid value: "x": strconv.ParseUint: ...`).
 * kube answers it 400 (`invalid resource version: …`) where etcd serves the request, but 500 where
 * its watch cache does (a watch, an unpaged list): use the 400 for both; it is the client's mistake.
 */
export function parseResourceVersion(rv: string): number | string {
  if (rv === '' || rv === '0') return 0;
  const problem = !/^\d+$/.test(rv) ? 'invalid syntax' : BigInt(rv) >= 2n ** 64n ? 'value out of range' : undefined;
  if (problem) return `metadata.resourceVersion: Invalid value: ${goQuote(rv)}: strconv.ParseUint: parsing ${goQuote(rv)}: ${problem}`;
  return Number(rv);
}

// --- continue tokens ---

const TOKEN_VERSION = 'meta.k8s.io/v1';

/**
 * storage.EncodeContinue: base64url (no padding) of `{"v":"meta.k8s.io/v1","rv":N,"start":"<key less keyPrefix>"}`.
 * `key` is where the next page starts (inclusive): kube passes the last key returned plus "\x00".
 */
export function encodeContinue(key: string, keyPrefix: string, revision: number): string {
  // strings.TrimPrefix must change the key: an empty or foreign prefix is refused.
  if (keyPrefix === '' || !key.startsWith(keyPrefix)) throw new Error('unable to encode next field: the key and key prefix do not match');
  const json = `{"v":${goJson(TOKEN_VERSION)},"rv":${revision},"start":${goJson(key.slice(keyPrefix.length))}}`;
  return Buffer.from(json, 'utf8').toString('base64url');
}

/** storage.DecodeContinue: the start key (prefixed) and revision, or the error text (kube prefixes `invalid continue token: `). */
export function decodeContinue(token: string, keyPrefix: string): { key: string; revision: number } | { error: string } {
  const invalid = 'continue key is not valid';
  const bytes = decodeRawBase64Url(token);
  if (typeof bytes === 'string') return { error: `${invalid}: ${bytes}` };
  const decoded = decodeTokenJson(bytes.toString('utf8'));
  if ('error' in decoded) return { error: `${invalid}: ${decoded.error}` };
  const { v, rv, start } = decoded;
  if (v !== TOKEN_VERSION) return { error: `${invalid}: server does not recognize this encoded version ${v}` };
  if (rv === 0) return { error: `${invalid}: incorrect encoded start resourceVersion (version meta.k8s.io/v1)` };
  if (start === '') return { error: `${invalid}: encoded start key empty (version meta.k8s.io/v1)` };
  const key = start.startsWith('/') ? start : `/${start}`;
  if (cleanPath(key) !== key) return { error: `${invalid}: ${start}` };
  return { key: keyPrefix + key.slice(1), revision: rv };
}

const BASE64URL = /[A-Za-z0-9_-]/;

/** base64.RawURLEncoding.DecodeString, with Go's error text (`illegal base64 data at input byte N`). */
function decodeRawBase64Url(s: string): Buffer | string {
  let count = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (c === '\r' || c === '\n') continue;
    if (!BASE64URL.test(c)) return `illegal base64 data at input byte ${Buffer.byteLength(s.slice(0, i))}`;
    count++;
  }
  // A lone last character cannot make a byte; Go reports the input's last position.
  if (count % 4 === 1) return `illegal base64 data at input byte ${s.length - 1}`;
  return Buffer.from(s.replace(/[\r\n]/g, ''), 'base64url');
}

/** Go's path.Clean of a rooted path. */
export function cleanPath(p: string): string {
  const out: string[] = [];
  for (const part of p.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') out.pop();
    else out.push(part);
  }
  return `/${out.join('/')}`;
}

interface TokenFields {
  v: string;
  rv: number;
  start: string;
}

/**
 * json.Unmarshal into storage.continueToken: Go's syntax and type errors (the first one), field
 * names matched case-insensitively, nulls ignored, the last duplicate winning.
 */
function decodeTokenJson(text: string): TokenFields | { error: string } {
  const parsed = new GoJsonScanner(text).document();
  if ('error' in parsed) return parsed;
  const value = parsed.value;
  const fields: TokenFields = { v: '', rv: 0, start: '' };
  if (value.kind === 'null') return fields;
  if (value.kind !== 'object') return { error: `json: cannot unmarshal ${value.kind} into Go value of type storage.continueToken` };
  let firstError: string | undefined;
  const typeError = (what: string, field: string, type: string) =>
    (firstError ??= `json: cannot unmarshal ${what} into Go struct field continueToken.${field} of type ${type}`);
  for (const [name, member] of value.members) {
    const field = (['v', 'rv', 'start'] as const).find((f) => f === name) ?? (['v', 'rv', 'start'] as const).find((f) => f === name.toLowerCase());
    if (field === undefined || member.kind === 'null') continue;
    if (field === 'rv') {
      if (member.kind !== 'number') typeError(member.kind, field, 'int64');
      else if (!/^-?\d+$/.test(member.raw) || BigInt(member.raw) < -(2n ** 63n) || BigInt(member.raw) >= 2n ** 63n) typeError(`number ${member.raw}`, field, 'int64');
      else fields.rv = Number(member.raw);
    } else if (member.kind !== 'string') typeError(member.kind, field, 'string');
    else fields[field] = member.text;
  }
  return firstError === undefined ? fields : { error: firstError };
}

type GoValue =
  | { kind: 'null' }
  | { kind: 'bool' }
  | { kind: 'number'; raw: string }
  | { kind: 'string'; text: string }
  | { kind: 'array' }
  | { kind: 'object'; members: [string, GoValue][] };

class GoSyntaxError extends Error {}

/** A JSON reader whose errors read as encoding/json's scanner's. */
class GoJsonScanner {
  private pos = 0;
  constructor(private readonly s: string) {}

  document(): { value: GoValue } | { error: string } {
    try {
      this.space();
      const value = this.value('looking for beginning of value');
      this.space();
      if (this.pos < this.s.length) this.fail('after top-level value');
      return { value };
    } catch (e) {
      if (e instanceof GoSyntaxError) return { error: e.message };
      throw e;
    }
  }

  private fail(context: string): never {
    if (this.pos >= this.s.length) throw new GoSyntaxError('unexpected end of JSON input');
    const c = String.fromCodePoint(this.s.codePointAt(this.pos)!);
    const quoted = c === "'" ? "'\\''" : c === '"' ? `'"'` : `'${goQuote(c).slice(1, -1)}'`;
    throw new GoSyntaxError(`invalid character ${quoted} ${context}`);
  }

  private space(): void {
    while (this.pos < this.s.length && ' \t\r\n'.includes(this.s[this.pos]!)) this.pos++;
  }

  private value(context: string): GoValue {
    const c = this.s[this.pos];
    if (c === '{') return this.object();
    if (c === '[') return this.array();
    if (c === '"') return { kind: 'string', text: this.string() };
    if (c === '-' || (c !== undefined && c >= '0' && c <= '9')) return { kind: 'number', raw: this.number() };
    for (const [word, kind] of [['true', 'bool'], ['false', 'bool'], ['null', 'null']] as const) {
      if (c === word[0]) {
        this.pos++;
        for (const expected of word.slice(1)) {
          if (this.s[this.pos] !== expected) this.fail(`in literal ${word} (expecting '${expected}')`);
          this.pos++;
        }
        return { kind } as GoValue;
      }
    }
    return this.fail(context);
  }

  private object(): GoValue {
    const members: [string, GoValue][] = [];
    this.pos++;
    this.space();
    if (this.s[this.pos] === '}') {
      this.pos++;
      return { kind: 'object', members };
    }
    for (;;) {
      if (this.s[this.pos] !== '"') this.fail('looking for beginning of object key string');
      const name = this.string();
      this.space();
      if (this.s[this.pos] !== ':') this.fail('after object key');
      this.pos++;
      this.space();
      members.push([name, this.value('looking for beginning of value')]);
      this.space();
      if (this.s[this.pos] === ',') {
        this.pos++;
        this.space();
      } else if (this.s[this.pos] === '}') {
        this.pos++;
        return { kind: 'object', members };
      } else this.fail('after object key:value pair');
    }
  }

  private array(): GoValue {
    this.pos++;
    this.space();
    if (this.s[this.pos] === ']') {
      this.pos++;
      return { kind: 'array' };
    }
    for (;;) {
      this.value('looking for beginning of value');
      this.space();
      if (this.s[this.pos] === ',') {
        this.pos++;
        this.space();
      } else if (this.s[this.pos] === ']') {
        this.pos++;
        return { kind: 'array' };
      } else this.fail('after array element');
    }
  }

  private string(): string {
    const start = this.pos;
    this.pos++;
    for (;;) {
      const c = this.s[this.pos];
      if (c === undefined) this.fail('in string literal');
      if (c === '"') break;
      if (c === '\\') {
        this.pos++;
        const e = this.s[this.pos];
        if (e === 'u') {
          for (let i = 0; i < 4; i++) {
            this.pos++;
            if (!/[0-9a-fA-F]/.test(this.s[this.pos] ?? '')) this.fail('in \\u hexadecimal character escape');
          }
        } else if (e === undefined || !'"\\/bfnrt'.includes(e)) this.fail('in string escape code');
      } else if (c < ' ') this.fail('in string literal');
      this.pos++;
    }
    this.pos++;
    return JSON.parse(this.s.slice(start, this.pos)) as string;
  }

  private number(): string {
    const start = this.pos;
    if (this.s[this.pos] === '-') this.pos++;
    const digit = () => /[0-9]/.test(this.s[this.pos] ?? '');
    if (this.s[this.pos] === '0') this.pos++;
    else if (digit()) while (digit()) this.pos++;
    else this.fail('in numeric literal');
    if (this.s[this.pos] === '.') {
      this.pos++;
      if (!digit()) this.fail('after decimal point in numeric literal');
      while (digit()) this.pos++;
    }
    if (this.s[this.pos] === 'e' || this.s[this.pos] === 'E') {
      this.pos++;
      if (this.s[this.pos] === '+' || this.s[this.pos] === '-') this.pos++;
      if (!digit()) this.fail('in exponent of numeric literal');
      while (digit()) this.pos++;
    }
    return this.s.slice(start, this.pos);
  }
}

// --- the Status answers around lists and watches ---

const expired = (message: string, extra: Status = {}): Status => ({
  kind: 'Status',
  apiVersion: 'v1',
  metadata: extra,
  status: 'Failure',
  message,
  reason: 'Expired',
  code: 410,
});

/** 410 for a list at a compacted revision. */
export const listExpiredStatus = (): Status => expired('The resourceVersion for the provided list is too old.');

/**
 * 410 for a continue token whose revision was compacted: with a token (revision -1, the same next
 * key) that continues from the newest revision, as kube's handleCompactedErrorForPaging.
 */
export function continueExpiredStatus(continueKey: string, keyPrefix: string): Status {
  return expired(
    'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.',
    { continue: encodeContinue(continueKey, keyPrefix, -1) },
  );
}

/**
 * 410 for a watch from a revision no longer kept: `too old resource version: <requested> (<oldest>)`,
 * where kube's watch cache names the revision before the oldest event it still holds. Sent as the
 * object of one ERROR event on a 200 stream, not as the HTTP status.
 */
export const watchExpiredStatus = (requested: number, oldest: number): Status => expired(`too old resource version: ${requested} (${oldest})`);

/** 504 for a resourceVersion newer than the store has, after waiting (storage.NewTooLargeResourceVersionError). */
export function tooLargeResourceVersionStatus(requested: number, current: number, retryAfterSeconds = 1): Status {
  return {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: `Timeout: Too large resource version: ${requested}, current: ${current}`,
    reason: 'Timeout',
    details: { causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }], retryAfterSeconds },
    code: 504,
  };
}
