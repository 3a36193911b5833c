import { describe, expect, it } from 'vitest';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { runCli } from './run-cli.js';
import { ruleModules } from '../../rules/index.js';
import { validate } from '../../src/decode/object.js';
import { examples } from '../fixtures/index.js';

// ajv-formats ships CommonJS with a default export that ESM sees one level down.
const addFormats = ((addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ?? addFormatsModule) as unknown as (
  ajv: Ajv,
) => Ajv;

type Json = Record<string, any>;

const run = (argv: string[]) => runCli(argv);

const tempDir = (prefix: string) => mkdtempSync(join(tmpdir(), prefix));
const readJson = (path: string): Json => JSON.parse(readFileSync(path, 'utf8'));

/** Every `format` a schema uses. */
function formatsOf(schema: unknown, into = new Set<string>()): Set<string> {
  if (Array.isArray(schema)) schema.forEach((s) => formatsOf(s, into));
  else if (schema && typeof schema === 'object') {
    for (const [k, v] of Object.entries(schema)) {
      if (k === 'format' && typeof v === 'string') into.add(v);
      else formatsOf(v, into);
    }
  }
  return into;
}

/** A fresh ajv as an editor-side consumer would use it: standard formats checked, fleetgate's own formats accepted as they are. */
function freshAjv(schemas: Json[]): Ajv {
  const ajv = new Ajv({ strict: false, allErrors: true });
  addFormats(ajv);
  for (const f of new Set(schemas.flatMap((s) => [...formatsOf(s)]))) if (!ajv.formats[f]) ajv.addFormat(f, true);
  return ajv;
}

const withDomain = (example: Json, domain: string): Json => ({
  ...example,
  apiVersion: String(example.apiVersion).replace('karmada.io', domain),
});

/** The example with something the schema requires broken: a required top-level field removed, or spec of the wrong type. */
function broken(example: Json, schema: Json): Json {
  const copy = structuredClone(example);
  const required = (schema.required as string[]).filter((f) => !['apiVersion', 'kind', 'metadata'].includes(f));
  if (required.length) for (const f of required) delete copy[f];
  else copy.spec = 'not an object';
  return copy;
}

describe('fleetgate schema', () => {
  it('writes one schema per kind plus index.json and all.json, each a valid draft-07 schema', async () => {
    const dir = tempDir('fleetgate-schema-');
    const { code, stdout, stderr } = await run(['schema', '--out', dir]);
    expect(code).toBe(0);
    expect(stdout).toBe('');
    expect(stderr).toContain('wrote 15 files');
    expect(stderr).toContain('# yaml-language-server: $schema=file://');

    const kindFiles = ruleModules.map((r) => `${r.kind.toLowerCase()}.json`);
    expect(kindFiles).toHaveLength(13);
    expect(readdirSync(dir).sort()).toEqual([...kindFiles, 'index.json', 'all.json'].sort());

    const ajv = freshAjv(kindFiles.map((f) => readJson(join(dir, f))));
    for (const file of [...kindFiles, 'index.json', 'all.json']) {
      const schema = readJson(join(dir, file));
      expect(schema.$schema, file).toBe('http://json-schema.org/draft-07/schema#');
      expect(ajv.validateSchema(schema), `${file}: ${ajv.errorsText(ajv.errors)}`).toBe(true);
    }
    // Strict ajv, exactly as the help and the README say to set it up: no x-kubernetes-* keyword
    // left, no other surprise, not even a logged warning.
    const warnings: unknown[] = [];
    const strict = new Ajv({ allowUnionTypes: true, validateFormats: false, logger: { log() {}, warn: (...w: unknown[]) => warnings.push(w), error: (...e: unknown[]) => warnings.push(e) } });
    strict.addKeyword('x-fleetgate-kinds');
    for (const f of kindFiles) strict.addSchema(readJson(join(dir, f)));
    expect(() => strict.compile(readJson(join(dir, 'all.json')))).not.toThrow();
    expect(() => strict.compile(readJson(join(dir, 'index.json')))).not.toThrow();
    expect(warnings).toEqual([]);
    const index = readJson(join(dir, 'index.json'));
    expect(index['x-fleetgate-kinds']).toEqual(
      ruleModules.map((r) => ({ kind: r.kind, apiVersion: `${r.group}.karmada.io/${r.version}`, file: `${r.kind.toLowerCase()}.json` })),
    );
  });

  it('per-kind schemas accept every realistic example and reject broken ones', async () => {
    const dir = tempDir('fleetgate-schema-');
    expect((await run(['schema', '--out', dir])).code).toBe(0);
    const ajv = freshAjv([readJson(join(dir, 'all.json'))]);
    const kindsSeen = new Set<string>();
    for (const example of examples as Json[]) {
      const file = join(dir, `${String(example.kind).toLowerCase()}.json`);
      const schema = readJson(file);
      const check = ajv.compile({ ...schema, $id: undefined });
      kindsSeen.add(example.kind);
      expect(check(example), `${example.kind}: ${ajv.errorsText(check.errors)}`).toBe(true);
      expect(check(broken(example, schema)), `${example.kind} broken`).toBe(false);
      expect(check({ ...example, apiVersion: 'example.com/v1' }), `${example.kind} wrong apiVersion`).toBe(false);
      expect(check({ ...example, kind: 'Deployment' }), `${example.kind} wrong kind`).toBe(false);
      expect(check({ ...example, metadata: { ...example.metadata, bogusField: 1 } }), `${example.kind} unknown field`).toBe(false);
    }
    expect(kindsSeen.size).toBe(13);
  });

  it('index.json (resolving the per-kind files) and all.json pick the schema by kind', async () => {
    const dir = tempDir('fleetgate-schema-');
    expect((await run(['schema', '--out', dir])).code).toBe(0);
    const kindFiles = ruleModules.map((r) => `${r.kind.toLowerCase()}.json`);
    const perKind = kindFiles.map((f) => readJson(join(dir, f)));
    const index = readJson(join(dir, 'index.json'));
    const bundle = readJson(join(dir, 'all.json'));

    const ajv = freshAjv(perKind);
    for (const schema of perKind) ajv.addSchema(schema);
    const viaIndex = ajv.compile(index);
    const viaBundle = freshAjv([bundle]).compile(bundle);

    for (const check of [viaIndex, viaBundle]) {
      for (const example of examples as Json[]) {
        expect(check(example), `${example.kind}: ${JSON.stringify(check.errors)}`).toBe(true);
        expect(check(broken(example, readJson(join(dir, `${String(example.kind).toLowerCase()}.json`)))), `${example.kind} broken`).toBe(false);
      }
      expect(check({ apiVersion: 'cluster.karmada.io/v1alpha1', kind: 'Nope', metadata: { name: 'x' } })).toBe(false);
      expect(check({ apiVersion: 'cluster.karmada.io/v1alpha1', metadata: { name: 'x' } })).toBe(false);
      // The error of a Cluster points into the Cluster schema only.
      const cluster = structuredClone((examples as Json[]).find((e) => e.kind === 'Cluster')!);
      cluster.spec.syncMode = 'Sideways';
      expect(check(cluster)).toBe(false);
      expect(check.errors!.some((e) => e.instancePath === '/spec/syncMode' && e.keyword === 'enum')).toBe(true);
    }
  });

  it('is the very schema the library enforces: only $schema, $id, title, description and the apiVersion/kind pins are added, x-kubernetes-* left out', async () => {
    const before = ruleModules.map((r) => JSON.stringify(r.schema));
    const dir = tempDir('fleetgate-schema-');
    expect((await run(['schema', '--out', dir])).code).toBe(0);
    for (const r of ruleModules) {
      const { $schema, $id, title, description, ...body } = readJson(join(dir, `${r.kind.toLowerCase()}.json`));
      expect([$schema, $id, typeof title, typeof description]).toEqual([
        'http://json-schema.org/draft-07/schema#',
        `${r.kind.toLowerCase()}.json`,
        'string',
        'string',
      ]);
      const library = JSON.parse(JSON.stringify(r.schema), (key, value: unknown) => (key.startsWith('x-kubernetes-') ? undefined : value));
      expect(JSON.stringify(body)).not.toContain('x-kubernetes-');
      expect(body.properties.apiVersion).toMatchObject({ ...library.properties.apiVersion, const: `${r.group}.karmada.io/${r.version}` });
      expect(body.properties.kind).toMatchObject({ ...library.properties.kind, const: r.kind });
      delete body.properties.apiVersion;
      delete body.properties.kind;
      delete library.properties.apiVersion;
      delete library.properties.kind;
      expect(body, r.kind).toEqual(library);
    }
    // The library's schema objects were not mutated, and it still validates as before.
    expect(ruleModules.map((r) => JSON.stringify(r.schema))).toEqual(before);
    for (const example of examples) expect(validate(example).allowed).toBe(true);
  });

  it('--group-domain changes the pinned apiVersion', async () => {
    const dir = tempDir('fleetgate-schema-');
    expect((await run(['schema', '--out', dir, '--group-domain', 'example.org'])).code).toBe(0);
    const cluster = readJson(join(dir, 'cluster.json'));
    expect(cluster.properties.apiVersion.const).toBe('cluster.example.org/v1alpha1');
    expect(readJson(join(dir, 'index.json'))['x-fleetgate-kinds']).toContainEqual({ kind: 'Cluster', apiVersion: 'cluster.example.org/v1alpha1', file: 'cluster.json' });

    const ajv = freshAjv([readJson(join(dir, 'all.json'))]);
    const bundle = ajv.compile(readJson(join(dir, 'all.json')));
    for (const example of examples as Json[]) {
      expect(bundle(example), `${example.kind} under karmada.io`).toBe(false);
      expect(bundle(withDomain(example, 'example.org')), `${example.kind} under example.org`).toBe(true);
    }
  });

  it('without --out prints the self-contained all.json on stdout', async () => {
    const { code, stdout, stderr } = await run(['schema']);
    expect(code).toBe(0);
    expect(stderr).toBe('');
    const bundle = JSON.parse(stdout);
    expect(Object.keys(bundle.definitions)).toEqual(ruleModules.map((r) => r.kind));
    const dir = tempDir('fleetgate-schema-');
    await run(['schema', '--out', dir]);
    expect(bundle).toEqual(readJson(join(dir, 'all.json')));
    const check = freshAjv([bundle]).compile(bundle);
    for (const example of examples) expect(check(example)).toBe(true);
  });

  it('help documents the modeline and the VS Code setting', async () => {
    for (const argv of [['schema', '--help'], ['--help', 'schema']]) {
      const { code, stdout } = await run(argv);
      expect(code).toBe(0);
      expect(stdout).toContain('# yaml-language-server: $schema=');
      expect(stdout).toContain('"yaml.schemas"');
      expect(stdout).toContain('Examples:');
    }
    expect((await run(['--help'])).stdout).toMatch(/fleetgate schema\s+write the JSON Schemas/);
  });

  it('usage and I/O errors exit 2', async () => {
    expect((await run(['schema', '--bogus'])).code).toBe(2);
    expect((await run(['schema', 'extra'])).code).toBe(2);
    expect((await run(['schema', '--out'])).code).toBe(2);
    expect((await run(['schema', '--group-domain', 'Not_A_Domain'])).code).toBe(2);
    const file = join(tempDir('fleetgate-schema-'), 'a-file');
    writeFileSync(file, 'x');
    const { code, stderr } = await run(['schema', '--out', file]);
    expect(code).toBe(2);
    expect(stderr).toContain('cannot write');
  });
});
