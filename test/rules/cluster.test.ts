import { describe, expect, it } from 'vitest';
import { validate, applyDefaults } from '../../src/index.js';
import { defaultResourceModels } from '../../rules/cluster.js';
import { changed, expectCauses, Duplicate, Forbidden, Invalid, NotSupported, Required, TooLong, type Case } from '../helpers.js';

import { cluster } from '../fixtures/cluster.js';

describe('Cluster', () => {
  it('accepts a realistic cluster with taints, zones and resource models', () => {
    const result = expectCauses(cluster, []);
    expect(result.warnings).toEqual([]);
  });

  const cases: Case[] = [
    // metadata
    { name: 'name longer than 48', edit: (o) => (o.metadata.name = 'a'.repeat(49)), want: [Invalid('metadata.name')] },
    { name: 'name of exactly 48', edit: (o) => (o.metadata.name = 'a'.repeat(48)), want: [] },
    { name: 'name not a DNS label', edit: (o) => (o.metadata.name = 'member.one'), want: [Invalid('metadata.name')] },
    { name: 'name missing', edit: (o) => delete o.metadata.name, want: [Required('metadata.name')] },
    { name: 'generateName prefix ending in a dash', edit: (o) => { delete o.metadata.name; o.metadata.generateName = 'member-'; }, want: [] },
    // The API server appends 5 random characters, and the name that makes may have 48 at most.
    { name: 'generateName of 43 characters', edit: (o) => { delete o.metadata.name; o.metadata.generateName = `${'m'.repeat(42)}-`; }, want: [] },
    { name: 'generateName of 44 characters: every name made from it is too long', edit: (o) => { delete o.metadata.name; o.metadata.generateName = `${'m'.repeat(43)}-`; }, want: [Invalid('metadata.generateName')] },
    { name: 'generateName of 48 characters, reported once', edit: (o) => { delete o.metadata.name; o.metadata.generateName = 'm'.repeat(48); }, want: [Invalid('metadata.generateName')] },
    { name: 'generateName of 49 characters with the dash, which the name check masks to 48', edit: (o) => { delete o.metadata.name; o.metadata.generateName = `${'m'.repeat(48)}-`; }, want: [Invalid('metadata.generateName')] },
    { name: 'generateName of 50 characters with the dash, reported once', edit: (o) => { delete o.metadata.name; o.metadata.generateName = `${'m'.repeat(49)}-`; }, want: [Invalid('metadata.generateName')] },
    { name: 'generateName of 49 characters, reported once', edit: (o) => { delete o.metadata.name; o.metadata.generateName = 'm'.repeat(49); }, want: [Invalid('metadata.generateName')] },
    { name: 'a long generateName beside a name, which the API server uses instead', edit: (o) => (o.metadata.generateName = 'm'.repeat(46)), want: [] },
    // An empty name is no name: the API server names the cluster from generateName.
    { name: 'a generateName of 44 characters beside an empty name', edit: (o) => { o.metadata.name = ''; o.metadata.generateName = `${'m'.repeat(43)}-`; }, want: [Invalid('metadata.generateName')] },
    { name: 'a generateName of 43 characters beside an empty name', edit: (o) => { o.metadata.name = ''; o.metadata.generateName = `${'m'.repeat(42)}-`; }, want: [] },
    { name: 'bad label key', edit: (o) => (o.metadata.labels = { 'bad key': 'x' }), want: [Invalid('metadata.labels')] },
    { name: 'bad label value', edit: (o) => (o.metadata.labels = { ok: 'not ok!' }), want: [Invalid('metadata.labels[ok]')] },
    // syncMode
    { name: 'syncMode missing', edit: (o) => delete o.spec.syncMode, want: [Required('spec.syncMode')] },
    { name: 'syncMode unsupported', edit: (o) => (o.spec.syncMode = 'Both'), want: [NotSupported('spec.syncMode')] },
    { name: 'syncMode Pull', edit: (o) => (o.spec.syncMode = 'Pull'), want: [] },
    { name: 'syncMode empty is missing', edit: (o) => (o.spec.syncMode = ''), want: [Required('spec.syncMode')] },
    { name: 'syncMode not a string is blamed once', edit: (o) => (o.spec.syncMode = 5), want: [Invalid('spec.syncMode')] },
    { name: 'spec missing', edit: (o) => delete o.spec, want: [Required('spec')] },
    // apiEndpoint: the spec's forms and URLs
    ...['member1.example.com', 'member1.example.com:6443', '10.0.0.1', '10.0.0.1:6443', 'fd00::1', '2001:db8::1', '[fd00::1]:6443', 'https://member1.example.com',
      'https://member1.example.com/k8s/a b', '1.member1.example.com', 'member1.example.com.1a',
      // Go's url.Parse (Karmada's check) takes these: a scheme-relative URL, escapes, an IPv6 zone, an empty query or fragment
      '//member1.example.com:6443', 'https://member1.example.com:6443/%41', 'https://[fe80::1%25eth0]:6443', 'https://MEMBER1.example.com.:6443',
      'https://10.0.0.1:6443?', 'https://10.0.0.1:6443#'].map(
      (endpoint): Case => ({ name: `apiEndpoint ${endpoint}`, edit: (o) => (o.spec.apiEndpoint = endpoint), want: [] }),
    ),
    ...['https://user:pw@10.0.0.1:6443', 'https://10.0.0.1:6443/#frag', 'https://10.0.0.1:6443/?q=1', 'not a host', '10.0.0.1:70000', 'fd00::1::2', 'https://',
      // What WHATWG's URL parser repairs and Go's url.Parse refuses: control characters, surrounding spaces, `\` in the host.
      'https://10.0.\n0.1:6443', 'https://10.0.0.1:6443\n', ' https://10.0.0.1:6443', 'https://10.0.0.1:6443 ', 'https://10.0.0.1\\k8s', 'https://member 1.example.com',
      // Empty user information is user information to Go.
      'https://@10.0.0.1:6443', 'https://:@10.0.0.1:6443',
      // Dotted numbers that are not an address are no host name either (RFC 1123 2.1).
      '10.0.0.256', '10.0.0.256:6443', '999.999.999.999', '6443',
      // Go's url.Parse refuses these, which WHATWG's `new URL()` repairs or takes
      'https://10.0.0.1:6443/%zz', 'https://member{1}.example.com', 'https://u%zz@10.0.0.1', 'https://[::1',
      // Go takes these, the spec's hostname, IP and port do not
      'https://10.0.0.256:6443', 'https://127.1:6443', 'https://member<1>.example.com', 'https://member_1.example.com', 'https://10.0.0.1:70000', 'https://[]:6443',
      // A colon without a port is none of the spec's forms.
      'member1.example.com:', '[fd00::1]:'].map(
      (endpoint): Case => ({ name: `apiEndpoint ${endpoint}`, edit: (o) => (o.spec.apiEndpoint = endpoint), want: [Invalid('spec.apiEndpoint')] }),
    ),
    { name: 'apiEndpoint empty is unset', edit: (o) => (o.spec.apiEndpoint = ''), want: [] },
    // secrets
    { name: 'secretRef without namespace', edit: (o) => delete o.spec.secretRef.namespace, want: [Required('spec.secretRef.namespace')] },
    { name: 'impersonatorSecretRef with empty name', edit: (o) => (o.spec.impersonatorSecretRef.name = ''), want: [Required('spec.impersonatorSecretRef.name')] },
    { name: 'secretRef without name', edit: (o) => delete o.spec.secretRef.name, want: [Required('spec.secretRef.name')] },
    { name: 'impersonatorSecretRef without namespace', edit: (o) => delete o.spec.impersonatorSecretRef.namespace, want: [Required('spec.impersonatorSecretRef.namespace')] },
    { name: 'no secret references', edit: (o) => { delete o.spec.secretRef; delete o.spec.impersonatorSecretRef; }, want: [] },
    // proxy
    { name: 'proxyURL with ftp scheme', edit: (o) => (o.spec.proxyURL = 'ftp://proxy:21'), want: [Invalid('spec.proxyURL')] },
    { name: 'proxyURL not a URL', edit: (o) => (o.spec.proxyURL = 'proxy'), want: [Invalid('spec.proxyURL')] },
    ...['http://proxy.internal:3128\n', 'http://proxy.\tinternal:3128', ' http://proxy.internal:3128', 'http://proxy\\internal:3128'].map(
      (proxy): Case => ({ name: `proxyURL ${JSON.stringify(proxy)}`, edit: (o) => (o.spec.proxyURL = proxy), want: [Invalid('spec.proxyURL')] }),
    ),
    { name: 'proxyURL with credentials', edit: (o) => (o.spec.proxyURL = 'http://user:pw@proxy.internal:3128'), want: [] },
    // Karmada checks Go's parse and the scheme, nothing of the host
    ...['socks5://proxy.internal:99999', 'http://[fd00::1]:3128', 'https:proxy.internal'].map(
      (proxy): Case => ({ name: `proxyURL ${JSON.stringify(proxy)}`, edit: (o) => (o.spec.proxyURL = proxy), want: [] }),
    ),
    ...['http://proxy%zz:3128', 'http://u p@proxy.internal:3128', 'http://proxy.internal:3128/%', 'socks4://proxy.internal:1080'].map(
      (proxy): Case => ({ name: `proxyURL ${JSON.stringify(proxy)}`, edit: (o) => (o.spec.proxyURL = proxy), want: [Invalid('spec.proxyURL')] }),
    ),
    { name: 'proxyURL empty is unset', edit: (o) => (o.spec.proxyURL = ''), want: [] },
    { name: 'proxyHeader value not a string', edit: (o) => (o.spec.proxyHeader = { a: 1 }), want: [Invalid('spec.proxyHeader[a]')] },
    // topology
    { name: 'provider not a label value', edit: (o) => (o.spec.provider = 'aws cloud'), want: [Invalid('spec.provider')] },
    { name: 'region not a label value', edit: (o) => (o.spec.region = '-eu'), want: [Invalid('spec.region')] },
    { name: 'zone with zones', edit: (o) => (o.spec.zone = 'eu-central-1a'), want: [Forbidden('spec.zone')] },
    { name: 'empty zone with zones', edit: (o) => (o.spec.zone = ''), want: [] },
    { name: 'zone alone', edit: (o) => { o.spec.zone = 'eu-central-1a'; delete o.spec.zones; }, want: [] },
    { name: 'zone not a label value', edit: (o) => { o.spec.zone = 'eu central'; delete o.spec.zones; }, want: [Invalid('spec.zone')] },
    { name: 'zones entry not a label value', edit: (o) => (o.spec.zones = ['ok', 'not ok']), want: [Invalid('spec.zones[1]')] },
    { name: 'duplicate zones are allowed (a warning says so)', edit: (o) => (o.spec.zones = ['a', 'a']), want: [] },
    { name: 'id too long', edit: (o) => (o.spec.id = 'x'.repeat(128001)), want: [TooLong('spec.id')] },
    // taints
    { name: 'taint effect unsupported', edit: (o) => (o.spec.taints[0].effect = 'Foo'), want: [NotSupported('spec.taints[0].effect')] },
    { name: 'taint without effect', edit: (o) => delete o.spec.taints[0].effect, want: [Required('spec.taints[0].effect')] },
    { name: 'taint with empty effect', edit: (o) => (o.spec.taints[0].effect = ''), want: [Required('spec.taints[0].effect')] },
    { name: 'taint without key', edit: (o) => delete o.spec.taints[0].key, want: [Required('spec.taints[0].key')] },
    { name: 'taint key not qualified', edit: (o) => (o.spec.taints[0].key = 'a/b/c'), want: [Invalid('spec.taints[0].key')] },
    { name: 'taint value not a label value', edit: (o) => (o.spec.taints[0].value = 'no way'), want: [Invalid('spec.taints[0].value')] },
    { name: 'taint timeAdded not a time', edit: (o) => (o.spec.taints[1].timeAdded = 'yesterday'), want: [Invalid('spec.taints[1].timeAdded')] },
    {
      name: 'duplicate taint key and effect',
      edit: (o) => o.spec.taints.push({ key: 'maintenance', effect: 'NoExecute' }),
      want: [Duplicate('spec.taints[3]')],
    },
    { name: 'same key, other effect', edit: (o) => o.spec.taints.push({ key: 'maintenance', effect: 'NoSchedule' }), want: [] },
    // resource models
    { name: 'max equal to min', edit: (o) => (o.spec.resourceModels[0].ranges[0].max = '0'), want: [Invalid('spec.resourceModels[0].ranges[0].max'), Invalid('spec.resourceModels[1].ranges[0].min')] },
    { name: 'max below min', edit: (o) => (o.spec.resourceModels[2].ranges[0].max = '1'), want: [Invalid('spec.resourceModels[2].ranges[0].max')] },
    { name: 'last grade max must still exceed min', edit: (o) => (o.spec.resourceModels[2].ranges[1].max = '16Gi'), want: [Invalid('spec.resourceModels[2].ranges[1].max')] },
    { name: 'gap between grades', edit: (o) => (o.spec.resourceModels[1].ranges[1].min = '5Gi'), want: [Invalid('spec.resourceModels[1].ranges[1].min')] },
    { name: 'equal by value, different spelling', edit: (o) => (o.spec.resourceModels[2].ranges[0].min = '2000m'), want: [] },
    { name: 'first grade min need not be 0', edit: (o) => (o.spec.resourceModels[0].ranges[0].min = '100m'), want: [] },
    // The first grade's min acts as zero whatever it says (spec rule 2): its max is compared with 0.
    { name: 'first grade min may be negative: it acts as zero', edit: (o) => (o.spec.resourceModels[0].ranges[0].min = '-1'), want: [] },
    { name: 'first grade min above its max: it acts as zero', edit: (o) => (o.spec.resourceModels[0].ranges[0].min = '5'), want: [] },
    {
      name: 'first grade max of 0 is not above its min, which acts as zero',
      edit: (o) => { o.spec.resourceModels[0].ranges[0].min = '-1'; o.spec.resourceModels[0].ranges[0].max = '0'; o.spec.resourceModels[1].ranges[0].min = '0'; },
      want: [Invalid('spec.resourceModels[0].ranges[0].max')],
    },
    {
      name: 'the grade after the first meets its max, not its min',
      edit: (o) => { o.spec.resourceModels[0].ranges[1].min = '5Gi'; o.spec.resourceModels[1].ranges[1].min = '5Gi'; },
      want: [Invalid('spec.resourceModels[1].ranges[1].min')],
    },
    { name: 'a single grade is first and last: its min acts as zero', edit: (o) => (o.spec.resourceModels = [{ grade: 0, ranges: [{ name: 'cpu', min: '5', max: '2' }] }]), want: [] },
    { name: 'a single grade still needs a max above zero', edit: (o) => (o.spec.resourceModels = [{ grade: 0, ranges: [{ name: 'cpu', min: '5', max: '0' }] }]), want: [Invalid('spec.resourceModels[0].ranges[0].max')] },
    { name: 'a single grade with a negative max', edit: (o) => (o.spec.resourceModels = [{ grade: 0, ranges: [{ name: 'cpu', min: '-5', max: '-1' }] }]), want: [Invalid('spec.resourceModels[0].ranges[0].max')] },
    { name: 'first grade listed last: its min still acts as zero', edit: (o) => { o.spec.resourceModels.reverse(); o.spec.resourceModels[2].ranges[0].min = '-1'; }, want: [] },
    { name: 'the model listed first is not the first grade: its min is its own', edit: (o) => { o.spec.resourceModels.reverse(); o.spec.resourceModels[0].ranges[0].max = '1'; }, want: [Invalid('spec.resourceModels[0].ranges[0].max')] },
    {
      name: 'later grades keep their own min: a negative one is refused',
      edit: (o) => { o.spec.resourceModels[0].ranges[0].max = '-1'; o.spec.resourceModels[1].ranges[0].min = '-1'; },
      want: [Invalid('spec.resourceModels[0].ranges[0].max'), Invalid('spec.resourceModels[1].ranges[0].min')],
    },
    {
      name: 'a repeated first grade: the min of each of its models acts as zero',
      edit: (o) => o.spec.resourceModels.push({ grade: 0, ranges: [{ name: 'cpu', min: '5', max: '1' }, { name: 'memory', min: '-1', max: '4Gi' }] }),
      want: [Duplicate('spec.resourceModels[3].grade')],
    },
    {
      name: 'a repeated later grade keeps its own min',
      edit: (o) => o.spec.resourceModels.push({ grade: 1, ranges: [{ name: 'cpu', min: '-1', max: '2' }, { name: 'memory', min: '4Gi', max: '16Gi' }] }),
      want: [Duplicate('spec.resourceModels[3].grade'), Invalid('spec.resourceModels[3].ranges[0].min')],
    },
    // A model whose grade the schema refuses cannot be placed: whether its min acts as zero is unknown, so its bounds wait for the grade.
    {
      name: 'a model without a grade may be the first: its min is not blamed',
      edit: (o) => { delete o.spec.resourceModels[0].grade; o.spec.resourceModels[0].ranges[0].min = '-1'; },
      want: [Required('spec.resourceModels[0].grade')],
    },
    {
      name: 'a model above a known lower grade is not the first, even when another grade is missing',
      edit: (o) => { delete o.spec.resourceModels[1].grade; o.spec.resourceModels[2].ranges[0].max = '1'; },
      want: [Required('spec.resourceModels[1].grade'), Invalid('spec.resourceModels[2].ranges[0].max')],
    },
    { name: 'unsorted grades still contiguous', edit: (o) => o.spec.resourceModels.reverse(), want: [] },
    { name: 'duplicate grade', edit: (o) => (o.spec.resourceModels[2].grade = 1), want: [Duplicate('spec.resourceModels[2].grade')] },
    // grade is an int32 (the spec); Karmada's uint refuses negative ones.
    { name: 'negative grade', edit: (o) => (o.spec.resourceModels[0].grade = -1), want: [] },
    { name: 'grades -1, 0, 1: -1 is the first grade, its min acts as zero', edit: (o) => { o.spec.resourceModels.forEach((m: any, i: number) => (m.grade = i - 1)); o.spec.resourceModels[0].ranges[0].min = '-3'; }, want: [] },
    { name: 'negative grades listed in reverse', edit: (o) => o.spec.resourceModels.reverse().forEach((m: any, i: number) => (m.grade = 1 - i)), want: [] },
    { name: 'grade of the smallest int32', edit: (o) => (o.spec.resourceModels[0].grade = -2147483648), want: [] },
    {
      name: 'the smallest int32 grade is the first grade: its max must exceed zero',
      edit: (o) => (o.spec.resourceModels = [{ grade: -2147483648, ranges: [{ name: 'cpu', min: '5', max: '0' }] }]),
      want: [Invalid('spec.resourceModels[0].ranges[0].max')],
    },
    {
      name: 'a negative grade sorts first',
      edit: (o) => (o.spec.resourceModels[2].grade = -1),
      want: [Invalid('spec.resourceModels[0].ranges[0].min'), Invalid('spec.resourceModels[0].ranges[1].min')],
    },
    {
      name: 'grade 0 after negative grades is not the first: its min is its own',
      edit: (o) => { o.spec.resourceModels.forEach((m: any, i: number) => (m.grade = i - 2)); o.spec.resourceModels[2].ranges[0].max = '1'; },
      want: [Invalid('spec.resourceModels[2].ranges[0].max')],
    },
    { name: 'grade missing: its neighbours are not blamed for a gap', edit: (o) => delete o.spec.resourceModels[1].grade, want: [Required('spec.resourceModels[1].grade')] },
    { name: 'grade not an integer: one cause', edit: (o) => (o.spec.resourceModels[1].grade = '1'), want: [Invalid('spec.resourceModels[1].grade')] },
    { name: 'grades need not start at 0 or be consecutive', edit: (o) => o.spec.resourceModels.forEach((m: any, i: number) => (m.grade = 3 + 2 * i)), want: [] },
    { name: 'range name empty is missing', edit: (o) => (o.spec.resourceModels[0].ranges[0].name = ''), want: [Required('spec.resourceModels[0].ranges[0].name')] },
    { name: 'quantities in nano units compare by value', edit: (o) => (o.spec.resourceModels[1].ranges[0].min = '1000000000n'), want: [] },
    { name: 'range name outside the four', edit: (o) => (o.spec.resourceModels[0].ranges[0].name = 'nvidia.com/gpu'), want: [NotSupported('spec.resourceModels[0].ranges[0].name')] },
    { name: 'storage is one of the four', edit: (o) => o.spec.resourceModels.forEach((m: any, i: number) => m.ranges.push({ name: 'storage', min: String(i * 100), max: i === 2 ? '1Pi' : String((i + 1) * 100) })), want: [] },
    { name: 'duplicate range name', edit: (o) => o.spec.resourceModels[0].ranges.push({ name: 'cpu', min: '0', max: '1' }), want: [Duplicate('spec.resourceModels[0].ranges[2].name')] },
    { name: 'grades model different resources', edit: (o) => o.spec.resourceModels[1].ranges.pop(), want: [Invalid('spec.resourceModels[1].ranges')] },
    { name: 'min not a quantity', edit: (o) => (o.spec.resourceModels[0].ranges[1].max = '4 GB'), want: [Invalid('spec.resourceModels[0].ranges[1].max')] },
    { name: 'range without max', edit: (o) => delete o.spec.resourceModels[0].ranges[0].max, want: [Required('spec.resourceModels[0].ranges[0].max')] },
    { name: 'range without min', edit: (o) => delete o.spec.resourceModels[0].ranges[0].min, want: [Required('spec.resourceModels[0].ranges[0].min')] },
    {
      name: 'later grade min not a quantity: reported once, and the grades after it are still checked',
      edit: (o) => { o.spec.resourceModels[1].ranges[0].min = 'lots'; o.spec.resourceModels[2].ranges[1].min = '32Gi'; },
      want: [Invalid('spec.resourceModels[1].ranges[0].min'), Invalid('spec.resourceModels[2].ranges[1].min')],
    },
    // A grade the schema refuses is not also blamed for the intervals it would break.
    { name: 'grade below int32, reported once', edit: (o) => (o.spec.resourceModels[1].grade = -2147483649), want: [Invalid('spec.resourceModels[1].grade')] },
    { name: 'negative fractional grade, reported once', edit: (o) => (o.spec.resourceModels[1].grade = -0.5), want: [Invalid('spec.resourceModels[1].grade')] },
    { name: 'fractional grade, reported once', edit: (o) => (o.spec.resourceModels[1].grade = 1.5), want: [Invalid('spec.resourceModels[1].grade')] },
    {
      name: 'fractional grade: the grades around it are not blamed for a gap across it',
      edit: (o) => { o.spec.resourceModels[1].grade = 1.5; o.spec.resourceModels[2].ranges[0].min = '3'; },
      want: [Invalid('spec.resourceModels[1].grade')],
    },
    { name: 'fractional grade out of order, reported once', edit: (o) => (o.spec.resourceModels[1].grade = 5.5), want: [Invalid('spec.resourceModels[1].grade')] },
    { name: 'grade past int32, reported once', edit: (o) => (o.spec.resourceModels[1].grade = 2147483648), want: [Invalid('spec.resourceModels[1].grade')] },
    { name: 'grade of the largest int32', edit: (o) => (o.spec.resourceModels[2].grade = 2147483647), want: [] },
    {
      name: 'grade of the largest int32 is checked for gaps',
      edit: (o) => { o.spec.resourceModels[2].grade = 2147483647; o.spec.resourceModels[2].ranges[0].min = '3'; },
      want: [Invalid('spec.resourceModels[2].ranges[0].min')],
    },
    {
      name: 'range without max: the other grades are still checked',
      edit: (o) => { delete o.spec.resourceModels[0].ranges[0].max; o.spec.resourceModels[2].ranges[0].max = '1'; },
      want: [Required('spec.resourceModels[0].ranges[0].max'), Invalid('spec.resourceModels[2].ranges[0].max')],
    },
    {
      name: 'duplicate grade is not also blamed for a gap',
      edit: (o) => o.spec.resourceModels.push({ grade: 2, ranges: [{ name: 'cpu', min: '8', max: '16' }, { name: 'memory', min: '32Gi', max: '64Gi' }] }),
      want: [Duplicate('spec.resourceModels[3].grade')],
    },
    {
      name: 'duplicate grade listed first is not blamed for a gap either',
      edit: (o) => o.spec.resourceModels.splice(2, 0, { grade: 2, ranges: [{ name: 'cpu', min: '8', max: '16' }, { name: 'memory', min: '32Gi', max: '64Gi' }] }),
      want: [Duplicate('spec.resourceModels[3].grade')],
    },
    { name: 'duplicate of a lower grade: its neighbour is not blamed for a gap', edit: (o) => (o.spec.resourceModels[2].grade = 0), want: [Duplicate('spec.resourceModels[2].grade')] },
    { name: 'grade missing its first resource is not also blamed for order', edit: (o) => o.spec.resourceModels[1].ranges.shift(), want: [Invalid('spec.resourceModels[1].ranges')] },
    {
      name: 'lowest grade short a resource: the order is the next full grade\'s',
      edit: (o) => { o.spec.resourceModels[0].ranges.pop(); o.spec.resourceModels[2].ranges.reverse(); },
      want: [Invalid('spec.resourceModels[0].ranges'), Invalid('spec.resourceModels[2].ranges[0].name')],
    },
    {
      name: 'grade with an unsupported range name is not also blamed for order',
      edit: (o) => { o.spec.resourceModels[1].ranges.reverse(); o.spec.resourceModels[1].ranges.unshift({ name: 'nvidia.com/gpu', min: '0', max: '1' }); },
      want: [NotSupported('spec.resourceModels[1].ranges[0].name')],
    },
    {
      name: 'ranges in another order than the other grades',
      edit: (o) => o.spec.resourceModels[1].ranges.reverse(),
      want: [Invalid('spec.resourceModels[1].ranges[0].name')],
    },
    { name: 'model without ranges', edit: (o) => (o.spec.resourceModels[0].ranges = []), want: [Required('spec.resourceModels[0].ranges')] },
    // status
    { name: 'condition status unsupported', edit: (o) => (o.status.conditions[0].status = 'Yes'), want: [NotSupported('status.conditions[0].status')] },
    { name: 'condition type not CamelCase', edit: (o) => (o.status.conditions[0].type = 'ready_now'), want: [Invalid('status.conditions[0].type')] },
    { name: 'condition type with domain', edit: (o) => (o.status.conditions[0].type = 'example.com/NetworkReady'), want: [] },
    { name: 'condition reason empty', edit: (o) => (o.status.conditions[0].reason = ''), want: [Required('status.conditions[0].reason')] },
    { name: 'condition reason not CamelCase', edit: (o) => (o.status.conditions[0].reason = 'cluster ready'), want: [Invalid('status.conditions[0].reason')] },
    { name: 'condition message may be empty', edit: (o) => (o.status.conditions[0].message = ''), want: [] },
    { name: 'condition message required', edit: (o) => delete o.status.conditions[0].message, want: [Required('status.conditions[0].message')] },
    { name: 'condition without lastTransitionTime', edit: (o) => delete o.status.conditions[0].lastTransitionTime, want: [Required('status.conditions[0].lastTransitionTime')] },
    { name: 'condition negative observedGeneration', edit: (o) => (o.status.conditions[0].observedGeneration = -1), want: [Invalid('status.conditions[0].observedGeneration')] },
    { name: 'duplicate condition type', edit: (o) => o.status.conditions.push({ ...o.status.conditions[0] }), want: [Duplicate('status.conditions[1].type')] },
    { name: 'apiEnablement without groupVersion', edit: (o) => delete o.status.apiEnablements[0].groupVersion, want: [Required('status.apiEnablements[0].groupVersion')] },
    { name: 'apiEnablements listed per groupVersion', edit: (o) => o.status.apiEnablements.push({ groupVersion: 'apps/v1', resources: [] }), want: [Duplicate('status.apiEnablements[1].groupVersion')] },
    { name: 'apiEnablements of several groupVersions', edit: (o) => o.status.apiEnablements.push({ groupVersion: 'v1', resources: [{ kind: 'Pod', name: 'pods' }] }), want: [] },
    { name: 'resource without plural name', edit: (o) => delete o.status.apiEnablements[0].resources[0].name, want: [Required('status.apiEnablements[0].resources[0].name')] },
    { name: 'resource without kind', edit: (o) => delete o.status.apiEnablements[0].resources[0].kind, want: [Required('status.apiEnablements[0].resources[0].kind')] },
    { name: 'allocatable not a quantity', edit: (o) => (o.status.resourceSummary.allocatable.cpu = 'lots'), want: [Invalid('status.resourceSummary.allocatable[cpu]')] },
    { name: 'modeling without count', edit: (o) => delete o.status.resourceSummary.allocatableModelings[0].count, want: [Required('status.resourceSummary.allocatableModelings[0].count')] },
    { name: 'modeling without grade', edit: (o) => delete o.status.resourceSummary.allocatableModelings[0].grade, want: [Required('status.resourceSummary.allocatableModelings[0].grade')] },
    { name: 'modeling of a negative grade', edit: (o) => (o.status.resourceSummary.allocatableModelings[0].grade = -1), want: [] },
    { name: 'modeling of the smallest int32 grade', edit: (o) => (o.status.resourceSummary.allocatableModelings[0].grade = -2147483648), want: [] },
    { name: 'modeling grade below int32', edit: (o) => (o.status.resourceSummary.allocatableModelings[0].grade = -2147483649), want: [Invalid('status.resourceSummary.allocatableModelings[0].grade')] },
    { name: 'modeling grade past int32', edit: (o) => (o.status.resourceSummary.allocatableModelings[0].grade = 2147483648), want: [Invalid('status.resourceSummary.allocatableModelings[0].grade')] },
    { name: 'modeling grade not an integer', edit: (o) => (o.status.resourceSummary.allocatableModelings[0].grade = -1.5), want: [Invalid('status.resourceSummary.allocatableModelings[0].grade')] },
    { name: 'modeling negative count', edit: (o) => (o.status.resourceSummary.allocatableModelings[0].count = -1), want: [Invalid('status.resourceSummary.allocatableModelings[0].count')] },
    { name: 'nodeSummary not int32', edit: (o) => (o.status.nodeSummary.totalNum = 1.5), want: [Invalid('status.nodeSummary.totalNum')] },
  ];

  it.each(cases)('$name', ({ edit, want, options }) => {
    expectCauses(changed(cluster, edit), want, options);
  });

  it('collects every cause in one pass', () => {
    const bad = changed(cluster, (o) => {
      o.metadata.name = 'Bad_Name';
      o.spec.syncMode = 'Sideways';
      o.spec.taints[0].effect = 'Foo';
      o.spec.resourceModels[0].ranges[0].max = '0';
    });
    const result = validate(bad);
    expect(result.causes.map((c) => c.field)).toEqual(
      expect.arrayContaining(['metadata.name', 'spec.syncMode', 'spec.taints[0].effect', 'spec.resourceModels[0].ranges[0].max']),
    );
  });

  it('says why a generateName of 44 to 48 characters is too long', () => {
    const generated = changed(cluster, (o) => { delete o.metadata.name; o.metadata.generateName = 'm'.repeat(44); });
    expect(validate(generated).causes.map((c) => c.message)).toEqual([
      `Invalid value: "${'m'.repeat(44)}": must be no more than 43 characters: the API server appends 5 random characters, and a cluster name may have 48`,
    ]);
  });

  it('warns about the deprecated zone field', () => {
    const result = validate(changed(cluster, (o) => { o.spec.zone = 'z1'; delete o.spec.zones; }));
    expect(result.allowed).toBe(true);
    expect(result.warnings).toEqual([expect.stringContaining('spec.zone is deprecated')]);
  });

  it('warns about a zone listed twice, which neither the spec nor Karmada forbids', () => {
    const result = validate(changed(cluster, (o) => (o.spec.zones = ['eu-1a', 'eu-1b', 'eu-1a', 'eu-1a'])));
    expect(result.allowed).toBe(true);
    expect(result.warnings).toEqual([
      'spec.zones[2]: zone "eu-1a" is already listed at spec.zones[0]',
      'spec.zones[3]: zone "eu-1a" is already listed at spec.zones[0]',
    ]);
    expect(validate(cluster).warnings).toEqual([]);
  });

  it('looks for a repeated zone in one pass over the list', () => {
    // Looking each zone up in the list before it took 21 s for 80,000 zones; this takes milliseconds. (The test timeout is the guard.)
    const zones = Array.from({ length: 300_000 }, (_, i) => `zone-${i}`);
    const result = validate(changed(cluster, (o) => (o.spec.zones = [...zones, 'zone-7'])));
    expect(result.allowed).toBe(true);
    expect(result.warnings).toEqual(['spec.zones[300000]: zone "zone-7" is already listed at spec.zones[7]']);
  });

  it('does not warn about an empty zone', () => {
    expect(validate(changed(cluster, (o) => (o.spec.zone = ''))).warnings).toEqual([]);
    expect(validate(changed(cluster, (o) => (o.spec.zones = ['', '']))).warnings).toEqual([]);
  });

  it('does not warn when an UPDATE sets the cluster id for the first time', () => {
    for (const stored of [changed(cluster, (o) => delete o.spec.id), changed(cluster, (o) => (o.spec.id = ''))]) {
      expect(validate(cluster, { operation: 'UPDATE', oldObject: stored }).warnings).toEqual([]);
    }
  });

  it('keeps a proxyURL as stored on UPDATE, and refuses it when the write sets it', () => {
    const stored = changed(cluster, (o) => (o.spec.proxyURL = 'ftp://proxy:21'));
    const result = validate(changed(stored, (o) => o.spec.taints.pop()), { operation: 'UPDATE', oldObject: stored });
    expect(result.causes).toEqual([]);
    expect(result.warnings).toEqual([
      'spec.proxyURL: Invalid value: "ftp://proxy:21": unsupported scheme "ftp", must be http, https, or socks5 (as stored: this update does not change it, so it is not refused)',
    ]);
    expectCauses(stored, [Invalid('spec.proxyURL')], { operation: 'UPDATE', oldObject: cluster });
  });

  const messages: { name: string; edit: (o: any) => void; field: string; message: string }[] = [
    {
      name: 'URL without a host',
      edit: (o) => (o.spec.apiEndpoint = 'https://'),
      field: 'spec.apiEndpoint',
      message: 'Invalid value: "https://": host must be provided; desired format: hostname, hostname:port, IP or IP:port',
    },
    {
      name: 'zone with zones',
      edit: (o) => (o.spec.zone = 'eu-central-1a'),
      field: 'spec.zone',
      message: 'Forbidden: may not be set together with spec.zones; zone is deprecated, use zones only',
    },
    {
      name: 'first grade max not above zero',
      edit: (o) => (o.spec.resourceModels = [{ grade: 0, ranges: [{ name: 'cpu', min: '5', max: '0' }] }]),
      field: 'spec.resourceModels[0].ranges[0].max',
      message: 'Invalid value: "0": must be greater than 0: the min of the first grade (grade 0) acts as zero, and ranges are half-open [min, max)',
    },
    {
      name: 'first grade max not above zero, a negative grade',
      edit: (o) => (o.spec.resourceModels = [{ grade: -3, ranges: [{ name: 'memory', min: '1Gi', max: '-1Gi' }] }]),
      field: 'spec.resourceModels[0].ranges[0].max',
      message: 'Invalid value: "-1Gi": must be greater than 0: the min of the first grade (grade -3) acts as zero, and ranges are half-open [min, max)',
    },
    {
      name: 'max below min',
      edit: (o) => (o.spec.resourceModels[2].ranges[0].max = '1'),
      field: 'spec.resourceModels[2].ranges[0].max',
      message: 'Invalid value: "1": must be greater than min (2): ranges are half-open [min, max)',
    },
    {
      name: 'gap between grades',
      edit: (o) => (o.spec.resourceModels[1].ranges[1].min = '5Gi'),
      field: 'spec.resourceModels[1].ranges[1].min',
      message: 'Invalid value: "5Gi": must equal the max of memory in grade 0 (4Gi) so the grades form one continuous interval',
    },
    {
      name: 'ranges in another order',
      edit: (o) => o.spec.resourceModels[1].ranges.reverse(),
      field: 'spec.resourceModels[1].ranges[0].name',
      message: 'Invalid value: "memory": must be cpu: every grade lists its resources in the same order as grade 0 (cpu, memory)',
    },
    {
      name: 'grades model different resources',
      edit: (o) => {
        o.spec.resourceModels[0].ranges.unshift({ name: 'storage', min: '0', max: '100' });
        o.spec.resourceModels[2].ranges.unshift({ name: 'storage', min: '100', max: '1Pi' });
        o.spec.resourceModels[1].ranges.pop();
      },
      field: 'spec.resourceModels[1].ranges',
      message: 'Invalid value: ["cpu"]: every grade must model the same resources (cpu, memory, storage); missing memory, storage',
    },
  ];

  it.each(messages)('says why: $name', ({ edit, field, message }) => {
    const result = validate(changed(cluster, edit));
    expect(result.causes.map((c) => [c.field, c.message])).toEqual([[field, message]]);
  });

  it('says why: negative min in a later grade', () => {
    // A later grade's min is the max of the grade before, so a negative one always breaks a range there too.
    const result = validate(changed(cluster, (o) => { o.spec.resourceModels[0].ranges[0].max = '-1'; o.spec.resourceModels[1].ranges[0].min = '-1'; }));
    expect(result.causes.map((c) => [c.field, c.message])).toEqual([
      ['spec.resourceModels[0].ranges[0].max', 'Invalid value: "-1": must be greater than 0: the min of the first grade (grade 0) acts as zero, and ranges are half-open [min, max)'],
      ['spec.resourceModels[1].ranges[0].min', 'Invalid value: "-1": must be greater than or equal to 0'],
    ]);
  });

  it('warns when the cluster id changes on UPDATE and checks immutable metadata', () => {
    const updated = changed(cluster, (o) => (o.spec.id = 'another'));
    const result = validate(updated, { operation: 'UPDATE', oldObject: cluster });
    expect(result.allowed).toBe(true);
    expect(result.warnings).toEqual([expect.stringContaining('spec.id changed')]);
    expectCauses(changed(cluster, (o) => (o.metadata.name = 'member2')), [Invalid('metadata.name')], { operation: 'UPDATE', oldObject: cluster });
  });

  it('reports unknown fields as warnings, or as errors when strict', () => {
    const extra = changed(cluster, (o) => (o.spec.replicas = 3));
    expect(validate(extra).warnings).toEqual(['unknown field "spec.replicas"']);
    expectCauses(extra, [Forbidden('spec.replicas')], { strict: true });
  });

  it('validates only metadata and status on the status subresource', () => {
    const statusWrite = changed(cluster, (o) => {
      o.spec.syncMode = 'Legacy';
      o.status.conditions[0].status = 'Maybe';
    });
    expectCauses(statusWrite, [NotSupported('status.conditions[0].status')], { operation: 'UPDATE', subResource: 'status', oldObject: cluster });
  });

  it('checks apiVersion against the group domain', () => {
    expectCauses(cluster, [NotSupported('apiVersion')], { groupDomain: 'example.org' });
    expectCauses(changed(cluster, (o) => (o.apiVersion = 'cluster.example.org/v1alpha1')), [], { groupDomain: 'example.org' });
  });
});

