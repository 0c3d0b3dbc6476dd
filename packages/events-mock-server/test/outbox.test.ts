// C100: the outbox of every store (SQLite in the same process and through the store thread, PostgreSQL on a
// database of its own): written with the batch only while a sink is routed, claimed under a lease in order
// per account, settled, re-queued, pruned.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import type { Outbox } from '../src/store/interface/outbox.js';
import type { Store } from '../src/store/interface/store.js';
import { SqliteStore } from '../src/store/sqlite/sqlite-store.js';
import { ThreadedSqliteStore } from '../src/store/threaded-store.js';
import { leadBatch } from './support/outbox-batch.js';
import { openTestPgStore } from './support/pg-store.js';
import { postgresReachable } from './support/postgres.js';

const batch = (adAccountId: string, requestId: string, ids: string[], receivedAt = 1000) =>
  leadBatch(adAccountId, requestId, ids, { receivedAt });

const claim = (o: Outbox, owner: string, now: number, batchSize = 10) =>
  o.claimOutbox({ sink: 'up', owner, now, leaseMs: 100, batchSize, batchesPerAccount: 1, maxAccounts: 10 });

const impls: { name: string; open(dir: string): Promise<Store & Outbox> }[] = [
  { name: 'SqliteStore', open: async () => new SqliteStore({ path: ':memory:' }) },
  {
    name: 'ThreadedSqliteStore',
    open: (dir) => ThreadedSqliteStore.open({ path: join(dir, 'events.db'), synchronous: 'NORMAL' }),
  },
];
// PostgreSQL (migration 5): a database per test, dropped when the store closes. Skipped only where no
// PostgreSQL answers (CI runs one).
if (await postgresReachable())
  impls.push({
    name: 'PgStore',
    open: async () => (await openTestPgStore()).store,
  });

