// C100: the PostgreSQL outbox under racing deliverers: events stored by the real batch call (migration 5's
// events_commit_batches_to), then claimed by six claimers at once; no entry is held by two, every entry is
// claimed once. (The behaviour every store shares is in outbox.test.ts.)
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { PgStore } from '../src/store/pg/pg-store.js';
import { createTestDatabase, postgresReachable, type TestDatabase } from './support/postgres.js';

describe.skipIf(!(await postgresReachable()))('PostgreSQL outbox, racing claimers', () => {
  let db: TestDatabase;
  let store: PgStore;
  beforeAll(async () => {
    db = await createTestDatabase();
    store = await PgStore.open({ url: db.url, poolSize: 8 });
  });
  afterAll(async () => {
    await store.close();
    await db.drop();
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
