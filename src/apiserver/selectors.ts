/**
 * Label and field selectors as kube-apiserver reads `labelSelector` and `fieldSelector`: the
 * grammar of apimachinery's labels.Parse and fields.ParseSelector, their exact error texts (the
 * 400 BadRequest message), and the field labels Karmada's servers accept per kind.
 *
 *   const labels = parseLabelSelector('env in (prod,staging),!canary');
 *   if ('error' in labels) → 400 with labels.error
 *   const fields = parseFieldSelector('metadata.name=m1');           // syntax: 400 on error
 *   const supported = checkFieldLabels(fields.selector, resource);    // labels: 400 on error
 *   labels.selector.matches(object.metadata.labels) && fields.selector.matches(object)
 *
 * Hand-written: no npm package parses Kubernetes' selector syntax (nor gives apimachinery's
 * errors); the lexer and parser follow labels/selector.go step by step, since which input fails,
 * and with which text, is the parser's behaviour itself.
 */
import { aggregate, type Cause } from '../index.js';
import { goQuote } from './go-text.js';
import { labelValueErrors, qualifiedNameErrors } from '../checks/names.js';
import type { ApiResource } from './resources.js';

export type LabelOperator = 'in' | 'notin' | '=' | '==' | '!=' | 'exists' | '!' | 'gt' | 'lt';

export interface LabelRequirement {
  key: string;
  operator: LabelOperator;
  /** Sorted and unique for in/notin, as apimachinery keeps them; one value for the others that take one. */
  values: string[];
}

export interface LabelSelector {
  /** Sorted by key. */
  requirements: readonly LabelRequirement[];
  /** Whether the labels (metadata.labels, possibly absent) satisfy every requirement. */
  matches(labels: Readonly<Record<string, string>> | undefined): boolean;
  /** The canonical text, as the selector's String() gives it. */
  toString(): string;
}

/** labels.Parse: the selector, or the error text kube answers 400 with. */
export function parseLabelSelector(text: string): { selector: LabelSelector } | { error: string } {
  try {
    const requirements = new Parser(lex(text)).parse();
    requirements.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    return { selector: labelSelector(requirements) };
  } catch (e) {
    if (e instanceof SelectorError) return { error: e.message };
    throw e;
  }
}

class SelectorError extends Error {}

function labelSelector(requirements: LabelRequirement[]): LabelSelector {
  return {
    requirements,
    matches: (labels) => requirements.every((r) => requirementMatches(r, labels ?? {})),
    toString: () => requirements.map(requirementText).join(','),
  };
}

function requirementMatches(r: LabelRequirement, labels: Readonly<Record<string, string>>): boolean {
  const has = Object.prototype.hasOwnProperty.call(labels, r.key);
  const value = has ? labels[r.key]! : '';
  switch (r.operator) {
    case 'in':
    case '=':
    case '==':
      return has && r.values.includes(value);
    case 'notin':
    case '!=':
      return !has || !r.values.includes(value);
    case 'exists':
      return has;
    case '!':
      return !has;
    case 'gt':
    case 'lt': {
      const actual = has ? parseInt64(value) : undefined;
      const wanted = parseInt64(r.values[0] ?? '');
      if (actual === undefined || wanted === undefined) return false;
      return r.operator === 'gt' ? actual > wanted : actual < wanted;
    }
  }
}

function requirementText(r: LabelRequirement): string {
  const values = r.values.length === 1 ? r.values[0] : [...r.values].sort().join(',');
  switch (r.operator) {
    case 'exists':
      return r.key;
    case '!':
      return `!${r.key}`;
    case 'in':
    case 'notin':
      return `${r.key} ${r.operator} (${values})`;
    case 'gt':
      return `${r.key}>${values}`;
    case 'lt':
      return `${r.key}<${values}`;
    default:
      return `${r.key}${r.operator}${values}`;
  }
}

/** strconv.ParseInt(s, 10, 64), as a bigint; undefined where Go gives an error. */
export function parseInt64(s: string): bigint | undefined {
  if (!/^[+-]?\d+$/.test(s)) return undefined;
  const n = BigInt(s);
  return n >= -(2n ** 63n) && n < 2n ** 63n ? n : undefined;
}

