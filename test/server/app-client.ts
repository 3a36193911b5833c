/**
 * Drives the webhook's Koa app in process (light-my-request: no socket, no TLS), for the routing
 * and protocol tests; what needs TLS or the listening server (certificates, shutdown, the probe
 * port) is tested through serve().
 */
import inject from 'light-my-request';
import { createApp, type AppOptions } from '../../src/server/app.js';

export interface AppAnswer {
  status: number;
  json: any;
  headers: Record<string, unknown>;
}

/** The body as JSON; a text that is none (a router's `Not Found`) as it is. */
function parsed(text: string): any {
  try {
    return JSON.parse(text || 'null');
  } catch {
    return text;
  }
}

export function appClient(options: AppOptions = {}) {
  const handler = createApp(options).callback();
  return {
    /** POSTs `body` (text or bytes as given; anything else as JSON). */
    async post(path: string, body: unknown, contentType = 'application/json'): Promise<AppAnswer> {
      const payload = typeof body === 'string' || Buffer.isBuffer(body) ? body : JSON.stringify(body);
      const res = await inject(handler, { method: 'POST', url: path, headers: { 'content-type': contentType }, payload });
      return { status: res.statusCode, json: parsed(res.payload), headers: res.headers };
    },
    /** A request without a body, with any method. */
    async call(method: string, path: string): Promise<{ status: number; allow: unknown }> {
      const res = await inject(handler, { method: method as 'GET', url: path });
      return { status: res.statusCode, allow: res.headers.allow };
    },
  };
}

/** A Cluster with one taint of `effect`: the review tests' object. */
export const cluster = (effect: string) => ({
  apiVersion: 'cluster.karmada.io/v1alpha1',
  kind: 'Cluster',
  metadata: { name: 'm1' },
  spec: { syncMode: 'Push', taints: [{ key: 'k', effect }] },
});

/** A CREATE review of `object`, as JSON text. */
export const reviewOf = (object: unknown, apiVersion = 'admission.k8s.io/v1') =>
  JSON.stringify({ apiVersion, kind: 'AdmissionReview', request: { uid: 'abc', operation: 'CREATE', object } });
