import { describe, expect, it } from 'vitest';
import { validate, applyDefaults, MAX_CAUSES } from '../../src/index.js';
import { changed, expectCauses, Duplicate, Forbidden, Invalid, NotSupported, Required, TooLong, type Case } from '../helpers.js';

/** Scales a Deployment: up on weekday mornings in New York, down at night in Kolkata, a UTC weekend rule. */
import { cronDeployment, cronFHPA } from '../fixtures/cronfederatedhpa.js';

const schedule = (s: string) => (o: any) => (o.spec.rules[0].schedule = s);
const timeZone = (tz: string) => (o: any) => (o.spec.rules[0].timeZone = tz);

describe('CronFederatedHPA', () => {
  it('accepts a realistic CronFederatedHPA scaling a Deployment in several time zones', () => {
    expect(expectCauses(cronDeployment, []).warnings).toEqual([]);
  });

  it('accepts a realistic CronFederatedHPA scaling a FederatedHPA with min and max', () => {
    expect(expectCauses(cronFHPA, []).warnings).toEqual([]);
  });

  const validSchedules = [
    '@yearly', '@annually', '@monthly', '@weekly', '@daily', '@midnight', '@hourly',
    '@every 90s', '@every 1h30m', '@every 5m',
    '* * * * *', '0 0 1 1 *', '59 23 31 12 6', '0 9-17 * * *', '*/15 * * * *', '0-30/10 9 * * *',
    '0 0,12 * * *', '5,10,15 * * * *', '0 9 * * mon-fri', '0 0 1 JAN *', '0 0 1 jan-mar *', '0 0 ? * SUN', '0 0 * * 0',
    '0 0 * * */7', '5/15 * * * *', ' 0 9 * * 1-5 ', '@every 300ms',
    // robfig's quirks: the controller runs these, so they are allowed
    ' @daily', '@daily ', '1,,2 * * * *', '0 9 * * 1-5,5', '+5 * * * *', '*-5 * * * *', '@every 0s',
  ];
  const invalidSchedules = [
    '0 0 0 * * *', '0 0 0 * * * 2026', '0 0 L * *', '0 0 * * 1#2', '0 0 15W * *', 'H * * * *', '0 0 * * 7',
    '@every 2562048h', '@every soon', '@5minutes', 'TZ=UTC 0 * * * *', '60 * * * *', '* 24 * * *', '0 0 32 * *', '0 0 * 13 *', '* * *',
    '@every  5m', '@every 1h 30m', '@Daily', '0 0 * * 1-7', '*/0 * * * *', '1-2-3 * * * *', '0 0 */mon * *', 'CRON_TZ=UTC @daily',
  ];

  const cases: Case[] = [
    // metadata
    { name: 'name not a DNS subdomain', edit: (o) => (o.metadata.name = 'Nginx_Cron'), want: [Invalid('metadata.name')] },
    { name: 'dotted name is a DNS subdomain', edit: (o) => (o.metadata.name = 'nginx.cron'), want: [] },
    { name: 'name missing', edit: (o) => delete o.metadata.name, want: [Required('metadata.name')] },
    // spec and scaleTargetRef
    { name: 'spec missing', edit: (o) => delete o.spec, want: [Required('spec')] },
    { name: 'scaleTargetRef missing', edit: (o) => delete o.spec.scaleTargetRef, want: [Required('spec.scaleTargetRef')] },
    { name: 'scaleTargetRef kind missing', edit: (o) => delete o.spec.scaleTargetRef.kind, want: [Required('spec.scaleTargetRef.kind')] },
    { name: 'scaleTargetRef kind empty', edit: (o) => (o.spec.scaleTargetRef.kind = ''), want: [Required('spec.scaleTargetRef.kind')] },
    { name: 'scaleTargetRef name missing', edit: (o) => delete o.spec.scaleTargetRef.name, want: [Required('spec.scaleTargetRef.name')] },
    { name: 'scaleTargetRef name with a slash', edit: (o) => (o.spec.scaleTargetRef.name = 'a/b'), want: [Invalid('spec.scaleTargetRef.name')] },
    { name: 'scaleTargetRef name ..', edit: (o) => (o.spec.scaleTargetRef.name = '..'), want: [Invalid('spec.scaleTargetRef.name')] },
    { name: 'scaleTargetRef name with a percent sign', edit: (o) => (o.spec.scaleTargetRef.name = 'a%b'), want: [Invalid('spec.scaleTargetRef.name')] },
    { name: 'scaleTargetRef kind .', edit: (o) => (o.spec.scaleTargetRef.kind = '.'), want: [Invalid('spec.scaleTargetRef.kind')] },
    { name: 'scaleTargetRef name with dots is a path segment', edit: (o) => (o.spec.scaleTargetRef.name = 'nginx.v2'), want: [] },
    { name: 'scaleTargetRef apiVersion optional', edit: (o) => delete o.spec.scaleTargetRef.apiVersion, want: [] },
    { name: 'scaleTargetRef custom scalable resource', edit: (o) => (o.spec.scaleTargetRef = { apiVersion: 'apps.kruise.io/v1alpha1', kind: 'CloneSet', name: 'web' }), want: [] },
    {
      name: 'autoscaling group reference to a kind other than FederatedHPA',
      edit: (o) => (o.spec.scaleTargetRef = { apiVersion: 'autoscaling.karmada.io/v1alpha1', kind: 'CronFederatedHPA', name: 'x' }),
      want: [Invalid('spec.scaleTargetRef.kind')],
    },
    { name: 'scaleTargetRef unknown field', edit: (o) => (o.spec.scaleTargetRef.namespace = 'other'), want: [Forbidden('spec.scaleTargetRef.namespace')], options: { strict: true } },
    // rules
    { name: 'rules missing', edit: (o) => delete o.spec.rules, want: [Required('spec.rules')] },
    { name: 'rules empty', edit: (o) => (o.spec.rules = []), want: [] },
    { name: 'rule name missing', edit: (o) => delete o.spec.rules[0].name, want: [Required('spec.rules[0].name')] },
    { name: 'rule name empty', edit: (o) => (o.spec.rules[0].name = ''), want: [Required('spec.rules[0].name')] },
    { name: 'rule name of 33 characters', edit: (o) => (o.spec.rules[0].name = 'r'.repeat(33)), want: [TooLong('spec.rules[0].name')] },
    { name: 'rule name of 32 characters', edit: (o) => (o.spec.rules[0].name = 'r'.repeat(32)), want: [] },
    { name: 'rule name of 1 character', edit: (o) => (o.spec.rules[0].name = 'r'), want: [] },
    { name: 'duplicate rule name', edit: (o) => (o.spec.rules[2].name = 'scale-up'), want: [Duplicate('spec.rules[2].name')] },
    { name: 'rule names differing in case are distinct', edit: (o) => (o.spec.rules[2].name = 'Scale-Up'), want: [] },
    { name: 'schedule missing', edit: (o) => delete o.spec.rules[0].schedule, want: [Required('spec.rules[0].schedule')] },
    { name: 'schedule empty', edit: schedule(''), want: [Required('spec.rules[0].schedule')] },
    ...validSchedules.map((s): Case => ({ name: `schedule ${s}`, edit: schedule(s), want: [] })),
    ...invalidSchedules.map((s): Case => ({ name: `schedule ${s}`, edit: schedule(s), want: [Invalid('spec.rules[0].schedule')] })),
    // time zones
    ...['America/New_York', 'UTC', 'Asia/Kolkata', 'Europe/Berlin', 'America/Argentina/Buenos_Aires'].map(
      (tz): Case => ({ name: `timeZone ${tz}`, edit: timeZone(tz), want: [] }),
    ),
    ...['US/Eastern', 'Etc/GMT+5', 'Asia/Calcutta'].map((tz): Case => ({ name: `timeZone alias ${tz}`, edit: timeZone(tz), want: [] })),
    ...['Mars/Olympus', '', 'Local', 'america/new_york', 'EST5EDT7', 'AMERICA/NEW_YORK', 'America/New_york', 'utc', 'US/EASTERN'].map(
      (tz): Case => ({ name: `timeZone "${tz}"`, edit: timeZone(tz), want: [Invalid('spec.rules[0].timeZone')] }),
    ),
    { name: 'timeZone omitted', edit: (o) => delete o.spec.rules[0].timeZone, want: [] },
    { name: 'suspend not a boolean', edit: (o) => (o.spec.rules[1].suspend = 'yes'), want: [Invalid('spec.rules[1].suspend')] },
    // history limits
    { name: 'successfulHistoryLimit 0', edit: (o) => (o.spec.rules[0].successfulHistoryLimit = 0), want: [Invalid('spec.rules[0].successfulHistoryLimit')] },
    { name: 'successfulHistoryLimit 1', edit: (o) => (o.spec.rules[0].successfulHistoryLimit = 1), want: [] },
    { name: 'successfulHistoryLimit 32', edit: (o) => (o.spec.rules[0].successfulHistoryLimit = 32), want: [] },
    { name: 'successfulHistoryLimit 33', edit: (o) => (o.spec.rules[0].successfulHistoryLimit = 33), want: [Invalid('spec.rules[0].successfulHistoryLimit')] },
    { name: 'failedHistoryLimit 0 (spec: positive)', edit: (o) => (o.spec.rules[0].failedHistoryLimit = 0), want: [Invalid('spec.rules[0].failedHistoryLimit')] },
    { name: 'failedHistoryLimit 1', edit: (o) => (o.spec.rules[0].failedHistoryLimit = 1), want: [] },
    { name: 'failedHistoryLimit 32', edit: (o) => (o.spec.rules[0].failedHistoryLimit = 32), want: [] },
    { name: 'failedHistoryLimit 33', edit: (o) => (o.spec.rules[0].failedHistoryLimit = 33), want: [Invalid('spec.rules[0].failedHistoryLimit')] },
    { name: 'failedHistoryLimit negative', edit: (o) => (o.spec.rules[0].failedHistoryLimit = -1), want: [Invalid('spec.rules[0].failedHistoryLimit')] },
    { name: 'failedHistoryLimit not an integer', edit: (o) => (o.spec.rules[0].failedHistoryLimit = 2.5), want: [Invalid('spec.rules[0].failedHistoryLimit')] },
    // replicas on a workload target
    { name: 'targetReplicas negative', edit: (o) => (o.spec.rules[0].targetReplicas = -1), want: [Invalid('spec.rules[0].targetReplicas')] },
    { name: 'targetReplicas 0', edit: (o) => (o.spec.rules[0].targetReplicas = 0), want: [] },
    { name: 'targetReplicas beyond int32', edit: (o) => (o.spec.rules[0].targetReplicas = 2147483648), want: [Invalid('spec.rules[0].targetReplicas')] },
    { name: 'targetReplicas not an integer', edit: (o) => (o.spec.rules[0].targetReplicas = '3'), want: [Invalid('spec.rules[0].targetReplicas')] },
    { name: 'targetReplicas -1.5 is blamed once', edit: (o) => (o.spec.rules[0].targetReplicas = -1.5), want: [Invalid('spec.rules[0].targetReplicas')] },
    { name: 'targetReplicas at the int32 minimum', edit: (o) => (o.spec.rules[0].targetReplicas = -2147483648), want: [Invalid('spec.rules[0].targetReplicas')] },
    { name: 'targetMinReplicas on a workload target', edit: (o) => (o.spec.rules[0].targetMinReplicas = 2), want: [Forbidden('spec.rules[0].targetMinReplicas')] },
    { name: 'targetMaxReplicas on a workload target', edit: (o) => (o.spec.rules[1].targetMaxReplicas = 20), want: [Forbidden('spec.rules[1].targetMaxReplicas')] },
    {
      name: 'a non-string kind does not stop the other checks',
      edit: (o) => {
        o.spec.scaleTargetRef.kind = 7;
        o.spec.rules[1].name = 'scale-up';
        o.status.executionHistories[1].nextExecutionTime = '2026-11-28T00:00:00Z';
      },
      want: [Invalid('spec.scaleTargetRef.kind'), Duplicate('spec.rules[1].name'), Forbidden('status.executionHistories[1].nextExecutionTime')],
    },
    ...(
      [
        ['empty', (o) => (o.spec.scaleTargetRef.kind = ''), Required],
        ['missing', (o) => delete o.spec.scaleTargetRef.kind, Required],
        ['"."', (o) => (o.spec.scaleTargetRef.kind = '.'), Invalid],
      ] as [string, Case['edit'], typeof Invalid][]
    ).map(([label, breakKind, cause]): Case => ({
      name: `kind ${label} with a workload apiVersion: the rules are still a workload's`,
      edit: (o) => {
        breakKind(o);
        o.spec.rules[0].targetReplicas = -1;
        o.spec.rules[1].targetMaxReplicas = 20;
      },
      want: [cause('spec.scaleTargetRef.kind'), Invalid('spec.rules[0].targetReplicas'), Forbidden('spec.rules[1].targetMaxReplicas')],
    })),
    {
      name: 'a non-string apiVersion does not stop the status checks',
      edit: (o) => {
        o.spec.scaleTargetRef.apiVersion = 7;
        o.status.executionHistories[1].nextExecutionTime = '2026-11-28T00:00:00Z';
      },
      want: [Invalid('spec.scaleTargetRef.apiVersion'), Forbidden('status.executionHistories[1].nextExecutionTime')],
    },
    {
      name: 'an empty kind does not stop the status checks',
      edit: (o) => {
        o.spec.scaleTargetRef.kind = '';
        o.status.executionHistories[1].nextExecutionTime = '2026-11-28T00:00:00Z';
      },
      want: [Required('spec.scaleTargetRef.kind'), Forbidden('status.executionHistories[1].nextExecutionTime')],
    },
    {
      name: 'a rule that is not an object does not stop the status checks',
      edit: (o) => {
        o.spec.rules[1] = null;
        o.status.executionHistories[1].nextExecutionTime = '2026-11-28T00:00:00Z';
      },
      want: [Invalid('spec.rules[1]'), Forbidden('status.executionHistories[1].nextExecutionTime')],
    },
    {
      name: 'FederatedHPA kind without the autoscaling apiVersion is a workload target',
      edit: (o) => {
        o.spec.scaleTargetRef = { kind: 'FederatedHPA', name: 'api' };
        o.spec.rules[0].targetMinReplicas = 2;
      },
      want: [Forbidden('spec.rules[0].targetMinReplicas')],
    },
    {
      name: 'the FederatedHPA apiVersion follows the group domain',
      edit: (o) => {
        o.apiVersion = 'autoscaling.example.org/v1alpha1';
        o.spec.scaleTargetRef = { apiVersion: 'autoscaling.example.org/v1alpha1', kind: 'Deployment', name: 'nginx' };
      },
      want: [Invalid('spec.scaleTargetRef.kind')],
      options: { groupDomain: 'example.org' },
    },
    {
      name: 'a wrong FederatedHPA kind does not also blame the replica fields',
      edit: (o) => (o.spec.scaleTargetRef = { apiVersion: 'autoscaling.karmada.io/v1alpha1', kind: 'Deployment', name: 'nginx' }),
      want: [Invalid('spec.scaleTargetRef.kind')],
    },
    {
      name: 'rules are still checked when the FederatedHPA kind is wrong',
      edit: (o) => {
        o.spec.scaleTargetRef.apiVersion = 'autoscaling.karmada.io/v1alpha1';
        o.spec.rules[1].name = 'scale-up';
        o.spec.rules[2].schedule = '0 0 L * *';
      },
      want: [Invalid('spec.scaleTargetRef.kind'), Duplicate('spec.rules[1].name'), Invalid('spec.rules[2].schedule')],
    },
    // status
    { name: 'history without ruleName', edit: (o) => delete o.status.executionHistories[0].ruleName, want: [Required('status.executionHistories[0].ruleName')] },
    { name: 'duplicate history ruleName', edit: (o) => (o.status.executionHistories[1].ruleName = 'scale-up'), want: [Duplicate('status.executionHistories[1].ruleName')] },
    { name: 'nextExecutionTime not a time', edit: (o) => (o.status.executionHistories[0].nextExecutionTime = 'tomorrow'), want: [Invalid('status.executionHistories[0].nextExecutionTime')] },
    { name: 'successful execution without scheduleTime', edit: (o) => delete o.status.executionHistories[0].successfulExecutions[0].scheduleTime, want: [Required('status.executionHistories[0].successfulExecutions[0].scheduleTime')] },
    { name: 'successful execution without executionTime', edit: (o) => delete o.status.executionHistories[0].successfulExecutions[0].executionTime, want: [Required('status.executionHistories[0].successfulExecutions[0].executionTime')] },
    {
      name: 'successful execution without appliedReplicas for a rule with targetReplicas',
      edit: (o) => delete o.status.executionHistories[0].successfulExecutions[0].appliedReplicas,
      want: [Required('status.executionHistories[0].successfulExecutions[0].appliedReplicas')],
    },
    {
      name: 'appliedReplicas not needed for a history of an unknown rule',
      edit: (o) => {
        o.status.executionHistories[0].ruleName = 'retired-rule';
        delete o.status.executionHistories[0].successfulExecutions[0].appliedReplicas;
      },
      want: [],
    },
    { name: 'appliedReplicas not an int32', edit: (o) => (o.status.executionHistories[0].successfulExecutions[0].appliedReplicas = 1.5), want: [Invalid('status.executionHistories[0].successfulExecutions[0].appliedReplicas')] },
    { name: 'failed execution without message', edit: (o) => delete o.status.executionHistories[0].failedExecutions[0].message, want: [Required('status.executionHistories[0].failedExecutions[0].message')] },
    { name: 'failed execution without scheduleTime', edit: (o) => delete o.status.executionHistories[0].failedExecutions[0].scheduleTime, want: [Required('status.executionHistories[0].failedExecutions[0].scheduleTime')] },
    { name: 'failed execution without executionTime', edit: (o) => delete o.status.executionHistories[0].failedExecutions[0].executionTime, want: [Required('status.executionHistories[0].failedExecutions[0].executionTime')] },
    { name: 'failed execution executionTime not a time', edit: (o) => (o.status.executionHistories[0].failedExecutions[0].executionTime = '2026-11-19 13:00'), want: [Invalid('status.executionHistories[0].failedExecutions[0].executionTime')] },
  ];

  it.each(cases)('$name', ({ edit, want, options }) => {
    expectCauses(changed(cronDeployment, edit), want, options);
  });

  const fhpaCases: Case[] = [
    { name: 'only targetMinReplicas', edit: (o) => delete o.spec.rules[0].targetMaxReplicas, want: [] },
    { name: 'only targetMaxReplicas', edit: (o) => (o.spec.rules[1] = { name: 'night', schedule: '0 22 * * *', targetMaxReplicas: 3 }), want: [Required('status.executionHistories[1].successfulExecutions[0].appliedMaxReplicas')] },
    { name: 'neither targetMinReplicas nor targetMaxReplicas', edit: (o) => delete o.spec.rules[2].targetMaxReplicas, want: [Invalid('spec.rules[2].targetMaxReplicas')] },
    { name: 'targetMinReplicas 0', edit: (o) => (o.spec.rules[1].targetMinReplicas = 0), want: [Invalid('spec.rules[1].targetMinReplicas')] },
    { name: 'targetMinReplicas 1', edit: (o) => (o.spec.rules[1].targetMinReplicas = 1), want: [] },
    { name: 'targetMaxReplicas negative', edit: (o) => (o.spec.rules[2].targetMaxReplicas = -5), want: [Invalid('spec.rules[2].targetMaxReplicas')] },
    { name: 'targetMaxReplicas 1', edit: (o) => (o.spec.rules[2].targetMaxReplicas = 1), want: [] },
    { name: 'min above max', edit: (o) => (o.spec.rules[0].targetMinReplicas = 51), want: [Invalid('spec.rules[0].targetMinReplicas')] },
    { name: 'min equal to max', edit: (o) => (o.spec.rules[0].targetMinReplicas = 50), want: [] },
    { name: 'min and max both 0 are each blamed once', edit: (o) => Object.assign(o.spec.rules[0], { targetMinReplicas: 0, targetMaxReplicas: 0 }), want: [Invalid('spec.rules[0].targetMinReplicas'), Invalid('spec.rules[0].targetMaxReplicas')] },
    { name: 'targetMinReplicas beyond int32 is blamed once', edit: (o) => (o.spec.rules[1].targetMinReplicas = -2147483649), want: [Invalid('spec.rules[1].targetMinReplicas')] },
    { name: 'targetMinReplicas beyond int32 above max is blamed once', edit: (o) => (o.spec.rules[0].targetMinReplicas = 2147483648), want: [Invalid('spec.rules[0].targetMinReplicas')] },
    { name: 'targetMinReplicas at the int32 maximum, above max', edit: (o) => (o.spec.rules[0].targetMinReplicas = 2147483647), want: [Invalid('spec.rules[0].targetMinReplicas')] },
    { name: 'targetReplicas on a FederatedHPA target', edit: (o) => (o.spec.rules[0].targetReplicas = 10), want: [Forbidden('spec.rules[0].targetReplicas')] },
    {
      name: 'successful execution without appliedMinReplicas',
      edit: (o) => delete o.status.executionHistories[0].successfulExecutions[0].appliedMinReplicas,
      want: [Required('status.executionHistories[0].successfulExecutions[0].appliedMinReplicas')],
    },
    {
      name: 'successful execution without appliedMaxReplicas',
      edit: (o) => delete o.status.executionHistories[0].successfulExecutions[0].appliedMaxReplicas,
      want: [Required('status.executionHistories[0].successfulExecutions[0].appliedMaxReplicas')],
    },
    { name: 'history of a min-only rule need not record max', edit: (o) => (o.status.executionHistories[1].successfulExecutions[0].appliedMaxReplicas = 7), want: [] },
    // Karmada's controller, in releases whose history writer takes (replicas, max, min) while its caller passes
    // (replicas, min, max), records a one-sided rule's target under the other name; its status writes are not refused.
    {
      name: 'a min-only rule recorded with its target as appliedMaxReplicas, as swapping Karmada releases write it',
      edit: (o) => (o.status.executionHistories[1].successfulExecutions[0] = { scheduleTime: '2026-11-20T21:00:00Z', executionTime: '2026-11-20T21:00:00Z', appliedMaxReplicas: 1 }),
      want: [],
    },
    {
      name: 'a max-only rule recorded with its target as appliedMinReplicas',
      edit: (o) => {
        o.spec.rules[1] = { name: 'night', schedule: '0 22 * * *', targetMaxReplicas: 3 };
        o.status.executionHistories[1].successfulExecutions[0].appliedMinReplicas = 3;
      },
      want: [],
    },
    {
      name: 'a min-only rule recorded with another value as appliedMaxReplicas still lacks appliedMinReplicas',
      edit: (o) => (o.status.executionHistories[1].successfulExecutions[0] = { scheduleTime: '2026-11-20T21:00:00Z', executionTime: '2026-11-20T21:00:00Z', appliedMaxReplicas: 2 }),
      want: [Required('status.executionHistories[1].successfulExecutions[0].appliedMinReplicas')],
    },
    {
      // Only a one-sided rule is recorded swapped: a rule with both bounds records both.
      name: 'a rule with both bounds recorded with only appliedMaxReplicas, equal to its targetMinReplicas, lacks appliedMinReplicas',
      edit: (o) => (o.status.executionHistories[0].successfulExecutions[0] = { scheduleTime: '2026-11-20T08:00:00Z', executionTime: '2026-11-20T08:00:00Z', appliedMaxReplicas: 5 }),
      want: [Required('status.executionHistories[0].successfulExecutions[0].appliedMinReplicas')],
    },
    {
      name: 'a forbidden targetReplicas does not also demand appliedReplicas',
      edit: (o) => (o.spec.rules[1].targetReplicas = 4),
      want: [Forbidden('spec.rules[1].targetReplicas')],
    },
    {
      name: 'no applied fields are demanded while the target kind is wrong',
      edit: (o) => {
        o.spec.scaleTargetRef.kind = 'Deployment';
        delete o.status.executionHistories[0].successfulExecutions[0].appliedMinReplicas;
      },
      want: [Invalid('spec.scaleTargetRef.kind')],
    },
    { name: 'a successful execution that is not an object is blamed once', edit: (o) => (o.status.executionHistories[0].successfulExecutions[0] = 'ok'), want: [Invalid('status.executionHistories[0].successfulExecutions[0]')] },
    { name: 'kind must be exactly FederatedHPA', edit: (o) => (o.spec.scaleTargetRef.kind = 'FederatedHpa'), want: [Invalid('spec.scaleTargetRef.kind')] },
    { name: 'an empty kind with the FederatedHPA apiVersion is blamed once', edit: (o) => (o.spec.scaleTargetRef.kind = ''), want: [Required('spec.scaleTargetRef.kind')] },
    { name: 'a non-string apiVersion blames no replica fields', edit: (o) => (o.spec.scaleTargetRef.apiVersion = 1), want: [Invalid('spec.scaleTargetRef.apiVersion')] },
  ];

  it.each(fhpaCases)('FederatedHPA target: $name', ({ edit, want, options }) => {
    expectCauses(changed(cronFHPA, edit), want, options);
  });

  it('reports the FederatedHPA-kind rule with Karmada wording', () => {
    const result = validate(changed(cronFHPA, (o) => (o.spec.scaleTargetRef.kind = 'Deployment')));
    expect(result.causes.map((c) => c.message)).toEqual(['Invalid value: "Deployment": invalid scaleTargetRef kind: Deployment, only support FederatedHPA']);
  });

  it('explains the FederatedHPA replica rules', () => {
    const neither = validate(changed(cronFHPA, (o) => delete o.spec.rules[2].targetMaxReplicas));
    expect(neither.causes[0]!.message).toBe('Invalid value: "": targetMinReplicas and targetMaxReplicas cannot be nil at the same time if you want to scale FederatedHPA');
    const notPositive = validate(changed(cronFHPA, (o) => Object.assign(o.spec.rules[0], { targetMinReplicas: 0, targetMaxReplicas: 0 })));
    expect(notPositive.causes.map((c) => c.message)).toEqual(['Invalid value: 0: targetMinReplicas should be larger than 0', 'Invalid value: 0: targetMaxReplicas should be larger than 0']);
    const order = validate(changed(cronFHPA, (o) => (o.spec.rules[0].targetMinReplicas = 51)));
    expect(order.causes[0]!.message).toContain('targetMaxReplicas should be larger than or equal to targetMinReplicas');
    const forbidden = validate(changed(cronFHPA, (o) => (o.spec.rules[0].targetReplicas = 3)));
    expect(forbidden.causes[0]!.message).toContain('only for targets that are not a FederatedHPA');
    const minOnWorkload = validate(changed(cronDeployment, (o) => (o.spec.rules[0].targetMinReplicas = 3)));
    expect(minOnWorkload.causes[0]!.message).toContain('only for a FederatedHPA target');
    const negative = validate(changed(cronDeployment, (o) => (o.spec.rules[0].targetReplicas = -1)));
    expect(negative.causes[0]!.message).toContain('targetReplicas should be larger than or equal to 0');
  });

  it('names the schedule problem', () => {
    const result = validate(changed(cronDeployment, schedule('0 0 0 * * *')));
    expect(result.causes[0]!.message).toContain('expected exactly 5 fields');
  });

  it('warns, without denying, about a workload rule without targetReplicas', () => {
    const result = validate(
      changed(cronDeployment, (o) => {
        delete o.spec.rules[1].targetReplicas;
        delete o.spec.rules[2].targetReplicas;
      }),
    );
    expect(result.allowed).toBe(true);
    expect(result.warnings).toEqual(['spec.rules[1]: no targetReplicas, so this rule changes nothing', 'spec.rules[2]: no targetReplicas, so this rule changes nothing']);
  });

  it('warns, without denying, about an @every schedule the controller runs every second', () => {
    const result = validate(changed(cronFHPA, (o) => (o.spec.rules[0].schedule = '@every -5m')));
    expect(result.allowed).toBe(true);
    expect(result.warnings).toEqual(['spec.rules[0].schedule: "@every -5m" runs every second; the controller raises @every durations under 1s to 1s']);
    expect(validate(changed(cronFHPA, (o) => (o.spec.rules[0].schedule = '@every 1s'))).warnings).toEqual([]);
    expect(validate(changed(cronFHPA, (o) => (o.spec.rules[0].schedule = ' @every -5m '))).warnings).toEqual([
      'spec.rules[0].schedule: "@every -5m" runs every second; the controller raises @every durations under 1s to 1s',
    ]);
  });

  it('does not warn about targetReplicas when the target is a FederatedHPA', () => {
    expect(validate(cronFHPA).warnings).toEqual([]);
  });

  it('is the same on UPDATE: nothing is immutable', () => {
    const updated = changed(cronDeployment, (o) => {
      o.spec.scaleTargetRef.name = 'nginx-v2';
      o.spec.rules[0].name = 'morning';
    });
    expectCauses(updated, [], { operation: 'UPDATE', oldObject: cronDeployment });
    expectCauses(changed(updated, (o) => (o.spec.rules[1].name = 'morning')), [Duplicate('spec.rules[1].name')], { operation: 'UPDATE', oldObject: cronDeployment });
  });

  it('validates only metadata and status on the status subresource, with the stored rules', () => {
    const statusWrite = changed(cronDeployment, (o) => {
      o.spec.rules[0].schedule = 'whenever';
      delete o.status.executionHistories[0].successfulExecutions[0].appliedReplicas;
    });
    expectCauses(statusWrite, [Required('status.executionHistories[0].successfulExecutions[0].appliedReplicas')], {
      operation: 'UPDATE',
      subResource: 'status',
      oldObject: cronDeployment,
    });
  });

  describe('status rules judge what a write records, not what is already stored', () => {
    const withMax = changed(cronFHPA, (o) => (o.spec.rules[1].targetMaxReplicas = 10));

    it('allows adding targetMaxReplicas to a rule whose stored executions predate it', () => {
      expectCauses(withMax, [], { operation: 'UPDATE', oldObject: cronFHPA });
    });

    it('answers a status write whose stored history nests thousands of levels deep, as a direct caller may send', () => {
      let deep: unknown = '2026-11-20T21:00:00Z';
      for (let i = 0; i < 20_000; i++) deep = [deep];
      const stored = changed(cronFHPA, (o) => (o.status.executionHistories[1].successfulExecutions[0].scheduleTime = deep));
      const statusWrite = changed(cronFHPA, (o) =>
        o.status.executionHistories[1].successfulExecutions.push({ scheduleTime: '2026-11-21T21:00:00Z', executionTime: '2026-11-21T21:00:00Z', appliedMinReplicas: 1 }),
      );
      expect(validate(statusWrite, { operation: 'UPDATE', subResource: 'status', oldObject: stored }).allowed).toBe(true);
    });

    it('judges as new an execution nested too deeply to compare with the stored ones, as a stored one is', () => {
      let deep: unknown = 'x';
      for (let i = 0; i < 20_000; i++) deep = [deep];
      // Built after the copy: structuredClone cannot copy what is nested this deeply.
      const withExecutions = (...executions: object[]) => {
        const o = changed(cronFHPA, () => {});
        o.status.executionHistories[1]!.successfulExecutions!.push(...(executions as any[]));
        return o;
      };
      const recorded = { scheduleTime: '2026-11-21T21:00:00Z', executionTime: '2026-11-21T21:00:00Z', appliedMinReplicas: 1, note: deep };
      const next = { scheduleTime: '2026-11-22T21:00:00Z', executionTime: '2026-11-22T21:00:00Z', note: deep };
      const options = { operation: 'UPDATE', subResource: 'status', oldObject: withExecutions(recorded) } as const;
      expectCauses(withExecutions(recorded, next), [Required('status.executionHistories[1].successfulExecutions[2].appliedMinReplicas')], options);
      expectCauses(withExecutions(recorded, { ...next, appliedMinReplicas: 1 }), [], options);
    });

    it('requires appliedMaxReplicas on a new execution of that rule, not on the stored one', () => {
      const stored = changed(withMax, () => {});
      const statusWrite = changed(stored, (o) =>
        o.status.executionHistories[1].successfulExecutions.push({ scheduleTime: '2026-11-21T21:00:00Z', executionTime: '2026-11-21T21:00:00Z', appliedMinReplicas: 1 }),
      );
      expectCauses(statusWrite, [Required('status.executionHistories[1].successfulExecutions[1].appliedMaxReplicas')], {
        operation: 'UPDATE',
        subResource: 'status',
        oldObject: stored,
      });
      const complete = changed(statusWrite, (o) => (o.status.executionHistories[1].successfulExecutions[1].appliedMaxReplicas = 10));
      expectCauses(complete, [], { operation: 'UPDATE', subResource: 'status', oldObject: stored });
    });

    it('knows a stored execution sent back with its fields in another order', () => {
      const statusWrite = changed(withMax, (o) => {
        const [{ scheduleTime, executionTime, appliedMinReplicas }] = o.status.executionHistories[1].successfulExecutions;
        o.status.executionHistories[1].successfulExecutions = [{ appliedMinReplicas, executionTime, scheduleTime }];
        // Key order alone is no change to the status, which would then not be judged at all.
        o.status.executionHistories[0].nextExecutionTime = '2026-11-24T08:00:00Z';
      });
      expectCauses(statusWrite, [], { operation: 'UPDATE', subResource: 'status', oldObject: withMax });
    });

    it('ignores a stored history that is not an object', () => {
      const stored = changed(cronDeployment, (o) => o.status.executionHistories.unshift(null));
      expectCauses(cronDeployment, [], { operation: 'UPDATE', subResource: 'status', oldObject: stored });
    });

    it('names the rule in the status causes', () => {
      const suspended = validate(changed(cronDeployment, (o) => (o.status.executionHistories[1].nextExecutionTime = '2026-11-28T00:00:00Z')));
      expect(suspended.causes[0]!.message).toBe('Forbidden: the rule "weekend" is suspended, so it has no next execution');
      const unapplied = validate(changed(cronDeployment, (o) => delete o.status.executionHistories[0].successfulExecutions[0].appliedReplicas));
      expect(unapplied.causes[0]!.message).toBe('Required value: the rule "scale-up" sets targetReplicas');
    });

    it('still checks every execution on CREATE', () => {
      expectCauses(withMax, [Required('status.executionHistories[1].successfulExecutions[0].appliedMaxReplicas')]);
    });

    it('forbids a next execution time for a suspended rule (states and transitions)', () => {
      const suspended = changed(cronDeployment, (o) => (o.status.executionHistories[1].nextExecutionTime = '2026-11-28T00:00:00Z'));
      expectCauses(suspended, [Forbidden('status.executionHistories[1].nextExecutionTime')]);
      const notSuspended = changed(suspended, (o) => (o.spec.rules[2].suspend = false));
      expectCauses(notSuspended, []);
    });

    it('judges a status write against the stored rules, not the spec it carries', () => {
      // The stored 'weekend' rule is suspended; a stale client copy says it is not.
      const stale = changed(cronDeployment, (o) => {
        o.spec.rules[2].suspend = false;
        o.status.executionHistories[1].nextExecutionTime = '2026-11-28T00:00:00Z';
      });
      expectCauses(stale, [Forbidden('status.executionHistories[1].nextExecutionTime')], { operation: 'UPDATE', subResource: 'status', oldObject: cronDeployment });
      // The reverse: the stored rule is active, the copy says suspended.
      const active = changed(cronDeployment, (o) => (o.spec.rules[2].suspend = false));
      const copy = changed(active, (o) => {
        o.spec.rules[2].suspend = true;
        o.status.executionHistories[1].nextExecutionTime = '2026-11-28T00:00:00Z';
      });
      expectCauses(copy, [], { operation: 'UPDATE', subResource: 'status', oldObject: active });
    });

    it('allows suspending a rule whose stored history still has a next execution time', () => {
      const suspend = changed(cronDeployment, (o) => (o.spec.rules[0].suspend = true));
      expectCauses(suspend, [], { operation: 'UPDATE', oldObject: cronDeployment });
      const stale = changed(suspend, (o) => o.status.executionHistories[0].failedExecutions.push({ scheduleTime: '2026-11-21T13:00:00Z', executionTime: '2026-11-21T13:00:01Z', message: 'timeout' }));
      expectCauses(stale, [], { operation: 'UPDATE', subResource: 'status', oldObject: suspend });
      const moved = changed(suspend, (o) => (o.status.executionHistories[0].nextExecutionTime = '2026-11-24T13:00:00Z'));
      expectCauses(moved, [Forbidden('status.executionHistories[0].nextExecutionTime')], { operation: 'UPDATE', subResource: 'status', oldObject: suspend });
      const cleared = changed(suspend, (o) => delete o.status.executionHistories[0].nextExecutionTime);
      expectCauses(cleared, [], { operation: 'UPDATE', subResource: 'status', oldObject: suspend });
    });
  });

  it('reads the stored executions of a rule once, however many histories name it', () => {
    // Read again for every history naming the rule: 4,000 of them took 26 s.
    const execution = (j: number) => ({ scheduleTime: '2026-01-01T00:00:00Z', executionTime: '2026-01-01T00:00:00Z', appliedReplicas: j });
    const n = 8_000;
    const stored = changed(cronDeployment, (o) => (o.status = { executionHistories: [{ ruleName: o.spec.rules[0].name, successfulExecutions: Array.from({ length: n }, (_, j) => execution(j)) }] }));
    const object = changed(stored, (o) => (o.status.executionHistories = Array.from({ length: n }, () => ({ ruleName: o.spec.rules[0].name, successfulExecutions: [execution(0)] }))));
    const result = validate(object, { operation: 'UPDATE', subResource: 'status', oldObject: stored });
    // n - 1 duplicates: more than a result lists.
    expect(result.causes).toHaveLength(MAX_CAUSES);
    expect(result.truncated).toBe(true);
    expect(new Set(result.causes.map((c) => c.type))).toEqual(new Set(['FieldValueDuplicate']));
  });

  it('collects every cause in one pass', () => {
    const result = validate(
      changed(cronFHPA, (o) => {
        o.spec.rules[0].timeZone = 'Mars/Olympus';
        o.spec.rules[1].schedule = '@5minutes';
        o.spec.rules[2].name = 'night';
        o.spec.rules[2].targetMaxReplicas = 0;
      }),
    );
    expect(result.causes.map((c) => c.field).sort()).toEqual(
      ['spec.rules[0].timeZone', 'spec.rules[1].schedule', 'spec.rules[2].name', 'spec.rules[2].targetMaxReplicas'].sort(),
    );
  });

  it('rejects a wrong status value type without cascading', () => {
    expectCauses(changed(cronDeployment, (o) => (o.status.executionHistories = [{ ruleName: 'scale-up', successfulExecutions: 'none' }])), [
      Invalid('status.executionHistories[0].successfulExecutions'),
    ]);
    expect(expectCauses(changed(cronDeployment, (o) => (o.spec.rules = [o.spec.rules[0], 'scale-down'])), [Invalid('spec.rules[1]')]).warnings).toEqual([]);
    expectCauses(changed(cronDeployment, (o) => (o.spec.scaleTargetRef.kind = 7)), [Invalid('spec.scaleTargetRef.kind')]);
  });

  it('checks the enum-free fields only through the schema', () => {
    expectCauses(changed(cronDeployment, (o) => (o.spec.rules[0].suspend = 'yes')), [Invalid('spec.rules[0].suspend')]);
    expectCauses(changed(cronDeployment, (o) => (o.kind = 'CronHPA')), [NotSupported('kind')]);
  });
});

