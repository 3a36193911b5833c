import { describe, expect, it } from 'vitest';
import { validate, applyDefaults } from '../../src/index.js';
import { changed, expectCauses, Duplicate, Forbidden, Invalid, NotSupported, Required, TooLong, type Case } from '../helpers.js';

import { binding } from '../fixtures/clusterresourcebinding.js';

describe('ClusterResourceBinding', () => {
  it('accepts a realistic binding of a ClusterRole to two clusters, with status', () => {
    const result = expectCauses(binding, []);
    expect(result.warnings).toEqual([]);
  });

  const cases: Case[] = [
    // placement cluster affinities get the shared ClusterAffinity checks
    {
      name: 'placement field selector In without values',
      edit: (o) => (o.spec.placement.clusterAffinity.fieldSelector = { matchExpressions: [{ key: 'region', operator: 'In' }] }),
      want: [Required('spec.placement.clusterAffinity.fieldSelector.matchExpressions[0].values')],
    },
    {
      name: 'placement field selector In with values',
      edit: (o) => (o.spec.placement.clusterAffinity.fieldSelector = { matchExpressions: [{ key: 'region', operator: 'In', values: ['eu'] }] }),
      want: [],
    },
    {
      name: 'overflow affinity label selector Exists with values',
      edit: (o) =>
        (o.spec.placement.clusterAffinities = [
          { affinityName: 'primary', clusterNames: ['member1'], overflowAffinities: [{ affinityName: 'backup', labelSelector: { matchExpressions: [{ key: 'tier', operator: 'Exists', values: ['x'] }] } }] },
        ]),
      want: [Forbidden('spec.placement.clusterAffinities[0].overflowAffinities[0].labelSelector.matchExpressions[0].values')],
    },
    {
      name: 'static weight target with a NotIn field selector and no values',
      edit: (o) =>
        (o.spec.placement.replicaScheduling = {
          replicaSchedulingType: 'Divided',
          replicaDivisionPreference: 'Weighted',
          weightPreference: { staticWeightList: [{ targetCluster: { fieldSelector: { matchExpressions: [{ key: 'zone', operator: 'NotIn' }] } }, weight: 1 }] },
        }),
      want: [Required('spec.placement.replicaScheduling.weightPreference.staticWeightList[0].targetCluster.fieldSelector.matchExpressions[0].values')],
    },
    // metadata (cluster-scoped)
    { name: 'name not a DNS subdomain', edit: (o) => (o.metadata.name = 'Pod_Reader'), want: [Invalid('metadata.name')] },
    { name: 'name with dots', edit: (o) => (o.metadata.name = 'system.controller.pod-reader-clusterrole'), want: [] },
    // spec and resource
    { name: 'spec missing', edit: (o) => delete o.spec, want: [Required('spec')] },
    { name: 'minimal spec', edit: (o) => (o.spec = { resource: { apiVersion: 'v1', kind: 'Namespace', name: 'team-a' } }), want: [] },
    { name: 'resource missing', edit: (o) => delete o.spec.resource, want: [Required('spec.resource')] },
    ...(['apiVersion', 'kind', 'name'] as const).flatMap((field): Case[] => [
      { name: `resource without ${field}`, edit: (o) => delete o.spec.resource[field], want: [Required(`spec.resource.${field}`)] },
      { name: `resource with empty ${field}`, edit: (o) => (o.spec.resource[field] = ''), want: [Required(`spec.resource.${field}`)] },
    ]),
    { name: 'resource with namespace', edit: (o) => (o.spec.resource.namespace = 'default'), want: [] },
    { name: 'resource uid not a string', edit: (o) => (o.spec.resource.uid = 12), want: [Invalid('spec.resource.uid')] },
    // replicas
    { name: 'zero replicas', edit: (o) => (o.spec.replicas = 0), want: [] },
    { name: 'negative replicas', edit: (o) => (o.spec.replicas = -1), want: [Invalid('spec.replicas')] },
    { name: 'replicas past int32', edit: (o) => (o.spec.replicas = 2 ** 31), want: [Invalid('spec.replicas')] },
    { name: 'replicas not an integer', edit: (o) => (o.spec.replicas = 1.5), want: [Invalid('spec.replicas')] },
    // replica requirements
    { name: 'resourceRequest not a quantity', edit: (o) => (o.spec.replicaRequirements.resourceRequest.cpu = 'a lot'), want: [Invalid('spec.replicaRequirements.resourceRequest[cpu]')] },
    { name: 'resourceRequest as a number', edit: (o) => (o.spec.replicaRequirements.resourceRequest.cpu = 1), want: [] },
    { name: 'resourceRequest extended resource', edit: (o) => (o.spec.replicaRequirements.resourceRequest['nvidia.com/gpu'] = '1'), want: [] },
    { name: 'nodeSelector value not a string', edit: (o) => (o.spec.replicaRequirements.nodeClaim.nodeSelector.disk = true), want: [Invalid('spec.replicaRequirements.nodeClaim.nodeSelector[disk]')] },
    { name: 'tolerations not a list', edit: (o) => (o.spec.replicaRequirements.nodeClaim.tolerations = { key: 'dedicated' }), want: [Invalid('spec.replicaRequirements.nodeClaim.tolerations')] },
    { name: 'toleration not an object', edit: (o) => (o.spec.replicaRequirements.nodeClaim.tolerations = ['dedicated']), want: [Invalid('spec.replicaRequirements.nodeClaim.tolerations[0]')] },
    { name: 'hardNodeAffinity not an object', edit: (o) => (o.spec.replicaRequirements.nodeClaim.hardNodeAffinity = 'zone-a'), want: [Invalid('spec.replicaRequirements.nodeClaim.hardNodeAffinity')] },
    { name: 'replicaRequirements namespace', edit: (o) => (o.spec.replicaRequirements.namespace = 'default'), want: [] },
    { name: 'priorityClassName not a string', edit: (o) => (o.spec.replicaRequirements.priorityClassName = 1), want: [Invalid('spec.replicaRequirements.priorityClassName')] },
    // components
    {
      name: 'components with requirements',
      edit: (o) => (o.spec.components = [
        { name: 'jobmanager', replicas: 1, replicaRequirements: { resourceRequest: { cpu: '1', memory: '2Gi' } } },
        { name: 'taskmanager', replicas: 0 },
      ]),
      want: [],
    },
    { name: 'component without name', edit: (o) => (o.spec.components = [{ replicas: 1 }]), want: [Required('spec.components[0].name')] },
    { name: 'component name of 32', edit: (o) => (o.spec.components = [{ name: 'c'.repeat(32), replicas: 1 }]), want: [] },
    { name: 'component name longer than 32', edit: (o) => (o.spec.components = [{ name: 'c'.repeat(33), replicas: 1 }]), want: [TooLong('spec.components[0].name')] },
    { name: 'component without replicas', edit: (o) => (o.spec.components = [{ name: 'jobmanager' }]), want: [Required('spec.components[0].replicas')] },
    { name: 'component with negative replicas', edit: (o) => (o.spec.components = [{ name: 'jobmanager', replicas: -1 }]), want: [Invalid('spec.components[0].replicas')] },
    {
      name: 'component requirement not a quantity',
      edit: (o) => (o.spec.components = [{ name: 'jobmanager', replicas: 1, replicaRequirements: { resourceRequest: { memory: '2 GB' } } }]),
      want: [Invalid('spec.components[0].replicaRequirements.resourceRequest[memory]')],
    },
    // target clusters
    { name: 'cluster without name', edit: (o) => delete o.spec.clusters[1].name, want: [Required('spec.clusters[1].name')] },
    { name: 'cluster name not a cluster name', edit: (o) => (o.spec.clusters[1].name = 'Member_2'), want: [Invalid('spec.clusters[1].name')] },
    { name: 'cluster name of 48', edit: (o) => (o.spec.clusters[1].name = 'm'.repeat(48)), want: [] },
    { name: 'cluster name longer than 48', edit: (o) => (o.spec.clusters[1].name = 'm'.repeat(49)), want: [Invalid('spec.clusters[1].name')] },
    { name: 'cluster without replicas', edit: (o) => delete o.spec.clusters[1].replicas, want: [] },
    { name: 'cluster with negative replicas', edit: (o) => (o.spec.clusters[1].replicas = -2), want: [Invalid('spec.clusters[1].replicas')] },
    { name: 'duplicate cluster', edit: (o) => o.spec.clusters.push({ name: 'member1', replicas: 3 }), want: [Duplicate('spec.clusters[2].name')] },
    { name: 'cluster with component replicas', edit: (o) => (o.spec.clusters[0].components = [{ name: 'jobmanager', replicas: 1 }]), want: [] },
    { name: 'cluster component without replicas', edit: (o) => (o.spec.clusters[0].components = [{ name: 'jobmanager' }]), want: [Required('spec.clusters[0].components[0].replicas')] },
    { name: 'cluster component without name', edit: (o) => (o.spec.clusters[0].components = [{ replicas: 1 }]), want: [Required('spec.clusters[0].components[0].name')] },
    { name: 'cluster component name longer than 32', edit: (o) => (o.spec.clusters[0].components = [{ name: 'c'.repeat(33), replicas: 1 }]), want: [TooLong('spec.clusters[0].components[0].name')] },
    // requiredBy
    { name: 'requiredBy without name', edit: (o) => delete o.spec.requiredBy[0].name, want: [Required('spec.requiredBy[0].name')] },
    { name: 'requiredBy without namespace (a ClusterResourceBinding)', edit: (o) => delete o.spec.requiredBy[0].namespace, want: [] },
    { name: 'requiredBy cluster without name', edit: (o) => delete o.spec.requiredBy[0].clusters[0].name, want: [Required('spec.requiredBy[0].clusters[0].name')] },
    { name: 'requiredBy duplicate cluster', edit: (o) => (o.spec.requiredBy[0].clusters[1].name = 'member1'), want: [Duplicate('spec.requiredBy[0].clusters[1].name')] },
    // conflict resolution and scheduling fields
    { name: 'conflictResolution Overwrite', edit: (o) => (o.spec.conflictResolution = 'Overwrite'), want: [] },
    { name: 'conflictResolution unsupported', edit: (o) => (o.spec.conflictResolution = 'Replace'), want: [NotSupported('spec.conflictResolution')] },
    { name: 'rescheduleTriggeredAt not a time', edit: (o) => (o.spec.rescheduleTriggeredAt = 'now'), want: [Invalid('spec.rescheduleTriggeredAt')] },
    { name: 'schedulePriority not an integer', edit: (o) => (o.spec.schedulePriority.priority = 'high'), want: [Invalid('spec.schedulePriority.priority')] },
    { name: 'negative schedulePriority', edit: (o) => (o.spec.schedulePriority.priority = -10), want: [] },
    { name: 'propagateDeps not a boolean', edit: (o) => (o.spec.propagateDeps = 'true'), want: [Invalid('spec.propagateDeps')] },
    { name: 'preserveResourcesOnDeletion not a boolean', edit: (o) => (o.spec.preserveResourcesOnDeletion = 0), want: [Invalid('spec.preserveResourcesOnDeletion')] },
    { name: 'suspension of all and of some clusters', edit: (o) => (o.spec.suspension = { dispatching: true, dispatchingOnClusters: { clusterNames: ['member1'] } }), want: [] },
    // Karmada's work/v1alpha2 Suspension adds `scheduling` for third-party schedulers' admission webhooks (Karmada 1.13).
    { name: 'suspension of scheduling is a known field', edit: (o) => (o.spec.suspension = { scheduling: true }), want: [], options: { strict: true } },
    { name: 'suspension scheduling not a boolean', edit: (o) => (o.spec.suspension = { scheduling: 'yes' }), want: [Invalid('spec.suspension.scheduling')] },
    { name: 'suspension not an object', edit: (o) => (o.spec.suspension = true), want: [Invalid('spec.suspension')] },
    { name: 'suspension dispatching not a boolean', edit: (o) => (o.spec.suspension = { dispatching: 'yes' }), want: [Invalid('spec.suspension.dispatching')] },
    { name: 'suspended cluster names not strings', edit: (o) => (o.spec.suspension = { dispatchingOnClusters: { clusterNames: [1] } }), want: [Invalid('spec.suspension.dispatchingOnClusters.clusterNames[0]')] },
    // placement (Karmada's CRD constraints)
    { name: 'placement spread by region', edit: (o) => (o.spec.placement.spreadConstraints = [{ spreadByField: 'region', maxGroups: 2 }]), want: [] },
    { name: 'placement spread by label', edit: (o) => (o.spec.placement.spreadConstraints = [{ spreadByLabel: 'topology.example.com/site', maxGroups: 2 }]), want: [] },
    { name: 'placement not an object', edit: (o) => (o.spec.placement = ['member1']), want: [Invalid('spec.placement')] },
    { name: 'spreadByField unsupported', edit: (o) => (o.spec.placement.spreadConstraints[0].spreadByField = 'node'), want: [NotSupported('spec.placement.spreadConstraints[0].spreadByField')] },
    { name: 'maxGroups not an integer', edit: (o) => (o.spec.placement.spreadConstraints[0].maxGroups = 1.5), want: [Invalid('spec.placement.spreadConstraints[0].maxGroups')] },
    { name: 'cluster affinity field selector key unsupported', edit: (o) => (o.spec.placement.clusterAffinity.fieldSelector = { matchExpressions: [{ key: 'name', operator: 'In', values: ['a'] }] }), want: [NotSupported('spec.placement.clusterAffinity.fieldSelector.matchExpressions[0].key')] },
    { name: 'tolerations are core objects', edit: (o) => o.spec.placement.clusterTolerations.push({ key: 'dedicated', operator: 'Equal', value: 'gpu', effect: 'NoSchedule' }), want: [] },
    { name: 'tolerations not objects', edit: (o) => (o.spec.placement.clusterTolerations = ['dedicated']), want: [Invalid('spec.placement.clusterTolerations[0]')] },
    {
      name: 'cluster affinity groups with overflow',
      edit: (o) => {
        delete o.spec.placement.clusterAffinity;
        o.spec.placement.clusterAffinities = [
          { affinityName: 'idc', clusterNames: ['member1'], overflowAffinities: [{ affinityName: 'cloud', labelSelector: { matchLabels: { provider: 'cloud' } } }] },
          { affinityName: 'a'.repeat(32), clusterNames: ['member2'] },
        ];
      },
      want: [],
    },
    { name: 'affinity group without name', edit: (o) => (o.spec.placement.clusterAffinities = [{ clusterNames: ['member1'] }]), want: [Required('spec.placement.clusterAffinities[0].affinityName')] },
    { name: 'affinity group with empty name', edit: (o) => (o.spec.placement.clusterAffinities = [{ affinityName: '' }]), want: [Required('spec.placement.clusterAffinities[0].affinityName')] },
    { name: 'affinity group name longer than 32', edit: (o) => (o.spec.placement.clusterAffinities = [{ affinityName: 'a'.repeat(33) }]), want: [TooLong('spec.placement.clusterAffinities[0].affinityName')] },
    {
      name: 'overflow group without name',
      edit: (o) => (o.spec.placement.clusterAffinities = [{ affinityName: 'idc', overflowAffinities: [{ clusterNames: ['member3'] }] }]),
      want: [Required('spec.placement.clusterAffinities[0].overflowAffinities[0].affinityName')],
    },
    {
      name: 'overflow group name longer than 32',
      edit: (o) => (o.spec.placement.clusterAffinities = [{ affinityName: 'idc', overflowAffinities: [{ affinityName: 'o'.repeat(33) }] }]),
      want: [TooLong('spec.placement.clusterAffinities[0].overflowAffinities[0].affinityName')],
    },
    { name: 'replicaSchedulingType unsupported', edit: (o) => (o.spec.placement.replicaScheduling.replicaSchedulingType = 'Split'), want: [NotSupported('spec.placement.replicaScheduling.replicaSchedulingType')] },
    {
      name: 'divided by static weights',
      edit: (o) => (o.spec.placement.replicaScheduling = {
        replicaSchedulingType: 'Divided',
        replicaDivisionPreference: 'Weighted',
        weightPreference: { staticWeightList: [{ targetCluster: { clusterNames: ['member1'] }, weight: 1 }, { targetCluster: { clusterNames: ['member2'] }, weight: 3 }] },
      }),
      want: [],
    },
    { name: 'replicaDivisionPreference unsupported', edit: (o) => (o.spec.placement.replicaScheduling.replicaDivisionPreference = 'Balanced'), want: [NotSupported('spec.placement.replicaScheduling.replicaDivisionPreference')] },
    { name: 'dynamicWeight AvailableReplicas', edit: (o) => (o.spec.placement.replicaScheduling.weightPreference = { dynamicWeight: 'AvailableReplicas' }), want: [] },
    { name: 'dynamicWeight unsupported', edit: (o) => (o.spec.placement.replicaScheduling.weightPreference = { dynamicWeight: 'AvailableResources' }), want: [NotSupported('spec.placement.replicaScheduling.weightPreference.dynamicWeight')] },
    {
      name: 'static weight 0',
      edit: (o) => (o.spec.placement.replicaScheduling.weightPreference = { staticWeightList: [{ targetCluster: { clusterNames: ['member1'] }, weight: 0 }] }),
      want: [Invalid('spec.placement.replicaScheduling.weightPreference.staticWeightList[0].weight')],
    },
    {
      name: 'static weight without weight',
      edit: (o) => (o.spec.placement.replicaScheduling.weightPreference = { staticWeightList: [{ targetCluster: { clusterNames: ['member1'] } }] }),
      want: [Required('spec.placement.replicaScheduling.weightPreference.staticWeightList[0].weight')],
    },
    {
      name: 'static weight without targetCluster',
      edit: (o) => (o.spec.placement.replicaScheduling.weightPreference = { staticWeightList: [{ weight: 2 }] }),
      want: [Required('spec.placement.replicaScheduling.weightPreference.staticWeightList[0].targetCluster')],
    },
    { name: 'workload affinity and anti-affinity', edit: (o) => (o.spec.placement.workloadAffinity = { affinity: { groupByLabelKey: 'app.group' }, antiAffinity: { groupByLabelKey: 'example.com/ha-group' } }), want: [] },
    { name: 'workload anti-affinity without groupByLabelKey', edit: (o) => (o.spec.placement.workloadAffinity = { antiAffinity: {} }), want: [Required('spec.placement.workloadAffinity.antiAffinity.groupByLabelKey')] },
    { name: 'workload affinity with empty groupByLabelKey', edit: (o) => (o.spec.placement.workloadAffinity = { affinity: { groupByLabelKey: '' } }), want: [Required('spec.placement.workloadAffinity.affinity.groupByLabelKey')] },
    { name: 'workload affinity key not a label key', edit: (o) => (o.spec.placement.workloadAffinity = { affinity: { groupByLabelKey: 'app group' } }), want: [Invalid('spec.placement.workloadAffinity.affinity.groupByLabelKey')] },
    // failover
    { name: 'application purgeMode Never', edit: (o) => (o.spec.failover.application.purgeMode = 'Never'), want: [] },
    { name: 'application purgeMode unsupported', edit: (o) => (o.spec.failover.application.purgeMode = 'Graciously'), want: [NotSupported('spec.failover.application.purgeMode')] },
    { name: 'application without decisionConditions', edit: (o) => delete o.spec.failover.application.decisionConditions, want: [Required('spec.failover.application.decisionConditions')] },
    { name: 'cluster purgeMode Directly', edit: (o) => (o.spec.failover.cluster.purgeMode = 'Directly'), want: [] },
    { name: 'cluster purgeMode Never', edit: (o) => (o.spec.failover.cluster.purgeMode = 'Never'), want: [NotSupported('spec.failover.cluster.purgeMode')] },
    {
      name: 'state preservation rules',
      edit: (o) => (o.spec.failover.application.statePreservation = { rules: [{ aliasLabelName: 'failover.karmada.io/replicas', jsonPath: '{.replicas}' }] }),
      want: [],
    },
    { name: 'state preservation without rules', edit: (o) => (o.spec.failover.application.statePreservation = {}), want: [Required('spec.failover.application.statePreservation.rules')] },
    {
      name: 'state preservation rule without jsonPath',
      edit: (o) => (o.spec.failover.cluster.statePreservation = { rules: [{ aliasLabelName: 'failover.karmada.io/replicas' }] }),
      want: [Required('spec.failover.cluster.statePreservation.rules[0].jsonPath')],
    },
    // graceful eviction tasks
    ...(['fromCluster', 'producer', 'reason'] as const).map(
      (field): Case => ({ name: `eviction task without ${field}`, edit: (o) => delete o.spec.gracefulEvictionTasks[0][field], want: [Required(`spec.gracefulEvictionTasks[0].${field}`)] }),
    ),
    { name: 'eviction reason empty', edit: (o) => (o.spec.gracefulEvictionTasks[0].reason = ''), want: [Required('spec.gracefulEvictionTasks[0].reason')] },
    ...['ApplicationFailure', 'a', 'Taint:NoExecute,Evicted', 'evicted_by_user_', 'R2D2'].map(
      (reason): Case => ({ name: `eviction reason ${reason}`, edit: (o) => (o.spec.gracefulEvictionTasks[0].reason = reason), want: [] }),
    ),
    ...['Taint Untolerated', '1stFailure', '_Failure', 'Failure:', 'Failure,', 'Cluster-Failure'].map(
      (reason): Case => ({ name: `eviction reason ${reason}`, edit: (o) => (o.spec.gracefulEvictionTasks[0].reason = reason), want: [Invalid('spec.gracefulEvictionTasks[0].reason')] }),
    ),
    { name: 'eviction reason of 32', edit: (o) => (o.spec.gracefulEvictionTasks[0].reason = 'R'.repeat(32)), want: [] },
    { name: 'eviction reason longer than 32', edit: (o) => (o.spec.gracefulEvictionTasks[0].reason = 'R'.repeat(33)), want: [TooLong('spec.gracefulEvictionTasks[0].reason')] },
    { name: 'eviction message of 1024', edit: (o) => (o.spec.gracefulEvictionTasks[0].message = 'm'.repeat(1024)), want: [] },
    { name: 'eviction message longer than 1024', edit: (o) => (o.spec.gracefulEvictionTasks[0].message = 'm'.repeat(1025)), want: [TooLong('spec.gracefulEvictionTasks[0].message')] },
    { name: 'eviction purgeMode Directly', edit: (o) => (o.spec.gracefulEvictionTasks[0].purgeMode = 'Directly'), want: [] },
    { name: 'eviction purgeMode unsupported', edit: (o) => (o.spec.gracefulEvictionTasks[0].purgeMode = 'Immediately'), want: [NotSupported('spec.gracefulEvictionTasks[0].purgeMode')] },
    { name: 'eviction replicas not an integer', edit: (o) => (o.spec.gracefulEvictionTasks[0].replicas = '1'), want: [Invalid('spec.gracefulEvictionTasks[0].replicas')] },
    { name: 'eviction suppressDeletion', edit: (o) => { delete o.spec.gracefulEvictionTasks[0].gracePeriodSeconds; o.spec.gracefulEvictionTasks[0].suppressDeletion = true; }, want: [] },
    { name: 'eviction suppressDeletion not a boolean', edit: (o) => (o.spec.gracefulEvictionTasks[0].suppressDeletion = 'yes'), want: [Invalid('spec.gracefulEvictionTasks[0].suppressDeletion')] },
    { name: 'eviction creationTimestamp not a time', edit: (o) => (o.spec.gracefulEvictionTasks[0].creationTimestamp = '20 Nov 2026'), want: [Invalid('spec.gracefulEvictionTasks[0].creationTimestamp')] },
    { name: 'eviction preservedLabelState value not a string', edit: (o) => (o.spec.gracefulEvictionTasks[0].preservedLabelState.replicas = 3), want: [Invalid('spec.gracefulEvictionTasks[0].preservedLabelState[replicas]')] },
    { name: 'eviction clustersBeforeFailover not strings', edit: (o) => (o.spec.gracefulEvictionTasks[0].clustersBeforeFailover = [1]), want: [Invalid('spec.gracefulEvictionTasks[0].clustersBeforeFailover[0]')] },
    // status
    { name: 'condition type not CamelCase', edit: (o) => (o.status.conditions[0].type = 'scheduled ok'), want: [Invalid('status.conditions[0].type')] },
    { name: 'condition status unsupported', edit: (o) => (o.status.conditions[1].status = 'Partially'), want: [NotSupported('status.conditions[1].status')] },
    { name: 'condition reason empty', edit: (o) => (o.status.conditions[0].reason = ''), want: [Required('status.conditions[0].reason')] },
    { name: 'condition without message', edit: (o) => delete o.status.conditions[0].message, want: [Required('status.conditions[0].message')] },
    { name: 'duplicate condition type', edit: (o) => (o.status.conditions[1].type = 'Scheduled'), want: [Duplicate('status.conditions[1].type')] },
    { name: 'aggregated status without clusterName', edit: (o) => delete o.status.aggregatedStatus[0].clusterName, want: [Required('status.aggregatedStatus[0].clusterName')] },
    { name: 'aggregated status with empty clusterName', edit: (o) => (o.status.aggregatedStatus[0].clusterName = ''), want: [Required('status.aggregatedStatus[0].clusterName')] },
    { name: 'duplicate aggregated status cluster', edit: (o) => (o.status.aggregatedStatus[1].clusterName = 'member1'), want: [Duplicate('status.aggregatedStatus[1].clusterName')] },
    { name: 'aggregated health Unhealthy', edit: (o) => (o.status.aggregatedStatus[0].health = 'Unhealthy'), want: [] },
    { name: 'aggregated health unsupported', edit: (o) => (o.status.aggregatedStatus[0].health = 'Sick'), want: [NotSupported('status.aggregatedStatus[0].health')] },
    { name: 'aggregated applied not a boolean', edit: (o) => (o.status.aggregatedStatus[0].applied = 'true'), want: [Invalid('status.aggregatedStatus[0].applied')] },
    { name: 'aggregated status is raw', edit: (o) => (o.status.aggregatedStatus[0].status = { anything: [1, 2] }), want: [] },
    { name: 'lastScheduledTime not a time', edit: (o) => (o.status.lastScheduledTime = 'yesterday'), want: [Invalid('status.lastScheduledTime')] },
    { name: 'negative schedulerObservedGeneration', edit: (o) => (o.status.schedulerObservedGeneration = -1), want: [Invalid('status.schedulerObservedGeneration')] },
    { name: 'schedulerObservedGeneration beyond int32', edit: (o) => (o.status.schedulerObservedGeneration = 2 ** 40), want: [] },
    { name: 'schedulerObservingAffinityName not a string', edit: (o) => (o.status.schedulerObservingAffinityName = 1), want: [Invalid('status.schedulerObservingAffinityName')] },
  ];

  it.each(cases)('$name', ({ edit, want, options }) => {
    expectCauses(changed(binding, edit), want, options);
  });

  it('collects every cause in one pass', () => {
    const bad = changed(binding, (o) => {
      delete o.spec.resource.kind;
      o.spec.clusters.push({ name: 'member2' });
      o.spec.gracefulEvictionTasks[0].reason = 'not ok';
      o.status.aggregatedStatus[1].clusterName = 'member1';
    });
    expectCauses(bad, [
      Required('spec.resource.kind'),
      Duplicate('spec.clusters[2].name'),
      Invalid('spec.gracefulEvictionTasks[0].reason'),
      Duplicate('status.aggregatedStatus[1].clusterName'),
    ]);
  });

  it('explains a bad eviction reason with the pattern', () => {
    const result = validate(changed(binding, (o) => (o.spec.gracefulEvictionTasks[0].reason = 'Taint Untolerated')));
    expect(result.causes[0]!.message).toContain("should match '^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$'");
  });

  it('says why a repeated cluster is refused', () => {
    const clusters = validate(changed(binding, (o) => o.spec.clusters.push({ name: 'member1', replicas: 3 })));
    expect(clusters.causes.map((c) => c.message)).toEqual(['Duplicate value: "member1": a cluster may appear once']);
    const aggregated = validate(changed(binding, (o) => (o.status.aggregatedStatus[1].clusterName = 'member1')));
    expect(aggregated.causes.map((c) => c.message)).toEqual(['Duplicate value: "member1": each cluster has one aggregated status']);
  });

  it('reports unknown fields as warnings, or as errors when strict', () => {
    const extra = changed(binding, (o) => (o.spec.resource.replicas = 2));
    expect(validate(extra).warnings).toEqual(['unknown field "spec.resource.replicas"']);
    expectCauses(extra, [Forbidden('spec.resource.replicas')], { strict: true });
  });

  it('validates only metadata and status on the status subresource', () => {
    const statusWrite = changed(binding, (o) => {
      o.spec.conflictResolution = 'Replace';
      o.spec.clusters.push({ name: 'member1' });
      o.status.aggregatedStatus[0].health = 'Sick';
    });
    expectCauses(statusWrite, [NotSupported('status.aggregatedStatus[0].health')], { operation: 'UPDATE', subResource: 'status', oldObject: binding });
  });

  it('checks immutable metadata on UPDATE', () => {
    expectCauses(changed(binding, (o) => (o.spec.clusters[1].replicas = 2)), [], { operation: 'UPDATE', oldObject: binding });
    expectCauses(changed(binding, (o) => (o.metadata.name = 'other')), [Invalid('metadata.name')], { operation: 'UPDATE', oldObject: binding });
  });

  it('is served at v1alpha2 only, under the configured group domain', () => {
    expectCauses(changed(binding, (o) => (o.apiVersion = 'work.karmada.io/v1alpha1')), [NotSupported('apiVersion')]);
    expectCauses(binding, [NotSupported('apiVersion')], { groupDomain: 'example.org' });
    expectCauses(changed(binding, (o) => (o.apiVersion = 'work.example.org/v1alpha2')), [], { groupDomain: 'example.org' });
  });

  it("writes Karmada's permanent-id label on CREATE only, and none of the CRD's defaults (the API server writes those)", () => {
    const bare = changed(binding, (o) => { delete o.metadata.labels; delete o.spec.conflictResolution; delete o.spec.schedulePriority; });
    const before = structuredClone(bare);
    const { object, patch } = applyDefaults(bare, { now: new Date('2026-11-22T12:00:00Z'), uuid: () => 'a-uuid' });
    expect(patch).toEqual([{ op: 'add', path: '/metadata/labels', value: { 'clusterresourcebinding.karmada.io/permanent-id': 'a-uuid' } }]);
    expect(object).toEqual({ ...before, metadata: { ...before.metadata, labels: { 'clusterresourcebinding.karmada.io/permanent-id': 'a-uuid' } } });
    expect(bare).toEqual(before);
    expectCauses(object, []);
    expect(applyDefaults(bare, { operation: 'UPDATE' })).toEqual({ object: bare, patch: [] });
  });
});
