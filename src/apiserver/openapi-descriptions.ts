/**
 * What `kubectl explain` prints for the kinds and their fields: the resource API spec's words,
 * since the library's schemas carry no descriptions. Paths are dotted, arrays and map values
 * transparent (`spec.taints.effect`). A field without an entry of its kind gets the shared entry
 * for the longest matching path suffix (`conditions.status`), or none.
 */

/** The kinds' descriptions: the spec's table of roles. */
export const KIND_DESCRIPTIONS: Readonly<Record<string, string>> = {
  ResourceInterpreterWebhookConfiguration:
    'Registers external webhooks that tell the service the details of resource objects, especially custom resources.',
  ResourceInterpreterCustomization:
    'Holds Lua rules the service uses to interpret one resource type. These rules take precedence over the default interpreter and over interpreter webhooks.',
  MultiClusterIngress: 'Inbound routing rules (same structure as a single-cluster ingress) applied across clusters.',
  MultiClusterService:
    'Named abstraction of a service that exists in several clusters; controls exposure and cross-cluster discovery. A service with the same name in different clusters counts as one service and maps to one MultiClusterService; the MultiClusterService name equals the service name.',
  ResourceRegistry: 'Defines which resources in which clusters are cached, and where cached items are stored.',
  Work: 'A list of manifests to deploy on one member cluster, with per-manifest status.',
  ClusterResourceBinding: 'Binding of a cluster-scoped resource to a cluster-wide propagation policy.',
  Cluster: 'A member cluster: connection, identity, topology, taints, resource models, and observed status.',
  CronFederatedHPA:
    'Repeating schedules that scale the replica count (or the min/max replica bounds of a federated autoscaler) of a target.',
  ClusterTaintPolicy: 'Adds or removes taints on Cluster objects according to cluster conditions.',
  FederatedResourceQuota: 'Aggregate quota per namespace across all clusters, with optional per-cluster static assignments.',
  WorkloadRebalancer: 'A job that forces a rebalance (reschedule) of listed workloads.',
  Remedy: 'Cluster-level actions triggered by cluster conditions.',
};

const API_VERSION =
  'APIVersion defines the versioned schema of this representation of an object. Servers should convert recognized schemas to the latest internal value, and may reject unrecognized values.';
const KIND = 'Kind is a string value representing the REST resource this object represents. In CamelCase.';
const METADATA = "Standard object's metadata.";

/** The envelope's fields, at the root only. */
const ROOT: Readonly<Record<string, string>> = { apiVersion: API_VERSION, kind: KIND, metadata: METADATA };

/** Shared by every kind, matched on the path's end. */
const SHARED: Readonly<Record<string, string>> = {
  'conditions.type': 'Type of the condition: CamelCase, or <domain>/CamelCase.',
  'conditions.status': 'Status of the condition: True, False or Unknown.',
  'conditions.lastTransitionTime': 'Time the status last changed; if unknown, the time the API field changed.',
  'conditions.reason': 'Programmatic CamelCase identifier of the reason for the last transition; must not be empty.',
  'conditions.message': 'Human-readable message about the transition; may be empty.',
  'conditions.observedGeneration':
    'The .metadata.generation the condition was computed from; a lower value than the current generation means the condition is out of date.',
  conditions: 'Current conditions.',
  'clusterAffinity.clusterNames': 'Clusters to select.',
  'clusterAffinity.exclude': 'Clusters to ignore.',
  'clusterAffinity.fieldSelector':
    'Selects clusters by field: matchExpressions whose key is provider, region or zone and whose operator is In or NotIn. If non-empty, only matching clusters are selected.',
  'clusterAffinity.labelSelector': 'If non-empty, only clusters matching the labels are selected.',
  'targetCluster.clusterNames': 'Clusters to select.',
  'targetCluster.exclude': 'Clusters to ignore.',
  'targetCluster.fieldSelector':
    'Selects clusters by field: matchExpressions whose key is provider, region or zone and whose operator is In or NotIn. If non-empty, only matching clusters are selected.',
  'targetCluster.labelSelector': 'If non-empty, only clusters matching the labels are selected.',
  'targetClusters.clusterNames': 'Clusters to select.',
  'targetClusters.exclude': 'Clusters to ignore.',
  'targetClusters.fieldSelector':
    'Selects clusters by field: matchExpressions whose key is provider, region or zone and whose operator is In or NotIn. If non-empty, only matching clusters are selected.',
  'targetClusters.labelSelector': 'If non-empty, only clusters matching the labels are selected.',
  'secretRef.name': 'Name of the secret.',
  'secretRef.namespace': 'Namespace of the secret.',
  'impersonatorSecretRef.name': 'Name of the secret.',
  'impersonatorSecretRef.namespace': 'Namespace of the secret.',
  'taints.key': 'The taint key.',
  'taints.value': 'The taint value.',
  'taints.effect':
    'NoSchedule: no new placement unless tolerated, running ones continue. PreferNoSchedule: placement is avoided but allowed. NoExecute: additionally evicts already-running ones that do not tolerate it.',
  'taints.timeAdded': 'Time the taint was added; written only for NoExecute taints.',
  'ports.port': 'The port number.',
  'ports.protocol': 'Protocol of the port: TCP, UDP or SCTP.',
  'ports.error': 'Problem with the port: CamelCase for built-in values, <domain>/CamelCase for provider-specific ones.',
};

