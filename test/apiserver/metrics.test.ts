/** The API server's request metrics name verbs as kube-apiserver does: an apply patch is APPLY, any other patch PATCH. */
import { describe, expect, it } from 'vitest';
import Koa from 'koa';
import inject from 'light-my-request';
import { createApiServerMetrics } from '../../src/apiserver/metrics.js';

describe('apiserver_request_total', () => {
  it('counts an apply patch as APPLY and a merge patch as PATCH', async () => {
    const metrics = createApiServerMetrics(['clusters.cluster.karmada.io']);
    const app = new Koa();
    app.use(metrics.middleware);
    app.use((ctx) => {
      ctx.status = 200;
      ctx.body = '{}';
    });
    const handler = app.callback();
    const url = '/apis/cluster.karmada.io/v1alpha1/clusters/m1';
    await inject(handler, { method: 'PATCH', url, headers: { 'content-type': 'application/apply-patch+yaml' }, payload: '{}' });
    await inject(handler, { method: 'PATCH', url, headers: { 'content-type': 'application/apply-patch+yaml; charset=utf-8' }, payload: '{}' });
    await inject(handler, { method: 'PATCH', url, headers: { 'content-type': 'application/merge-patch+json' }, payload: '{}' });
    const text = await metrics.registry.metrics();
    expect(text).toMatch(/apiserver_request_total\{verb="APPLY",resource="clusters.cluster.karmada.io",code="200"\} 2/);
    expect(text).toMatch(/apiserver_request_total\{verb="PATCH",resource="clusters.cluster.karmada.io",code="200"\} 1/);
  });
});