describe('CronFederatedHPA defaults', () => {
  it('sets both history limits to 3 on every rule that lacks them', () => {
    const before = structuredClone(cronDeployment);
    const { object, patch } = applyDefaults(cronDeployment);
    expect(cronDeployment).toEqual(before);
    expect(patch).toEqual(
      expect.arrayContaining([
        { op: 'add', path: '/spec/rules/1/successfulHistoryLimit', value: 3 },
        { op: 'add', path: '/spec/rules/1/failedHistoryLimit', value: 3 },
        { op: 'add', path: '/spec/rules/2/successfulHistoryLimit', value: 3 },
        { op: 'add', path: '/spec/rules/2/failedHistoryLimit', value: 3 },
      ]),
    );
    expect(patch).toHaveLength(4);
    const rules = (object as any).spec.rules;
    expect(rules[0].successfulHistoryLimit).toBe(5);
    expect(rules[0].failedHistoryLimit).toBe(2);
    expect(rules.map((r: any) => r.suspend)).toEqual([undefined, false, true]);
    expect(expectCauses(object, []).warnings).toEqual([]);
  });

  it('fills in a single missing limit and the first rule of a FederatedHPA schedule', () => {
    const partial = changed(cronFHPA, (o) => (o.spec.rules = [{ ...o.spec.rules[0], successfulHistoryLimit: 10 }]));
    const { object, patch } = applyDefaults(partial);
    expect(patch).toEqual([{ op: 'add', path: '/spec/rules/0/failedHistoryLimit', value: 3 }]);
    expectCauses(object, []);
  });

  it('leaves complete rules and malformed objects alone', () => {
    const complete = changed(cronDeployment, (o) => o.spec.rules.forEach((r: any) => Object.assign(r, { successfulHistoryLimit: 1, failedHistoryLimit: 1 })));
    expect(applyDefaults(complete).patch).toEqual([]);
    expect(applyDefaults(changed(cronDeployment, (o) => delete o.spec)).patch).toEqual([]);
    expect(applyDefaults(changed(cronDeployment, (o) => (o.spec.rules = ['x']))).patch).toEqual([]);
  });
});
