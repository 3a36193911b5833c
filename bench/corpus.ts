/**
 * The benchmark corpus: every example of test/fixtures, and for each kind two
 * typical mistakes (a bad name, and a kind-specific rule broken).
 */
import { examples } from '../test/fixtures/index.js';

type Obj = Record<string, any>;

/** One representative broken rule per kind. */
const breakRule: Record<string, (o: Obj) => void> = {
  ResourceInterpreterWebhookConfiguration: (o) => (o.webhooks[0].timeoutSeconds = 60),
  ResourceInterpreterCustomization: (o) => (o.spec.customizations.retention.luaScript = 'function Retain(desiredObj, observedObj'),
  MultiClusterIngress: (o) => { delete o.spec.defaultBackend; o.spec.rules = []; },
  MultiClusterService: (o) => (o.spec.types = ['CrossCluster', 'LoadBalancer']),
  ResourceRegistry: (o) => (o.spec.resourceSelectors = []),
  Work: (o) => (o.spec.workload.manifests[0].kind = ''),
  ClusterResourceBinding: (o) => delete o.spec.resource.name,
  Cluster: (o) => (o.spec.taints[0].effect = 'Foo'),
  CronFederatedHPA: (o) => (o.spec.rules[0].schedule = '0 0 L * *'),
  ClusterTaintPolicy: (o) => (o.spec.taints[0].effect = 'Foo'),
  FederatedResourceQuota: (o) => (o.spec.overall.cpu = '-1'),
  WorkloadRebalancer: (o) => (o.spec.workloads = []),
  Remedy: (o) => (o.spec.decisionMatches[0].clusterConditionMatch.operator = 'Foo'),
};

const copy = <T>(o: T): T => structuredClone(o);

export function corpus(): unknown[] {
  const objects: unknown[] = [];
  for (const example of examples) {
    objects.push(copy(example));
    const badName = copy(example) as Obj;
    badName.metadata.name = 'Bad_Name!';
    objects.push(badName);
    const broken = copy(example) as Obj;
    breakRule[broken.kind as string]!(broken);
    objects.push(broken);
  }
  return objects;
}
