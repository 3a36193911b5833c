// Types for chart-lib.mjs (imported by test/chart/chart.test.ts).
export interface KindInfoLike {
  kind: string;
  group: string;
  version: string;
  plural: string;
  scope: string;
  statusSubresource: boolean;
  mutating: boolean;
  mutatingOperations: readonly string[];
  webhookPaths: { validate: string; mutate: string };
}
export interface RenderOptions {
  chartDir?: string;
  name?: string;
  namespace?: string;
  releaseService?: string;
  /** missingkey=error, as `helm lint --strict`; default true */
  strict?: boolean;
  notes?: boolean;
  showOnly?: string[];
  /** override values files (paths) or objects, later ones win */
  values?: Array<string | Record<string, unknown>>;
}
export interface RenderResult {
  status: number;
  stdout: string;
  stderr: string;
  /** the coalesced values the templates saw */
  values: Record<string, unknown> | undefined;
}
export interface DeployTarget {
  file: string;
  /** values files, later ones win */
  values: string | readonly string[];
  /** render only these templates, as `helm template --show-only` */
  showOnly?: string[];
  what: string;
}
export const ROOT: string;
export const CHART_DIR: string;
export const KINDS_FILE: string;
export const SCHEMA_FILE: string;
export const RENDERER_SOURCE: string;
export const DEBIAN_PACKAGES: readonly string[];
export const DEPLOY_TARGETS: readonly DeployTarget[];
export const DEPLOY_URL_TARGETS: readonly DeployTarget[];
export const DEPLOY_RELEASE: { name: string; namespace: string; releaseService: string };
export function kindsYaml(kinds: readonly KindInfoLike[], domain: string): string;
export function schemaWithKinds(schemaText: string, kindNames: readonly string[]): string;
export function rendererUnavailable(): string | undefined;
export function buildRenderer(): string;
export function renderChart(binary: string, options?: RenderOptions): RenderResult;
export function renderDeployFile(binary: string, target: DeployTarget): string;
