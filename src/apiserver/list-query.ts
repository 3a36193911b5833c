/**
 * The list and watch query of a collection request, read into what the registry needs: a
 * predicate, a page, a revision to read at or watch from.
 *
 * Selector parsing, continue tokens and the validation of list and watch options belong to the
 * apiserver-meta branch; until they are merged this reads the forms kubectl sends (`limit`,
 * `continue`, `resourceVersion`, `fieldSelector=metadata.name=<n>`, `labelSelector` equality terms)
 * and refuses any other with a 400 that says so.
 */
import { badRequest } from './status.js';
import { isRecordValue, type JsonObject } from './json.js';
import { param, type Query } from './request.js';

export interface ListQuery {
  watch: boolean;
  predicate?: (object: JsonObject) => boolean;
  limit?: number;
  continueFrom?: { revision: number; startKey: string };
  resourceVersion?: string;
  resourceVersionMatch?: string;
  allowWatchBookmarks: boolean;
  sendInitialEvents?: boolean;
  timeoutSeconds?: number;
}

const bool = (value: string | undefined): boolean => value === 'true' || value === '1';

function integer(query: Query, name: string): number | undefined {
  const value = param(query, name);
  if (value === undefined || value === '') return undefined;
  if (!/^-?\d+$/.test(value)) throw badRequest(`invalid value for ${name}: ${JSON.stringify(value)}: must be an integer`);
  return Number(value);
}

export function parseListQuery(query: Query): ListQuery {
  const predicates: ((o: JsonObject) => boolean)[] = [];
  const field = param(query, 'fieldSelector');
  if (field) predicates.push(fieldPredicate(field));
  const label = param(query, 'labelSelector');
  if (label) predicates.push(labelPredicate(label));
  const limit = integer(query, 'limit');
  const token = param(query, 'continue');
  const sendInitialEvents = param(query, 'sendInitialEvents');
  return {
    watch: bool(param(query, 'watch')),
    ...(predicates.length ? { predicate: (o: JsonObject) => predicates.every((p) => p(o)) } : {}),
    ...(limit !== undefined && limit > 0 ? { limit } : {}),
    ...(token ? { continueFrom: decodeContinue(token) } : {}),
    ...(param(query, 'resourceVersion') !== undefined ? { resourceVersion: param(query, 'resourceVersion') } : {}),
    ...(param(query, 'resourceVersionMatch') ? { resourceVersionMatch: param(query, 'resourceVersionMatch') } : {}),
    allowWatchBookmarks: bool(param(query, 'allowWatchBookmarks')),
    ...(sendInitialEvents !== undefined ? { sendInitialEvents: bool(sendInitialEvents) } : {}),
    ...(integer(query, 'timeoutSeconds') !== undefined ? { timeoutSeconds: integer(query, 'timeoutSeconds') } : {}),
  };
}

const metadataField = (o: JsonObject, name: string): string => (isRecordValue(o.metadata) && typeof o.metadata[name] === 'string' ? (o.metadata[name] as string) : '');

function fieldPredicate(selector: string): (o: JsonObject) => boolean {
  const terms = selector.split(',').map((term) => {
    const m = /^(metadata\.name|metadata\.namespace)(==?|!=)(.*)$/.exec(term.trim());
    if (!m) throw badRequest(`field selector ${JSON.stringify(selector)} is not supported yet: only metadata.name and metadata.namespace with =, == or !=`);
    const [, key, op, value] = m;
    return (o: JsonObject) => (metadataField(o, key!.slice('metadata.'.length)) === value) === (op !== '!=');
  });
  return (o) => terms.every((t) => t(o));
}

function labelPredicate(selector: string): (o: JsonObject) => boolean {
  const terms = selector.split(',').map((term) => {
    const m = /^([^=!]+?)(==?|!=)(.*)$/.exec(term.trim());
    if (!m) throw badRequest(`label selector ${JSON.stringify(selector)} is not supported yet: only equality terms`);
    const [, key, op, value] = m;
    return (o: JsonObject) => {
      const labels = isRecordValue(o.metadata) && isRecordValue(o.metadata.labels) ? o.metadata.labels : {};
      return (labels[key!.trim()] === value!.trim()) === (op !== '!=');
    };
  });
  return (o) => terms.every((t) => t(o));
}

/** kube-apiserver's continue token: base64 of `{"v":"meta.k8s.io/v1","rv":N,"start":"<key>"}`. */
export function encodeContinue(revision: number, startKey: string): string {
  return Buffer.from(JSON.stringify({ v: 'meta.k8s.io/v1', rv: revision, start: startKey })).toString('base64');
}

function decodeContinue(token: string): { revision: number; startKey: string } {
  try {
    const decoded = JSON.parse(Buffer.from(token, 'base64').toString('utf8')) as { v?: unknown; rv?: unknown; start?: unknown };
    if (decoded.v === 'meta.k8s.io/v1' && typeof decoded.rv === 'number' && decoded.rv > 0 && typeof decoded.start === 'string') return { revision: decoded.rv, startKey: decoded.start };
  } catch {
    // answered below
  }
  throw badRequest('continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)');
}
