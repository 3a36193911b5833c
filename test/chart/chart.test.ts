/**
 * The Helm chart (charts/fleetgate) against the registry, rendered with real Go text/template + sprig
 * (test/chart/render/main.go, built from Debian's Go packages; see scripts/chart-lib.mjs).
 *
 * Without Go the rendering tests are skipped with the reason in their title (CI sets
 * FLEETGATE_GO_TESTS_REQUIRED=1 so they fail instead). The static checks always run.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { readFileSync, readdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { request } from 'node:https';
import { X509Certificate, createPrivateKey } from 'node:crypto';
import { parse, parseAllDocuments } from 'yaml';
import { Ajv } from 'ajv';
import { pino } from 'pino';
import { DEFAULT_GROUP_DOMAIN, kindsFor, type KindInfo } from '../../rules/index.js';
import { createCA, createServingCert, type KeyPair } from '../../certs/tinyca.js';
import { serve, type RunningServer } from '../../src/server/serve.js';
import {
  CHART_DIR, DEPLOY_TARGETS, DEPLOY_URL_TARGETS, KINDS_FILE, ROOT, SCHEMA_FILE,
  buildRenderer, kindsYaml, renderChart, renderDeployFile, rendererUnavailable, schemaWithKinds,
  type RenderResult,
} from '../../scripts/chart-lib.mjs';
import { goReference } from '../go-reference.js';

/* eslint-disable @typescript-eslint/no-explicit-any */
type Doc = Record<string, any>;

const NS = 'fleetgate-system';
const SVC = 'fleetgate';
const RIC = 'ResourceInterpreterCustomization';
const read = (file: string) => readFileSync(file, 'utf8');
const schemaText = read(SCHEMA_FILE);
const ajv = new Ajv({ allErrors: true, strict: true, allowUnionTypes: true });
const validateValues = ajv.compile(JSON.parse(schemaText));
const defaultValues = parse(read(join(CHART_DIR, 'values.yaml'))) as Doc;

function schemaErrors(values: unknown): string {
  return validateValues(values) ? '' : ajv.errorsText(validateValues.errors, { separator: '\n' });
}

describe('chart sources (no Go needed)', () => {
  it('files/kinds.yaml is what `npm run chart:generate` makes from the registry', () => {
    expect(read(KINDS_FILE)).toBe(kindsYaml(kindsFor(DEFAULT_GROUP_DOMAIN), DEFAULT_GROUP_DOMAIN));
  });

  it('values.schema.json allows exactly the registry kinds under webhooks.kinds', () => {
    expect(schemaText).toBe(schemaWithKinds(schemaText, kindsFor().map((k) => k.kind)));
    expect(JSON.parse(schemaText).properties.webhooks.properties.kinds.propertyNames.enum).toEqual(kindsFor().map((k) => k.kind));
  });

  it('Chart.yaml: apiVersion v2, SemVer version, appVersion = package.json version', () => {
    const chart = parse(read(join(CHART_DIR, 'Chart.yaml'))) as Doc;
    const pkg = JSON.parse(read(join(ROOT, 'package.json'))) as { version: string };
    expect(chart.apiVersion).toBe('v2');
    expect(chart.name).toBe('fleetgate');
    expect(chart.version).toMatch(/^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$/);
    expect(typeof chart.appVersion).toBe('string');
    expect(chart.appVersion).toBe(pkg.version);
  });

  it('values.yaml passes values.schema.json, and the schema rejects typos and bad modes', () => {
    expect(schemaErrors(defaultValues)).toBe('');
    const withOverride = (o: Doc) => structuredClone({ ...defaultValues, ...o });
    expect(schemaErrors(withOverride({ replicaCout: 3 }))).toMatch(/additional properties/);
    expect(schemaErrors(withOverride({ certificates: { ...defaultValues.certificates, mode: 'manual' } }))).toMatch(/allowed values/);
    expect(schemaErrors(withOverride({ webhooks: { ...defaultValues.webhooks, kinds: { Clusters: { enabled: false } } } }))).toMatch(/property name/);
    // user mode needs a caBundle and either a Secret name or the certificate and key
    expect(schemaErrors(withOverride({ certificates: { ...defaultValues.certificates, mode: 'user' } }))).not.toBe('');
    expect(
      schemaErrors(withOverride({ certificates: { ...defaultValues.certificates, mode: 'user', user: { ...defaultValues.certificates.user, secretName: 's', caBundle: 'Q0E=' } } })),
    ).toBe('');
    // An existing issuer needs its name; a kind alone would leave the Certificate unissued.
    const issuer = (issuerRef: Doc) => withOverride({ certificates: { ...defaultValues.certificates, mode: 'certManager', certManager: { ...defaultValues.certificates.certManager, issuerRef } } });
    expect(schemaErrors(issuer({ kind: 'ClusterIssuer' }))).toMatch(/name/);
    expect(schemaErrors(issuer({ name: 'corp-ca', kind: 'ClusterIssuer' }))).toBe('');
  });

  it('templates: only helm-allowed file types, and every .Values path they use exists in values.yaml', () => {
    const dir = join(CHART_DIR, 'templates');
    const files = readdirSync(dir);
    for (const f of files) expect(f).toMatch(/\.(yaml|yml|tpl|txt)$/);
    const missing: string[] = [];
    for (const f of files) {
      for (const m of read(join(dir, f)).matchAll(/\.Values((?:\.[A-Za-z_][A-Za-z0-9_]*)+)/g)) {
        let node: any = defaultValues;
        for (const key of m[1]!.slice(1).split('.')) {
          if (node === null || typeof node !== 'object' || !(key in node)) {
            missing.push(`${f}: .Values${m[1]}`);
            break;
          }
          node = node[key];
        }
      }
    }
    expect(missing).toEqual([]);
  });

  it('the chart README has a row for every value', () => {
    const readme = read(join(CHART_DIR, 'README.md'));
    const freeForm = new Set(['webhooks.kinds', 'resources', 'podSecurityContext', 'securityContext']);
    const leaves: string[] = [];
    const walk = (node: any, prefix: string) => {
      if (node && typeof node === 'object' && !Array.isArray(node) && Object.keys(node).length > 0 && !freeForm.has(prefix)) {
        for (const [k, v] of Object.entries(node)) walk(v, prefix ? `${prefix}.${k}` : k);
      } else leaves.push(prefix);
    };
    walk(defaultValues, '');
    expect(leaves.filter((key) => !readme.includes(`| \`${key}\` |`))).toEqual([]);
  });
});

