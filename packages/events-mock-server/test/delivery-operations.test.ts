// C100 operations: /admin/delivery, dead entries and their re-queue, /readyz listing a failing sink while the
// server stays ready, the delivery gauges and counters of /metrics.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { ManualClock, type RunningServer, startServer } from '../src/index.js';
import { A, event, T, testConfig } from './support/fixtures.js';
import { type Harness, startHarness, T0 } from './support/server.js';

async function until(done: () => Promise<boolean>): Promise<void> {
  while (!(await done())) await new Promise((r) => setTimeout(r, 50));
}

/** A server whose one sink `up` forwards to `url` with the token in `tokenFile`, retrying at once. */
function withUpstreamSink(clock: ManualClock, url: string, tokenFile: string, maxAttempts: number) {
  return startHarness({
    clock,
    config: {
      ...testConfig(),
      delivery: {
        sinks: [{ name: 'up', kind: 'conversions_api', url, token_file: tokenFile }],
        max_attempts: maxAttempts,
        retry_base_ms: 1,
        retry_max_seconds: 1,
      },
    },
  });
}

test('dead deliveries are shown, keep the server ready, and are re-queued', {
  timeout: 120_000,
}, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'ems-delivery-ops-'));
  writeFileSync(join(dir, 'token'), T.convA);
  const clock = new ManualClock(T0);
  const upstreamAt = (port: number) =>
    startServer({
      config: testConfig(),
      port,
      clock,
      docs: false,
      inspector: false,
      transport: { shutdownGraceSeconds: 0 },
    });
  // A port that refuses connections until the upstream is started on it.
  let upstream: RunningServer = await upstreamAt(0);
  const port = upstream.port;
  await upstream.close();
  let h: Harness | undefined;
  try {
    h = await withUpstreamSink(clock, upstream.url, join(dir, 'token'), 2);
    const s = h;
    const admin = (method: string, path: string) => s.call(method, path, { token: T.admin });
    expect(
      (await s.send(A, T.convA, [event(s.nowS(), { event_id: 'x-1' }), event(s.nowS(), { event_id: 'x-2' })]))
        .status,
    ).toBe(200);
    await until(async () => (await admin('GET', '/admin/delivery')).body.sinks[0].dead === 2);
    const status = (await admin('GET', '/admin/delivery')).body;
    expect(status.sinks[0]).toMatchObject({
      name: 'up',
      kind: 'conversions_api',
      pending: 0,
      dead: 2,
      delivered: 0,
      failures: 2,
    });
    expect(status.sinks[0].last_error).toContain('ECONNREFUSED');

    const ready = await s.call('GET', '/readyz');
    expect(ready.status).toBe(200);
    expect(ready.body.dependencies.map((d: { name: string; status: string }) => [d.name, d.status])).toEqual([
      ['store', 'ok'],
      ['limits', 'ok'],
      ['sink:up', 'unavailable'],
    ]);
    const metrics = (await s.call('GET', '/metrics')).text;
    expect(metrics).toContain('events_delivery_outbox_dead{sink="up"} 2');
    expect(metrics).toContain('events_delivery_outbox_depth{sink="up"} 0');
    expect(metrics).toContain('events_delivery_failures_total{sink="up"} 2');

    upstream = await upstreamAt(port);
    expect((await admin('POST', '/admin/delivery/requeue?sink=other')).body).toEqual({ requeued: 0 });
    expect((await admin('POST', '/admin/delivery/requeue')).body).toEqual({ requeued: 2 });
    await until(async () => (await admin('GET', '/admin/delivery')).body.sinks[0].delivered === 2);
    expect((await admin('GET', '/admin/delivery')).body.sinks[0]).toMatchObject({
      pending: 0,
      dead: 0,
      last_error: null,
    });
    expect((await s.call('GET', '/metrics')).text).toContain('events_delivery_events_total{sink="up"} 2');
    expect((await upstream.store.report(A)).stored.map((r) => r.processed)).toEqual([2]);
    // The request's detail (the inspector's page) shows each event's delivery and the upstream's answer.
    const logged = (await admin('GET', '/admin/requests?limit=1')).body.items[0];
    const detail = (await admin('GET', `/admin/requests/${logged.request_id}`)).body;
    expect(
      detail.items.map((i: { delivery: { delivered_at: number }[] }) =>
        i.delivery.map((d) => ({ ...d, delivered_at: typeof d.delivered_at })),
      ),
    ).toEqual(
      [0, 1].map(() => [
        {
          sink: 'up',
          state: 'delivered',
          attempts: 1,
          last_error: null,
          next_attempt_at: null,
          delivered_at: 'number',
          upstream: { status: 'processed', error_message: null, warning_message: null },
        },
      ]),
    );
  } finally {
    await h?.close();
    await upstream.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('without a sink, /admin/delivery lists none and the requeue does nothing', async () => {
  const h = await startHarness();
  try {
    expect((await h.call('GET', '/admin/delivery', { token: T.admin })).body).toEqual({ sinks: [] });
    expect((await h.call('POST', '/admin/delivery/requeue', { token: T.admin })).body).toEqual({
      requeued: 0,
    });
  } finally {
    await h.close();
  }
});

test('an upstream that refuses the batch itself (401) makes its entries dead at once, not after every attempt', {
  timeout: 60_000,
}, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'ems-delivery-refused-'));
  // A token the upstream does not know: every retry would get the same 401.
  writeFileSync(join(dir, 'token'), 'not-a-token-of-the-upstream');
  const clock = new ManualClock(T0);
  const upstream = await startServer({
    config: testConfig(),
    port: 0,
    clock,
    docs: false,
    inspector: false,
    transport: { shutdownGraceSeconds: 0 },
  });
  let h: Harness | undefined;
  try {
    h = await withUpstreamSink(clock, upstream.url, join(dir, 'token'), 20);
    const s = h;
    const admin = (method: string, path: string) => s.call(method, path, { token: T.admin });
    expect((await s.send(A, T.convA, [event(s.nowS(), { event_id: 'r-1' })])).status).toBe(200);
    await until(async () => (await admin('GET', '/admin/delivery')).body.sinks[0].dead === 1);
    const sink = (await admin('GET', '/admin/delivery')).body.sinks[0];
    expect(sink).toMatchObject({ pending: 0, dead: 1, delivered: 0, failures: 1 });
    expect(sink.last_error).toContain('HTTP 401');
  } finally {
    await h?.close();
    await upstream.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
