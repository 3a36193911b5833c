import { describe, expect, it, vi } from 'vitest';
import { validate, applyDefaults, type Lookups, type Service } from '../../src/index.js';
import { INTERPRETER_OPERATIONS } from '../../rules/resourceinterpreterwebhookconfiguration.js';
import { heapAfterGcMiB } from '../heap.js';
import { causesOf, changed, expectCauses, Duplicate, Forbidden, Invalid, NotSupported, Required, type Case } from '../helpers.js';

import { caBundle, config } from '../fixtures/resourceinterpreterwebhookconfiguration.js';

const URL_PATH = 'webhooks[0].clientConfig.url';
const SERVICE_PATH = 'webhooks[1].clientConfig.service';
const RULE = 'webhooks[1].rules[0]';
const VERSIONS = 'webhooks[0].interpreterContextVersions';
const NOT_CHECKED = 'the Service behind clientConfig.service (ClusterIP "None" check) not checked: no lookups were supplied';

const urlCase = (url: string, want: ReturnType<typeof Invalid>[]): Case => ({
  name: `url ${JSON.stringify(url)}`,
  edit: (o) => (o.webhooks[0].clientConfig.url = url),
  want,
});

describe('ResourceInterpreterWebhookConfiguration', () => {
  it('accepts a realistic configuration with a url webhook and a service webhook', () => {
    const result = expectCauses(config, []);
    // The only warning: the ClusterIP check needs the Service, and no lookups were given.
    expect(result.warnings).toEqual([NOT_CHECKED]);
  });

  it('remembers URL verdicts without keeping what the URL was cut from', () => {
    const before = heapAfterGcMiB();
    for (let i = 0; i < 64; i++) {
      // A URL read from a larger text (a YAML file, say) can be a slice of it.
      const text = `https://user${i}@hooks.example.com/interpret?token=${i}-0123456789abcdef#fragment-0123456789 ${'X'.repeat(1024 * 1024)}`;
      const url = text.slice(0, text.indexOf(' '));
      expect(causesOf(validate(changed(config, (o) => (o.webhooks[0].clientConfig.url = url))))).toHaveLength(3);
    }
    expect(heapAfterGcMiB() - before).toBeLessThan(16);
  });

  const cases: Case[] = [
    // metadata
    { name: 'name not a DNS subdomain', edit: (o) => (o.metadata.name = 'Examples'), want: [Invalid('metadata.name')] },
    // webhooks
    { name: 'webhooks missing', edit: (o) => delete o.webhooks, want: [Required('webhooks')] },
    { name: 'webhooks empty (allowed as in Karmada)', edit: (o) => (o.webhooks = []), want: [] },
    { name: 'webhooks not a list', edit: (o) => (o.webhooks = { a: 1 }), want: [Invalid('webhooks')] },
    { name: 'webhook not an object', edit: (o) => (o.webhooks[0] = 'hook'), want: [Invalid('webhooks[0]')] },
    // webhook name
    { name: 'webhook name missing', edit: (o) => delete o.webhooks[0].name, want: [Required('webhooks[0].name')] },
    { name: 'webhook name empty', edit: (o) => (o.webhooks[0].name = ''), want: [Required('webhooks[0].name')] },
    { name: 'webhook name with one segment', edit: (o) => (o.webhooks[0].name = 'workloads'), want: [Invalid('webhooks[0].name')] },
    { name: 'webhook name upper case', edit: (o) => (o.webhooks[0].name = 'Workloads.example.com'), want: [Invalid('webhooks[0].name')] },
    { name: 'webhook name label longer than 63', edit: (o) => (o.webhooks[0].name = `${'a'.repeat(64)}.example.com`), want: [Invalid('webhooks[0].name')] },
    { name: 'webhook name with a trailing dot', edit: (o) => (o.webhooks[0].name = 'workloads.example.com.'), want: [] },
    { name: 'webhook name with two segments', edit: (o) => (o.webhooks[0].name = 'workloads.example'), want: [] },
    { name: 'duplicate webhook name', edit: (o) => (o.webhooks[1].name = 'workloads.example.com'), want: [Duplicate('webhooks[1].name')] },
    {
      name: 'every later duplicate is reported',
      edit: (o) => {
        o.webhooks[1].name = 'workloads.example.com';
        o.webhooks.push({ ...structuredClone(o.webhooks[0]) });
      },
      want: [Duplicate('webhooks[1].name'), Duplicate('webhooks[2].name')],
    },
    // clientConfig: url xor service
    { name: 'clientConfig missing', edit: (o) => delete o.webhooks[0].clientConfig, want: [Required('webhooks[0].clientConfig')] },
    { name: 'neither url nor service', edit: (o) => (o.webhooks[0].clientConfig = { caBundle }), want: [Required('webhooks[0].clientConfig')] },
    { name: 'empty url alone', edit: (o) => (o.webhooks[0].clientConfig.url = ''), want: [Required('webhooks[0].clientConfig')] },
    // The spec: "When both are present, service takes precedence and url is ignored" (a warning says so).
    { name: 'url and service together', edit: (o) => (o.webhooks[1].clientConfig.url = 'https://interpreter.example.com/pods'), want: [] },
    { name: 'url and service together, the url still checked', edit: (o) => (o.webhooks[1].clientConfig.url = 'http://interpreter.example.com/pods'), want: [Invalid('webhooks[1].clientConfig.url')] },
    { name: 'clientConfig not an object', edit: (o) => (o.webhooks[0].clientConfig = 'https://interpreter.example.com'), want: [Invalid('webhooks[0].clientConfig')] },
    // url: allowed forms
    ...[
      'https://10.0.0.5:8443/hooks',
      'https://[fd00::5]:8443/hooks',
      'https://interpreter.example.com',
      'https://interpreter.example.com/',
      'HTTPS://interpreter.example.com/cluster/member-1',
      'https://interpreter.example.com./x',
      // `svc` as an inner label of an external name is not an in-cluster service
      'https://webhook.svc.example.com/x',
      // an empty query or fragment is none (Go's URL has RawQuery and Fragment "", as Kubernetes checks them)
      'https://interpreter.example.com/hook#',
      'https://interpreter.example.com/hook?',
      // Go's parser takes these; WHATWG's `new URL()` would not
      'https://interpreter.example.com/a%20b<c>',
      'https://[fe80::1%25eth0]:8443/hook',
    ].map((url) => urlCase(url, [])),
    // url: rejected forms (spec errors #1, Karmada's ValidateWebhookURL)
    ...[
      'http://interpreter.example.com/hook',
      'https:///hook',
      'https://:8443/hook',
      'https://user:secret@interpreter.example.com/hook',
      'https://interpreter.example.com/hook#frag',
      'https://interpreter.example.com/hook?cluster=member1',
      'interpreter.example.com/hook',
      'https://inter preter.example.com/hook',
      'https://interpreter.example.com:99999/hook',
      'https://interpreter.example.com:https/hook',
      'https://[not-ipv6]/hook',
      'https://interpreter.example.com/ho\nok',
      // Go refuses these, which WHATWG's `new URL()` would repair or take
      ' https://interpreter.example.com/hook',
      'https://inter{preter}.example.com/hook',
      'https://interpreter.example.com/%zz',
      'https://u%zz@interpreter.example.com/hook',
      // in-cluster service names: use clientConfig.service
      'https://interpreter.karmada-system.svc/hook',
      'https://interpreter.karmada-system.svc:443/hook',
      'https://interpreter.karmada-system.svc.cluster.local/hook',
      'https://Interpreter.Karmada-System.SVC./hook',
    ].map((url) => urlCase(url, [Invalid(URL_PATH)])),
    urlCase('http://interpreter.example.com/hook?x=1', [Invalid(URL_PATH), Invalid(URL_PATH)]),
    { name: 'url not a string', edit: (o) => (o.webhooks[0].clientConfig.url = 443), want: [Invalid(URL_PATH)] },
    // caBundle
    { name: 'caBundle not base64', edit: (o) => (o.webhooks[0].clientConfig.caBundle = '-----BEGIN CERTIFICATE-----'), want: [Invalid('webhooks[0].clientConfig.caBundle')] },
    { name: 'caBundle absent (system roots)', edit: (o) => delete o.webhooks[0].clientConfig.caBundle, want: [] },
    // service
    { name: 'service name missing', edit: (o) => delete o.webhooks[1].clientConfig.service.name, want: [Required(`${SERVICE_PATH}.name`)] },
    { name: 'service name empty', edit: (o) => (o.webhooks[1].clientConfig.service.name = ''), want: [Required(`${SERVICE_PATH}.name`)] },
    { name: 'service namespace empty', edit: (o) => (o.webhooks[1].clientConfig.service.namespace = ''), want: [Required(`${SERVICE_PATH}.namespace`)] },
    { name: 'service port 0', edit: (o) => (o.webhooks[1].clientConfig.service.port = 0), want: [Invalid(`${SERVICE_PATH}.port`)] },
    { name: 'service port 65536', edit: (o) => (o.webhooks[1].clientConfig.service.port = 65536), want: [Invalid(`${SERVICE_PATH}.port`)] },
    { name: 'service port 1', edit: (o) => (o.webhooks[1].clientConfig.service.port = 1), want: [] },
    { name: 'service port 65535', edit: (o) => (o.webhooks[1].clientConfig.service.port = 65535), want: [] },
    { name: 'service port absent', edit: (o) => delete o.webhooks[1].clientConfig.service.port, want: [] },
    { name: 'service port not an integer', edit: (o) => (o.webhooks[1].clientConfig.service.port = '443'), want: [Invalid(`${SERVICE_PATH}.port`)] },
    ...['', '/', '/interpret', '/interpret/pods/', '/v1.2/hooks', '/cluster-1/pods', '/clusters/1'].map(
      (path): Case => ({ name: `service path ${JSON.stringify(path)}`, edit: (o) => (o.webhooks[1].clientConfig.service.path = path), want: [] }),
    ),
    ...['interpret', '//', '/interpret//pods', '/interpret/pods//', '/Interpret', '/interpret_pods', '/a b', '/interpret-'].map(
      (path): Case => ({ name: `service path ${JSON.stringify(path)}`, edit: (o) => (o.webhooks[1].clientConfig.service.path = path), want: [Invalid(`${SERVICE_PATH}.path`)] }),
    ),
    // rules
    { name: 'rules absent', edit: (o) => delete o.webhooks[0].rules, want: [] },
    { name: 'rules empty', edit: (o) => (o.webhooks[0].rules = []), want: [] },
    { name: 'rule operations missing', edit: (o) => delete o.webhooks[1].rules[0].operations, want: [Required(`${RULE}.operations`)] },
    { name: 'rule operations empty', edit: (o) => (o.webhooks[1].rules[0].operations = []), want: [Required(`${RULE}.operations`)] },
    { name: 'wildcard with other operations', edit: (o) => (o.webhooks[1].rules[0].operations = ['*', 'Retain']), want: [Invalid(`${RULE}.operations`)] },
    { name: 'operation Prune is not supported', edit: (o) => (o.webhooks[1].rules[0].operations = ['Retain', 'Prune']), want: [NotSupported(`${RULE}.operations[1]`)] },
    { name: 'operation in the wrong case', edit: (o) => (o.webhooks[1].rules[0].operations = ['retain']), want: [NotSupported(`${RULE}.operations[0]`)] },
    { name: 'every supported operation', edit: (o) => (o.webhooks[1].rules[0].operations = INTERPRETER_OPERATIONS.filter((op) => op !== '*')), want: [] },
    { name: 'rule apiGroups missing', edit: (o) => delete o.webhooks[1].rules[0].apiGroups, want: [Required(`${RULE}.apiGroups`)] },
    { name: 'rule apiGroups empty', edit: (o) => (o.webhooks[1].rules[0].apiGroups = []), want: [Required(`${RULE}.apiGroups`)] },
    { name: 'wildcard with other apiGroups', edit: (o) => (o.webhooks[1].rules[0].apiGroups = ['apps', '*']), want: [Invalid(`${RULE}.apiGroups`)] },
    { name: 'apiGroups wildcard alone', edit: (o) => (o.webhooks[1].rules[0].apiGroups = ['*']), want: [] },
    { name: 'apiGroups core and apps', edit: (o) => (o.webhooks[1].rules[0].apiGroups = ['', 'apps']), want: [] },
    { name: 'rule apiVersions empty', edit: (o) => (o.webhooks[1].rules[0].apiVersions = []), want: [Required(`${RULE}.apiVersions`)] },
    { name: 'wildcard with other apiVersions', edit: (o) => (o.webhooks[1].rules[0].apiVersions = ['*', 'v1']), want: [Invalid(`${RULE}.apiVersions`)] },
    { name: 'empty apiVersions element', edit: (o) => (o.webhooks[1].rules[0].apiVersions = ['v1', '']), want: [Required(`${RULE}.apiVersions[1]`)] },
    { name: 'rule kinds missing', edit: (o) => delete o.webhooks[1].rules[0].kinds, want: [Required(`${RULE}.kinds`)] },
    { name: 'rule kinds empty', edit: (o) => (o.webhooks[1].rules[0].kinds = []), want: [Required(`${RULE}.kinds`)] },
    { name: 'wildcard with other kinds', edit: (o) => (o.webhooks[1].rules[0].kinds = ['Pod', '*']), want: [Invalid(`${RULE}.kinds`)] },
    { name: 'empty kinds element', edit: (o) => (o.webhooks[1].rules[0].kinds = ['']), want: [Required(`${RULE}.kinds[0]`)] },
    // timeoutSeconds (spec errors #5, limits)
    { name: 'timeout 0', edit: (o) => (o.webhooks[0].timeoutSeconds = 0), want: [Invalid('webhooks[0].timeoutSeconds')] },
    { name: 'timeout 31', edit: (o) => (o.webhooks[0].timeoutSeconds = 31), want: [Invalid('webhooks[0].timeoutSeconds')] },
    { name: 'timeout 1', edit: (o) => (o.webhooks[0].timeoutSeconds = 1), want: [] },
    { name: 'timeout 30', edit: (o) => (o.webhooks[0].timeoutSeconds = 30), want: [] },
    { name: 'timeout absent', edit: (o) => delete o.webhooks[0].timeoutSeconds, want: [] },
    { name: 'timeout fractional', edit: (o) => (o.webhooks[0].timeoutSeconds = 2.5), want: [Invalid('webhooks[0].timeoutSeconds')] },
    // interpreterContextVersions (spec errors #3)
    { name: 'context versions missing', edit: (o) => delete o.webhooks[0].interpreterContextVersions, want: [Required(VERSIONS)] },
    { name: 'context versions empty', edit: (o) => (o.webhooks[0].interpreterContextVersions = []), want: [Required(VERSIONS)] },
    { name: 'no supported context version', edit: (o) => (o.webhooks[0].interpreterContextVersions = ['v1beta1', 'v2']), want: [Invalid(VERSIONS)] },
    { name: 'duplicate context version', edit: (o) => (o.webhooks[0].interpreterContextVersions = ['v1alpha1', 'v1beta1', 'v1alpha1']), want: [Duplicate(`${VERSIONS}[2]`)] },
    { name: 'context version not a DNS-1035 label', edit: (o) => (o.webhooks[0].interpreterContextVersions = ['v1alpha1', '1beta']), want: [Invalid(`${VERSIONS}[1]`)] },
    { name: 'context version mistyped: one cause only', edit: (o) => (o.webhooks[0].interpreterContextVersions = ['V1alpha1']), want: [Invalid(`${VERSIONS}[0]`)] },
    { name: 'context versions mistyped and unsupported: one cause only', edit: (o) => (o.webhooks[0].interpreterContextVersions = ['V1alpha1', 'v2']), want: [Invalid(`${VERSIONS}[0]`)] },
    {
      name: 'a context version not a string does not hide later causes',
      edit: (o) => {
        o.webhooks[0].interpreterContextVersions = ['v2', null];
        o.webhooks[1].rules[0].operations = ['*', 'Retain'];
      },
      want: [Invalid(`${VERSIONS}[1]`), Invalid(`${RULE}.operations`)],
    },
    { name: 'empty context version', edit: (o) => (o.webhooks[0].interpreterContextVersions = ['v1alpha1', '']), want: [Required(`${VERSIONS}[1]`)] },
    { name: 'supported version not first', edit: (o) => (o.webhooks[0].interpreterContextVersions = ['v2', 'v1alpha1']), want: [] },
    // status: content not shown by the spec
    { name: 'status content is free', edit: (o) => (o.status = { observed: { anything: [1, 2] } }), want: [] },
    { name: 'status not an object', edit: (o) => (o.status = 'ok'), want: [Invalid('status')] },
  ];

  it.each(cases)('$name', ({ edit, want, options }) => {
    expectCauses(changed(config, edit), want, options);
  });

  it('words the causes as Kubernetes and Karmada do', () => {
    const messages = (edit: (o: any) => void) => (validate(changed(config, edit)).causes.map((c) => `${c.field}: ${c.message}`));
    expect(messages((o) => (o.webhooks[0].clientConfig.url = 'http://interpreter.example.com/hook'))).toEqual([
      `${URL_PATH}: Invalid value: "http": 'https' is the only allowed URL scheme; desired format: https://host[/path]`,
    ]);
    expect(messages((o) => (o.webhooks[0].clientConfig.url = '//interpreter.example.com/hook'))).toEqual([
      `${URL_PATH}: Invalid value: "": 'https' is the only allowed URL scheme; desired format: https://host[/path]`,
    ]);
    expect(messages((o) => (o.webhooks[0].clientConfig.url = 'interpreter.example.com/hook'))).toEqual([
      `${URL_PATH}: Invalid value: "interpreter.example.com/hook": url must be an absolute https URL with a host; desired format: https://host[/path]`,
    ]);
    expect(messages((o) => (o.webhooks[0].clientConfig.url = 'https://interpreter.example.com/%zz'))).toEqual([
      `${URL_PATH}: Invalid value: "https://interpreter.example.com/%zz": url must be a valid URL: invalid URL escape "%zz"; desired format: https://host[/path]`,
    ]);
    expect(messages((o) => (o.webhooks[0].clientConfig.url = 'https://interpreter.example.com:99999/hook'))).toEqual([
      `${URL_PATH}: Invalid value: "https://interpreter.example.com:99999/hook": url must be a valid URL: port 99999 must be between 1 and 65535, inclusive; desired format: https://host[/path]`,
    ]);
    expect(messages((o) => (o.webhooks[0].clientConfig.url = 'https:///hook'))).toEqual([
      `${URL_PATH}: Invalid value: "": host must be specified; desired format: https://host[/path]`,
    ]);
    expect(messages((o) => (o.webhooks[0].clientConfig.url = 'https://u:p@interpreter.example.com/'))).toEqual([
      `${URL_PATH}: Invalid value: "u:p": user information is not permitted in the URL`,
    ]);
    expect(messages((o) => (o.webhooks[0].clientConfig.url = 'https://interpreter.example.com/#top'))).toEqual([
      `${URL_PATH}: Invalid value: "top": fragments are not permitted in the URL`,
    ]);
    expect(messages((o) => (o.webhooks[0].clientConfig.url = 'https://interpreter.example.com/?a=b'))).toEqual([
      `${URL_PATH}: Invalid value: "a=b": query parameters are not permitted in the URL`,
    ]);
    expect(messages((o) => (o.webhooks[0].clientConfig.url = 'https://interpreter.karmada-system.svc:443/hook'))).toEqual([
      `${URL_PATH}: Invalid value: "interpreter.karmada-system.svc": the host refers to an in-cluster service: use clientConfig.service for a webhook inside the cluster`,
    ]);
    expect(messages((o) => (o.webhooks[0].clientConfig = {}))).toEqual(['webhooks[0].clientConfig: Required value: exactly one of url or service is required']);
    expect(validate(changed(config, (o) => (o.webhooks[1].clientConfig.url = 'https://interpreter.example.com/'))).warnings)
      .toContain('webhooks[1].clientConfig: url is ignored because service is set (service takes precedence); set only one of them');
    expect(messages((o) => (o.webhooks[1].clientConfig.service.port = 0))).toEqual([`${SERVICE_PATH}.port: Invalid value: 0: must be between 1 and 65535, inclusive`]);
    expect(messages((o) => (o.webhooks[1].clientConfig.service.path = 'interpret//pods'))).toEqual([
      `${SERVICE_PATH}.path: Invalid value: "interpret//pods": must start with a '/'; segment[1] may not be empty`,
    ]);
    // Every bad segment of a path of thousands, each described, made a message 140 times the path's size.
    const segments = Array.from({ length: 5000 }, (_, i) => (i % 2 ? 'Bad' : 'ok')).join('/');
    const [described] = messages((o) => (o.webhooks[1].clientConfig.service.path = `/${segments}`));
    expect(described).toMatch(/: segment\[1\]: a lowercase RFC 1123 subdomain .*; segment\[15\]: a lowercase .*; 2492 more segments are not valid either$/);
    expect(described!.match(/segment\[/g)).toHaveLength(8);
    // Eight bad segments are all described, with no count of more.
    const eight = messages((o) => (o.webhooks[1].clientConfig.service.path = `/${Array(8).fill('Bad').join('/')}`));
    expect(eight).toHaveLength(1);
    expect(eight[0]).toMatch(/^webhooks\[1\]\.clientConfig\.service\.path: Invalid value: .*; segment\[7\]: a lowercase RFC 1123 subdomain [^;]*$/);
    expect(eight[0]!.match(/segment\[/g)).toHaveLength(8);
    // Without the leading '/', the first segment is still checked from its first character.
    expect(messages((o) => (o.webhooks[1].clientConfig.service.path = 'Interpret'))[0]).toMatch(/^[^:]+: Invalid value: "Interpret": must start with a '\/'; segment\[0\]: a lowercase RFC 1123 subdomain/);
    expect(messages((o) => (o.webhooks[0].timeoutSeconds = 31))).toEqual(['webhooks[0].timeoutSeconds: Invalid value: 31: must be between 1 and 30, inclusive']);
    expect(messages((o) => (o.webhooks[1].rules[0].operations = ['*', 'Retain']))).toEqual([
      `${RULE}.operations: Invalid value: ["*","Retain"]: if '*' is present, must not specify other operations`,
    ]);
    expect(messages((o) => (o.webhooks[1].rules[0].apiGroups = ['*', 'apps']))).toEqual([
      `${RULE}.apiGroups: Invalid value: ["*","apps"]: if '*' is present, must not specify other API groups`,
    ]);
    expect(messages((o) => (o.webhooks[1].rules[0].operations = ['Prune']))).toEqual([
      `${RULE}.operations[0]: Unsupported value: "Prune": supported values: "*", "InterpretReplica", "InterpretComponent", "InterpretDependency", "ReviseReplica", "Retain", "AggregateStatus", "InterpretStatus", "InterpretHealth"`,
    ]);
    expect(messages((o) => (o.webhooks[0].interpreterContextVersions = []))).toEqual([`${VERSIONS}: Required value: must specify one of v1alpha1`]);
    expect(messages((o) => (o.webhooks[0].interpreterContextVersions = ['v1beta1']))).toEqual([
      `${VERSIONS}: Invalid value: ["v1beta1"]: must include at least one of v1alpha1`,
    ]);
    expect(messages((o) => (o.webhooks[0].interpreterContextVersions = ['v1alpha1', 'v1alpha1']))).toEqual([
      `${VERSIONS}[1]: Duplicate value: "v1alpha1": duplicate version`,
    ]);
  });

  it('collects every cause in one pass', () => {
    const bad = changed(config, (o) => {
      o.webhooks[0].name = 'single';
      o.webhooks[0].clientConfig.url = 'http://interpreter.example.com/';
      o.webhooks[0].timeoutSeconds = 60;
      o.webhooks[1].rules[1].kinds = ['*', 'Deployment'];
      o.webhooks[1].interpreterContextVersions = ['v2'];
    });
    expectCauses(bad, [
      Invalid('webhooks[0].name'),
      Invalid(URL_PATH),
      Invalid('webhooks[0].timeoutSeconds'),
      Invalid('webhooks[1].rules[1].kinds'),
      Invalid('webhooks[1].interpreterContextVersions'),
    ]);
  });

  it('has no immutable fields on UPDATE', () => {
    const updated = changed(config, (o) => {
      o.webhooks[0].clientConfig.url = 'https://interpreter-v2.example.com/hook';
      o.webhooks.pop();
    });
    const result = expectCauses(updated, [], { operation: 'UPDATE', oldObject: config });
    expect(result.warnings).toEqual([]);
    expectCauses(changed(config, (o) => (o.metadata.name = 'renamed')), [Invalid('metadata.name')], { operation: 'UPDATE', oldObject: config });
  });

  it('reports unknown fields as warnings, or as errors when strict', () => {
    const extra = changed(config, (o) => {
      o.spec = {};
      o.webhooks[0].failurePolicy = 'Fail';
    });
    expect(validate(extra).warnings).toEqual(expect.arrayContaining(['unknown field "spec"', 'unknown field "webhooks[0].failurePolicy"']));
    expectCauses(extra, [Forbidden('spec'), Forbidden('webhooks[0].failurePolicy')], { strict: true });
  });

  it('validates only metadata and status on the status subresource', () => {
    const statusWrite = changed(config, (o) => {
      o.webhooks[0].timeoutSeconds = 99;
      o.status = 'bad';
    });
    const result = expectCauses(statusWrite, [Invalid('status')], { operation: 'UPDATE', subResource: 'status', oldObject: config });
    expect(result.warnings).toEqual([]);
  });

  it('checks apiVersion against the group domain', () => {
    expectCauses(config, [NotSupported('apiVersion')], { groupDomain: 'example.org' });
    expectCauses(changed(config, (o) => (o.apiVersion = 'config.example.org/v1alpha1')), [], { groupDomain: 'example.org' });
  });

  it('takes a null service as no service: no precedence warning', () => {
    expect(validate(changed(config, (o) => (o.webhooks[0].clientConfig.service = null))).warnings).toEqual([NOT_CHECKED]);
  });

  it('does not trip over malformed webhooks', () => {
    expectCauses(changed(config, (o) => (o.webhooks = [null, 7])), [Invalid('webhooks[0]'), Invalid('webhooks[1]')]);
    expectCauses(changed(config, (o) => (o.webhooks[0].rules = [null])), [Invalid('webhooks[0].rules[0]')]);
    expectCauses(changed(config, (o) => (o.webhooks[0].interpreterContextVersions = 'v1alpha1')), [Invalid(VERSIONS)]);
    expectCauses(changed(config, (o) => (o.webhooks[1].clientConfig.service = 'interpreter-webhook')), [Invalid(SERVICE_PATH)]);
  });
});

describe('ResourceInterpreterWebhookConfiguration context rule (Service with ClusterIP "None")', () => {
  const service = (clusterIP: string | undefined, type = 'ClusterIP'): Service => ({
    metadata: { namespace: 'karmada-system', name: 'interpreter-webhook' },
    spec: { type, clusterIP, ports: [{ port: 8443 }] },
  });

  it('denies a headless Service (sync lookup, sync result)', () => {
    const getService = vi.fn(() => service('None'));
    const result = validate(config, { lookups: { getService } });
    expect(result).not.toBeInstanceOf(Promise);
    const { causes, allowed, warnings } = result as Awaited<typeof result>;
    expect(allowed).toBe(false);
    expect(causesOf({ causes, allowed, warnings })).toEqual([Invalid(SERVICE_PATH)]);
    expect(causes[0]!.message).toMatch(/^Invalid value: "karmada-system\/interpreter-webhook": cannot route to service with ClusterIP "None"/);
    expect(causes[0]!.message).toContain('use clientConfig.url');
    expect(getService).toHaveBeenCalledTimes(1);
    expect(getService).toHaveBeenCalledWith('karmada-system', 'interpreter-webhook');
    expect(warnings).toEqual([]);
  });

  it.each([
    ['a ClusterIP Service', service('10.96.0.12')],
    ['a NodePort Service', service('10.96.0.13', 'NodePort')],
    ['an ExternalName Service', { spec: { type: 'ExternalName', externalName: 'interpreter.example.com' } }],
    ['a Service not in the control plane', undefined],
    ['a Service without a spec', { metadata: { namespace: 'karmada-system', name: 'interpreter-webhook' } }],
  ])('allows %s', (_name, found) => {
    const result = validate(config, { lookups: { getService: () => found } }) as Awaited<ReturnType<typeof validate>>;
    expect(result.causes).toEqual([]);
    expect(result.warnings).toEqual([]);
  });

  it('denies a headless Service (async lookup)', async () => {
    const pending = validate(config, { lookups: { getService: async () => service('None') } });
    expect(pending).toBeInstanceOf(Promise);
    const result = await pending;
    expect(causesOf(result)).toEqual([Invalid(SERVICE_PATH)]);
    expect(result.allowed).toBe(false);
  });

  it('allows a Service with a cluster IP (async lookup)', async () => {
    const result = await validate(config, { lookups: { getService: async () => service('10.96.0.12') } });
    expect(result.causes).toEqual([]);
    expect(result.allowed).toBe(true);
  });

  it('checks every service webhook, mixing sync and async answers', async () => {
    const twoServices = changed(config, (o) => {
      o.webhooks[0].clientConfig = { service: { namespace: 'tenant-a', name: 'headless' } };
    });
    const lookups: Lookups = {
      getService: (namespace) => (namespace === 'tenant-a' ? service('None') : Promise.resolve(service('None'))),
    };
    const result = await validate(twoServices, { lookups });
    expect(causesOf(result)).toEqual([Invalid('webhooks[0].clientConfig.service'), Invalid(SERVICE_PATH)]);
  });

  it('adds the context cause to the other causes', () => {
    const bad = changed(config, (o) => (o.webhooks[1].timeoutSeconds = 0));
    const result = validate(bad, { lookups: { getService: () => service('None') } }) as Awaited<ReturnType<typeof validate>>;
    expect(causesOf(result)).toEqual([Invalid('webhooks[1].clientConfig.service'), Invalid('webhooks[1].timeoutSeconds')]);
  });

  it.each(['namespace', 'name'])('does not look up a service reference with an empty %s', (field) => {
    const incomplete = changed(config, (o) => (o.webhooks[1].clientConfig.service[field] = ''));
    expect(validate(incomplete).warnings).toEqual([]);
    const getService = vi.fn(() => service('None'));
    const result = validate(incomplete, { lookups: { getService } }) as Awaited<ReturnType<typeof validate>>;
    expect(causesOf(result)).toEqual([Required(`${SERVICE_PATH}.${field}`)]);
    expect(getService).not.toHaveBeenCalled();
  });

  it('does not look up anything for url-only webhooks', () => {
    const getService = vi.fn(() => service('None'));
    const urlOnly = changed(config, (o) => o.webhooks.pop());
    const result = validate(urlOnly, { lookups: { getService } }) as Awaited<ReturnType<typeof validate>>;
    expect(result.causes).toEqual([]);
    expect(getService).not.toHaveBeenCalled();
  });

  it('accepts lookups without getService, and says the rule was skipped', () => {
    const result = validate(config, { lookups: {} }) as Awaited<ReturnType<typeof validate>>;
    expect(result.causes).toEqual([]);
    expect(result.warnings).toEqual(['the Service behind clientConfig.service (ClusterIP "None" check) not checked: the lookups have no getService']);
  });

  it('takes any thenable as an asynchronous answer, not only this realm\'s Promise', async () => {
    const thenable = { then: (done: (v: unknown) => void) => done(service('None')) };
    const result = await validate(config, { lookups: { getService: () => thenable as never } });
    expect(causesOf(result)).toEqual([Invalid(SERVICE_PATH)]);
  });

  it('leaves no answer unhandled when a later lookup throws', async () => {
    const two = changed(config, (o) => o.webhooks.push({ ...o.webhooks.find((w: any) => w.clientConfig.service), name: 'second.example.com', clientConfig: { service: { namespace: 'karmada-system', name: 's2' } } }));
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      const getService = (_ns: string, name: string) => {
        if (name === 's2') throw new Error('s2 sync failure');
        return Promise.reject(new Error('first unavailable'));
      };
      expect(() => validate(two, { lookups: { getService } })).toThrow('s2 sync failure');
      await new Promise((r) => setTimeout(r, 20));
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });

  // Relies on the engine consulting KindRules.lookupsApply.
  it('warns that the check was skipped only when a webhook uses clientConfig.service', () => {
    expect(validate(config).warnings).toEqual([NOT_CHECKED]);
    expect(validate(changed(config, (o) => o.webhooks.pop())).warnings).toEqual([]);
    expect(validate(changed(config, (o) => (o.webhooks = []))).warnings).toEqual([]);
  });
});

describe('ResourceInterpreterWebhookConfiguration defaults', () => {
  const bare = changed(config, (o) => {
    delete o.webhooks[0].timeoutSeconds;
    delete o.webhooks[1].timeoutSeconds;
    delete o.webhooks[1].clientConfig.service.port;
  });

  it('writes timeoutSeconds 10 and service.port 443, without touching the input', () => {
    const before = structuredClone(bare);
    const { object, patch } = applyDefaults(bare);
    expect(bare).toEqual(before);
    expect(patch).toEqual(
      expect.arrayContaining([
        { op: 'add', path: '/webhooks/0/timeoutSeconds', value: 10 },
        { op: 'add', path: '/webhooks/1/timeoutSeconds', value: 10 },
        { op: 'add', path: '/webhooks/1/clientConfig/service/port', value: 443 },
      ]),
    );
    expect(patch).toHaveLength(3);
    const webhooks = (object as typeof config).webhooks as any[];
    expect(webhooks[0].clientConfig.service).toBeUndefined();
    expectCauses(object, []);
  });

  it('leaves given values alone', () => {
    expect(applyDefaults(config).patch).toEqual([]);
    expect(applyDefaults(changed(bare, (o) => (o.webhooks = []))).patch).toEqual([]);
  });

  it('also defaults on UPDATE', () => {
    expect(applyDefaults(bare, { operation: 'UPDATE' }).patch).toHaveLength(3);
  });

  it('does not trip over malformed webhooks', () => {
    expect(applyDefaults(changed(config, (o) => (o.webhooks = 'none'))).patch).toEqual([]);
    const { patch } = applyDefaults(changed(config, (o) => (o.webhooks = [null, 'x', { clientConfig: { service: 'svc' } }])));
    expect(patch).toEqual([{ op: 'add', path: '/webhooks/2/timeoutSeconds', value: 10 }]);
  });
});