// --- the lexer and parser of labels/selector.go ---

type Token = 'error' | 'end' | ')' | ',' | '!' | '==' | '=' | '>' | 'id' | 'in' | '<' | '!=' | 'notin' | '(';
interface Item {
  token: Token;
  literal: string;
}

const KEYWORDS = new Map<string, Token>([')', ',', '!', '==', '=', '>', 'in', '<', '!=', 'notin', '('].map((t) => [t, t as Token]));
const isWhitespace = (ch: string) => ch === ' ' || ch === '\t' || ch === '\r' || ch === '\n';
const isSpecial = (ch: string) => '=!(),><'.includes(ch) && ch !== '';

function lex(s: string): Item[] {
  const items: Item[] = [];
  let pos = 0;
  for (;;) {
    while (pos < s.length && isWhitespace(s[pos]!)) pos++;
    if (pos >= s.length) {
      items.push({ token: 'end', literal: '' });
      return items;
    }
    if (isSpecial(s[pos]!)) {
      let buffer = '';
      let last: Item | undefined;
      while (pos < s.length && isSpecial(s[pos]!)) {
        buffer += s[pos];
        const token = KEYWORDS.get(buffer);
        if (token !== undefined) last = { token, literal: buffer };
        else if (last) break;
        pos++;
      }
      items.push(last ?? { token: 'error', literal: `error expected: keyword found '${buffer}'` });
    } else {
      let buffer = '';
      while (pos < s.length && !isSpecial(s[pos]!) && !isWhitespace(s[pos]!)) buffer += s[pos++];
      items.push({ token: KEYWORDS.get(buffer) ?? 'id', literal: buffer });
    }
  }
}

/** In the Values context `in` and `notin` are plain identifiers (a key or value may be named so). */
const asValue = (token: Token): Token => (token === 'in' || token === 'notin' ? 'id' : token);

const BINARY_OPERATORS = 'in, notin, =, ==, !=, gt, lt';

class Parser {
  private position = 0;
  constructor(private readonly items: Item[]) {}

  private lookahead(values: boolean): Item {
    const item = this.items[this.position]!;
    return values ? { ...item, token: asValue(item.token) } : item;
  }

  private consume(values: boolean): Item {
    const item = this.lookahead(values);
    this.position++;
    return item;
  }

  parse(): LabelRequirement[] {
    const requirements: LabelRequirement[] = [];
    for (;;) {
      const { token, literal } = this.lookahead(true);
      if (token === 'id' || token === '!') {
        try {
          requirements.push(this.parseRequirement());
        } catch (e) {
          if (e instanceof SelectorError) throw new SelectorError(`unable to parse requirement: ${e.message}`);
          throw e;
        }
        const next = this.consume(true);
        if (next.token === 'end') return requirements;
        if (next.token !== ',') throw new SelectorError(`found '${next.literal}', expected: ',' or 'end of string'`);
        const after = this.lookahead(true);
        if (after.token !== 'id' && after.token !== '!') throw new SelectorError(`found '${after.literal}', expected: identifier after ','`);
      } else if (token === 'end') return requirements;
      else throw new SelectorError(`found '${literal}', expected: !, identifier, or 'end of string'`);
    }
  }

  private parseRequirement(): LabelRequirement {
    const { key, operator } = this.parseKeyAndInferOperator();
    if (operator === 'exists' || operator === '!') return newRequirement(key, operator, []);
    const binary = this.parseOperator();
    const values = binary === 'in' || binary === 'notin' ? this.parseValues() : this.parseExactValue();
    return newRequirement(key, binary, [...new Set(values)].sort());
  }

  private parseKeyAndInferOperator(): { key: string; operator: LabelOperator | undefined } {
    let operator: LabelOperator | undefined;
    let item = this.consume(true);
    if (item.token === '!') {
      operator = '!';
      item = this.consume(true);
    }
    if (item.token !== 'id') throw new SelectorError(`found '${item.literal}', expected: identifier`);
    const keyErrors = qualifiedNameErrors(item.literal);
    // The parser validates the key with a nil field path, which Go prints as "<nil>".
    if (keyErrors.length) throw new SelectorError(`<nil>: Invalid value: ${goQuote(item.literal)}: ${keyErrors.join('; ')}`);
    const next = this.lookahead(true).token;
    if ((next === 'end' || next === ',') && operator !== '!') operator = 'exists';
    return { key: item.literal, operator };
  }

