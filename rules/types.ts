/** The TypeScript type of every kind, derived from its schema. */
export type { ResourceInterpreterWebhookConfiguration } from './resourceinterpreterwebhookconfiguration.js';
export type { ResourceInterpreterCustomization } from './resourceinterpretercustomization.js';
export type { MultiClusterIngress } from './multiclusteringress.js';
export type { MultiClusterService } from './multiclusterservice.js';
export type { ResourceRegistry } from './resourceregistry.js';
export type { Work } from './work.js';
export type { ClusterResourceBinding } from './clusterresourcebinding.js';
export type { Cluster } from './cluster.js';
export type { CronFederatedHPA } from './cronfederatedhpa.js';
export type { ClusterTaintPolicy } from './clustertaintpolicy.js';
export type { FederatedResourceQuota } from './federatedresourcequota.js';
export type { WorkloadRebalancer } from './workloadrebalancer.js';
export type { Remedy } from './remedy.js';