describe('Cluster defaults', () => {
  const now = new Date('2026-11-22T12:00:00.123Z');
  const bare = changed(cluster, (o) => {
    delete o.spec.resourceModels;
    o.spec.taints = [{ key: 'a', effect: 'NoExecute' }, { key: 'b', effect: 'NoSchedule' }, { key: 'c', effect: 'NoExecute', timeAdded: '2026-01-01T00:00:00Z' }];
  });

  it('writes the spec default models (grades 0–8) and timeAdded on NoExecute taints only', () => {
    const before = structuredClone(bare);
    const { object, patch } = applyDefaults(bare, { now });
    expect(bare).toEqual(before);
    const spec = (object as typeof cluster).spec as any;
    expect(spec.resourceModels).toEqual(defaultResourceModels());
    expect(spec.taints[0].timeAdded).toBe('2026-11-22T12:00:00Z');
    expect(spec.taints[1].timeAdded).toBeUndefined();
    expect(spec.taints[2].timeAdded).toBe('2026-01-01T00:00:00Z');
    expect(patch).toEqual(
      expect.arrayContaining([
        { op: 'add', path: '/spec/resourceModels', value: defaultResourceModels() },
        { op: 'add', path: '/spec/taints/0/timeAdded', value: '2026-11-22T12:00:00Z' },
      ]),
    );
    expect(patch).toHaveLength(2);
    expectCauses(object, []);
  });

  it('follows the spec formula for every default grade', () => {
    const models = defaultResourceModels();
    expect(models.map((m) => m.grade)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8]);
    expect(models[0]!.ranges).toEqual([{ name: 'cpu', min: '0', max: '1' }, { name: 'memory', min: '0', max: '4Gi' }]);
    expect(models[1]!.ranges).toEqual([{ name: 'cpu', min: '1', max: '2' }, { name: 'memory', min: '4Gi', max: '16Gi' }]);
    for (let g = 2; g <= 7; g++) {
      expect(models[g]!.ranges).toEqual([
        { name: 'cpu', min: String(2 ** (g - 1)), max: String(2 ** g) },
        { name: 'memory', min: `${2 ** (g + 2)}Gi`.replace('1024Gi', '1Ti'), max: `${2 ** (g + 3)}Gi`.replace('1024Gi', '1Ti') },
      ]);
    }
    expect(models[8]!.ranges[0]).toEqual({ name: 'cpu', min: '128', max: '9223372036854775807' });
    expect(models[8]!.ranges[1]).toEqual({ name: 'memory', min: '1Ti', max: '9223372036854775807' });
  });

  it('replaces an empty list of models with the defaults', () => {
    const { object, patch } = applyDefaults(changed(bare, (o) => { o.spec.resourceModels = []; o.spec.taints = []; }), { now });
    expect(patch).toEqual([{ op: 'replace', path: '/spec/resourceModels', value: defaultResourceModels() }]);
    expectCauses(object, []);
  });

  it('writes no defaults into a malformed spec, nor on a status write', () => {
    expect(applyDefaults(changed(bare, (o) => (o.spec = [])), { now }).patch).toEqual([]);
    expect(applyDefaults(bare, { now, operation: 'UPDATE', subResource: 'status' }).patch).toEqual([]);
  });

  it('leaves given models alone and skips creation-only defaults on UPDATE', () => {
    expect(applyDefaults(cluster, { now }).patch).toEqual([]);
    const { patch } = applyDefaults(changed(bare, (o) => (o.spec.taints = [])), { now, operation: 'UPDATE' });
    expect(patch).toEqual([]);
  });

  it('stamps timeAdded on a NoExecute taint added by an UPDATE, and the result validates clean', () => {
    const { object, patch } = applyDefaults(bare, { now, operation: 'UPDATE' });
    expect(patch).toEqual([{ op: 'add', path: '/spec/taints/0/timeAdded', value: '2026-11-22T12:00:00Z' }]);
    expectCauses(object, [], { operation: 'UPDATE', oldObject: cluster });
  });
});