type FieldDescriptions = Readonly<Record<string, string>>;

/** Per kind, from the spec's field tables. */
const FIELDS: Readonly<Record<string, FieldDescriptions>> = {
  ResourceInterpreterWebhookConfiguration: {
    webhooks: 'The webhooks and the resources and operations they handle.',
    'webhooks.name': 'Fully qualified name of the webhook.',
    'webhooks.clientConfig': 'How to reach the webhook; a TLS connection is made to it. One of url or service must be given.',
    'webhooks.clientConfig.caBundle':
      'PEM CA bundle used to validate the webhook server certificate. If unset, the system trust roots of the API server are used.',
    'webhooks.clientConfig.url':
      'Form scheme://host:port/path. The scheme must be https. User info, fragments and query parameters are rejected. The host must not refer to an in-cluster service (use service for that).',
    'webhooks.clientConfig.service': 'Reference to the webhook service, when the webhook runs inside the cluster. Takes precedence over url.',
    'webhooks.clientConfig.service.name': 'Name of the service.',
    'webhooks.clientConfig.service.namespace': 'Namespace of the service.',
    'webhooks.clientConfig.service.path': 'URL path sent in each request.',
    'webhooks.clientConfig.service.port': 'Port of the service, 1-65535; default 443.',
    'webhooks.interpreterContextVersions':
      'Ordered preference list of ResourceInterpreterContext versions the webhook accepts. The first version the service supports is used; if none is supported, validation fails.',
    'webhooks.rules': 'Which operations on which resources the webhook handles; an operation is handled if it matches any rule.',
    'webhooks.rules.apiGroups':
      'API groups of the resources. "*" matches all groups and, if present, must be the only element. The core group is written as one empty string.',
    'webhooks.rules.apiVersions': 'API versions. "*" matches all and, if present, must be the only element.',
    'webhooks.rules.kinds': 'Resource kinds. "*" matches all and, if present, must be the only element.',
    'webhooks.rules.operations': 'Operations the webhook handles. "*" matches all and, if present, must be the only element.',
    'webhooks.timeoutSeconds':
      'Between 1 and 30 seconds; default 10. After the timeout the webhook call is ignored or the API call fails, depending on the failure policy.',
  },
  ResourceInterpreterCustomization: {
    spec: 'The resource type and the Lua rules that interpret it.',
    'spec.target': 'The resource type the customization applies to.',
    'spec.target.apiVersion': 'API version of the target resource type.',
    'spec.target.kind': 'Kind of the target resource type.',
    'spec.customizations':
      'The Lua rules. Each is optional; setting one disables the built-in rule of the same purpose. Each script must be a complete function.',
    'spec.customizations.dependencyInterpretation': 'GetDependencies(desiredObj): the dependent resources of the object.',
    'spec.customizations.healthInterpretation': 'InterpretHealth(observedObj): the health of an object observed in a member cluster.',
    'spec.customizations.replicaResource': 'GetReplicas(desiredObj): the replica count and the per-replica requirements.',
    'spec.customizations.replicaRevision': 'ReviseReplica(desiredObj, desiredReplica): the object revised for the replica count to apply.',
    'spec.customizations.retention': 'Retain(desiredObj, observedObj): the object with values retained from the member cluster.',
    'spec.customizations.statusAggregation': 'AggregateStatus(desiredObj, statusItems): the object with its status aggregated.',
    'spec.customizations.statusReflection': 'ReflectStatus(observedObj): the status, or part of it, to reflect.',
    'spec.customizations.componentResource': 'The components of the resource and their replica requirements.',
  },
  MultiClusterIngress: {
    spec: 'Ingress rules applied across clusters.',
    'spec.defaultBackend': 'Handles requests that match no rule. Required if rules is not given.',
    'spec.ingressClassName': 'Name of an IngressClass cluster resource; controllers use it to decide whether to serve this object.',
    'spec.rules': 'Host rules. If unset or no rule matches, all traffic goes to the default backend.',
    'spec.rules.host':
      'Fully qualified domain name, precise or wildcard (first label a single "*"). IP addresses and ports are not allowed. If unset, the rule applies to all traffic.',
    'spec.rules.http.paths': 'Paths mapped to backends.',
    'spec.rules.http.paths.path': 'Must begin with "/"; required when pathType is Exact or Prefix.',
    'spec.rules.http.paths.pathType':
      'Exact: exact, case-sensitive match. Prefix: element-wise prefix match on the path split by "/". ImplementationSpecific: up to the IngressClass.',
    'spec.rules.http.paths.backend': 'Target of matching requests.',
    'spec.tls': 'TLS configuration; only port 443 is supported.',
    'spec.tls.hosts': 'Hosts in the TLS certificate.',
    'spec.tls.secretName': 'Secret used to terminate TLS on port 443; optional, to allow SNI-only routing.',
    status: 'Observed state of the ingress.',
    'status.loadBalancer': 'The load balancer ingress points.',
    'status.serviceLocations': 'Where the backend services are located, set by a system controller.',
    'status.serviceLocations.name': 'The service, in the same namespace.',
    'status.serviceLocations.clusters': 'Clusters where the service is located.',
    'status.trafficBlockClusters':
      'Clusters whose backend addresses a cloud-provider integration must filter out when refreshing load-balancer backends.',
  },
  MultiClusterService: {
    spec: 'How the service is exposed and discovered across clusters.',
    'spec.types': 'How the service is exposed. CrossCluster is the only value named.',
    'spec.consumerClusters': 'Clusters where the service is exposed to clients; empty means all clusters.',
    'spec.providerClusters': 'Clusters providing backends; empty means endpoints are collected from all clusters.',
    'spec.ports': 'Ports to expose; unlisted ports are filtered out, and an empty list exposes all service ports.',
    'spec.ports.name': 'Must equal the port name in the service.',
    'spec.range': 'Deprecated in favor of provider and consumer clusters. Valid only when types contains CrossCluster.',
    'spec.serviceConsumptionClusters': 'Deprecated: use consumerClusters.',
    'spec.serviceProvisionClusters': 'Deprecated: use providerClusters.',
    status: 'Observed state of the service.',
    'status.loadBalancer': 'The load balancer ingress points.',
    'status.loadBalancer.ingress.ipMode': 'Only allowed with ip. VIP or Proxy.',
  },
  ResourceRegistry: {
    spec: 'What to cache and where.',
    'spec.resourceSelectors': 'Resource types to cache.',
    'spec.resourceSelectors.apiVersion': 'API version of the resource type.',
    'spec.resourceSelectors.kind': 'Kind of the resource type.',
    'spec.resourceSelectors.namespace': 'Namespace to cache; empty means all namespaces.',
    'spec.targetCluster': 'Clusters to collect from.',
    'spec.backendStore': 'Where cached items are stored.',
    'spec.backendStore.searchEngine': 'An open-source search engine (OpenSearch).',
    'spec.backendStore.searchEngine.addresses': 'Node endpoints.',
    'spec.backendStore.searchEngine.secretRef': 'The secret holding data.userName and data.password.',
    status: 'Observed state of the registry.',
  },
  Work: {
    spec: 'The manifests to deploy on one member cluster.',
    'spec.workload': 'Manifests to deploy on the managed cluster.',
    'spec.workload.manifests': 'The resources to deploy.',
    'spec.preserveResourcesOnDeletion': 'If true, deployed resources stay on the member cluster when the Work is deleted. Default false.',
    'spec.suspendDispatching': 'True stops propagation to the member cluster but not status collection; unset means not suspended.',
    status: 'Observed state of the Work.',
    'status.conditions': 'Types in use: Applied, Progressing, Available, Degraded.',
    'status.manifestStatuses': 'Status of each manifest.',
    'status.manifestStatuses.identifier': 'Which manifest the status is about.',
    'status.manifestStatuses.identifier.ordinal': 'Index in the manifest list.',
    'status.manifestStatuses.identifier.resource': 'Resource type.',
    'status.manifestStatuses.identifier.namespace': 'Namespace; empty means cluster-scoped.',
    'status.manifestStatuses.health': 'Health of the manifest in the member cluster.',
    'status.manifestStatuses.status': 'The running status of the manifest.',
  },
  ClusterResourceBinding: {
    spec: 'The resource and how it is scheduled.',
    status: 'The most recently observed status.',
  },
  Cluster: {
    spec: 'Connection, identity, topology, taints and resource models of the member cluster.',
    'spec.syncMode': 'How the cluster syncs resources from the control plane.',
    'spec.apiEndpoint': 'Hostname, hostname:port, IP or IP:port of the member cluster API.',
    'spec.id': 'Unique cluster identifier, different from .metadata.uid; collected at registration. Must not be changed casually.',
    'spec.impersonatorSecretRef': 'Secret holding data.token of the impersonator.',
    'spec.secretRef': 'Secret holding the access credentials data.token and data.caBundle.',
    'spec.insecureSkipTLSVerification': 'If true the control plane does not verify the member cluster serving certificate. Default false.',
    'spec.provider': 'Cloud provider name.',
    'spec.region': 'Region.',
    'spec.zone': 'Deprecated, never used; kept for compatibility; use zones.',
    'spec.zones': 'Failure zones; a slice because a cluster may span several.',
    'spec.proxyURL': 'If non-empty the control plane reaches the cluster through this proxy.',
    'spec.proxyHeader': 'HTTP headers required by the proxy; multiple values for one header are comma-separated.',
    'spec.taints': 'Taints on the cluster; they affect any resource that does not tolerate them.',
    'spec.resourceModels': 'Resource modeling: grades of node resources. If none is defined, a default model with grades 0 to 8 applies.',
    'spec.resourceModels.grade': 'Index of the grade.',
    'spec.resourceModels.ranges': 'Half-open ranges (min inclusive, max exclusive) per resource.',
    'spec.resourceModels.ranges.name': 'cpu, memory, storage or ephemeral-storage.',
    'spec.resourceModels.ranges.min': 'Inclusive lower bound.',
    'spec.resourceModels.ranges.max': 'Exclusive upper bound; must be greater than min.',
    status: 'Observed state, updated periodically by the cluster controller.',
    'status.apiEnablements': 'The API resources the member cluster serves, per group-version.',
    'status.kubernetesVersion': 'Version of the member cluster platform.',
    'status.nodeSummary': 'Ready and total node counts.',
    'status.remedyActions': 'Remedy actions that must be performed on the cluster.',
    'status.resourceSummary': 'Allocatable, allocated and allocating resources of the cluster.',
    'status.resourceSummary.allocatable': 'Total allocatable across nodes.',
    'status.resourceSummary.allocated': 'Total requested by scheduled pods.',
    'status.resourceSummary.allocating': 'Total requested by pods waiting to be scheduled.',
    'status.resourceSummary.allocatableModelings': 'Number of nodes per model grade.',
  },
  CronFederatedHPA: {
    spec: 'The target and its schedules.',
    'spec.scaleTargetRef': 'Target to scale: any resource implementing the scale subresource, or a FederatedHPA.',
    'spec.rules': 'Schedules.',
    'spec.rules.name': 'Unique among the rules of the object; keys the execution history.',
    'spec.rules.schedule': 'Cron expression (standard cron-job schedule syntax).',
    'spec.rules.timeZone': 'IANA time zone name; default is the time zone of the controller-manager process.',
    'spec.rules.suspend': 'Suspends later executions. Default false.',
    'spec.rules.targetReplicas': 'Replica target; only for targets that are not a FederatedHPA.',
    'spec.rules.targetMinReplicas': 'MinReplicas to set; only for a FederatedHPA target.',
    'spec.rules.targetMaxReplicas': 'MaxReplicas to set; only for a FederatedHPA target.',
    'spec.rules.successfulHistoryLimit': 'Positive integer; default 3.',
    'spec.rules.failedHistoryLimit': 'Positive integer; default 3.',
    status: 'Execution history per rule.',
    'status.executionHistories.ruleName': 'The rule.',
    'status.executionHistories.nextExecutionTime': 'Next planned execution; unset means the rule is suspended.',
  },
  ClusterTaintPolicy: {
    spec: 'The taints and the conditions that add or remove them.',
    'spec.taints': 'Taints to add or remove.',
    'spec.addOnConditions': 'Conditions that trigger adding taints; all are ANDed; empty means no taint is added.',
    'spec.removeOnConditions': 'Conditions that trigger removing taints; all are ANDed; empty means no taint is removed.',
    'spec.targetClusters': 'Clusters the policy watches; unset selects any cluster.',
  },
  FederatedResourceQuota: {
    spec: 'Aggregate quota per namespace across all clusters.',
    'spec.overall': 'Hard limit per named resource.',
    'spec.staticAssignments': 'Per-cluster quotas; a cluster not listed receives an empty quota.',
    status: 'Enforced limits and observed usage.',
    'status.overall': 'Enforced hard limits.',
    'status.overallUsed': 'Observed total usage.',
    'status.aggregatedStatus': 'Quota status per cluster.',
  },
  WorkloadRebalancer: {
    spec: 'The workloads to rebalance.',
    'spec.workloads': 'The workloads; nil or empty is not allowed.',
    'spec.workloads.namespace': 'Namespace of the workload; empty for a non-namespaced resource.',
    'spec.ttlSecondsAfterFinished':
      'Lifetime after the rebalancer finishes. Unset: never deleted automatically. Zero: eligible for deletion as soon as it finishes.',
    status: 'Progress of the rebalance, updated by the controller.',
    'status.finishTime': 'Time every target workload ended Successful or Failed.',
    'status.observedGeneration': 'If lower than .metadata.generation, the controller has not yet performed the rebalance.',
    'status.observedWorkloads': 'The result for each workload.',
    'status.observedWorkloads.reason': 'Machine-readable cause of a failed rebalance.',
  },
  Remedy: {
    spec: 'The actions and the cluster conditions that trigger them.',
    'spec.actions': 'Actions the remedy system performs; empty means none.',
    'spec.clusterAffinity': 'Clusters of interest; empty means all clusters.',
    'spec.decisionMatches': 'If any matches, the actions are performed; if empty, they are performed immediately.',
  },
};

/** A table's own entry: a field named `constructor` must not find Object.prototype's. */
const own = (table: Readonly<Record<string, string>>, key: string): string | undefined => (Object.hasOwn(table, key) ? table[key] : undefined);

/** The description of `path` in `kind`'s object, or undefined. */
export function describeField(kind: string, path: string): string | undefined {
  if (path === '') return own(KIND_DESCRIPTIONS, kind);
  const found = own(FIELDS[kind] ?? {}, path) ?? own(ROOT, path);
  if (found !== undefined) return found;
  const parts = path.split('.');
  for (let start = 0; start < parts.length; start++) {
    const shared = own(SHARED, parts.slice(start).join('.'));
    if (shared !== undefined) return shared;
  }
  return undefined;
}

/** Every per-kind path described, for the test that checks each names a real field. */
export const describedPaths = (kind: string): string[] => Object.keys(FIELDS[kind] ?? {});