  private parseOperator(): LabelOperator {
    const { token, literal } = this.consume(false);
    switch (token) {
      case 'in':
        return 'in';
      case 'notin':
        return 'notin';
      case '=':
        return '=';
      case '==':
        return '==';
      case '!=':
        return '!=';
      case '>':
        return 'gt';
      case '<':
        return 'lt';
      default:
        throw new SelectorError(`found '${literal}', expected: ${BINARY_OPERATORS}`);
    }
  }

  private parseValues(): string[] {
    const open = this.consume(true);
    if (open.token !== '(') throw new SelectorError(`found '${open.literal}' expected: '('`);
    const { token, literal } = this.lookahead(true);
    if (token === 'id' || token === ',') {
      const values = this.parseIdentifiersList();
      if (this.consume(true).token !== ')') throw new SelectorError(`found '${literal}', expected: ')'`);
      return values;
    }
    if (token === ')') {
      this.consume(true);
      return [''];
    }
    throw new SelectorError(`found '${literal}', expected: ',', ')' or identifier`);
  }

  private parseIdentifiersList(): string[] {
    const values = new Set<string>();
    for (;;) {
      const { token, literal } = this.consume(true);
      if (token === 'id') {
        values.add(literal);
        const next = this.lookahead(true);
        if (next.token === ',') continue;
        if (next.token === ')') return [...values];
        throw new SelectorError(`found '${next.literal}', expected: ',' or ')'`);
      } else if (token === ',') {
        if (values.size === 0) values.add('');
        const next = this.lookahead(true).token;
        if (next === ')') {
          values.add('');
          return [...values];
        }
        if (next === ',') {
          this.consume(true);
          values.add('');
        }
      } else throw new SelectorError(`found '${literal}', expected: ',', or identifier`);
    }
  }

  private parseExactValue(): string[] {
    const next = this.lookahead(true).token;
    if (next === 'end' || next === ',') return [''];
    const { token, literal } = this.consume(true);
    if (token === 'id') return [literal];
    throw new SelectorError(`found '${literal}', expected: identifier`);
  }
}

/** labels.NewRequirement's checks, with its field paths (`values[0][key]`) and aggregate text. */
function newRequirement(key: string, operator: LabelOperator, values: string[]): LabelRequirement {
  const causes: Cause[] = [];
  const invalid = (field: string, value: string, detail: string) =>
    causes.push({ type: 'FieldValueInvalid', field, message: `Invalid value: ${goQuote(value)}: ${detail}` });
  const keyErrors = qualifiedNameErrors(key);
  if (keyErrors.length) invalid('key', key, keyErrors.join('; '));
  if (operator === 'gt' || operator === 'lt') {
    values.forEach((v, i) => {
      if (parseInt64(v) === undefined) invalid(`values[${i}]`, v, "for 'Gt', 'Lt' operators, the value must be an integer");
    });
  }
  values.forEach((v, i) => {
    const errors = labelValueErrors(v);
    if (errors.length) invalid(`values[${i}][${key}]`, v, errors.join('; '));
  });
  if (causes.length) throw new SelectorError(aggregate(causes));
  return { key, operator, values };
}

export { labelValueErrors, qualifiedNameErrors };

// --- field selectors ---

export interface FieldTerm {
  field: string;
  operator: '=' | '!=';
  value: string;
}

export interface FieldSelector {
  /** In the order kube keeps them (the terms' text sorted). */
  terms: readonly FieldTerm[];
  /** Whether the object's fields (metadata.name, metadata.namespace; "" when absent) satisfy every term. */
  matches(object: { metadata?: { name?: unknown; namespace?: unknown } } | Record<string, unknown>): boolean;
  /** The value `field` must have, when a term requires one (`metadata.name=m1`). */
  exactMatch(field: string): string | undefined;
  toString(): string;
}

