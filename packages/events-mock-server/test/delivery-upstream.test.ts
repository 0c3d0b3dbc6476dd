// C100: accepted events are forwarded to an upstream Conversions API: here a second instance of this very
// server (it mirrors Pinterest), stopped mid-run and started again on the same port and file. Every accepted
// event arrives once (the upstream deduplicates repeats) and the counts match.
// EVENTS_DELIVERY_EVENTS=50000 runs the full size; the default keeps it short on a shared machine.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { ManualClock, type RunningServer, startServer } from '../src/index.js';
import { A, event, T, testConfig } from './support/fixtures.js';
import { type Harness, startHarness, T0 } from './support/server.js';

const EVENTS = Number(process.env.EVENTS_DELIVERY_EVENTS ?? 5000);
const BATCH = 1000;

let dir: string;
const clock = new ManualClock(T0);

/** The upstream: this server on a file of its own, so a restart keeps what it received. */
const upstreamAt = (port: number, file = 'upstream.db'): Promise<RunningServer> =>
  startServer({
    config: testConfig(),
    db: join(dir, file),
    synchronous: 'NORMAL',
    port,
    clock,
    docs: false,
    inspector: false,
    transport: { shutdownGraceSeconds: 0 },
  });

/** Polls until `done` holds; the test's own timeout ends a wait that never does (no timed assertion). */
async function until(done: () => Promise<boolean>): Promise<void> {
  while (!(await done())) await new Promise((r) => setTimeout(r, 50));
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'ems-delivery-'));
  writeFileSync(join(dir, 'token'), `${T.convA}\n`);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test(`${EVENTS} events reach an upstream stopped and restarted mid-run, each once`, {
  timeout: 600_000,
}, async () => {
  let upstream = await upstreamAt(0);
  const port = upstream.port;
  let sender: Harness | undefined;
  try {
    sender = await startHarness({
      clock,
      db: join(dir, 'sender.db'),
      synchronous: 'NORMAL',
      config: {
        ...testConfig(),
        delivery: {
          sinks: [
            {
              name: 'pinterest',
              kind: 'conversions_api',
              url: upstream.url,
              ad_accounts: [A],
              token_file: join(dir, 'token'),
            },
          ],
          retry_base_ms: 20,
          retry_max_seconds: 1,
        },
      },
    });
    const s = sender;
    const counters = () => s.server.delivery?.counters()[0];
    const send = async (from: number, to: number) => {
      for (let i = from; i < to; i += BATCH) {
        const data = Array.from({ length: Math.min(BATCH, to - i) }, (_, j) =>
          event(s.nowS(), { event_id: `e-${i + j}` }),
        );
        const r = await s.send(A, T.convA, data);
        expect(r.status).toBe(200);
        expect(r.body.num_events_processed).toBe(data.length);
      }
    };

    await send(0, EVENTS / 2);
    // Stopped while deliveries run: a batch may be stored upstream with its answer lost, and sent again.
    await until(async () => (counters()?.delivered ?? 0) > 0);
    await upstream.close();
    await send(EVENTS / 2, EVENTS);
    // Refused once it is down. A batch in flight while it closed fails first in its own way (its 503 of C43
    // and C74, or its socket closed under it: UND_ERR_SOCKET); the retries after it meet the closed port.
    await until(async () => /ECONNREFUSED/.test(counters()?.lastError ?? ''));
    expect(counters()?.failures).toBeGreaterThan(0);

    upstream = await upstreamAt(port);
    const outbox = s.server.store as unknown as import('../src/store/interface/outbox.js').Outbox;
    await until(async () => (await outbox.outboxStats()).length === 0);

    const report = await upstream.store.report(A);
    expect(report.stored.map((r) => [r.eventName, r.processed])).toEqual([['checkout', EVENTS]]);
    const sent = await s.server.store.report(A);
    expect(sent.stored.map((r) => [r.eventName, r.processed, r.duplicates])).toEqual([
      ['checkout', EVENTS, 0],
    ]);
    // Every entry settled delivered, with the upstream's answer for each event.
    const first = await s.call('GET', '/admin/requests?limit=1', { token: T.admin });
    const last = await outbox.outboxOfRequest(first.body.items[0].request_id);
    expect(last.length).toBe(first.body.items[0].events);
    expect(new Set(last.map((e) => `${e.state}:${e.result?.status}`))).toEqual(
      new Set(['delivered:processed']),
    );
  } finally {
    await sender?.close();
    await upstream.close();
  }
});

test('two instances on one SQLite file share the outbox: no entry is delivered by both', {
  timeout: 120_000,
}, async () => {
  const upstream = await upstreamAt(0, 'upstream-shared.db');
  const config = {
    ...testConfig(),
    delivery: {
      sinks: [
        { name: 'pinterest', kind: 'conversions_api', url: upstream.url, token_file: join(dir, 'token') },
      ],
      // Small batches: both instances get a share of the claims.
      concurrency: 1,
    },
  };
  const path = join(dir, 'shared.db');
  const instances: Harness[] = [];
  try {
    for (let i = 0; i < 2; i++)
      instances.push(await startHarness({ clock, db: path, synchronous: 'NORMAL', config }));
    const [one, two] = instances as [Harness, Harness];
    const N = 2000;
    for (let i = 0; i < N; i += 100) {
      const data = Array.from({ length: 100 }, (_, j) => event(one.nowS(), { event_id: `shared-${i + j}` }));
      expect((await (i % 200 ? one : two).send(A, T.convA, data)).status).toBe(200);
    }
    const outbox = one.server.store as unknown as import('../src/store/interface/outbox.js').Outbox;
    await until(async () => (await outbox.outboxStats()).length === 0);
    // A deliverer counts a settlement once the store answered it: a message after the commit the stats read.
    const counted = () => instances.map((h) => h.server.delivery?.counters()[0]?.delivered ?? 0);
    await until(async () => (counted()[0] ?? 0) + (counted()[1] ?? 0) >= N);
    const delivered = counted();
    // Each entry was delivered by exactly one of them, and the upstream saw no repeat.
    expect(delivered[0]! + delivered[1]!).toBe(N);
    const report = await upstream.store.report(A);
    expect(report.stored.map((r) => [r.processed, r.duplicates])).toEqual([[N, 0]]);
  } finally {
    for (const h of instances) await h.close();
    await upstream.close();
  }
});
