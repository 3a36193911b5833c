import { describe, expect, it } from 'vitest';
import { validate } from '../../src/index.js';
import { changed, expectCauses, Forbidden, Invalid, NotSupported, Required, TooLong, type Case } from '../helpers.js';

import { ingress } from '../fixtures/multiclusteringress.js';

const P0 = 'spec.rules[0].http.paths[0]';
const P1 = 'spec.rules[0].http.paths[1]';
const RES = 'spec.rules[1].http.paths[0].backend.resource';
const LB = 'status.loadBalancer.ingress';

describe('MultiClusterIngress', () => {
  it('accepts a realistic ingress with TLS, wildcard host, all path types, a default backend and status', () => {
    const result = expectCauses(ingress, []);
    expect(result.warnings).toEqual([]);
  });

  const cases: Case[] = [
    // metadata: default DNS-1123 subdomain names
    { name: 'name not a DNS subdomain', edit: (o) => (o.metadata.name = 'Shop_Frontend'), want: [Invalid('metadata.name')] },
    { name: 'name with dots', edit: (o) => (o.metadata.name = 'shop.frontend'), want: [] },
    // rules or defaultBackend
    { name: 'no rules and no defaultBackend', edit: (o) => { delete o.spec.rules; delete o.spec.defaultBackend; }, want: [Invalid('spec')] },
    { name: 'empty rules and no defaultBackend', edit: (o) => { o.spec.rules = []; delete o.spec.defaultBackend; }, want: [Invalid('spec')] },
    { name: 'spec missing', edit: (o) => delete o.spec, want: [Invalid('spec')] },
    { name: 'spec not an object is blamed once', edit: (o) => (o.spec = 'rules'), want: [Invalid('spec')] },
    { name: 'only a defaultBackend', edit: (o) => delete o.spec.rules, want: [] },
    { name: 'only rules', edit: (o) => delete o.spec.defaultBackend, want: [] },
    // backends: exactly one of resource and service
    {
      name: 'defaultBackend with resource and service',
      edit: (o) => (o.spec.defaultBackend.resource = { kind: 'StorageBucket', name: 'b' }),
      want: [Invalid('spec.defaultBackend')],
    },
    { name: 'defaultBackend with neither', edit: (o) => (o.spec.defaultBackend = {}), want: [Required('spec.defaultBackend')] },
    { name: 'defaultBackend with a null resource and a service: the null is no resource', edit: (o) => (o.spec.defaultBackend.resource = null), want: [] },
    { name: 'defaultBackend with a resource and a null service: the null is no service', edit: (o) => (o.spec.defaultBackend = { resource: { kind: 'StorageBucket', name: 'b' }, service: null }), want: [] },
    { name: 'defaultBackend as a resource', edit: (o) => (o.spec.defaultBackend = { resource: { kind: 'StorageBucket', name: 'fallback' } }), want: [] },
    {
      name: 'path backend with resource and service',
      edit: (o) => (o.spec.rules[0].http.paths[0].backend.resource = { kind: 'StorageBucket', name: 'b' }),
      want: [Invalid(`${P0}.backend`)],
    },
    { name: 'path backend with neither', edit: (o) => (o.spec.rules[0].http.paths[0].backend = {}), want: [Required(`${P0}.backend`)] },
    { name: 'path backend missing', edit: (o) => delete o.spec.rules[0].http.paths[0].backend, want: [Required(`${P0}.backend`)] },
    { name: 'path backend not an object is blamed once', edit: (o) => (o.spec.rules[0].http.paths[0].backend = 'storefront'), want: [Invalid(`${P0}.backend`)] },
    // resource backends (TypedLocalObjectReference)
    { name: 'resource apiGroup not a DNS subdomain', edit: (o) => (o.spec.rules[1].http.paths[0].backend.resource.apiGroup = 'K8s_Example'), want: [Invalid(`${RES}.apiGroup`)] },
    { name: 'resource in the core group', edit: (o) => delete o.spec.rules[1].http.paths[0].backend.resource.apiGroup, want: [] },
    { name: 'resource kind missing', edit: (o) => delete o.spec.rules[1].http.paths[0].backend.resource.kind, want: [Required(`${RES}.kind`)] },
    { name: 'resource kind empty', edit: (o) => (o.spec.rules[1].http.paths[0].backend.resource.kind = ''), want: [Required(`${RES}.kind`)] },
    { name: 'resource kind with a slash', edit: (o) => (o.spec.rules[1].http.paths[0].backend.resource.kind = 'storage/Bucket'), want: [Invalid(`${RES}.kind`)] },
    { name: 'resource name ..', edit: (o) => (o.spec.rules[1].http.paths[0].backend.resource.name = '..'), want: [Invalid(`${RES}.name`)] },
    { name: 'resource name with %', edit: (o) => (o.spec.rules[1].http.paths[0].backend.resource.name = 'a%20b'), want: [Invalid(`${RES}.name`)] },
    { name: 'resource name missing', edit: (o) => delete o.spec.rules[1].http.paths[0].backend.resource.name, want: [Required(`${RES}.name`)] },
    { name: 'resource name with capitals and dots', edit: (o) => (o.spec.rules[1].http.paths[0].backend.resource.name = 'Static.Assets'), want: [] },
    // service backends
    { name: 'service backend not an object is blamed once', edit: (o) => (o.spec.rules[0].http.paths[0].backend.service = 'storefront'), want: [Invalid(`${P0}.backend.service`)] },
    { name: 'service name missing', edit: (o) => delete o.spec.rules[0].http.paths[0].backend.service.name, want: [Required(`${P0}.backend.service.name`)] },
    { name: 'service name starting with a digit', edit: (o) => (o.spec.rules[0].http.paths[0].backend.service.name = '1storefront'), want: [Invalid(`${P0}.backend.service.name`)] },
    { name: 'service name with a dot', edit: (o) => (o.spec.defaultBackend.service.name = 'default.backend'), want: [Invalid('spec.defaultBackend.service.name')] },
    { name: 'service name of 63', edit: (o) => (o.spec.defaultBackend.service.name = 'a'.repeat(63)), want: [] },
    { name: 'service name of 64', edit: (o) => (o.spec.defaultBackend.service.name = 'a'.repeat(64)), want: [Invalid('spec.defaultBackend.service.name')] },
    { name: 'port name and number', edit: (o) => (o.spec.rules[0].http.paths[0].backend.service.port.number = 80), want: [Invalid(`${P0}.backend.service.port`)] },
    { name: 'port with neither name nor number', edit: (o) => (o.spec.rules[0].http.paths[0].backend.service.port = {}), want: [Required(`${P0}.backend.service.port`)] },
    { name: 'port missing', edit: (o) => delete o.spec.defaultBackend.service.port, want: [Required('spec.defaultBackend.service.port')] },
    { name: 'port not an object is blamed once', edit: (o) => (o.spec.rules[0].http.paths[0].backend.service.port = 'http'), want: [Invalid(`${P0}.backend.service.port`)] },
    { name: 'port name uppercase', edit: (o) => (o.spec.rules[0].http.paths[0].backend.service.port.name = 'HTTP'), want: [Invalid(`${P0}.backend.service.port.name`)] },
    { name: 'port name with --', edit: (o) => (o.spec.rules[0].http.paths[0].backend.service.port.name = 'http--alt'), want: [Invalid(`${P0}.backend.service.port.name`)] },
    { name: 'port name without a letter', edit: (o) => (o.spec.rules[0].http.paths[0].backend.service.port.name = '8080'), want: [Invalid(`${P0}.backend.service.port.name`)] },
    { name: 'port name of 16', edit: (o) => (o.spec.rules[0].http.paths[0].backend.service.port.name = 'a'.repeat(16)), want: [Invalid(`${P0}.backend.service.port.name`)] },
    { name: 'port name of 15', edit: (o) => (o.spec.rules[0].http.paths[0].backend.service.port.name = 'a'.repeat(15)), want: [] },
    // An empty name and a number 0 are "not set", as in Kubernetes.
    { name: 'port name empty', edit: (o) => (o.spec.rules[0].http.paths[0].backend.service.port.name = ''), want: [Required(`${P0}.backend.service.port`)] },
    { name: 'port number 0', edit: (o) => (o.spec.defaultBackend.service.port.number = 0), want: [Required('spec.defaultBackend.service.port')] },
    { name: 'port number with an empty name', edit: (o) => (o.spec.defaultBackend.service.port = { name: '', number: 80 }), want: [] },
    { name: 'port name with number 0', edit: (o) => (o.spec.defaultBackend.service.port = { name: 'http', number: 0 }), want: [] },
    { name: 'port number negative', edit: (o) => (o.spec.defaultBackend.service.port.number = -1), want: [Invalid('spec.defaultBackend.service.port.number')] },
    { name: 'port name not a string is blamed once', edit: (o) => (o.spec.defaultBackend.service.port = { name: 80 }), want: [Invalid('spec.defaultBackend.service.port.name')] },
    { name: 'port number 65536', edit: (o) => (o.spec.defaultBackend.service.port.number = 65536), want: [Invalid('spec.defaultBackend.service.port.number')] },
    { name: 'port number past int32, blamed once', edit: (o) => (o.spec.defaultBackend.service.port.number = 2147483648), want: [Invalid('spec.defaultBackend.service.port.number')] },
    { name: 'port number below int32, blamed once', edit: (o) => (o.spec.defaultBackend.service.port.number = -2147483649), want: [Invalid('spec.defaultBackend.service.port.number')] },
    { name: 'port number of the largest int32 is out of the port range', edit: (o) => (o.spec.defaultBackend.service.port.number = 2147483647), want: [Invalid('spec.defaultBackend.service.port.number')] },
    { name: 'port number of the smallest int32 is out of the port range', edit: (o) => (o.spec.defaultBackend.service.port.number = -2147483648), want: [Invalid('spec.defaultBackend.service.port.number')] },
    { name: 'port number 65535', edit: (o) => (o.spec.defaultBackend.service.port.number = 65535), want: [] },
    { name: 'port number 1', edit: (o) => (o.spec.defaultBackend.service.port.number = 1), want: [] },
    { name: 'port number not a number, with a name, is blamed once', edit: (o) => (o.spec.rules[0].http.paths[0].backend.service.port.number = '80'), want: [Invalid(`${P0}.backend.service.port.number`)] },
    { name: 'port number fractional', edit: (o) => (o.spec.defaultBackend.service.port.number = 80.5), want: [Invalid('spec.defaultBackend.service.port.number')] },
    // rule hosts
    ...['10.0.0.1', '2001:db8::1', '010.000.000.001', '10.0.0.0001', '0001.2.3.4', '1.2.3.0255', '*', '*.*.example.com', 'foo.*.example.com', 'shop.example.com:443', 'Shop.example.com', 'shop.example.com.', 'shop_example.com'].map(
      (host): Case => ({ name: `host ${host}`, edit: (o) => (o.spec.rules[0].host = host), want: [Invalid('spec.rules[0].host')] }),
    ),
    // Not an address (an octet past 255), so a DNS name to Kubernetes as well.
    ...['*.example.com', 'localhost', 'a.b.c.example.com', '999.1.1.1.example.com', '256.1.1.1', '1.2.3.0256', ''].map(
      (host): Case => ({ name: `host ${JSON.stringify(host)}`, edit: (o) => (o.spec.rules[0].host = host), want: [] }),
    ),
    { name: 'host of 254 characters', edit: (o) => (o.spec.rules[0].host = `${'a'.repeat(63)}.`.repeat(4).slice(0, 254)), want: [Invalid('spec.rules[0].host')] },
    // http paths
    { name: 'paths empty', edit: (o) => (o.spec.rules[0].http.paths = []), want: [Required('spec.rules[0].http.paths')] },
    { name: 'paths missing', edit: (o) => (o.spec.rules[0].http = {}), want: [Required('spec.rules[0].http.paths')] },
    { name: 'rule without http', edit: (o) => delete o.spec.rules[0].http, want: [] },
    { name: 'pathType missing', edit: (o) => delete o.spec.rules[0].http.paths[0].pathType, want: [Required(`${P0}.pathType`)] },
    { name: 'pathType unsupported', edit: (o) => (o.spec.rules[0].http.paths[0].pathType = 'Regex'), want: [NotSupported(`${P0}.pathType`)] },
    {
      name: 'pathType unsupported, path relative: only the pathType',
      edit: (o) => { o.spec.rules[0].http.paths[0].pathType = 'Regex'; o.spec.rules[0].http.paths[0].path = 'shop'; },
      want: [NotSupported(`${P0}.pathType`)],
    },
    {
      name: 'a path not a string does not hide later mistakes',
      edit: (o) => { o.spec.rules[0].http.paths[0].path = 5; o.spec.tls[0].secretName = 'Shop_TLS'; },
      want: [Invalid(`${P0}.path`), Invalid('spec.tls[0].secretName')],
    },
    { name: 'Exact without path', edit: (o) => delete o.spec.rules[0].http.paths[1].path, want: [Required(`${P1}.path`)] },
    { name: 'Prefix with empty path', edit: (o) => (o.spec.rules[0].http.paths[0].path = ''), want: [Required(`${P0}.path`)] },
    { name: 'Prefix relative path', edit: (o) => (o.spec.rules[0].http.paths[0].path = 'shop'), want: [Invalid(`${P0}.path`)] },
    { name: 'Exact relative path', edit: (o) => (o.spec.rules[0].http.paths[1].path = 'api/v1'), want: [Invalid(`${P1}.path`)] },
    ...['/a//b', '/a/./b', '/a/../b', '/a%2fb', '/a%2Fb', '/a/..', '/a/.', '/a//b/..'].map(
      (path): Case => ({ name: `Prefix path ${path}`, edit: (o) => (o.spec.rules[0].http.paths[0].path = path), want: [Invalid(`${P0}.path`)] }),
    ),
    { name: 'Exact path /a/..', edit: (o) => (o.spec.rules[0].http.paths[1].path = '/api/..'), want: [Invalid(`${P1}.path`)] },
    ...['/.well-known/acme-challenge', '/a/...', '/a/b.c', '/a/.hidden', '/%20'].map(
      (path): Case => ({ name: `Prefix path ${path}`, edit: (o) => (o.spec.rules[0].http.paths[0].path = path), want: [] }),
    ),
    { name: 'ImplementationSpecific relative path', edit: (o) => (o.spec.rules[1].http.paths[0].path = 'static'), want: [Invalid('spec.rules[1].http.paths[0].path')] },
    { name: 'ImplementationSpecific path with //', edit: (o) => (o.spec.rules[1].http.paths[0].path = '/static//v1/..'), want: [] },
    { name: 'ImplementationSpecific empty path', edit: (o) => (o.spec.rules[1].http.paths[0].path = ''), want: [] },
    { name: 'ImplementationSpecific regex path', edit: (o) => (o.spec.rules[1].http.paths[0].path = '/static/(.*)'), want: [] },
    // tls
    { name: 'tls host uppercase', edit: (o) => (o.spec.tls[0].hosts[0] = 'Shop.example.com'), want: [Invalid('spec.tls[0].hosts[0]')] },
    { name: 'tls host bare wildcard', edit: (o) => (o.spec.tls[0].hosts[1] = '*'), want: [Invalid('spec.tls[0].hosts[1]')] },
    { name: 'tls host wildcard past the first label', edit: (o) => (o.spec.tls[0].hosts[1] = 'shop.*.example.com'), want: [Invalid('spec.tls[0].hosts[1]')] },
    { name: 'tls host empty', edit: (o) => (o.spec.tls[1].hosts[0] = ''), want: [Invalid('spec.tls[1].hosts[0]')] },
    { name: 'tls host not a string', edit: (o) => (o.spec.tls[1].hosts[0] = 443), want: [Invalid('spec.tls[1].hosts[0]')] },
    {
      name: 'a tls host not a string does not hide later mistakes',
      edit: (o) => { o.spec.tls[0].hosts[0] = 443; o.spec.tls[0].secretName = 'Shop_TLS'; },
      want: [Invalid('spec.tls[0].hosts[0]'), Invalid('spec.tls[0].secretName')],
    },
    { name: 'tls secretName not a DNS subdomain', edit: (o) => (o.spec.tls[0].secretName = 'Shop_TLS'), want: [Invalid('spec.tls[0].secretName')] },
    { name: 'tls secretName empty (SNI only)', edit: (o) => (o.spec.tls[0].secretName = ''), want: [] },
    { name: 'tls without hosts', edit: (o) => delete o.spec.tls[0].hosts, want: [] },
    // ingressClassName
    { name: 'ingressClassName uppercase', edit: (o) => (o.spec.ingressClassName = 'Nginx'), want: [Invalid('spec.ingressClassName')] },
    { name: 'ingressClassName empty', edit: (o) => (o.spec.ingressClassName = ''), want: [Invalid('spec.ingressClassName')] },
    { name: 'ingressClassName a subdomain', edit: (o) => (o.spec.ingressClassName = 'internal.nginx.example.com'), want: [] },
    // status: load balancer
    { name: 'lb ip not an IP', edit: (o) => (o.status.loadBalancer.ingress[0].ip = '203.0.113.300'), want: [Invalid(`${LB}[0].ip`)] },
    { name: 'lb ip IPv6', edit: (o) => (o.status.loadBalancer.ingress[0].ip = '2001:db8::10'), want: [] },
    { name: 'lb hostname an IP', edit: (o) => (o.status.loadBalancer.ingress[1].hostname = '203.0.113.10'), want: [Invalid(`${LB}[1].hostname`)] },
    { name: 'lb hostname uppercase', edit: (o) => (o.status.loadBalancer.ingress[1].hostname = 'LB.example.com'), want: [Invalid(`${LB}[1].hostname`)] },
    { name: 'lb port missing', edit: (o) => delete o.status.loadBalancer.ingress[0].ports[0].port, want: [Required(`${LB}[0].ports[0].port`)] },
    { name: 'lb port beyond int32', edit: (o) => (o.status.loadBalancer.ingress[0].ports[0].port = 2 ** 31), want: [Invalid(`${LB}[0].ports[0].port`)] },
    { name: 'lb protocol missing', edit: (o) => delete o.status.loadBalancer.ingress[0].ports[0].protocol, want: [Required(`${LB}[0].ports[0].protocol`)] },
    { name: 'lb protocol unsupported', edit: (o) => (o.status.loadBalancer.ingress[0].ports[0].protocol = 'HTTP'), want: [NotSupported(`${LB}[0].ports[0].protocol`)] },
    { name: 'lb protocol UDP', edit: (o) => (o.status.loadBalancer.ingress[0].ports[0].protocol = 'UDP'), want: [] },
    { name: 'lb protocol SCTP', edit: (o) => (o.status.loadBalancer.ingress[0].ports[0].protocol = 'SCTP'), want: [] },
    { name: 'lb port error not CamelCase', edit: (o) => (o.status.loadBalancer.ingress[1].ports[0].error = 'port_unreachable'), want: [Invalid(`${LB}[1].ports[0].error`)] },
    { name: 'lb port error built-in CamelCase', edit: (o) => (o.status.loadBalancer.ingress[1].ports[0].error = 'PortUnreachable'), want: [] },
    { name: 'lb port error bad domain', edit: (o) => (o.status.loadBalancer.ingress[1].ports[0].error = 'Example_com/PortUnreachable'), want: [Invalid(`${LB}[1].ports[0].error`)] },
    { name: 'lb port error too long', edit: (o) => (o.status.loadBalancer.ingress[1].ports[0].error = `A${'a'.repeat(316)}`), want: [TooLong(`${LB}[1].ports[0].error`)] },
    { name: 'lb port error of 316', edit: (o) => (o.status.loadBalancer.ingress[1].ports[0].error = `A${'a'.repeat(315)}`), want: [] },
    // status: service locations and blocked clusters
    { name: 'service location without name', edit: (o) => delete o.status.serviceLocations[0].name, want: [Required('status.serviceLocations[0].name')] },
    { name: 'service location name not DNS-1035', edit: (o) => (o.status.serviceLocations[0].name = '9storefront'), want: [Invalid('status.serviceLocations[0].name')] },
    // Neither the spec nor Karmada makes the list a map by name: a controller may list a service twice.
    { name: 'repeated service location name', edit: (o) => (o.status.serviceLocations[1].name = 'storefront'), want: [] },
    { name: 'service location clusters not strings', edit: (o) => (o.status.serviceLocations[0].clusters = [1]), want: [Invalid('status.serviceLocations[0].clusters[0]')] },
    { name: 'trafficBlockClusters not a list', edit: (o) => (o.status.trafficBlockClusters = 'member3'), want: [Invalid('status.trafficBlockClusters')] },
  ];

  it.each(cases)('$name', ({ edit, want, options }) => {
    expectCauses(changed(ingress, edit), want, options);
  });

  it('collects every cause in one pass', () => {
    const bad = changed(ingress, (o) => {
      o.spec.rules[0].host = '10.0.0.1';
      o.spec.rules[0].http.paths[0].path = 'relative';
      o.spec.rules[0].http.paths[1].backend = {};
      o.spec.tls[0].secretName = 'Bad';
      o.status.loadBalancer.ingress[0].ports[0].protocol = 'HTTP';
    });
    expectCauses(bad, [
      Invalid('spec.rules[0].host'),
      Invalid(`${P0}.path`),
      Required(`${P1}.backend`),
      Invalid('spec.tls[0].secretName'),
      NotSupported(`${LB}[0].ports[0].protocol`),
    ]);
  });

  it('reports each mistake once, with the Kubernetes wording', () => {
    const both = validate(changed(ingress, (o) => (o.spec.defaultBackend.resource = { kind: 'StorageBucket', name: 'b' })));
    expect(both.causes.map((c) => c.message)).toEqual([expect.stringContaining('cannot set both resource and service backends')]);
    const neither = validate(changed(ingress, (o) => { delete o.spec.rules; delete o.spec.defaultBackend; }));
    expect(neither.causes).toEqual([expect.objectContaining({ field: 'spec', message: 'Invalid value: null: either `defaultBackend` or `rules` must be specified' })]);
    const path = validate(changed(ingress, (o) => (o.spec.rules[0].http.paths[0].path = 'a//b/.')));
    expect(path.causes).toHaveLength(1);
    expect(path.causes[0]!.message).toBe(`Invalid value: "a//b/.": must be an absolute path; must not contain '//'; cannot end with '/.'`);
    const port = validate(changed(ingress, (o) => (o.spec.defaultBackend.service.port = { name: 'http', number: 80 })));
    expect(port.causes.map((c) => c.message)).toEqual([expect.stringContaining('cannot set both port name & port number')]);
    const ip = validate(changed(ingress, (o) => (o.spec.rules[0].host = '10.0.0.1')));
    expect(ip.causes[0]!.message).toBe('Invalid value: "10.0.0.1": must be a DNS name, not an IP address');
  });

  it('words the other path, backend and port causes', () => {
    const message = (edit: (o: any) => void) => validate(changed(ingress, edit)).causes.map((c) => c.message);
    expect(message((o) => { o.spec.rules = []; delete o.spec.defaultBackend; })).toEqual(['Invalid value: []: either `defaultBackend` or `rules` must be specified']);
    expect(message((o) => delete o.spec.rules[0].http.paths[1].path)).toEqual(["Required value: must be specified when pathType is 'Exact'"]);
    expect(message((o) => (o.spec.rules[0].http.paths[0].path = ''))).toEqual(["Required value: must be specified when pathType is 'Prefix'"]);
    expect(message((o) => (o.spec.rules[1].http.paths[0].path = 'static'))).toEqual(['Invalid value: "static": must be an absolute path']);
    expect(message((o) => (o.spec.defaultBackend = {}))).toEqual(['Required value: resource or service backend is required']);
    expect(message((o) => (o.spec.defaultBackend.service.port = {}))).toEqual(['Required value: port name or number is required']);
    // 0 is no port (the Required above), so the range a number may take starts at 1.
    expect(message((o) => (o.spec.defaultBackend.service.port.number = 65536))).toEqual(['Invalid value: 65536: must be between 1 and 65535, inclusive']);
    expect(message((o) => (o.spec.defaultBackend.service.port.number = -1))).toEqual(['Invalid value: -1: must be between 1 and 65535, inclusive']);
  });

  it('warns about the deprecated ingress-class annotation', () => {
    const annotated = (value: string, className?: string) =>
      changed(ingress, (o) => {
        o.metadata.annotations = { 'kubernetes.io/ingress.class': value };
        if (className === undefined) delete o.spec.ingressClassName;
        else o.spec.ingressClassName = className;
      });
    const deprecated = 'metadata.annotations[kubernetes.io/ingress.class]: deprecated; use spec.ingressClassName';
    expect(expectCauses(annotated('nginx'), []).warnings).toEqual([deprecated]);
    expect(expectCauses(annotated('nginx', 'nginx'), []).warnings).toEqual([deprecated]);
    expect(expectCauses(annotated('nginx', 'internal'), []).warnings).toEqual([
      deprecated,
      'metadata.annotations[kubernetes.io/ingress.class] ("nginx") differs from spec.ingressClassName ("internal"); controllers may disagree about which class serves this ingress',
    ]);
    expect(expectCauses(changed(ingress, (o) => (o.metadata.annotations = { 'example.com/owner': 'shop' })), []).warnings).toEqual([]);
    // An empty class name is invalid, not a second class to disagree with.
    expect(expectCauses(annotated('nginx', ''), [Invalid('spec.ingressClassName')]).warnings).toEqual([deprecated]);
  });

  it('allows any spec change on UPDATE (no spec field is immutable)', () => {
    const updated = changed(ingress, (o) => {
      o.spec.ingressClassName = 'internal';
      o.spec.rules.reverse();
      delete o.spec.tls;
    });
    const result = expectCauses(updated, [], { operation: 'UPDATE', oldObject: ingress });
    expect(result.warnings).toEqual([]);
    expectCauses(changed(ingress, (o) => (o.metadata.namespace = 'other')), [Invalid('metadata.namespace')], { operation: 'UPDATE', oldObject: ingress });
  });

  it('validates only metadata and status on the status subresource', () => {
    const statusWrite = changed(ingress, (o) => {
      delete o.spec.rules;
      delete o.spec.defaultBackend;
      o.metadata.annotations = { 'kubernetes.io/ingress.class': 'nginx' };
      o.status.serviceLocations.push({ name: '9checkout' });
    });
    const result = expectCauses(statusWrite, [Invalid('status.serviceLocations[2].name')], { operation: 'UPDATE', subResource: 'status', oldObject: ingress });
    expect(result.warnings).toEqual([]);
  });

  it('has no TLS port to set: only port 443 is served', () => {
    const withPort = changed(ingress, (o) => (o.spec.tls[0].port = 8443));
    expect(validate(withPort).warnings).toEqual(['unknown field "spec.tls[0].port"']);
    expectCauses(withPort, [Forbidden('spec.tls[0].port')], { strict: true });
  });
});
