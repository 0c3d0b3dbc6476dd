// Where one delivery round goes (issue 34): a store filled with N routed events, then the Deliverer alone
// against the bench's upstream, each outbox call and each delivery timed. Usage:
//   node --import tsx bench/experiments/drain-rounds.ts [sqlite|pg] [events]
import { fork } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pino from 'pino';
import { ConversionsApiSink } from '../../src/delivery/conversions-api-sink.js';
import { Deliverer } from '../../src/delivery/deliverer.js';
import { DEFAULT_DELIVERY, forwardSink } from '../../src/delivery/delivery-config.js';
import type { Outbox } from '../../src/store/interface/outbox.js';
import type { Store } from '../../src/store/interface/store.js';
import { PgStore } from '../../src/store/pg/pg-store.js';
import { ThreadedSqliteStore } from '../../src/store/threaded-store.js';
import { bodyParts } from '../bench-body.js';
import { createBenchDatabase, pgReachable } from '../postgres.js';

const kind = process.argv[2] ?? 'sqlite';
const N = Number(process.argv[3] ?? 50_000);
const dir = mkdtempSync(join(tmpdir(), 'ems-drain-'));
const pgAdmin = kind === 'pg' ? await pgReachable('postgres://postgres@127.0.0.1:5432/postgres') : null;
const db = pgAdmin ? await createBenchDatabase(pgAdmin) : null;
const store: Store & Outbox = db
  ? await PgStore.open({ url: db.url, poolSize: 10 })
  : await ThreadedSqliteStore.open({ path: join(dir, 'e.db'), synchronous: 'FULL' });
await store.routeOutbox([{ sink: 'forward', adAccounts: null }]);
const parts = bodyParts(1000);
const t0 = Date.now();
for (let r = 0; r < N / 1000; r++) {
  const events = (JSON.parse(parts.join(`x${r}`)) as { data: unknown[] }).data;
  await store.commitBatch({
    adAccountId: '549755885175',
    requestId: `r${r}`,
    receivedAt: Date.now(),
    dedupSince: 0,
    events: events.map((e, index) => ({
      index,
      eventName: (e as { event_name: string }).event_name,
      eventId: (e as { event_id: string }).event_id,
      eventTime: 1,
      usage: [],
      json: JSON.stringify(e),
    })),
    failures: [],
  });
}
process.stderr.write(`filled ${N} in ${Date.now() - t0} ms\n`);
const up = fork(fileURLToPath(new URL('../upstream-server.mjs', import.meta.url)), [], {
  stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
});
const url = await new Promise<string>((r) => up.once('message', (m: { url: string }) => r(m.url)));
const timing = { claim: 0, claims: 0, settle: 0, settles: 0 };
const timed: Store & Outbox = Object.create(store);
timed.claimOutbox = async (c) => {
  const t = performance.now();
  const b = await store.claimOutbox(c);
  timing.claim += performance.now() - t;
  timing.claims++;
  return b;
};
timed.settleOutbox = async (o, x) => {
  const t = performance.now();
  await store.settleOutbox(o, x);
  timing.settle += performance.now() - t;
  timing.settles++;
};
timed.pruneOutbox = async () => 0;
const sink = new ConversionsApiSink(forwardSink(url, null), 'tok-0123456789abcdef', Date.now);
let send = 0;
const deliver = sink.deliver.bind(sink);
sink.deliver = async (b, s) => {
  const t = performance.now();
  const r = await deliver(b, s);
  send += performance.now() - t;
  return r;
};
const d = new Deliverer(timed, [sink], DEFAULT_DELIVERY, pino({ level: 'warn' }));
const t1 = Date.now();
d.start();
for (;;) {
  await new Promise((r) => setTimeout(r, 100));
  if ((d.counters()[0]?.delivered ?? 0) >= N) break;
}
const ms = Date.now() - t1;
await d.close();
up.kill();
process.stdout.write(
  `${kind}: ${N} delivered in ${ms} ms (${Math.round((N / ms) * 1000)} events/s); claims ${timing.claims} ` +
    `${(timing.claim / timing.claims).toFixed(1)} ms each, sends ${(send / timing.claims).toFixed(1)} ms each, ` +
    `settles ${timing.settles} ${(timing.settle / timing.settles).toFixed(1)} ms each\n`,
);
await store.close();
await db?.drop();
rmSync(dir, { recursive: true, force: true });
