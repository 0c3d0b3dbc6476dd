// C100: the PostgreSQL outbox (src/store/pg/outbox/, not wired into the store's migrations yet) on a real
// database of its own, with a minimal events table: leased claims in order per account, no entry held by
// two claimers at once, failures, dead entries and their re-queue.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { OUTBOX_DDL } from '../src/store/pg/outbox/outbox-sql.js';
import { PgOutbox } from '../src/store/pg/outbox/pg-outbox.js';
import { createTestDatabase, postgresReachable, type TestDatabase } from './support/postgres.js';

const EVENTS_DDL = `CREATE TABLE events (seq bigserial PRIMARY KEY, ad_account_id text NOT NULL, event_name text NOT NULL,
  event_id text NOT NULL, request_id text NOT NULL, event text NOT NULL)`;

describe.skipIf(!(await postgresReachable()))('PgOutbox (not wired)', () => {
  let db: TestDatabase;
  let pool: pg.Pool;
  let outbox: PgOutbox;
  beforeAll(async () => {
    db = await createTestDatabase();
    pool = new pg.Pool({ connectionString: db.url, max: 6 });
    await pool.query(EVENTS_DDL);
    await pool.query(OUTBOX_DDL);
    outbox = new PgOutbox(pool);
  });
  afterAll(async () => {
    await pool.end();
    await db.drop();
  });

  /** What the batch transaction would do: store the events, then write their entries. */
  async function store(account: string, request: string, ids: string[], at = 1000) {
    const seqs = (
      await pool.query(
        `INSERT INTO events (ad_account_id, event_name, event_id, request_id, event)
         SELECT $1, 'lead', id, $2, '{"event_id":"' || id || '"}' FROM unnest($3::text[]) WITH ORDINALITY AS t(id, n) ORDER BY n RETURNING seq`,
        [account, request, ids],
      )
    ).rows.map((r) => Number(r.seq));
    const sinks = outbox.sinksFor(account);
    if (sinks.length)
      await pool.query('SELECT outbox_write($1, $2, $3, $4, $5)', [sinks, account, request, at, seqs]);
  }
  const claim = (owner: string, now: number, batchSize = 10) =>
    outbox.claimOutbox({ sink: 'up', owner, now, leaseMs: 100, batchSize, maxBatches: 10 });

  test('claims in order under a lease; settles, fails, goes dead, is re-queued', async () => {
    await outbox.routeOutbox([{ sink: 'up', adAccounts: ['1'] }]);
    await store('1', 'r1', ['a', 'b']);
    await store('2', 'r2', ['x']);
    await store('1', 'r3', ['c']);
    expect(await outbox.outboxStats()).toEqual([{ sink: 'up', pending: 3, dead: 0, oldestPendingAt: 1000 }]);
    const [first] = await claim('A', 2000, 2);
    expect(first?.entries.map((e) => e.eventId)).toEqual(['a', 'b']);
    expect(await claim('B', 2050)).toEqual([]);
    const [again] = await claim('B', 2101);
    expect(again?.entries.map((e) => e.eventId)).toEqual(['a', 'b', 'c']);
    await outbox.settleOutbox('A', {
      kind: 'delivered',
      ids: first?.entries.map((e) => e.id) ?? [],
      now: 2102,
    });
    await outbox.settleOutbox('B', {
      kind: 'failed',
      ids: again?.entries.map((e) => e.id) ?? [],
      now: 2200,
      error: 'HTTP 503',
      retryAt: 3000,
      maxAttempts: 1,
    });
    expect(await outbox.outboxStats()).toEqual([{ sink: 'up', pending: 0, dead: 3, oldestPendingAt: null }]);
    expect(await outbox.requeueDeadOutbox(4000, 'up')).toBe(3);
    const [retry] = await claim('C', 4000);
    await outbox.settleOutbox('C', {
      kind: 'delivered',
      ids: retry?.entries.map((e) => e.id) ?? [],
      now: 4100,
      results: [{ status: 'failed', message: 'm', warning: null }, null, null],
    });
    expect((await outbox.outboxOfRequest('r1'))[0]).toMatchObject({
      state: 'delivered',
      attempts: 1,
      deliveredAt: 4100,
      result: { status: 'failed', message: 'm', warning: null },
    });
    expect(await outbox.pruneOutbox(4101)).toBe(3);
    await store('1', 'r4', ['d'], 5000);
    const [held] = await claim('D', 5000);
    await outbox.settleOutbox('D', { kind: 'released', ids: held?.entries.map((e) => e.id) ?? [] });
    const [back] = await claim('E', 5001);
    expect(back?.entries.map((e) => [e.eventId, e.attempts])).toEqual([['d', 0]]);
    await outbox.settleOutbox('E', {
      kind: 'delivered',
      ids: back?.entries.map((e) => e.id) ?? [],
      now: 5002,
    });
  });

  test('claimers racing never hold one entry at once, and every entry is claimed', async () => {
    await outbox.routeOutbox([{ sink: 'up', adAccounts: null }]);
    for (let a = 0; a < 6; a++)
      await store(
        `acc${a}`,
        `race-${a}`,
        Array.from({ length: 30 }, (_, i) => `${a}-${i}`),
        5000,
      );
    const seen: number[] = [];
    await Promise.all(
      Array.from({ length: 6 }, async (_, w) => {
        for (;;) {
          const batches = await outbox.claimOutbox({
            sink: 'up',
            owner: `w${w}`,
            now: 6000,
            leaseMs: 1_000_000,
            batchSize: 7,
            maxBatches: 2,
          });
          if (!batches.length) return;
          for (const b of batches) {
            const ids = b.entries.map((e) => e.id);
            seen.push(...ids);
            await outbox.settleOutbox(`w${w}`, { kind: 'delivered', ids, now: 6001 });
          }
        }
      }),
    );
    expect(seen.length).toBe(180);
    expect(new Set(seen).size).toBe(180);
    expect(await outbox.outboxStats()).toEqual([]);
  });
});
