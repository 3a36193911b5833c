/**
 * The same verdicts as the webhook: every case of the project's rule tests (test/rules, read as
 * they run, through test/helpers' recordCases) is sent to fleetgate apiserver and to fleetgate's
 * own webhook (its mutating then validating endpoint, as kube-apiserver calls them). Every case
 * the webhook allows is created (or updated); every one it denies is a 422 with the same causes.
 *
 * The webhook is shown what kube-apiserver shows a validating webhook: the object after the
 * mutating webhook and after the custom resource strategy (a create's status dropped, an update's
 * status kept as stored, a status write's other fields kept as stored: objects.ts). Cases the API
 * server answers before admission, as kube-apiserver does, are counted apart and checked for that
 * answer: another kind or apiVersion than the URL's resource (400), a PUT whose name or namespace
 * differs from the URL's (400).
 */
import { describe, expect, it } from 'vitest';
import inject from 'light-my-request';
import { applyPatch, type Operation as PatchOp } from 'rfc6902';
import { recordCases, type SeenCase } from '../helpers.js';
import { createApp } from '../../src/server/app.js';
import { createApiServerApp } from '../../src/apiserver/app.js';
import { createMemoryStorage } from '../../src/apiserver/storage/index.js';
import { apiResources, type ApiResource } from '../../src/apiserver/resources.js';
import { objectKey } from '../../src/apiserver/keys.js';
import { prepareForStatusUpdate, prepareForUpdate } from '../../src/apiserver/objects.js';
import { DEFAULT_GROUP_DOMAIN } from '../../src/index.js';

const seen: SeenCase[] = [];
recordCases((c) => seen.push(c));

// The rule tests, run here as well: each case they check is recorded for the replay below.
import '../rules/cluster.test.js';
import '../rules/clusterresourcebinding.test.js';
import '../rules/clustertaintpolicy.test.js';
import '../rules/cronfederatedhpa.test.js';
import '../rules/federatedresourcequota.test.js';
import '../rules/multiclusteringress.test.js';
import '../rules/multiclusterservice.test.js';
import '../rules/remedy.test.js';
import '../rules/resourceinterpretercustomization.test.js';
import '../rules/resourceinterpreterwebhookconfiguration.test.js';
import '../rules/resourceregistry.test.js';
import '../rules/shared-checks.test.js';
import '../rules/update-ratcheting.test.js';
import '../rules/work.test.js';
import '../rules/workloadrebalancer.test.js';

type Obj = Record<string, any>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const copy = <T>(v: T): T => structuredClone(v);

interface Verdict {
  allowed: boolean;
  causes: string[];
}
const causeText = (c: { field?: string; reason?: string; message?: string }) => `${c.field} ${c.reason} ${c.message}`;

interface Side {
  apiserver: ReturnType<typeof createApiServerApp>;
  storage: ReturnType<typeof createMemoryStorage>;
}

async function webhookVerdict(webhook: ReturnType<typeof createApp>, resource: ApiResource, review: Obj): Promise<{ allowed: boolean; patch?: PatchOp[]; causes: string[] }> {
  const mode = review.mode as string;
  delete review.mode;
  const res = await inject(webhook.callback(), {
    method: 'POST',
    url: `/${mode}-${resource.kind.toLowerCase()}`,
    headers: { 'content-type': 'application/json' },
    payload: JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', request: { uid: 'u', ...review } }),
  });
  const response = JSON.parse(res.payload).response;
  return {
    allowed: response.allowed,
    ...(response.patch ? { patch: JSON.parse(Buffer.from(response.patch, 'base64').toString('utf8')) } : {}),
    causes: (response.status?.details?.causes ?? []).map(causeText).sort(),
  };
}

/** The verdict of the webhook pair on what kube-apiserver would send them. */
async function reference(webhook: ReturnType<typeof createApp>, resource: ApiResource, request: Obj, prepare: (mutated: Obj) => Obj): Promise<Verdict> {
  const review = {
    kind: { group: resource.group, version: resource.version, kind: resource.kind },
    resource: { group: resource.group, version: resource.version, resource: resource.plural },
    ...request,
  };
  const mutated = await webhookVerdict(webhook, resource, { ...copy(review), mode: 'mutate' });
  const object = copy(request.object);
  if (mutated.patch) applyPatch(object, mutated.patch);
  const validated = await webhookVerdict(webhook, resource, { ...copy(review), object: prepare(object), mode: 'validate' });
  return { allowed: validated.allowed, causes: validated.causes };
}

