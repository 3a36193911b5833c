import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'node:https';
import { createCA } from '../../certs/tinyca.js';
import { pino } from 'pino';
import { serve, type RunningServer } from '../../src/server/serve.js';
import { servingCertDir } from './cert-dir.js';
import { cluster, reviewOf } from './app-client.js';

let running: RunningServer;
let ca: string;

beforeAll(async () => {
  const authority = createCA();
  ca = authority.certPem;
  running = await serve({ port: 0, probePort: 0, bindAddress: '127.0.0.1', certDir: servingCertDir(authority), logger: pino({ level: 'silent' }) });
});

afterAll(async () => {
  await running?.close();
});

function post(path: string, body: string | Buffer, contentType = 'application/json'): Promise<{ status: number; json: any }> {
  return new Promise((done, fail) => {
    const req = request(
      { host: '127.0.0.1', port: running.port, path, method: 'POST', ca, servername: 'localhost', headers: { 'content-type': contentType } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => done({ status: res.statusCode ?? 0, json: JSON.parse(Buffer.concat(chunks).toString() || 'null') }));
      },
    );
    req.on('error', fail);
    req.end(body);
  });
}

describe('fleetgate serve', () => {
  it.each(['/validate', '/validate-cluster'])('answers reviews on %s over HTTPS', async (path) => {
    const ok = await post(path, reviewOf(cluster('NoSchedule')));
    expect(ok).toEqual({ status: 200, json: { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response: { uid: 'abc', allowed: true } } });
    const denied = await post(path, reviewOf(cluster('Foo'), 'admission.k8s.io/v1beta1'));
    expect(denied.status).toBe(200);
    expect(denied.json.apiVersion).toBe('admission.k8s.io/v1beta1');
    expect(denied.json.response.status.details.causes[0].field).toBe('spec.taints[0].effect');
  });

  it('answers readiness on the probe port', async () => {
    const res = await fetch(`http://127.0.0.1:${running.probePort}/readyz`);
    expect(res.status).toBe(200);
  });
});
