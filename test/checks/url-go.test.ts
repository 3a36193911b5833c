/**
 * URLs against Go's net/url, which the control plane's components parse them with
 * (test/checks/gostdlib/main.go, built with Debian's Go). Two comparisons over url-corpus.ts:
 *  - parseGoURL() gives Go's verdict, scheme, host and error for every URL;
 *  - the four URL fields (Cluster apiEndpoint and proxyURL, the interpreter webhook url,
 *    ResourceRegistry addresses) never accept a URL Karmada's check refuses, and refuse one it
 *    accepts only for a reason of the spec's that Karmada does not check (listed below).
 * Without Go this is skipped with the reason in its title (CI sets FLEETGATE_GO_TESTS_REQUIRED=1
 * so it fails instead).
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseGoURL } from '../../src/checks/go-url.js';
import { validate } from '../../src/decode/object.js';
import { askGoProgram, buildGoProgram, goUnavailable } from '../../scripts/go-lib.mjs';
import { cluster } from '../fixtures/cluster.js';
import { config } from '../fixtures/resourceinterpreterwebhookconfiguration.js';
import { registry } from '../fixtures/resourceregistry.js';
import { changed } from '../helpers.js';
import { urlCorpus } from './url-corpus.js';
import { goReference } from '../go-reference.js';

const SOURCE = fileURLToPath(new URL('./gostdlib/main.go', import.meta.url));
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const reference = goReference('test/checks/url-go', "URLs agree with Go's net/url", goUnavailable([], ['golang-go']));

const FIELDS = ['apiEndpoint', 'proxyURL', 'webhookURL', 'address'] as const;
type Field = (typeof FIELDS)[number];
interface GoVerdicts {
  parse: string;
  fields: Record<Field, string>;
}

function goVerdicts(urls: readonly string[]): GoVerdicts[] {
  reference.assertAvailable();
  const lines = askGoProgram(buildGoProgram(SOURCE, 'go-stdlib', ROOT), urls, ['-mode', 'url']);
  return lines.map((line) => {
    const [parse = '', ...verdicts] = line.split('\t');
    return { parse, fields: Object.fromEntries(FIELDS.map((f, i) => [f, verdicts[i] ?? ''])) as Record<Field, string> };
  });
}

/** fleetgate's causes for `url` in each field, through validate() on a realistic object. */
function fleetgateProblems(url: string): Record<Field, string[]> {
  const messages = (object: Record<string, unknown>, field: string) =>
    validate(object).causes.filter((c) => c.field === field).map((c) => c.message);
  return {
    apiEndpoint: messages(changed(cluster, (o) => (o.spec.apiEndpoint = url)), 'spec.apiEndpoint'),
    proxyURL: messages(changed(cluster, (o) => (o.spec.proxyURL = url)), 'spec.proxyURL'),
    webhookURL: messages(changed(config, (o) => (o.webhooks[0].clientConfig.url = url)), 'webhooks[0].clientConfig.url'),
    address: messages(changed(registry, (o) => (o.spec.backendStore.openSearch.addresses = [url])), 'spec.backendStore.openSearch.addresses[0]'),
  };
}

/**
 * Where fleetgate is stricter than Karmada, and why: the spec's own rules, which Karmada does not
 * check. A refusal of a URL Karmada accepts must say one of these.
 */
const STRICTER_BY_SPEC: Record<Field, RegExp[]> = {
  // "hostname, hostname:port, IP or IP:port"; the bare forms are the spec's, the URL forms Karmada's.
  apiEndpoint: [/must be between 1 and 65535/, /is neither a DNS name nor an IP address/],
  proxyURL: [],
  // Errors #1: an https URL to a host outside the cluster.
  webhookURL: [/must be between 1 and 65535/, /is neither a DNS name nor an IP address/, /refers to an in-cluster service/],
  address: [],
};

/**
 * Where Karmada's check does not apply: it checks non-empty values only, and the spec's bare
 * `host[:port]` endpoints, which Go does not parse as URLs with a host, are the spec's to judge
 * (test/rules/cluster.test.ts has them).
 */
const judgedBySpec = (field: Field, raw: string): boolean => raw === '' || (field === 'apiEndpoint' && !raw.includes('//'));

describe.skipIf(reference.skip)(reference.title, () => {
  const corpus = urlCorpus();

  it('parseGoURL gives Go\'s verdict, scheme, host and error message for every URL of the corpus', () => {
    const go = goVerdicts(corpus);
    const disagreements = corpus.flatMap((raw, i) => {
      const ours = parseGoURL(raw);
      const theirs = go[i]!.parse;
      const mine = ours.error !== undefined ? `err ${ours.error}` : `ok ${ours.url.scheme} ${ours.url.host}`;
      const same = theirs.startsWith('err ')
        ? ours.error !== undefined && (!/^[\x20-\x7e]*$/.test(theirs) || theirs.endsWith(`: ${ours.error}`))
        : ours.error === undefined && (raw.includes('%') ? theirs.startsWith(`ok ${ours.url.scheme} `) : theirs === mine);
      return same ? [] : [`${JSON.stringify(raw)}: Go ${theirs}; port ${mine}`];
    });
    expect(corpus.length).toBeGreaterThan(4000);
    expect(disagreements).toEqual([]);
  });

  it('the URL fields never accept what Karmada refuses, and refuse more only for the spec\'s reasons', () => {
    const go = goVerdicts(corpus);
    const disagreements: string[] = [];
    corpus.forEach((raw, i) => {
      const ours = fleetgateProblems(raw);
      for (const field of FIELDS) {
        if (judgedBySpec(field, raw)) continue;
        const karmadaAccepts = go[i]!.fields[field] === 'ok';
        const problems = ours[field];
        if (!karmadaAccepts && problems.length === 0) disagreements.push(`${field} ${JSON.stringify(raw)}: Karmada ${go[i]!.fields[field]}; fleetgate accepts`);
        if (karmadaAccepts && problems.length > 0 && !problems.every((p) => STRICTER_BY_SPEC[field].some((re) => re.test(p)))) {
          disagreements.push(`${field} ${JSON.stringify(raw)}: Karmada accepts; fleetgate ${problems.join(' | ')}`);
        }
      }
    });
    expect(disagreements).toEqual([]);
  });
});