// ---------------------------------------------------------------------------------------------------

const reference = goReference('test/chart', 'chart rendered with Go text/template + sprig', rendererUnavailable());

describe.skipIf(reference.skip)(reference.title, () => {
  let binary: string;
  const cache = new Map<string, { result: RenderResult; docs: Doc[] }>();

  beforeAll(() => {
    reference.assertAvailable();
    binary = buildRenderer();
  }, 120_000);

  function parseDocs(text: string): Doc[] {
    const docs: Doc[] = [];
    for (const d of parseAllDocuments(text, { version: '1.1' })) {
      expect(d.errors.map((e) => e.message)).toEqual([]);
      const js = d.toJS();
      if (js !== null && js !== undefined) docs.push(js);
    }
    return docs;
  }

  /** Renders (once per distinct values) and checks what holds for every render. */
  function render(...values: Doc[]): Doc[] {
    const key = JSON.stringify(values);
    const hit = cache.get(key);
    if (hit) return hit.docs;
    const result = renderChart(binary, { namespace: NS, values });
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    expect(schemaErrors(result.values)).toBe('');
    const docs = parseDocs(result.stdout);
    commonChecks(docs);
    cache.set(key, { result, docs });
    return docs;
  }

  function renderFails(...values: Doc[]): string {
    const result = renderChart(binary, { namespace: NS, values });
    expect(result.status).not.toBe(0);
    return result.stderr;
  }

  const CLUSTER_SCOPED = new Set(['ClusterRole', 'ClusterRoleBinding', 'ValidatingWebhookConfiguration', 'MutatingWebhookConfiguration']);

  function commonChecks(docs: Doc[]) {
    const seen = new Set<string>();
    for (const d of docs) {
      expect(typeof d.apiVersion).toBe('string');
      expect(typeof d.kind).toBe('string');
      expect(d.metadata.name).toMatch(/^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$/);
      if (CLUSTER_SCOPED.has(d.kind)) expect(d.metadata.namespace).toBeUndefined();
      else expect(d.metadata.namespace).toBe(NS);
      expect(d.metadata.labels?.['app.kubernetes.io/name']).toBe('fleetgate');
      const id = `${d.kind}/${d.metadata.name}`;
      expect(seen.has(id), `duplicate ${id}`).toBe(false);
      seen.add(id);
      if (d.spec?.selector && d.kind !== 'Service') expect(d.spec.selector.matchLabels).toBeTypeOf('object');
    }
  }

  const all = (docs: Doc[], kind: string) => docs.filter((d) => d.kind === kind);
  function one(docs: Doc[], kind: string, name?: string): Doc {
    const found = docs.filter((d) => d.kind === kind && (name === undefined || d.metadata.name === name));
    expect(found.map((d) => d.metadata.name), `${kind} ${name ?? ''}`).toHaveLength(1);
    return found[0]!;
  }
  const deployment = (docs: Doc[]) => one(docs, 'Deployment', SVC);
  const container = (docs: Doc[]) => deployment(docs).spec.template.spec.containers[0];
  const args = (docs: Doc[]): string[] => container(docs).args;
  const flag = (docs: Doc[], name: string) => args(docs).find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
  const volume = (docs: Doc[], name: string) => deployment(docs).spec.template.spec.volumes.find((v: Doc) => v.name === name);
  const mount = (docs: Doc[], name: string) => container(docs).volumeMounts.find((v: Doc) => v.name === name);
  const tlsSecretName = (docs: Doc[]): string => volume(docs, 'tls').secret.secretName;
  const webhookEntries = (docs: Doc[]) => [...all(docs, 'ValidatingWebhookConfiguration'), ...all(docs, 'MutatingWebhookConfiguration')].flatMap((c) => c.webhooks);
  const b64 = (s: string) => Buffer.from(s).toString('base64');
  const unb64 = (s: string) => Buffer.from(s, 'base64').toString('utf8');

  interface Expect {
    domain?: string;
    disabled?: string[];
    paths?: 'perKind' | 'generic';
    url?: string;
    caBundle?: string;
    timeouts?: Record<string, number>;
    defaultTimeout?: number;
    /** The deletion-protection entry; default true, as in values.yaml. */
    deletionProtection?: boolean;
    objectSelector?: Doc;
  }

  const clientConfigOf = (e: Expect, path: string): Doc => {
    const clientConfig: Doc = e.url ? { url: `${e.url}${path}` } : { service: { name: SVC, namespace: NS, port: 443, path } };
    if (e.caBundle !== undefined) clientConfig.caBundle = e.caBundle;
    return clientConfig;
  };

  /** The exact webhook entries the registry asks for. */
  function expectedWebhooks(verb: 'validate' | 'mutate', e: Expect): Doc[] {
    const domain = e.domain ?? DEFAULT_GROUP_DOMAIN;
    const enabled = kindsFor(domain).filter((k: KindInfo) => !(e.disabled ?? []).includes(k.kind) && (verb === 'validate' || k.mutating));
    const perKind = enabled
      .map((k: KindInfo) => {
        const path = (e.paths ?? 'perKind') === 'perKind' ? k.webhookPaths[verb] : `/${verb}`;
        const clientConfig = clientConfigOf(e, path);
        return {
          name: `${k.kind.toLowerCase()}.fleetgate.${domain}`,
          admissionReviewVersions: ['v1', 'v1beta1'],
          sideEffects: 'None',
          failurePolicy: 'Fail',
          matchPolicy: 'Equivalent',
          timeoutSeconds: e.timeouts?.[k.kind] ?? (k.kind === RIC ? 10 : (e.defaultTimeout ?? 3)),
          ...(verb === 'mutate' ? { reinvocationPolicy: 'Never' } : {}),
          clientConfig,
          rules: [
            {
              apiGroups: [k.group],
              apiVersions: [k.version],
              resources: verb === 'validate' && k.statusSubresource ? [k.plural, `${k.plural}/status`] : [k.plural],
              // Karmada registers its ClusterResourceBinding mutation for CREATE only.
              operations: verb === 'mutate' ? k.mutatingOperations : ['CREATE', 'UPDATE'],
              scope: k.scope,
            },
          ],
          ...(e.objectSelector ? { objectSelector: e.objectSelector } : {}),
        };
      });
    if (verb === 'mutate' || e.deletionProtection === false || enabled.length === 0) return perKind;
    // Karmada's deletion protection, registered as Karmada registers it: DELETE, objects with the label only.
    const protectedOnly = { key: 'resourcetemplate.karmada.io/deletion-protected', operator: 'Exists' };
    return [
      ...perKind,
      {
        name: `resourcedeletionprotection.fleetgate.${domain}`,
        admissionReviewVersions: ['v1', 'v1beta1'],
        sideEffects: 'None',
        failurePolicy: 'Fail',
        matchPolicy: 'Equivalent',
        timeoutSeconds: e.defaultTimeout ?? 3,
        clientConfig: clientConfigOf(e, (e.paths ?? 'perKind') === 'perKind' ? '/validate-resourcedeletionprotection' : '/validate'),
        rules: enabled.map((k) => ({ apiGroups: [k.group], apiVersions: [k.version], resources: [k.plural], operations: ['DELETE'], scope: k.scope })),
        objectSelector: { ...e.objectSelector, matchExpressions: [...(e.objectSelector?.matchExpressions ?? []), protectedOnly] },
      },
    ];
  }

  function expectWebhooks(docs: Doc[], e: Expect) {
    for (const [kind, verb] of [['ValidatingWebhookConfiguration', 'validate'], ['MutatingWebhookConfiguration', 'mutate']] as const) {
      const want = expectedWebhooks(verb, e);
      if (want.length === 0) {
        expect(all(docs, kind)).toEqual([]);
        continue;
      }
      expect(one(docs, kind, SVC).webhooks).toEqual(want);
    }
  }

  /** For scenarios about something else than certificates: cert-manager mode renders without generating RSA keys (10× faster). */
  const FAST: Doc = { certificates: { mode: 'certManager' } };
  const caOf = (docs: Doc[]) => one(docs, 'ValidatingWebhookConfiguration').webhooks[0].clientConfig.caBundle as string;

  // ----- webhook entries against the registry -----

  it('default values: one validating entry per kind, mutating entries for the mutating kinds, Karmada parity settings', () => {
    const docs = render();
    const ca = caOf(docs);
    expectWebhooks(docs, { caBundle: ca });
    const validating = one(docs, 'ValidatingWebhookConfiguration').webhooks;
    expect(validating).toHaveLength(13 + 1);
    expect(validating.at(-1).name).toBe('resourcedeletionprotection.fleetgate.karmada.io');
    expect(validating.find((w: Doc) => w.name.startsWith('resourceinterpretercustomization.')).timeoutSeconds).toBe(10);
    expect(one(docs, 'MutatingWebhookConfiguration').webhooks.map((w: Doc) => w.name.split('.')[0])).toEqual(
      kindsFor().filter((k) => k.mutating).map((k) => k.kind.toLowerCase()),
    );
    // Karmada's mutating entries for the 13 kinds, with its scopes, besides fleetgate's defaults.
    const operations = Object.fromEntries(one(docs, 'MutatingWebhookConfiguration').webhooks.map((w: Doc) => [w.name.split('.')[0], w.rules[0].operations]));
    expect(operations).toEqual({
      resourceinterpreterwebhookconfiguration: ['CREATE', 'UPDATE'],
      multiclusterservice: ['CREATE', 'UPDATE'],
      work: ['CREATE', 'UPDATE'],
      clusterresourcebinding: ['CREATE'],
      cluster: ['CREATE', 'UPDATE'],
      cronfederatedhpa: ['CREATE', 'UPDATE'],
    });
  });

  it('generic paths, url clientConfig, another group domain, disabled kinds, timeouts and selectors', () => {
    const docs = render(FAST, {
      groupDomain: 'example.com',
      webhooks: {
        paths: 'generic',
        clientConfig: { mode: 'url', url: 'https://fleetgate.example.net:8443/' },
        timeoutSeconds: 5,
        kinds: { Cluster: { enabled: false }, Work: { enabled: false }, Remedy: { timeoutSeconds: 7 } },
        namespaceSelector: { matchLabels: { team: 'a' } },
      },
    });
    const withSelector = (ws: Doc[]) => ws.map((w) => ({ ...w, namespaceSelector: { matchLabels: { team: 'a' } } }));
    const e: Expect = { domain: 'example.com', disabled: ['Cluster', 'Work'], paths: 'generic', url: 'https://fleetgate.example.net:8443', defaultTimeout: 5, timeouts: { Remedy: 7 } };
    expect(one(docs, 'ValidatingWebhookConfiguration').webhooks).toEqual(withSelector(expectedWebhooks('validate', e)));
    expect(one(docs, 'MutatingWebhookConfiguration').webhooks).toEqual(withSelector(expectedWebhooks('mutate', e)));
    // Karmada's deletion-protection label keeps its name whatever the group domain (the server reads that one).
    const label = /"resourcetemplate\.karmada\.io\/deletion-protected"/g;
    expect(JSON.stringify(webhookEntries(docs)).match(label)).toHaveLength(1);
    expect(JSON.stringify(webhookEntries(docs)).replace(label, '')).not.toMatch(/karmada\.io/);
    expect(flag(docs, 'group-domain')).toBe('example.com');
  });

  it('deletion protection: selectors merged with the label\'s, and webhooks.deletionProtection.enabled=false drops the entry', () => {
    const objectSelector = { matchLabels: { team: 'a' }, matchExpressions: [{ key: 'tier', operator: 'In', values: ['gold'] }] };
    const selected = render(FAST, { webhooks: { objectSelector, kinds: { Remedy: { enabled: false } } } });
    expectWebhooks(selected, { objectSelector, disabled: ['Remedy'] });
    const entry = one(selected, 'ValidatingWebhookConfiguration').webhooks.at(-1);
    expect(entry.objectSelector.matchExpressions).toEqual([objectSelector.matchExpressions[0], { key: 'resourcetemplate.karmada.io/deletion-protected', operator: 'Exists' }]);
    expect(entry.rules.map((r: Doc) => r.resources[0])).not.toContain('remedies');
    const off = render(FAST, { webhooks: { deletionProtection: { enabled: false } } });
    expectWebhooks(off, { deletionProtection: false });
    expect(schemaErrors({ ...defaultValues, webhooks: { ...defaultValues.webhooks, deletionProtection: { enable: false } } })).toMatch(/additional properties/);
  });

  it('disabling every mutating kind drops the MutatingWebhookConfiguration; webhooks.create=false drops both', () => {
    const mutatingKinds = kindsFor().filter((k) => k.mutating).map((k) => k.kind);
    const docs = render(FAST, { webhooks: { kinds: Object.fromEntries(mutatingKinds.map((k) => [k, { enabled: false }])) } });
    expectWebhooks(docs, { disabled: mutatingKinds });
    expect(all(docs, 'MutatingWebhookConfiguration')).toEqual([]);

    const none = render({ webhooks: { create: false } });
    expect(webhookEntries(none)).toEqual([]);
    expect(one(none, 'Secret', tlsSecretName(none)).data['tls.crt']).toBeTruthy(); // the pods still get their certificate
  });

  // ----- certificates: the three modes -----

  it('generate: one CA in the Secret and in both configurations; the serving certificate fits the Service', () => {
    const docs = render();
    const secret = one(docs, 'Secret', tlsSecretName(docs));
    expect(secret.type).toBe('kubernetes.io/tls');
    const caBundles = new Set(webhookEntries(docs).map((w) => w.clientConfig.caBundle));
    expect([...caBundles]).toEqual([secret.data['ca.crt']]);
    const ca = new X509Certificate(unb64(secret.data['ca.crt']));
    const leaf = new X509Certificate(unb64(secret.data['tls.crt']));
    expect(ca.ca).toBe(true);
    expect(leaf.checkIssued(ca) && leaf.verify(ca.publicKey)).toBe(true);
    expect(leaf.checkPrivateKey(createPrivateKey(unb64(secret.data['tls.key'])))).toBe(true);
    for (const host of [`${SVC}.${NS}.svc`, `${SVC}.${NS}.svc.cluster.local`, `${SVC}.${NS}`]) expect(leaf.checkHost(host)).toBe(host);
    expect(new Date(leaf.validTo).getTime()).toBeGreaterThan(Date.now() + 9 * 365 * 86_400_000);
    expect(mount(docs, 'tls').mountPath).toBe(flag(docs, 'cert-dir'));
    expect(all(docs, 'Certificate')).toEqual([]);
    for (const kind of ['ValidatingWebhookConfiguration', 'MutatingWebhookConfiguration']) expect(one(docs, kind).metadata.annotations).toBeUndefined();
  });

  it('generate: extra DNS names and IP addresses reach the certificate', () => {
    const docs = render({ certificates: { extraDNSNames: ['webhook.example.net'], extraIPAddresses: ['10.0.0.7'] } });
    const leaf = new X509Certificate(unb64(one(docs, 'Secret', tlsSecretName(docs)).data['tls.crt']));
    expect(leaf.checkHost('webhook.example.net')).toBe('webhook.example.net');
    expect(leaf.checkIP('10.0.0.7')).toBe('10.0.0.7');
  });

  it('certManager: CA injected from the serving Certificate, no caBundle, the Deployment mounts its Secret', () => {
    const docs = render({ certificates: { mode: 'certManager' } });
    expectWebhooks(docs, {});
    const certificate = one(docs, 'Certificate', `${SVC}-serving`);
    for (const kind of ['ValidatingWebhookConfiguration', 'MutatingWebhookConfiguration']) {
      expect(one(docs, kind).metadata.annotations).toEqual({ 'cert-manager.io/inject-ca-from': `${NS}/${certificate.metadata.name}` });
    }
    expect(certificate.spec.secretName).toBe(tlsSecretName(docs));
    expect(certificate.spec.dnsNames).toEqual(expect.arrayContaining([`${SVC}.${NS}.svc`, `${SVC}.${NS}.svc.cluster.local`]));
    expect(certificate.spec.usages).toContain('server auth');
    // issuer chain: serving Certificate -> CA Issuer -> CA Certificate's Secret <- self-signed Issuer
    const caIssuer = one(docs, 'Issuer', certificate.spec.issuerRef.name);
    expect(certificate.spec.issuerRef).toEqual({ name: caIssuer.metadata.name, kind: 'Issuer', group: 'cert-manager.io' });
    const caCertificate = all(docs, 'Certificate').find((c) => c.spec.secretName === caIssuer.spec.ca.secretName)!;
    expect(caCertificate.spec.isCA).toBe(true);
    expect(one(docs, 'Issuer', caCertificate.spec.issuerRef.name).spec).toEqual({ selfSigned: {} });
    expect(all(docs, 'Secret')).toEqual([]); // cert-manager writes it
  });

  it('certManager with an existing issuer: no Issuers rendered, the Certificate refers to it', () => {
    const docs = render({ certificates: { mode: 'certManager', certManager: { issuerRef: { name: 'corp-ca', kind: 'ClusterIssuer' } } } });
    expect(all(docs, 'Issuer')).toEqual([]);
    expect(one(docs, 'Certificate').spec.issuerRef).toEqual({ name: 'corp-ca', kind: 'ClusterIssuer', group: 'cert-manager.io' });
  });

  describe('user-supplied certificates', () => {
    let ca: KeyPair;
    let serving: KeyPair;
    beforeAll(() => {
      ca = createCA('fleetgate test CA');
      serving = createServingCert(ca, { dnsNames: [`${SVC}.${NS}.svc`] });
    });

    it('PEM values: the chart creates the TLS Secret and base64-encodes the caBundle', () => {
      const docs = render({ certificates: { mode: 'user', user: { tlsCrt: serving.certPem, tlsKey: serving.keyPem, caBundle: ca.certPem } } });
      expectWebhooks(docs, { caBundle: b64(ca.certPem) });
      const secret = one(docs, 'Secret', tlsSecretName(docs));
      expect(secret.type).toBe('kubernetes.io/tls');
      expect(unb64(secret.data['tls.crt'])).toBe(serving.certPem);
      expect(unb64(secret.data['tls.key'])).toBe(serving.keyPem);
      expect(all(docs, 'Certificate')).toEqual([]);
    });

    it('an existing Secret by name and a base64 caBundle: nothing created, the caBundle passed through', () => {
      const base64 = b64(ca.certPem);
      const docs = render({ certificates: { mode: 'user', user: { secretName: 'my-webhook-tls', caBundle: `${base64.slice(0, 40)}\n${base64.slice(40)}\n` } } });
      expectWebhooks(docs, { caBundle: base64 });
      expect(tlsSecretName(docs)).toBe('my-webhook-tls');
      expect(all(docs, 'Secret')).toEqual([]);
    });

    it('a missing caBundle or certificate fails the render with the value to set', () => {
      expect(renderFails({ certificates: { mode: 'user', user: { secretName: 'x' } } })).toMatch(/certificates\.user\.caBundle/);
      expect(renderFails({ certificates: { mode: 'user', user: { caBundle: ca.certPem } } })).toMatch(/certificates\.user\.tlsCrt/);
    });
  });

  it('an unknown certificates.mode fails the render', () => {
    expect(renderFails({ certificates: { mode: 'manual' } })).toMatch(/certificates\.mode must be/);
  });

  // ----- workload -----

  it('Deployment: 2 replicas, anti-affinity, probes on the probe port, locked down, no token, no CPU limit', () => {
    const docs = render();
    const dep = deployment(docs);
    const pod = dep.spec.template.spec;
    const c = container(docs);
    const podLabels = dep.spec.template.metadata.labels;
    expect(dep.spec.replicas).toBe(2);
    expect(podLabels).toMatchObject(dep.spec.selector.matchLabels);
    const anti = pod.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].podAffinityTerm;
    expect(anti.topologyKey).toBe('kubernetes.io/hostname');
    expect(podLabels).toMatchObject(anti.labelSelector.matchLabels);

    const ports = Object.fromEntries(c.ports.map((p: Doc) => [p.name, p.containerPort]));
    expect(ports).toEqual({ https: 8443, probe: 8000 });
    expect(flag(docs, 'port')).toBe('8443');
    expect(flag(docs, 'probe-port')).toBe('8000');
    expect(c.readinessProbe.httpGet).toEqual({ path: '/readyz', port: 'probe' });
    expect(c.livenessProbe.httpGet).toEqual({ path: '/livez', port: 'probe' });
    // A stopping pod keeps serving while endpoints drop it, then drains within the grace period.
    expect(c.lifecycle.preStop.exec.command).toEqual(['sleep', '5']);
    expect(pod.terminationGracePeriodSeconds).toBeGreaterThan(5 + 30);
    expect(args(docs)[0]).toBe('serve');
    expect(flag(docs, 'tls-min-version')).toBe('1.2');
    expect(flag(docs, 'context-failure-policy')).toBe('fail');

    expect(pod.securityContext).toMatchObject({ runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } });
    expect(c.securityContext).toMatchObject({
      runAsNonRoot: true, readOnlyRootFilesystem: true, allowPrivilegeEscalation: false, privileged: false,
      capabilities: { drop: ['ALL'] }, seccompProfile: { type: 'RuntimeDefault' },
    });
    expect(pod.automountServiceAccountToken).toBe(false);
    expect(one(docs, 'ServiceAccount').automountServiceAccountToken).toBe(false);
    expect(c.resources.requests).toMatchObject({ cpu: expect.any(String), memory: expect.any(String) });
    expect(c.resources.limits.cpu).toBeUndefined();
    expect(c.volumeMounts.every((m: Doc) => m.subPath === undefined)).toBe(true);
    expect(args(docs).some((a) => a === '--in-cluster' || a.startsWith('--kubeconfig'))).toBe(false);
    expect(all(docs, 'ClusterRole')).toEqual([]);
    expect(all(docs, 'ClusterRoleBinding')).toEqual([]);

    const svc = one(docs, 'Service', SVC);
    expect(svc.spec.ports).toEqual([{ name: 'https', port: 443, targetPort: 'https', protocol: 'TCP' }]);
    expect(podLabels).toMatchObject(svc.spec.selector);
    const pdb = one(docs, 'PodDisruptionBudget');
    expect(pdb.spec.minAvailable).toBe(1);
    expect(podLabels).toMatchObject(pdb.spec.selector.matchLabels);
  });

  it('server flags come from values', () => {
    const docs = render(FAST, {
      server: { tlsMinVersion: '1.3', logLevel: 'debug', contextFailurePolicy: 'ignore', allowNoExecuteTaintPolicy: false, clientCA: { configMap: 'apiserver-client-ca', key: 'ca.crt' }, extraArgs: ['--bind-address=::'], nodeOptions: '--max-semi-space-size=4' },
      replicaCount: 1,
    });
    expect(args(docs)).toEqual(expect.arrayContaining([
      '--tls-min-version=1.3', '--log-level=debug', '--context-failure-policy=ignore', '--allow-no-execute-taint-policy=false', '--bind-address=::',
    ]));
    expect(flag(docs, 'client-ca-file')).toBe(`${mount(docs, 'client-ca').mountPath}/ca.crt`);
    expect(volume(docs, 'client-ca').configMap.name).toBe('apiserver-client-ca');
    expect(all(docs, 'PodDisruptionBudget')).toEqual([]); // one replica: a PDB would block every drain
    expect(deployment(docs).spec.template.spec.containers[0].env).toEqual([{ name: 'NODE_OPTIONS', value: '--max-semi-space-size=4' }]);
    // By default the container's Node runs with a young generation capped at 2 x 4 MiB (peak RSS under 100 MiB); "" leaves V8's own settings.
    expect(deployment(render(FAST, { replicaCount: 1 })).spec.template.spec.containers[0].env).toEqual([{ name: 'NODE_OPTIONS', value: '--max-semi-space-size=4' }]);
    expect(deployment(render(FAST, { replicaCount: 1, server: { nodeOptions: '' } })).spec.template.spec.containers[0].env).toBeUndefined();
  });

  it('lookups in-cluster: token mounted, --in-cluster, read-only RBAC for Services and ResourceInterpreterCustomizations', () => {
    const docs = render(FAST, { lookups: { enabled: true } });
    expect(deployment(docs).spec.template.spec.automountServiceAccountToken).toBe(true);
    expect(args(docs)).toContain('--in-cluster');
    const role = one(docs, 'ClusterRole');
    expect(role.rules).toEqual([
      { apiGroups: [''], resources: ['services'], verbs: ['get', 'list', 'watch'] },
      { apiGroups: ['config.karmada.io'], resources: ['resourceinterpretercustomizations'], verbs: ['get', 'list', 'watch'] },
    ]);
    const binding = one(docs, 'ClusterRoleBinding');
    expect(binding.roleRef).toEqual({ apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role.metadata.name });
    expect(binding.subjects).toEqual([{ kind: 'ServiceAccount', name: deployment(docs).spec.template.spec.serviceAccountName, namespace: NS }]);
    expect(all(render(FAST, { lookups: { enabled: true }, rbac: { create: false } }), 'ClusterRole')).toEqual([]);
  });

  it('lookups through controlPlane.kubeconfigSecret: the kubeconfig is mounted and used, no token, no RBAC here', () => {
    const docs = render(FAST, { lookups: { enabled: true }, controlPlane: { kubeconfigSecret: { name: 'karmada-kubeconfig', key: 'config' } } });
    expect(volume(docs, 'control-plane').secret.secretName).toBe('karmada-kubeconfig');
    expect(flag(docs, 'kubeconfig')).toBe(`${mount(docs, 'control-plane').mountPath}/config`);
    expect(mount(docs, 'control-plane').readOnly).toBe(true);
    expect(args(docs)).not.toContain('--in-cluster');
    expect(deployment(docs).spec.template.spec.automountServiceAccountToken).toBe(false);
    expect(all(docs, 'ClusterRole')).toEqual([]);
    // without lookups the kubeconfig is still mounted (for other uses), but the server is not pointed at it
    const mounted = render(FAST, { controlPlane: { kubeconfigSecret: { name: 'karmada-kubeconfig' } } });
    expect(volume(mounted, 'control-plane').secret.secretName).toBe('karmada-kubeconfig');
    expect(flag(mounted, 'kubeconfig')).toBeUndefined();
  });

  it('metrics: optional Service on the probe port and a ServiceMonitor that selects only it', () => {
    expect(all(render(), 'ServiceMonitor')).toEqual([]);
    const docs = render(FAST, { metrics: { service: { enabled: true }, serviceMonitor: { enabled: true } } });
    const svc = one(docs, 'Service', `${SVC}-metrics`);
    expect(svc.spec.ports).toEqual([{ name: 'metrics', port: 8000, targetPort: 'probe', protocol: 'TCP' }]);
    const monitor = one(docs, 'ServiceMonitor');
    expect(svc.metadata.labels).toMatchObject(monitor.spec.selector.matchLabels);
    expect(one(docs, 'Service', SVC).metadata.labels).not.toMatchObject(monitor.spec.selector.matchLabels);
    expect(monitor.spec.endpoints[0]).toMatchObject({ port: 'metrics', path: '/metrics' });
    expect(renderFails(FAST, { metrics: { serviceMonitor: { enabled: true } } })).toMatch(/metrics\.service\.enabled/);
  });

  it('renders in non-strict mode too and prints NOTES.txt', () => {
    const out = renderChart(binary, { namespace: NS, strict: false, notes: true, values: [FAST, { webhooks: { create: false } }] });
    expect(out.status).toBe(0);
    expect(out.stdout).toContain('NOTES:');
    expect(out.stdout).toContain('--show-only templates/webhookconfigurations.yaml');
    // Service mode cannot serve another API server: the notes say to render url mode for one.
    expect(out.stdout).toContain('webhooks.clientConfig.mode=url');
    const url = renderChart(binary, { namespace: NS, strict: false, notes: true, values: [FAST, { webhooks: { create: false, clientConfig: { mode: 'url' } } }] });
    expect(url.stdout).not.toContain('WARNING: webhooks.clientConfig.mode=service');
  });

  // ----- plain manifests -----

  it.each(DEPLOY_TARGETS.map((t) => [t.file, t] as const))('%s is up to date (npm run chart:generate)', (_file, target) => {
    const text = read(join(ROOT, target.file));
    expect(text).toBe(renderDeployFile(binary, target));
    const docs = parseDocs(text);
    expect(one(docs, 'Deployment').spec.replicas).toBe(2);
    expect(docs.every((d) => d.metadata.labels['app.kubernetes.io/managed-by'] === 'kubectl')).toBe(true);
    expect(one(docs, 'ValidatingWebhookConfiguration').webhooks).toHaveLength(13 + 1);
  });

  it('deploy/fleetgate-url.yaml and fleetgate-url-webhooks.yaml: a control plane outside the hosting cluster, up to date', () => {
    const [workloadTarget, webhooksTarget] = DEPLOY_URL_TARGETS;
    const texts = [workloadTarget!, webhooksTarget!].map((target) => read(join(ROOT, target.file)));
    expect(texts).toEqual([renderDeployFile(binary, workloadTarget!), renderDeployFile(binary, webhooksTarget!)]);
    const [workload, webhooks] = texts.map(parseDocs) as [Doc[], Doc[]];

    // For the hosting cluster: the workload, reading the control plane through the mounted kubeconfig, no webhooks.
    expect(workload.filter((d) => d.kind.endsWith('WebhookConfiguration'))).toEqual([]);
    expect(deployment(workload).spec.replicas).toBe(2);
    expect(flag(workload, 'kubeconfig')).toBe(`${mount(workload, 'control-plane').mountPath}/kubeconfig`);
    expect(volume(workload, 'control-plane').secret.secretName).toBe('karmada-kubeconfig');
    expect(volume(workload, 'tls').secret.secretName).toBe('fleetgate-tls');
    expect(flag(workload, 'cert-dir')).toBe(mount(workload, 'tls').mountPath);
    const svc = one(workload, 'Service', SVC);
    expect(svc.metadata.namespace).toBe('karmada-system');
    expect(svc.spec.ports).toEqual([{ name: 'https', port: 443, targetPort: 'https', protocol: 'TCP' }]);

    // For karmada-apiserver: the webhook configurations alone, each calling the Service above by URL.
    expect(webhooks.map((d) => d.kind).sort()).toEqual(['MutatingWebhookConfiguration', 'ValidatingWebhookConfiguration']);
    // The 13 kinds and Karmada's deletion protection.
    expect(one(webhooks, 'ValidatingWebhookConfiguration').webhooks).toHaveLength(14);
    for (const hook of webhooks.flatMap((d) => d.webhooks)) {
      expect(hook.clientConfig).toEqual({ url: expect.stringMatching(/^https:\/\/fleetgate\.karmada-system\.svc:443\/(validate|mutate)-[a-z]+$/), caBundle: 'CA_BUNDLE' });
    }
  });

  // ----- the API server's view: the rendered configuration reaches the real server -----

  describe('a real fleetgate server with the generated certificate', () => {
    let running: RunningServer;
    let docs: Doc[];
    beforeAll(async () => {
      docs = render();
      const secret = one(docs, 'Secret', tlsSecretName(docs));
      const dir = mkdtempSync(join(tmpdir(), 'fleetgate-chart-tls-'));
      writeFileSync(join(dir, 'tls.crt'), unb64(secret.data['tls.crt']));
      writeFileSync(join(dir, 'tls.key'), unb64(secret.data['tls.key']));
      running = await serve({ port: 0, probePort: 0, bindAddress: '127.0.0.1', certDir: dir, logger: pino({ level: 'silent' }) });
      return () => running.close();
    });

    function post(webhook: Doc, path: string, body: Doc): Promise<{ status: number; json: any }> {
      return new Promise((done, fail) => {
        const req = request(
          {
            host: '127.0.0.1', port: running.port, path, method: 'POST',
            ca: unb64(webhook.clientConfig.caBundle), // what the API server trusts
            servername: `${webhook.clientConfig.service.name}.${webhook.clientConfig.service.namespace}.svc`, // what it dials
            headers: { 'content-type': 'application/json' },
          },
          (res) => {
            const chunks: Buffer[] = [];
            res.on('data', (c) => chunks.push(c));
            res.on('end', () => {
              let json: any = null;
              try {
                json = JSON.parse(Buffer.concat(chunks).toString());
              } catch {
                // not JSON (e.g. a 404 page): the status check reports it
              }
              done({ status: res.statusCode ?? 0, json });
            });
          },
        );
        req.on('error', fail);
        req.end(JSON.stringify(body));
      });
    }

    it('every webhook entry (per-kind and generic paths) is served for its kind over TLS the API server would accept', async () => {
      const generic = render(FAST, { webhooks: { paths: 'generic' } });
      const entries = [...webhookEntries(docs), ...webhookEntries(generic).map((w) => ({ ...w, clientConfig: { ...w.clientConfig, caBundle: caOf(docs) } }))];
      expect(entries).toHaveLength(2 * (13 + 1 + kindsFor().filter((k) => k.mutating).length));
      for (const [i, w] of entries.entries()) {
        const rule = w.rules[0];
        const info = kindsFor().find((k) => k.group === rule.apiGroups[0] && k.plural === rule.resources[0])!;
        const object = { apiVersion: info.apiVersion, kind: info.kind, metadata: { name: 'x', ...(info.scope === 'Namespaced' ? { namespace: 'default' } : {}) } };
        const review = {
          apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview',
          request: {
            uid: `u${i}`, operation: 'CREATE', object,
            kind: { group: info.group, version: info.version, kind: info.kind },
            resource: { group: info.group, version: info.version, resource: info.plural },
          },
        };
        const res = await post(w, w.clientConfig.service.path, review);
        expect(res.status, `${w.name} ${w.clientConfig.service.path}`).toBe(200);
        expect(res.json?.response?.uid).toBe(`u${i}`);
        expect(res.json.response.status?.code, `${w.name}: ${res.json.response.status?.message}`).not.toBe(400);
      }
      // The deletion-protection entry refuses what it is sent: a DELETE of a labelled object.
      for (const w of entries.filter((e) => e.name.startsWith('resourcedeletionprotection.'))) {
        const rule = w.rules[0];
        const info = kindsFor().find((k) => k.group === rule.apiGroups[0] && k.plural === rule.resources[0])!;
        expect(rule.operations).toEqual(['DELETE']);
        const oldObject = { apiVersion: info.apiVersion, kind: info.kind, metadata: { name: 'x', labels: { 'resourcetemplate.karmada.io/deletion-protected': 'Always' } } };
        const review = {
          apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview',
          request: { uid: 'd', operation: 'DELETE', name: 'x', object: null, oldObject, kind: { group: info.group, version: info.version, kind: info.kind } },
        };
        const res = await post(w, w.clientConfig.service.path, review);
        expect(res.json.response, w.clientConfig.service.path).toMatchObject({ allowed: false, status: { code: 403, reason: 'Forbidden' } });
      }
    }, 60_000);
  });
});
