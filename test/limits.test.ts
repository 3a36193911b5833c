/**
 * The bounds on what one result lists: a request of a million small mistakes (a 7 MiB list of
 * empty strings) once took 35 s and 2.9 GiB and answered with a 460 MiB message, or with a 500
 * when the message outgrew a string. Each test's input is large enough that recording every
 * cause would take far longer than the test timeout.
 */
import { describe, expect, it } from 'vitest';
import { validate, review, MAX_CAUSES, MAX_WARNINGS } from '../src/index.js';
import { cluster } from './fixtures/cluster.js';
import { remedy } from './fixtures/remedy.js';
import { cronDeployment } from './fixtures/cronfederatedhpa.js';
import { config } from './fixtures/resourceinterpreterwebhookconfiguration.js';
import { policy } from './fixtures/clustertaintpolicy.js';
import { changed } from './helpers.js';
import { examples } from './fixtures/index.js';
import { ingress } from './fixtures/multiclusteringress.js';
import { pathsOf, valueAt, type Path } from '../bench/reliability/recipes.js';
import { applyDefaults } from '../src/decode/object.js';
import { parseManifests } from '../src/input/manifests.js';

const MORE_CAUSES = `more causes not listed: fleetgate lists the first ${MAX_CAUSES}`;
const MORE_WARNINGS = `more warnings not listed: fleetgate lists the first ${MAX_WARNINGS}`;
const withFinalizers = (n: number) => changed(cluster, (o) => (o.metadata.finalizers = Array(n).fill('-')));
const withEmptyApiVersions = (n: number) => changed(config, (o) => (o.webhooks[0].rules[0].apiVersions = Array(n).fill('')));