for (const impl of impls)
  describe(`outbox: ${impl.name}`, () => {
    let dir: string;
    let store: Store & Outbox;
    beforeEach(async () => {
      dir = mkdtempSync(join(tmpdir(), 'ems-outbox-'));
      store = await impl.open(dir);
    });
    afterEach(async () => {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    });

    test('no sink routed: a stored batch writes no entry', async () => {
      await store.commitBatch(batch('1', 'r1', ['a', 'b']));
      expect(await store.outboxStats()).toEqual([]);
      expect(await store.outboxOfRequest('r1')).toEqual([]);
    });

    test('entries of routed accounts only, duplicates not, claimed in order under a lease', async () => {
      await store.routeOutbox([{ sink: 'up', adAccounts: ['1'] }]);
      await store.commitBatch(batch('1', 'r1', ['a', 'b', 'a']));
      await store.commitBatch(batch('2', 'r2', ['x']));
      await store.commitBatch(batch('1', 'r3', ['b', 'c']));
      expect(await store.outboxStats()).toEqual([{ sink: 'up', pending: 3, dead: 0, oldestPendingAt: 1000 }]);
      const [first, ...none] = await claim(store, 'A', 2000, 2);
      expect(none).toEqual([]);
      expect(first?.adAccountId).toBe('1');
      expect(first?.entries.map((e) => [e.eventId, e.event, e.attempts])).toEqual([
        ['a', '{"event_id":"a"}', 0],
        ['b', '{"event_id":"b"}', 0],
      ]);
      // Leased: nobody else gets the account, not even its later entries (order per account).
      expect(await claim(store, 'B', 2050)).toEqual([]);
      // The lease passed: claimed again, from the oldest entry.
      const [again] = await claim(store, 'B', 2101);
      expect(again?.entries.map((e) => e.eventId)).toEqual(['a', 'b', 'c']);
      // A's late settlement changes nothing: B holds the lease now.
      await store.settleOutbox('A', {
        kind: 'delivered',
        adAccountId: '1',
        ids: first?.entries.map((e) => e.id) ?? [],
        now: 2102,
      });
      expect((await store.outboxStats())[0]?.pending).toBe(3);
      await store.settleOutbox('B', {
        kind: 'delivered',
        adAccountId: '1',
        ids: again?.entries.map((e) => e.id) ?? [],
        now: 2200,
        results: [{ status: 'processed', message: null, warning: 'w' }, null, null],
      });
      expect(await store.outboxStats()).toEqual([]);
      expect(await store.outboxOfRequest('r1')).toEqual([
        {
          sink: 'up',
          eventName: 'lead',
          eventId: 'a',
          state: 'delivered',
          attempts: 1,
          lastError: null,
          nextAttemptAt: null,
          deliveredAt: 2200,
          result: { status: 'processed', message: null, warning: 'w' },
        },
        {
          sink: 'up',
          eventName: 'lead',
          eventId: 'b',
          state: 'delivered',
          attempts: 1,
          lastError: null,
          nextAttemptAt: null,
          deliveredAt: 2200,
          result: null,
        },
      ]);
      expect(await store.pruneOutbox(2200)).toBe(0);
      expect(await store.pruneOutbox(2201)).toBe(3);
      expect(await store.outboxOfRequest('r1')).toEqual([]);
    });

    test('failures wait for their retry, hold the account, then go dead and are re-queued', async () => {
      await store.routeOutbox([{ sink: 'up', adAccounts: null }]);
      await store.commitBatch(batch('1', 'r1', ['a']));
      await store.commitBatch(batch('2', 'r2', ['x']));
      const claimed = await claim(store, 'A', 2000);
      expect(claimed.map((b) => b.adAccountId).sort()).toEqual(['1', '2']);
      const one = claimed.find((b) => b.adAccountId === '1')?.entries.map((e) => e.id) ?? [];
      const two = claimed.find((b) => b.adAccountId === '2')?.entries.map((e) => e.id) ?? [];
      await store.settleOutbox('A', {
        kind: 'failed',
        adAccountId: '1',
        ids: one,
        now: 2001,
        error: 'HTTP 503',
        retryAt: 3000,
        maxAttempts: 2,
      });
      await store.settleOutbox('A', { kind: 'delivered', adAccountId: '2', ids: two, now: 2001 });
      await store.commitBatch(batch('1', 'r3', ['b'], 2500));
      // Account 1 waits for its retry, later entries too.
      expect(await claim(store, 'A', 2999)).toEqual([]);
      expect((await store.outboxOfRequest('r1'))[0]).toMatchObject({
        state: 'pending',
        attempts: 1,
        lastError: 'HTTP 503',
        nextAttemptAt: 3000,
      });
      const [retry] = await claim(store, 'A', 3000);
      expect(retry?.entries.map((e) => [e.eventId, e.attempts])).toEqual([
        ['a', 1],
        ['b', 0],
      ]);
      await store.settleOutbox('A', {
        kind: 'failed',
        adAccountId: '1',
        ids: retry?.entries.map((e) => e.id) ?? [],
        now: 3001,
        error: 'HTTP 429',
        retryAt: 4000,
        maxAttempts: 2,
      });
      // a reached 2 attempts: dead, and no longer holds b back.
      expect(await store.outboxStats()).toEqual([{ sink: 'up', pending: 1, dead: 1, oldestPendingAt: 2500 }]);
      const [rest] = await claim(store, 'A', 4000);
      expect(rest?.entries.map((e) => e.eventId)).toEqual(['b']);
      expect(await store.requeueDeadOutbox(5000, 'other')).toBe(0);
      expect(await store.requeueDeadOutbox(5000)).toBe(1);
      expect((await store.outboxOfRequest('r1'))[0]).toMatchObject({
        state: 'pending',
        attempts: 0,
        nextAttemptAt: 5000,
      });
    });

    test('a released batch is claimable at once, with no attempt counted', async () => {
      await store.routeOutbox([{ sink: 'up', adAccounts: null }]);
      await store.commitBatch(batch('1', 'r1', ['a']));
      const [held] = await claim(store, 'A', 2000);
      await store.settleOutbox('B', {
        kind: 'released',
        adAccountId: '1',
        ids: held?.entries.map((e) => e.id) ?? [],
      });
      expect(await claim(store, 'B', 2001)).toEqual([]);
      await store.settleOutbox('A', {
        kind: 'released',
        adAccountId: '1',
        ids: held?.entries.map((e) => e.id) ?? [],
      });
      const [again] = await claim(store, 'B', 2001);
      expect(again?.entries.map((e) => [e.eventId, e.attempts])).toEqual([['a', 0]]);
    });

    test('reset empties the outbox', async () => {
      await store.routeOutbox([{ sink: 'up', adAccounts: null }]);
      await store.commitBatch(batch('1', 'r1', ['a']));
      await store.reset();
      expect(await store.outboxStats()).toEqual([]);
    });
  });