const GENERATED_SUFFIX = 'bcdfg';

describe('fleetgate apiserver gives the webhook\'s verdicts on every rule-test case', () => {
  it('replays every recorded case', async () => {
    const unique = new Map<string, SeenCase>();
    for (const c of seen) {
      let key: string;
      try {
        key = JSON.stringify(c);
      } catch {
        continue;
      }
      unique.set(key, c);
    }
    expect(unique.size).toBeGreaterThan(500);
    const counts = { created: 0, updated: 0, denied: 0, beforeAdmission: 0, skipped: new Map<string, number>() };
    const skip = (why: string) => counts.skipped.set(why, (counts.skipped.get(why) ?? 0) + 1);
    const mismatches: string[] = [];
    const webhooks = new Map<string, ReturnType<typeof createApp>>();

    for (const { object, options } of unique.values()) {
      const groupDomain = options.groupDomain ?? DEFAULT_GROUP_DOMAIN;
      const operation = options.operation ?? 'CREATE';
      if (operation !== 'CREATE' && operation !== 'UPDATE') {
        skip(`${operation}: nothing to admit`);
        continue;
      }
      if (options.subResource && options.subResource !== 'status') {
        skip('a subresource the spec does not have');
        continue;
      }
      const resource = apiResources(groupDomain).find((r) => isObj(object) && r.kind === object.kind);
      if (!isObj(object) || !resource) {
        skip('not an object of a served kind: no URL to send it to');
        continue;
      }
      const metadata = isObj(object.metadata) ? object.metadata : undefined;
      const namespace = resource.namespaced ? (typeof metadata?.namespace === 'string' && metadata.namespace !== '' ? metadata.namespace : 'default') : undefined;
      if (namespace !== undefined && !/^[^/?#%]+$/.test(namespace)) {
        skip('a namespace no URL path can carry');
        continue;
      }
      const config = `${groupDomain}|${options.allowNoExecuteTaintPolicy}`;
      let webhook = webhooks.get(config);
      if (!webhook) webhooks.set(config, (webhook = createApp({ groupDomain, ...(options.allowNoExecuteTaintPolicy !== undefined ? { allowNoExecuteTaintPolicy: options.allowNoExecuteTaintPolicy } : {}) })));
      const storage = createMemoryStorage();
      const apiserver = createApiServerApp({ storage, groupDomain, ...(options.allowNoExecuteTaintPolicy !== undefined ? { allowNoExecuteTaintPolicy: options.allowNoExecuteTaintPolicy } : {}) });
      const side: Side = { apiserver, storage };
      const collection = `/apis/${resource.group}/${resource.version}${namespace !== undefined ? `/namespaces/${namespace}` : ''}/${resource.plural}`;
      const label = `${resource.kind} ${operation}${options.subResource ? '/status' : ''} ${JSON.stringify(object).slice(0, 160)}`;
      try {
        if (object.apiVersion !== resource.groupVersion) {
          const res = await send(side, 'POST', collection, object);
          if (res.status !== 400) mismatches.push(`${label}: another apiVersion should be a 400 before admission, got ${res.status}`);
          counts.beforeAdmission++;
          continue;
        }
        let verdict: Verdict;
        let expected: Verdict;
        if (operation === 'CREATE') {
          verdict = await send(side, 'POST', collection, object).then(toVerdict(201));
          // A name made from generateName ends in five random characters: compare them as one placeholder.
          const prefix = metadata && (metadata.name === undefined || metadata.name === '') && typeof metadata.generateName === 'string' ? metadata.generateName.slice(0, 58) : undefined;
          if (prefix) verdict.causes = verdict.causes.map((c) => c.split(prefix).map((part, i) => (i > 0 && /^[bcdfghjklmnpqrstvwxz2456789]{5}/.test(part) ? GENERATED_SUFFIX + part.slice(5) : part)).join(prefix));
          expected = await reference(webhook, resource, { operation: 'CREATE', namespace, object }, (mutated) => {
            delete mutated.status;
            const m = isObj(mutated.metadata) ? mutated.metadata : (mutated.metadata = {});
            if (namespace === undefined) delete m.namespace;
            else m.namespace = namespace;
            if ((m.name === undefined || m.name === '') && typeof m.generateName === 'string' && m.generateName !== '') m.name = m.generateName.slice(0, 58) + GENERATED_SUFFIX;
            return mutated;
          });
        } else {
          const old = options.oldObject;
          const oldName = isObj(old) && isObj(old.metadata) ? old.metadata.name : undefined;
          if (!isObj(old) || typeof oldName !== 'string' || !/^[^/?#%]+$/.test(oldName) || oldName === '.' || oldName === '..') {
            skip('an update of a stored object with no name a URL can carry');
            continue;
          }
          // The stored object as an API server that stored it under looser rules holds it.
          const storedInput = copy(old);
          storedInput.metadata = { ...storedInput.metadata, uid: storedInput.metadata.uid ?? '6a1c2f5e-0d4b-4c3e-9f1a-2b3c4d5e6f70', creationTimestamp: storedInput.metadata.creationTimestamp ?? '2026-01-01T00:00:00Z', generation: storedInput.metadata.generation ?? 1 };
          if (namespace !== undefined) storedInput.metadata.namespace = namespace;
          else delete storedInput.metadata.namespace;
          delete storedInput.metadata.resourceVersion;
          const stored = await storage.create(objectKey(resource, namespace, oldName), storedInput);
          const body = copy(object);
          if (!isObj(body.metadata)) body.metadata = {};
          body.metadata.resourceVersion = stored.metadata && (stored.metadata as Obj).resourceVersion;
          const item = `${collection}/${oldName}${options.subResource ? '/status' : ''}`;
          const bodyNamespace = typeof body.metadata.namespace === 'string' && body.metadata.namespace !== '' ? body.metadata.namespace : undefined;
          if (body.metadata.name !== oldName || (namespace !== undefined && bodyNamespace !== undefined && bodyNamespace !== namespace)) {
            // kube-apiserver's handler refuses a PUT naming another object than its URL: 400, before admission.
            const res = await send(side, 'PUT', item, body);
            if (res.status !== 400) mismatches.push(`${label}: a body naming another object than the URL should be a 400, got ${res.status}`);
            counts.beforeAdmission++;
            continue;
          }
          verdict = await send(side, 'PUT', item, body).then(toVerdict(200));
          expected = await reference(webhook, resource, { operation: 'UPDATE', namespace, name: oldName, object: body, oldObject: stored, ...(options.subResource ? { subResource: 'status' } : {}) }, (mutated) => {
            if (options.subResource) return prepareForStatusUpdate(mutated, stored);
            prepareForUpdate(mutated, stored);
            return mutated;
          });
        }
        if (verdict.allowed !== expected.allowed || JSON.stringify(verdict.causes) !== JSON.stringify(expected.causes)) {
          mismatches.push(`${label}:\n  webhook:   ${JSON.stringify(expected)}\n  apiserver: ${JSON.stringify(verdict)}`);
        } else if (!verdict.allowed) counts.denied++;
        else if (operation === 'CREATE') counts.created++;
        else counts.updated++;
      } finally {
        await storage.close();
      }
    }
    console.info(
      `[parity] ${unique.size} cases: ${counts.created} created, ${counts.updated} updated, ${counts.denied} denied with the same causes, ` +
        `${counts.beforeAdmission} answered before admission as kube-apiserver does; skipped: ${JSON.stringify(Object.fromEntries(counts.skipped))}`,
    );
    expect(mismatches.slice(0, 20)).toEqual([]);
    expect(counts.created).toBeGreaterThan(100);
    expect(counts.denied).toBeGreaterThan(300);
  }, 600_000);
});

async function send(side: Side, method: string, url: string, body: unknown): Promise<{ status: number; body: any }> {
  const res = await inject(side.apiserver.app.callback(), { method: method as 'POST', url, headers: { 'content-type': 'application/json' }, payload: JSON.stringify(body) });
  return { status: res.statusCode, body: res.payload ? JSON.parse(res.payload) : undefined };
}

function toVerdict(success: number) {
  return (res: { status: number; body: any }): Verdict => {
    if (res.status === success) return { allowed: true, causes: [] };
    if (res.status === 422 && res.body?.reason === 'Invalid') return { allowed: false, causes: (res.body.details?.causes ?? []).map(causeText).sort() };
    return { allowed: false, causes: [`HTTP ${res.status}: ${res.body?.message}`] };
  };
}