describe('the number of causes a result lists', () => {
  it('lists every cause up to the bound, and says nothing more', () => {
    const result = validate(withFinalizers(MAX_CAUSES));
    expect(result.causes).toHaveLength(MAX_CAUSES);
    expect(result.truncated).toBeUndefined();
  });

  it('lists the first causes in object order past the bound, refuses, and says there were more', () => {
    const result = validate(withFinalizers(MAX_CAUSES + 1));
    expect(result.allowed).toBe(false);
    expect(result.truncated).toBe(true);
    expect(result.causes).toHaveLength(MAX_CAUSES);
    expect(result.causes.map((c) => c.field).slice(0, 2)).toEqual(['metadata.finalizers[0]', 'metadata.finalizers[1]']);
  });

  it('bounds a flood of rule causes (a million bad finalizers)', () => {
    const result = validate(withFinalizers(1_000_000));
    expect(result.causes).toHaveLength(MAX_CAUSES);
    expect(result.truncated).toBe(true);
  });

  it('bounds a flood of schema causes (two million empty apiVersions)', () => {
    const result = validate(withEmptyApiVersions(2_000_000));
    expect(result.causes).toHaveLength(MAX_CAUSES);
    expect(result.truncated).toBe(true);
    expect(result.causes[0]).toMatchObject({ type: 'FieldValueRequired', field: 'webhooks[0].rules[0].apiVersions[0]' });
  });

  it('ends the review message with the note that there were more, and lists the same causes in its details', () => {
    const answer = review(
      { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', request: { uid: 'u', operation: 'CREATE', object: withEmptyApiVersions(500_000) } },
      { mode: 'validate' },
    ) as { response: { allowed: boolean; status: { code: number; message: string; details: { causes: unknown[] } } } };
    expect(answer.response.allowed).toBe(false);
    expect(answer.response.status.code).toBe(422);
    expect(answer.response.status.message).toMatch(/^ResourceInterpreterWebhookConfiguration\.config\.karmada\.io "examples" is invalid: \[webhooks\[0\]\.rules\[0\]\.apiVersions\[0\]: Required value, /);
    expect(answer.response.status.message.endsWith(`, ${MORE_CAUSES}]`)).toBe(true);
    expect(answer.response.status.details.causes).toHaveLength(MAX_CAUSES);
  });

  it('still finds the one new mistake of an UPDATE after more stored mistakes than the bound', () => {
    const stored = withEmptyApiVersions(3 * MAX_CAUSES);
    const object = changed(stored, (o) => (o.webhooks[1].timeoutSeconds = 'soon'));
    const result = validate(object, { operation: 'UPDATE', oldObject: stored });
    expect(result.causes.map((c) => [c.type, c.field])).toEqual([['FieldValueInvalid', 'webhooks[1].timeoutSeconds']]);
    expect(result.truncated).toBeUndefined();
    expect(result.warnings).toHaveLength(MAX_WARNINGS + 1);
  });

  it('still finds the status mistake of a status write after more spec mistakes than the bound', () => {
    // A status write does not judge the spec, stored or not.
    const object = changed(cluster, (o) => {
      o.spec.taints = Array.from({ length: 3 * MAX_CAUSES }, (_, i) => ({ key: `k${i}`, effect: 'Sometimes' }));
      o.status.kubernetesVersion = 131;
    });
    const result = validate(object, { operation: 'UPDATE', subResource: 'status', oldObject: cluster });
    expect(result.causes.map((c) => [c.type, c.field])).toEqual([['FieldValueInvalid', 'status.kubernetesVersion']]);
  });

  it('allows an UPDATE that leaves more rule mistakes than the bound as stored, and refuses one that changes their section', () => {
    const stored = changed(remedy, (o) => (o.spec.actions = Array(3 * MAX_CAUSES).fill('TrafficControl')));
    const labelled = changed(stored, (o) => (o.metadata.labels = { team: 'sre' }));
    const kept = validate(labelled, { operation: 'UPDATE', oldObject: stored });
    expect(kept.allowed).toBe(true);
    expect(kept.warnings).toHaveLength(MAX_WARNINGS + 1);
    expect(kept.warnings.at(-1)).toBe(MORE_WARNINGS);

    const retargeted = changed(stored, (o) => (o.spec.clusterAffinity.clusterNames = ['member3']));
    const judged = validate(retargeted, { operation: 'UPDATE', oldObject: stored });
    expect(judged.allowed).toBe(false);
    expect(judged.truncated).toBe(true);
    expect(judged.causes[0]).toMatchObject({ type: 'FieldValueDuplicate', field: 'spec.actions[1]' });
  });
});

describe('the schema pass stopped at the bound', () => {
  // A taint effect of the wrong type breaks two keywords (type, enum), one cause: 1,001 of them
  // fill the bound with the first 1,000 causes, and the pass stops before the last.
  const withMistypedEffects = (n: number) => changed(cluster, (o) => (o.spec.taints = Array.from({ length: n }, (_, i) => ({ key: `k${i}`, effect: 5 }))));

  it('says there were more causes, though it lists no more than the bound', () => {
    const all = validate(withMistypedEffects(MAX_CAUSES));
    expect([all.causes.length, all.truncated]).toEqual([MAX_CAUSES, undefined]);
    const more = validate(withMistypedEffects(MAX_CAUSES + 1));
    expect([more.allowed, more.causes.length, more.truncated]).toEqual([false, MAX_CAUSES, true]);
    expect(more.causes.at(-1)).toMatchObject({ type: 'FieldValueInvalid', field: `spec.taints[${MAX_CAUSES - 1}].effect` });
  });

  it('says there were more warnings where it stopped reading mistakes an UPDATE leaves as stored', () => {
    for (const n of [MAX_CAUSES, MAX_CAUSES + 1]) {
      const stored = withMistypedEffects(n);
      const result = validate(changed(stored, (o) => (o.metadata.labels = { touched: 'yes' })), { operation: 'UPDATE', oldObject: stored });
      expect(result.allowed).toBe(true);
      expect(result.warnings.at(-1)).toMatch(n > MAX_CAUSES ? MORE_WARNINGS : /^spec\.taints\[999\]\.effect: Invalid value: 5: .*\(as stored/);
    }
  });

  it('with strict, makes the unknown fields past the bound more causes, not more warnings', () => {
    const unknown = Object.fromEntries(Array.from({ length: 3 * MAX_CAUSES }, (_, i) => [`x${i}`, 1]));
    const result = validate(changed(cluster, (o) => Object.assign(o.spec, unknown)), { strict: true });
    expect([result.allowed, result.causes.length, result.truncated]).toEqual([false, MAX_CAUSES, true]);
    expect(result.causes[0]).toMatchObject({ type: 'FieldValueForbidden', field: 'spec.x0' });
    expect(result.warnings).toEqual([]);
  });

  it('still finds the status mistake of a status write without the stored object, after more spec mistakes than the bound', () => {
    const object = changed(withMistypedEffects(3 * MAX_CAUSES), (o) => (o.status.kubernetesVersion = 131));
    const result = validate(object, { operation: 'UPDATE', subResource: 'status' });
    expect(result.causes.map((c) => [c.type, c.field])).toEqual([['FieldValueInvalid', 'status.kubernetesVersion']]);
    expect(result.truncated).toBeUndefined();
  });
});

describe('the bound on recorded causes, on UPDATEs that leave mistakes as stored', () => {
  const cron = (rules: object[]) => changed(cronDeployment, (o) => (o.spec.rules = rules));
  const unnamedRules = (n: number, extra: object = {}) => Array.from({ length: n }, () => ({ schedule: '0 * * * *', targetReplicas: 1, ...extra }));

  it('counts a spec that differs from the stored one only by defaults as left as stored', () => {
    const stored = cron(unnamedRules(3 * MAX_CAUSES));
    const object = changed(applyDefaults(stored, { operation: 'UPDATE' }).object, (o) => (o.metadata.labels = { touched: 'yes' }));
    const result = validate(object, { operation: 'UPDATE', oldObject: stored });
    expect(result.allowed).toBe(true);
    expect(result.warnings.at(-1)).toBe(MORE_WARNINGS);
  });

  it('counts a null the API server drops as no change, however many mistakes the section holds', () => {
    const stored = cron(unnamedRules(3 * MAX_CAUSES));
    const object = changed(cron(unnamedRules(3 * MAX_CAUSES, { timeZone: null })), (o) => (o.metadata.labels = { touched: 'yes' }));
    expect(validate(object, { operation: 'UPDATE', oldObject: stored }).allowed).toBe(true);
    expect(validate(stored, { operation: 'UPDATE', oldObject: object }).allowed).toBe(true);
  });

  it('lists the one mistake the write makes, not the stored ones', () => {
    const stored = cron(Array.from({ length: 3 * MAX_CAUSES }, () => ({ name: 'same', schedule: '0 * * * *', targetReplicas: 1 })));
    const object = changed(applyDefaults(stored, { operation: 'UPDATE' }).object, (o) => (o.metadata.name = 'renamed'));
    const result = validate(object, { operation: 'UPDATE', oldObject: stored });
    expect(result.causes.map((c) => [c.type, c.field])).toEqual([['FieldValueInvalid', 'metadata.name']]);
    expect(result.truncated).toBeUndefined();
  });

  it('with strict, still finds an unknown status field after thousands left as stored in the spec', () => {
    const unknown = Object.fromEntries(Array.from({ length: 3 * MAX_CAUSES }, (_, i) => [`x${i}`, 1]));
    const stored = changed(cronDeployment, (o) => Object.assign(o.spec.scaleTargetRef, unknown));
    const object = changed(stored, (o) => (o.status = { ...o.status, bogus: 1 }));
    for (const subResource of ['status', undefined]) {
      const result = validate(object, { operation: 'UPDATE', oldObject: stored, subResource, strict: true });
      expect(result.causes.map((c) => [c.type, c.field])).toEqual([['FieldValueForbidden', 'status.bogus']]);
    }
  });

  it('keeps the warnings of a status write that leaves the status as stored, however many spec mistakes it carries', () => {
    // A status write does not judge the spec: its mistakes used up the bound the status's warnings needed.
    const service = (ports: number) => ({
      apiVersion: 'networking.karmada.io/v1alpha1',
      kind: 'MultiClusterService',
      metadata: { name: 'web', namespace: 'shop' },
      spec: { types: ['CrossCluster'], ports: Array(ports).fill('') },
      status: { conditions: [{ type: 'Ready', status: 'True', reason: 'Ok', message: '', lastTransitionTime: '2026-01-01T00:00:00Z', extra: 1 }] },
    });
    const few = validate(service(0), { operation: 'UPDATE', subResource: 'status', oldObject: service(0) });
    const many = validate(service(3 * MAX_CAUSES), { operation: 'UPDATE', subResource: 'status', oldObject: service(3 * MAX_CAUSES) });
    expect(few.warnings).toContain('unknown field "status.conditions[0].extra"');
    expect(many).toEqual(few);
  });

  it('with strict, allows a status write that leaves the status as stored, however many unknown fields its spec carries', () => {
    // The spec's unknown fields are not this write's to judge; they must not count against the status's bound.
    const unknown = Object.fromEntries(Array.from({ length: 3 * MAX_CAUSES }, (_, i) => [`x${i}`, 1]));
    const stored = changed(cluster, (o) => {
      Object.assign(o.spec, unknown);
      o.status.extra = 1;
    });
    const result = validate(changed(stored, (o) => (o.metadata.labels = { touched: 'yes' })), { operation: 'UPDATE', subResource: 'status', oldObject: stored, strict: true });
    expect([result.allowed, result.causes, result.truncated]).toEqual([true, [], undefined]);
    expect(result.warnings).toEqual(['status.extra: Forbidden: unknown field (as stored: this update does not change it, so it is not refused)']);
    const touched = validate(changed(stored, (o) => (o.status.kubernetesVersion = 'v1.33.0')), { operation: 'UPDATE', subResource: 'status', oldObject: stored, strict: true });
    expect(touched.causes.map((c) => [c.type, c.field])).toEqual([['FieldValueForbidden', 'status.extra']]);
  });

  it('says nothing of more causes when those past the bound repeat listed ones', () => {
    // Label keys that differ only past the 256 characters a message shows give the same cause.
    const labels = Object.fromEntries(Array.from({ length: 2 * MAX_CAUSES + 1 }, (_, i) => [`${'A'.repeat(300)}${i}`, 'v']));
    const object = changed(cluster, (o) => (o.metadata.labels = labels));
    const result = validate(object);
    expect([result.causes.length, result.truncated]).toEqual([1, undefined]);
    const answer = review({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', request: { uid: 'u', operation: 'CREATE', object } }, { mode: 'validate' }) as {
      response: { status: { message: string } };
    };
    expect(answer.response.status.message).toMatch(/is invalid: metadata\.labels: Invalid value: "A{256}"\.\.\.: name part must be no more than 63 characters/);
    expect(answer.response.status.message).not.toMatch(/[[\]]/);
  });
});

describe('the bound on what YAML aliases add to a file', () => {
  it('counts nothing for documents without aliases, whatever their size or their ampersands', () => {
    const items = new Array(900_000).fill('0').join(',');
    const doc = (i: number) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm${i}\n  annotations: {link: "https://example.com/?a=1&b=2"}\ndata:\n  list: [${items}]\n`;
    const { manifests, problems } = parseManifests([0, 1, 2, 3, 4].map(doc).join('---\n'), 'big.yaml');
    expect(problems).toEqual([]);
    expect(manifests).toHaveLength(5);
  });
});

describe('the number of warnings a result lists', () => {
  it('lists every warning up to the bound', () => {
    const zones = Array.from({ length: MAX_WARNINGS }, () => 'eu-central-1a');
    const result = validate(changed(cluster, (o) => (o.spec.zones = ['eu-central-1a', ...zones])));
    expect(result.warnings).toHaveLength(MAX_WARNINGS);
    expect(result.warnings).not.toContain(MORE_WARNINGS);
  });

  it('says nothing of more warnings when those past the bound repeat listed ones', () => {
    // Label keys that differ only past the 256 characters a message shows give the same cause,
    // each a warning when the update leaves the selector as stored.
    const matchLabels = Object.fromEntries(Array.from({ length: 2 * MAX_WARNINGS + 1 }, (_, i) => [`${'A'.repeat(300)}${i}`, 'v']));
    const stored = changed(policy, (o) => (o.spec.targetClusters.labelSelector.matchLabels = matchLabels));
    const result = validate(changed(stored, (o) => (o.metadata.labels = { touched: 'yes' })), { operation: 'UPDATE', oldObject: stored });
    expect(result.allowed).toBe(true);
    expect(result.warnings).toEqual([expect.stringMatching(/^spec\.targetClusters\.labelSelector\.matchLabels: Invalid value: "A{256}"\.\.\.: .*\(as stored/)]);
  });

  it('lists the first ones and says there were more, past the bound but short of what is recorded', () => {
    const result = validate(changed(cluster, (o) => (o.spec.zones = Array(MAX_WARNINGS + 501).fill('eu-central-1a'))));
    expect(result.warnings).toHaveLength(MAX_WARNINGS + 1);
    expect(result.warnings.at(-2)).toBe(`spec.zones[${MAX_WARNINGS}]: zone "eu-central-1a" is already listed at spec.zones[0]`);
    expect(result.warnings.at(-1)).toBe(MORE_WARNINGS);
  });

  it('lists the first ones past the bound, and says there were more', () => {
    const result = validate(changed(cluster, (o) => (o.spec.zones = Array(1_000_000).fill('eu-central-1a'))));
    expect(result.allowed).toBe(true);
    expect(result.warnings).toHaveLength(MAX_WARNINGS + 1);
    expect(result.warnings[0]).toBe('spec.zones[1]: zone "eu-central-1a" is already listed at spec.zones[0]');
    expect(result.warnings.at(-1)).toBe(MORE_WARNINGS);
  });
});

describe('long values in messages', () => {
  // A value is shown cut to 256 characters; a detail that named it again in full made every message as long as the value.
  const long = 'a'.repeat(100_000);

  it('are cut where a detail names them again', () => {
    const messages = [
      ...validate(changed(cluster, (o) => (o.spec.apiEndpoint = `https://${long}:6443`))).causes,
      ...validate(changed(cluster, (o) => (o.spec.apiEndpoint = `https://example.com:${'9'.repeat(100_000)}`))).causes,
      ...validate(changed(cronDeployment, (o) => (o.spec.rules[0].timeZone = long))).causes,
    ].map((c) => c.message);
    expect(messages).toHaveLength(3);
    for (const message of messages) expect(message.length).toBeLessThan(1000);
    expect(messages[0]).toMatch(/: host "a{256}\.\.\." is neither a DNS name nor an IP address; /);
    expect(messages[2]).toMatch(/: unknown time zone a{256}\.\.\.$/);
    // A short one is named as it is.
    const [short] = validate(changed(cluster, (o) => (o.spec.apiEndpoint = 'a\\b'))).causes;
    expect(short!.message).toContain('host "a\\b" is neither a DNS name nor an IP address');
  });

  it('are cut in the name the review message begins with', () => {
    const object = changed(cluster, (o) => (o.metadata.name = long));
    const answer = review({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', request: { uid: 'u', operation: 'CREATE', object } }, { mode: 'validate' }) as {
      response: { status: { message: string; details: { name: string } } };
    };
    expect(answer.response.status.message).toMatch(/^Cluster\.cluster\.karmada\.io "a{256}"\.\.\. is invalid: metadata\.name: /);
    expect(answer.response.status.message.length).toBeLessThan(2000);
    expect(answer.response.status.details.name).toBe(long);
  });
});

describe('every message and warning, whatever string or key is long', () => {
  // Each value is shown cut to 256 characters (at most 6 characters each once escaped); a message names at most
  // a few. The API server keeps 4,096 characters of warnings in all, so a longer text only costs the answer.
  const BOUND = 4096;
  const long = 'a'.repeat(20_000);
  const invisible = 'x\u200b'.repeat(10_000);
  type Json = Record<string, any>;
  /** Copies of `example`: each string (but apiVersion and kind) long in turn, each object given a long key, every string in a list long at once (so lists repeat). */
  function variants(example: Json): Json[] {
    const paths = pathsOf(example);
    const strings = paths.filter((path) => typeof valueAt(example, path) === 'string');
    const isRecord = (path: Path) => {
      const value = valueAt(example, path);
      return typeof value === 'object' && value !== null && !Array.isArray(value);
    };
    const records = [[], ...paths].filter(isRecord);
    /** `into`, with `value` at `path`. */
    const set = (path: Path, value: string, into = structuredClone(example)) => {
      (valueAt(into, path.slice(0, -1)) as Json)[path.at(-1)!] = value;
      return into;
    };
    const out: Json[] = [];
    for (const path of strings) if (path.length > 1) out.push(set(path, long), set(path, invisible));
    for (const path of records) {
      const copy = structuredClone(example);
      const record = valueAt(copy, path) as Json;
      record[`${long}/${long}`] = Object.values(record).find((v) => typeof v === 'string') ?? 'x';
      out.push(copy);
    }
    const lists = structuredClone(example);
    for (const path of strings) if (path.some((segment) => typeof segment === 'number')) set(path, long, lists);
    out.push(lists);
    return out;
  }

  it.each(examples.map((e) => [e.kind as string, e] as const))('%s', (_, example) => {
    let longest = '';
    let checked = 0;
    for (const object of variants(example as Json)) {
      for (const options of [{}, { operation: 'UPDATE', oldObject: example }, { operation: 'UPDATE', subResource: long, oldObject: example }] as const) {
        const result = validate(object, options);
        checked += result.causes.length + result.warnings.length;
        for (const text of [...result.causes.map((c) => c.message), ...result.warnings]) if (text.length > longest.length) longest = text;
      }
    }
    expect(checked).toBeGreaterThan(10);
    expect(longest.length, longest.slice(0, 300)).toBeLessThanOrEqual(BOUND);
  });

  it('MultiClusterIngress, whose class annotation no example has', () => {
    const annotated = changed(ingress, (o) => (o.metadata.annotations = { 'kubernetes.io/ingress.class': long }));
    const texts = validate(annotated).warnings;
    expect(texts.some((t) => t.includes('differs from spec.ingressClassName ("nginx")'))).toBe(true);
    for (const text of texts) expect(text.length).toBeLessThanOrEqual(BOUND);
  });
});
