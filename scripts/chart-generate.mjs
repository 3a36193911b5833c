#!/usr/bin/env node
// `npm run chart:generate` (builds first): regenerates from the registry in dist/rules/index.js
//   charts/fleetgate/files/kinds.yaml            per-kind webhook data the templates read
//   charts/fleetgate/values.schema.json          the enum of kinds allowed under webhooks.kinds
//   deploy/*.yaml                                plain manifests rendered from the chart (needs Go, see below)
// test/chart/chart.test.ts fails when any of them is stale.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEFAULT_GROUP_DOMAIN, kindsFor } from '../dist/rules/index.js';
import {
  DEBIAN_PACKAGES, DEPLOY_TARGETS, DEPLOY_URL_TARGETS, KINDS_FILE, ROOT, SCHEMA_FILE,
  buildRenderer, kindsYaml, renderDeployFile, rendererUnavailable, schemaWithKinds,
} from './chart-lib.mjs';

const kinds = kindsFor(DEFAULT_GROUP_DOMAIN);
const update = (file, text) => {
  const before = (() => { try { return readFileSync(file, 'utf8'); } catch { return undefined; } })();
  if (before === text) return console.log(`unchanged ${file.slice(ROOT.length)}`);
  writeFileSync(file, text);
  console.log(`wrote     ${file.slice(ROOT.length)}`);
};
update(KINDS_FILE, kindsYaml(kinds, DEFAULT_GROUP_DOMAIN));
update(SCHEMA_FILE, schemaWithKinds(readFileSync(SCHEMA_FILE, 'utf8'), kinds.map((k) => k.kind)));

const why = rendererUnavailable();
if (why) {
  console.error(`cannot render deploy/*.yaml: ${why}\n(apt-get install -y --no-install-recommends ${DEBIAN_PACKAGES.join(' ')})`);
  process.exit(1);
}
const binary = buildRenderer();
for (const target of [...DEPLOY_TARGETS, ...DEPLOY_URL_TARGETS]) update(join(ROOT, target.file), renderDeployFile(binary, target));
