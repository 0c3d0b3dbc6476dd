// C100: the PostgreSQL outbox under racing deliverers: events stored by the real batch call (migration 5's
// events_commit_batches_to), then claimed by six claimers at once; no entry is held by two, every entry is
// claimed once. (The behaviour every store shares is in outbox.test.ts.)

import pg from 'pg';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { COMMIT_BATCHES_TO, groupParams } from '../src/store/pg/batch-group.js';
import { PgStore } from '../src/store/pg/pg-store.js';
import { leadBatch } from './support/outbox-batch.js';
import { openTestPgStore } from './support/pg-store.js';
import { postgresReachable } from './support/postgres.js';

describe.skipIf(!(await postgresReachable()))('PostgreSQL outbox, racing claimers', () => {
  let store: PgStore;
  beforeAll(async () => {
    store = (await openTestPgStore(8)).store;
  });
  afterAll(async () => {
    await store.close();
  });

  test('claimers racing never hold one entry at once, and every entry is claimed', async () => {
    await store.routeOutbox([{ sink: 'up', adAccounts: null }]);
    const now = Date.now();
    for (let a = 0; a < 6; a++)
      await store.commitBatch({
        adAccountId: `acc${a}`,
        requestId: `race-${a}`,
        receivedAt: now,
        dedupSince: now - 172_800_000,
        events: Array.from({ length: 30 }, (_, i) => ({
          index: i,
          eventName: 'lead',
          eventId: `${a}-${i}`,
          eventTime: 1,
          usage: [],
          json: `{"event_id":"${a}-${i}"}`,
        })),
        failures: [],
      });
    const seen: number[] = [];
    const order = new Map<string, string[]>();
    await Promise.all(
      Array.from({ length: 6 }, async (_, w) => {
        for (;;) {
          const batches = await store.claimOutbox({
            sink: 'up',
            owner: `w${w}`,
            now: now + 1000,
            leaseMs: 1_000_000,
            batchSize: 7,
            batchesPerAccount: 1,
            maxAccounts: 2,
          });
          if (!batches.length) return;
          for (const b of batches) {
            const ids = b.entries.map((e) => e.id);
            seen.push(...ids);
            order.set(b.adAccountId, [
              ...(order.get(b.adAccountId) ?? []),
              ...b.entries.map((e) => e.eventId),
            ]);
            await store.settleOutbox(`w${w}`, {
              kind: 'delivered',
              adAccountId: b.adAccountId,
              ids,
              now: now + 1001,
            });
          }
        }
      }),
    );
    expect(seen.length).toBe(180);
    expect(new Set(seen).size).toBe(180);
    // In order per account (C100): each account's entries went out as they were stored.
    for (let a = 0; a < 6; a++)
      expect(order.get(`acc${a}`)).toEqual(Array.from({ length: 30 }, (_, i) => `${a}-${i}`));
    expect(await store.outboxStats()).toEqual([]);
  });
});

describe.skipIf(!(await postgresReachable()))('PostgreSQL outbox, calls committing out of order', () => {
  // Two batch calls of one account: the first draws its entries' ids, the second would draw higher ones
  // and commit first. A cursor that passed the second's entries would count the first's as delivered
  // (C114): the ids of an account's entries are drawn one call at a time, so the second waits.
  test('entries committed late are still delivered', async () => {
    const { store, url } = await openTestPgStore();
    const raw = new pg.Client({ connectionString: url });
    await raw.connect();
    try {
      await store.routeOutbox([{ sink: 'up', adAccounts: null }]);
      const now = Date.now();
      const batch = (requestId: string, ids: string[]) =>
        leadBatch('acc', requestId, ids, { receivedAt: now, dedupSince: now - 172_800_000 });
      const delivered: string[] = [];
      const drain = async (at: number) => {
        for (;;) {
          const batches = await store.claimOutbox({
            sink: 'up',
            owner: 'w',
            now: at,
            leaseMs: 1000,
            batchSize: 10,
            batchesPerAccount: 1,
            maxAccounts: 1,
          });
          if (!batches.length) return;
          for (const b of batches) {
            delivered.push(...b.entries.map((e) => e.eventId));
            await store.settleOutbox('w', {
              kind: 'delivered',
              adAccountId: b.adAccountId,
              ids: b.entries.map((e) => e.id),
              now: at,
            });
          }
        }
      };
      // The month's partitions exist once the store has stored a batch.
      await store.commitBatch(batch('r0', ['x']));
      await drain(now + 1);
      await raw.query('BEGIN');
      await raw.query(COMMIT_BATCHES_TO.text, [...groupParams([batch('r1', ['a1', 'a2'])]), ['up']]);
      const second = store.commitBatch(batch('r2', ['b1', 'b2']));
      await new Promise((r) => setTimeout(r, 300));
      await drain(now + 2);
      await raw.query('COMMIT');
      await second;
      await drain(now + 3);
      expect(delivered.sort()).toEqual(['a1', 'a2', 'b1', 'b2', 'x']);
      expect(await store.outboxStats()).toEqual([]);
    } finally {
      await raw.end();
      await store.close();
    }
  });

  // C132: a deliverer of one instance must hear of a deletion committed by another, or a batch it claimed
  // before it could still be sent after it.
  test("a conversion deletion committed by another instance moves this one's count", async () => {
    const { store: a, url } = await openTestPgStore(4);
    const b = await PgStore.open({ url, poolSize: 4 });
    try {
      await b.routeOutbox([{ sink: 'up', adAccounts: null, deletions: true }]);
      const before = b.deletionsCommitted();
      expect(a.deletionsCommitted()).toBe(0);
      await a.createDeletionRequest('549755885175', { em: ['a'.repeat(64)] }, Date.now());
      expect(a.deletionsCommitted()).toBe(1);
      const deadline = Date.now() + 5000;
      while (b.deletionsCommitted() === before && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 10));
      expect(b.deletionsCommitted()).toBe(before + 1);
      await a.deleteConversions('549755885175', { em: ['b'.repeat(64)] });
      while (b.deletionsCommitted() === before + 1 && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 10));
      expect(b.deletionsCommitted()).toBe(before + 2);
    } finally {
      await b.close();
      await a.close();
    }
  });
});
