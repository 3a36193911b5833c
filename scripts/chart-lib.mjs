// Shared by scripts/chart-generate.mjs and test/chart/chart.test.ts (types in chart-lib.d.mts):
// the generated chart data (files/kinds.yaml, the kind enum of values.schema.json, deploy/*.yaml)
// and the Go renderer that renders the chart without helm (test/chart/render/main.go).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildGoProgram, goUnavailable } from './go-lib.mjs';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const CHART_DIR = join(ROOT, 'charts', 'fleetgate');
export const KINDS_FILE = join(CHART_DIR, 'files', 'kinds.yaml');
export const SCHEMA_FILE = join(CHART_DIR, 'values.schema.json');
export const RENDERER_SOURCE = join(ROOT, 'test', 'chart', 'render', 'main.go');
/** Debian packages the renderer builds from (installed by .ci/run). */
export const DEBIAN_PACKAGES = ['golang-go', 'golang-github-masterminds-sprig-dev', 'golang-github-ghodss-yaml-dev'];

/** The plain manifests for users without Helm: rendered from the chart with these values. */
export const DEPLOY_TARGETS = [
  { file: 'deploy/fleetgate.yaml', values: 'deploy/values-cert-manager.yaml', what: 'cert-manager issues the certificate' },
  { file: 'deploy/fleetgate-user-certs.yaml', values: 'deploy/values-user-certs.yaml', what: 'your own certificate in Secret fleetgate-tls; replace CA_BUNDLE' },
];
/**
 * Karmada's usual setup, karmada-apiserver outside the hosting cluster: two files, as they go to two API
 * servers (the workload to the hosting cluster, the webhook configurations in url mode to karmada-apiserver).
 */
export const DEPLOY_URL_TARGETS = [
  { file: 'deploy/fleetgate-url.yaml', values: ['deploy/values-url.yaml'], what: 'for the hosting cluster: the workload, with Secrets fleetgate-tls and karmada-kubeconfig' },
  {
    file: 'deploy/fleetgate-url-webhooks.yaml',
    values: ['deploy/values-url.yaml', 'deploy/values-url-webhooks.yaml'],
    showOnly: ['templates/webhookconfigurations.yaml'],
    what: 'for karmada-apiserver: the webhook configurations in url mode; replace CA_BUNDLE',
  },
];
export const DEPLOY_RELEASE = { name: 'fleetgate', namespace: 'karmada-system', releaseService: 'kubectl' };

/**
 * files/kinds.yaml from the registry (`kindsFor(domain)` of rules/index.ts). Groups are stored without
 * the domain: the templates append `.Values.groupDomain`.
 * @param {readonly import('./chart-lib.d.mts').KindInfoLike[]} kinds
 * @param {string} domain the domain `kinds` was made for
 */
export function kindsYaml(kinds, domain) {
  const lines = [
    '# Generated from the registry (rules/index.ts, kindsFor()) by `npm run chart:generate`. Do not edit:',
    '# test/chart/chart.test.ts fails when this file and the registry disagree.',
    '# group is the API group without the domain; the templates append .Values.groupDomain.',
    'kinds:',
  ];
  for (const k of kinds) {
    const suffix = `.${domain}`;
    if (!k.group.endsWith(suffix)) throw new Error(`${k.kind}: group ${k.group} does not end with ${suffix}`);
    lines.push(
      `  - kind: ${k.kind}`,
      `    group: ${k.group.slice(0, -suffix.length)}`,
      `    version: ${k.version}`,
      `    plural: ${k.plural}`,
      `    scope: ${k.scope}`,
      `    statusSubresource: ${k.statusSubresource}`,
      `    mutating: ${k.mutating}`,
      `    mutatingOperations: [${k.mutatingOperations.join(', ')}]`,
      `    paths:`,
      `      validate: ${k.webhookPaths.validate}`,
      `      mutate: ${k.webhookPaths.mutate}`,
    );
  }
  return `${lines.join('\n')}\n`;
}

/** values.schema.json with `webhooks.kinds` keys limited to the registry's kinds. */
export function schemaWithKinds(schemaText, kindNames) {
  const schema = JSON.parse(schemaText);
  const kinds = schema?.properties?.webhooks?.properties?.kinds;
  if (!kinds?.propertyNames) throw new Error('values.schema.json: properties.webhooks.properties.kinds.propertyNames is missing');
  kinds.propertyNames.enum = [...kindNames];
  return `${JSON.stringify(schema, null, 2)}\n`;
}

/** Why the renderer cannot be built on this machine, or undefined when it can. */
export function rendererUnavailable() {
  return goUnavailable(['github.com/Masterminds/sprig', 'github.com/ghodss/yaml', 'gopkg.in/yaml.v2'], DEBIAN_PACKAGES);
}

/** Compiles test/chart/render/main.go (cached per source and Go version); returns the binary's path. */
export function buildRenderer() {
  return buildGoProgram(RENDERER_SOURCE, 'chart-render', ROOT);
}

/**
 * Renders the chart like `helm template`. `values` are override files (paths) or objects (written to a
 * temporary JSON file, which is YAML). Never throws for a failed render: look at `status` and `stderr`.
 * @param {string} binary from buildRenderer()
 * @param {import('./chart-lib.d.mts').RenderOptions} [options]
 */
export function renderChart(binary, options = {}) {
  const tmp = mkdtempSync(join(tmpdir(), 'fleetgate-chart-values-'));
  try {
    const args = ['--chart', options.chartDir ?? CHART_DIR, '--name', options.name ?? 'fleetgate',
      '--namespace', options.namespace ?? 'fleetgate-system', '--dump-values', join(tmp, 'coalesced.json')];
    if (options.strict !== false) args.push('--strict');
    if (options.releaseService) args.push('--release-service', options.releaseService);
    if (options.notes) args.push('--notes');
    for (const s of options.showOnly ?? []) args.push('--show-only', s);
    (options.values ?? []).forEach((v, i) => {
      let file = v;
      if (typeof v !== 'string') {
        file = join(tmp, `values-${i}.json`);
        writeFileSync(file, JSON.stringify(v));
      }
      args.push('-f', file);
    });
    const out = spawnSync(binary, args, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
    if (out.error) throw out.error;
    const coalesced = existsSync(join(tmp, 'coalesced.json')) ? JSON.parse(readFileSync(join(tmp, 'coalesced.json'), 'utf8')) : undefined;
    return { status: out.status ?? 1, stdout: out.stdout, stderr: out.stderr, values: coalesced };
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

/** The text of one deploy/ file, rendered from the chart (deterministic: no generated certificates). */
export function renderDeployFile(binary, target) {
  const values = typeof target.values === 'string' ? [target.values] : target.values;
  const out = renderChart(binary, {
    name: DEPLOY_RELEASE.name,
    namespace: DEPLOY_RELEASE.namespace,
    releaseService: DEPLOY_RELEASE.releaseService,
    values: values.map((file) => join(ROOT, file)),
    showOnly: target.showOnly,
  });
  if (out.status !== 0) throw new Error(`rendering ${target.file} failed:\n${out.stderr}`);
  return [
    `# Generated by \`npm run chart:generate\` from charts/fleetgate with ${values.join(' and ')}; do not edit.`,
    `# Plain manifests for installs without Helm (${target.what}).`,
    `# Namespace ${DEPLOY_RELEASE.namespace}; see charts/fleetgate/README.md.`,
    out.stdout,
  ].join('\n');
}