/** fields.ParseSelector: the selector, or the error text kube answers 400 with. */
export function parseFieldSelector(text: string): { selector: FieldSelector } | { error: string } {
  const terms: FieldTerm[] = [];
  for (const part of splitTerms(text).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))) {
    if (part === '') continue;
    const split = splitTerm(part);
    if (!split) return { error: `invalid selector: '${text}'; can't understand '${part}'` };
    const value = unescapeValue(split.rhs);
    if (typeof value !== 'string') return value;
    // An empty term ("=") selects everything; kube drops it.
    if (split.lhs === '' && value === '') continue;
    terms.push({ field: split.lhs, operator: split.op === '!=' ? '!=' : '=', value });
  }
  return { selector: fieldSelector(terms) };
}

function fieldSelector(terms: FieldTerm[]): FieldSelector {
  return {
    terms,
    matches: (object) => terms.every((t) => (fieldValue(object, t.field) === t.value) === (t.operator === '=')),
    exactMatch: (field) => terms.find((t) => t.field === field && t.operator === '=')?.value,
    toString: () => terms.map((t) => `${t.field}${t.operator}${escapeValue(t.value)}`).join(','),
  };
}

function fieldValue(object: Record<string, unknown>, field: string): string {
  const metadata = object.metadata as Record<string, unknown> | undefined;
  const value = field === 'metadata.name' ? metadata?.name : field === 'metadata.namespace' ? metadata?.namespace : undefined;
  return typeof value === 'string' ? value : '';
}

const escapeValue = (s: string): string => s.replace(/[\\,=]/g, (c) => `\\${c}`);

function splitTerms(selector: string): string[] {
  if (selector === '') return [];
  const terms: string[] = [];
  let start = 0;
  let inSlash = false;
  for (let i = 0; i < selector.length; i++) {
    const c = selector[i];
    if (inSlash) inSlash = false;
    else if (c === '\\') inSlash = true;
    else if (c === ',') {
      terms.push(selector.slice(start, i));
      start = i + 1;
    }
  }
  terms.push(selector.slice(start));
  return terms;
}

function splitTerm(term: string): { lhs: string; op: string; rhs: string } | undefined {
  for (let i = 0; i < term.length; i++) {
    for (const op of ['!=', '==', '=']) {
      if (term.startsWith(op, i)) return { lhs: term.slice(0, i), op, rhs: term.slice(i + op.length) };
    }
  }
  return undefined;
}

function unescapeValue(s: string): string | { error: string } {
  if (!/[\\,=]/.test(s)) return s;
  let out = '';
  let inSlash = false;
  for (const c of s) {
    if (inSlash) {
      if (c !== '\\' && c !== ',' && c !== '=') return { error: `invalid field selector: invalid escape sequence: \\${c}` };
      out += c;
      inSlash = false;
    } else if (c === '\\') inSlash = true;
    else if (c === ',' || c === '=') return { error: `invalid field selector: unescaped character in value: ${c.codePointAt(0)}` };
    else out += c;
  }
  if (inSlash) return { error: 'invalid field selector: invalid escape sequence: \\' };
  return out;
}

/**
 * The field labels the kind's server accepts, checked in the selector's order: for a custom
 * resource (apiextensions' converter) metadata.name, and metadata.namespace on namespaced kinds
 * only (`field label not supported: spec.x`); for Cluster and ResourceRegistry, served by Karmada's
 * aggregated servers, both (`"spec.x" is not a known field selector: only "metadata.name", "metadata.namespace"`).
 */
export function checkFieldLabels(selector: FieldSelector, resource: Pick<ApiResource, 'namespaced' | 'servedBy'>): { error: string } | undefined {
  for (const { field } of selector.terms) {
    if (field === 'metadata.name') continue;
    if (field === 'metadata.namespace' && (resource.namespaced || resource.servedBy === 'aggregated')) continue;
    return {
      error:
        resource.servedBy === 'aggregated'
          ? `${goQuote(field)} is not a known field selector: only "metadata.name", "metadata.namespace"`
          : `field label not supported: ${field}`,
    };
  }
  return undefined;
}

/** The 400 Status kube answers a selector error with. */
export function badRequestStatus(message: string): Record<string, unknown> {
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason: 'BadRequest', code: 400 };
}
