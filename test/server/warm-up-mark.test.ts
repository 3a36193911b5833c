import { describe, expect, it } from 'vitest';
import inject from 'light-my-request';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { pino } from 'pino';
import { createApp } from '../../src/server/app.js';
import { createMetrics } from '../../src/server/metrics.js';
import { isWarmUp, markWarmUp } from '../../src/server/warm-up-mark.js';
import { cluster, reviewOf } from './app-client.js';

/** The webhook's app with its metrics and a debug logger kept in `lines`; `send` marks the request as the warm-up's when asked. */
function webhook() {
  const lines: Record<string, any>[] = [];
  const metrics = createMetrics();
  const handler = createApp({ metrics, logger: pino({ level: 'debug' }, { write: (line: string) => void lines.push(JSON.parse(line)) }) }).callback();
  const send = async (path: string, body: string, warmUp: boolean) => {
    const marking = (req: IncomingMessage, res: ServerResponse) => {
      if (warmUp) markWarmUp(req);
      return handler(req, res);
    };
    const res = await inject(marking, { method: 'POST', url: path, headers: { 'content-type': 'application/json' }, payload: body });
    return { status: res.statusCode, json: res.headers['content-type']?.toString().startsWith('application/json') ? JSON.parse(res.payload) : res.payload };
  };
  return { send, lines, metrics: () => metrics.registry.metrics() };
}

const denied = reviewOf(cluster('Foo'));
const allowed = reviewOf(cluster('NoSchedule'));

describe('warm-up requests in the webhook app', () => {
  it('are answered as any request, but neither counted in the metrics nor logged: denied, allowed or unmatched', async () => {
    const app = webhook();
    const answers = [await app.send('/validate-cluster', denied, true), await app.send('/validate-cluster', allowed, true), await app.send('/no-such-webhook', allowed, true)];
    expect(answers.map((a) => a.status)).toEqual([200, 200, 404]);
    expect(answers[0]!.json.response).toMatchObject({ allowed: false, status: { code: 422 } });
    expect(answers[1]!.json.response).toMatchObject({ allowed: true });
    const text = await app.metrics();
    expect(text).not.toMatch(/^controller_runtime_webhook_requests_total\{/m);
    expect(text).not.toMatch(/^controller_runtime_webhook_requests_in_flight\{[^}]*\} [1-9]/m);
    expect(text).not.toMatch(/^controller_runtime_webhook_latency_seconds_count\{/m);
    expect(text).not.toMatch(/^fleetgate_admission_verdicts_total\{/m);
    expect(app.lines).toEqual([]);
  });

  it('the same requests unmarked are counted and logged (the check above can fail)', async () => {
    const app = webhook();
    await app.send('/validate-cluster', denied, false);
    await app.send('/validate-cluster', allowed, false);
    await app.send('/no-such-webhook', allowed, false);
    const text = await app.metrics();
    expect(text).toContain('controller_runtime_webhook_requests_total{webhook="/validate-cluster",code="200"} 2');
    expect(text).toContain('controller_runtime_webhook_requests_total{webhook="unmatched",code="404"} 1');
    expect(text).toContain('fleetgate_admission_verdicts_total{kind="Cluster",operation="CREATE",verdict="denied"} 1');
    expect(text).toContain('fleetgate_admission_verdicts_total{kind="Cluster",operation="CREATE",verdict="allowed"} 1');
    expect(app.lines.map((l) => l.msg)).toEqual(['denied', 'allowed']);
  });

  it('a mark belongs to its request only', () => {
    const marked = {} as IncomingMessage;
    const other = {} as IncomingMessage;
    markWarmUp(marked);
    expect(isWarmUp(marked)).toBe(true);
    expect(isWarmUp(other)).toBe(false);
  });
});
