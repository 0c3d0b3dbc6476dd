// C91, C100, C112: the outbox of every store against conversion deletions and racing deliverers. A deleted
// event is never delivered and never holds its account (its entries go in the deletion's transaction, and
// those an earlier version left are removed by the claim that meets them); seqs and entry ids freed by a
// deletion are never handed out again; times are whole ms; leases keep one owner per entry and the order per
// account. (The basic claim/settle behaviour is in outbox.test.ts.)
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { decodeCursor } from '../src/store/event-rows.js';
import type { Outbox, OutboxBatch } from '../src/store/outbox.js';
import { SqliteStore } from '../src/store/sqlite-store.js';
import type { BatchWrite, Store } from '../src/store/store.js';
import { ThreadedSqliteStore } from '../src/store/threaded-store.js';
import { leadBatch } from './support/outbox-batch.js';
import { openTestPgStore } from './support/pg-store.js';
import { postgresReachable } from './support/postgres.js';

const X = '1';
const Y = '2';
const sha = (email: string) => createHash('sha256').update(email).digest('hex');
const hashA = sha('a@example.com');
const hashB = sha('b@example.com');
const hashC = sha('c@example.com');
const ids = (prefix: string, n: number, from = 1) =>
  Array.from({ length: n }, (_, i) => `${prefix}${from + i}`);

const batch = (
  adAccountId: string,
  requestId: string,
  eventIds: string[],
  receivedAt = 1000,
  userData?: object,
): BatchWrite =>
  leadBatch(adAccountId, requestId, eventIds, { receivedAt, ...(userData ? { userData } : {}) });
const of = (hash: string) => ({ em: [hash] });

const claim = (
  o: Outbox,
  owner: string,
  now: number,
  { batchSize = 10, batchesPerAccount = 1, maxAccounts = 10, sink = 'up' } = {},
) => o.claimOutbox({ sink, owner, now, leaseMs: 100, batchSize, batchesPerAccount, maxAccounts });
const deliver = (o: Outbox, owner: string, b: OutboxBatch | undefined, now: number) =>
  o.settleOutbox(owner, { kind: 'delivered', adAccountId: b?.adAccountId ?? '', ids: entryIds(b), now });
const entryIds = (b: OutboxBatch | undefined) => b?.entries.map((e) => e.id) ?? [];
const eventIds = (b: OutboxBatch | undefined) => b?.entries.map((e) => e.eventId) ?? [];
const bySink = <T extends { sink: string }>(rows: T[]) =>
  [...rows].sort((a, b) => a.sink.localeCompare(b.sink));

/** The seqs of the `n` newest events, newest first, read from listEvents' cursors (an older event must exist). */
async function newestSeqs(store: Store, n: number): Promise<number[]> {
  const seqs: number[] = [];
  let cursor: string | undefined;
  for (let i = 0; i < n; i++) {
    cursor = (await store.listEvents({ limit: 1, cursor })).nextCursor ?? undefined;
    if (cursor === undefined) throw new Error('fewer events than asked');
    seqs.push(decodeCursor(cursor));
  }
  return seqs;
}

interface Opened {
  store: Store & Outbox;
  /** Deletes an account's events behind the store's back, leaving their entries (as an earlier version did). */
  dropEvents(adAccountId: string): Promise<void>;
}

const impls: { name: string; open(dir: string): Promise<Opened> }[] = [
  {
    name: 'SqliteStore',
    open: async () => {
      const store = new SqliteStore({ path: ':memory:' });
      return {
        store,
        dropEvents: async (a) =>
          void store.database.prepare('DELETE FROM events WHERE ad_account_id = ?').run(a),
      };
    },
  },
  {
    name: 'ThreadedSqliteStore',
    open: async (dir) => {
      const path = join(dir, 'events.db');
      const store = await ThreadedSqliteStore.open({ path, synchronous: 'NORMAL' });
      // A second connection to the file (WAL): the store's thread sees the deletion on its next read.
      const dropEvents = async (a: string) => {
        const db = new Database(path);
        try {
          db.pragma('busy_timeout = 5000');
          db.prepare('DELETE FROM events WHERE ad_account_id = ?').run(a);
        } finally {
          db.close();
        }
      };
      return { store, dropEvents };
    },
  },
];
if (await postgresReachable())
  impls.push({
    name: 'PgStore',
    open: async () => {
      const { store, url } = await openTestPgStore();
      const dropEvents = async (a: string) => {
        const c = new pg.Client({ connectionString: url });
        await c.connect();
        try {
          await c.query('DELETE FROM events WHERE ad_account_id = $1', [a]);
        } finally {
          await c.end();
        }
      };
      return { store, dropEvents };
    },
  });

for (const impl of impls)
  describe(`outbox conformance: ${impl.name}`, () => {
    let dir: string;
    let opened: Opened;
    let store: Store & Outbox;
    beforeEach(async () => {
      dir = mkdtempSync(join(tmpdir(), 'ems-outbox-conf-'));
      opened = await impl.open(dir);
      store = opened.store;
    });
    afterEach(async () => {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    });

    test('a deletion removes its pending entries; later events of the account go out, and only they', async () => {
      await store.routeOutbox([{ sink: 'up', adAccounts: [X] }]);
      // An older event of another account: A's events are the newest when deleted.
      await store.commitBatch(batch(Y, 'rY0', ['y0'], 900, of(hashC)));
      await store.commitBatch(batch(X, 'rA', ids('a', 5), 1000, of(hashA)));
      expect(await store.deleteConversions(X, { emailHashes: [hashA], clickIds: [] })).toEqual({
        events: 5,
        outboxEntries: 5,
        requestBodies: 0,
      });
      // New events of both accounts: with seqs reused, A's entries would now name these.
      await store.commitBatch(batch(Y, 'rY', ids('y', 5), 1100, of(hashC)));
      await store.commitBatch(batch(X, 'rB', ids('b', 5), 1200, of(hashB)));
      expect(await store.outboxStats()).toEqual([{ sink: 'up', pending: 5, dead: 0, oldestPendingAt: 1200 }]);
      const claimed = await claim(store, 'D', 2000);
      expect(claimed.map((b) => [b.sink, b.adAccountId])).toEqual([['up', X]]);
      expect(claimed[0]?.entries.map((e) => [e.eventId, e.attempts, JSON.parse(e.event)])).toEqual(
        ids('b', 5).map((id) => [id, 0, { event_id: id, user_data: { em: [hashB] } }]),
      );
      await deliver(store, 'D', claimed[0], 2001);
      // Nothing pending forever: the deleted events left nothing behind.
      expect(await store.outboxStats()).toEqual([]);
      expect(await claim(store, 'D', 9000)).toEqual([]);
    });

    test('seqs and entry ids freed by deleting the newest events are never handed out again', async () => {
      await store.routeOutbox([{ sink: 'up', adAccounts: [X] }]);
      await store.commitBatch(batch(Y, 'rY0', ['y0'], 900, of(hashC)));
      await store.commitBatch(batch(X, 'rA', ids('a', 5), 1000, of(hashA)));
      const seqsOfA = await newestSeqs(store, 5);
      // Leased when deleted: a deletion removes entries in every state.
      const [heldA] = await claim(store, 'D', 2000);
      expect(eventIds(heldA)).toEqual(ids('a', 5));
      expect((await store.deleteConversions(X, { emailHashes: [hashA], clickIds: [] })).outboxEntries).toBe(
        5,
      );
      await store.commitBatch(batch(Y, 'rY', ids('y', 5), 1100, of(hashC)));
      await store.commitBatch(batch(X, 'rB', ids('b', 5), 1200, of(hashB)));
      const seqsAfter = await newestSeqs(store, 10);
      expect(Math.min(...seqsAfter)).toBeGreaterThan(Math.max(...seqsOfA));
      const [b] = await claim(store, 'D', 2001);
      expect(eventIds(b)).toEqual(ids('b', 5));
      expect(Math.min(...entryIds(b))).toBeGreaterThan(Math.max(...entryIds(heldA)));
      // The inspector: B's entries under B's request, none under A's (nor Y's: not routed).
      expect(await store.outboxOfRequest('rA')).toEqual([]);
      expect(await store.outboxOfRequest('rY')).toEqual([]);
      expect(await store.outboxOfRequest('rB')).toEqual(
        ids('b', 5).map((eventId) => ({
          sink: 'up',
          eventName: 'lead',
          eventId,
          state: 'pending',
          attempts: 0,
          lastError: null,
          nextAttemptAt: 1200,
          deliveredAt: null,
          result: null,
        })),
      );
    });

    test('a deletion removes the entries of every sink, delivered ones too, of its account only', async () => {
      await store.routeOutbox([
        { sink: 'up', adAccounts: null },
        { sink: 'other', adAccounts: [X] },
      ]);
      await store.commitBatch(batch(X, 'rA', ids('a', 3), 1000, of(hashA)));
      await store.commitBatch(batch(X, 'rB', ids('b', 2), 1100, of(hashB)));
      await store.commitBatch(batch(Y, 'rYA', ids('ya', 3), 1200, of(hashA)));
      await store.commitBatch(batch(X, 'rK', ['k1'], 1300, { click_id: 'epik-1' }));
      // Two of A's entries of 'other' already delivered: removed as well (the event is gone).
      const [sent] = await claim(store, 'D', 2000, { sink: 'other', batchSize: 2 });
      expect(eventIds(sent)).toEqual(['a1', 'a2']);
      await deliver(store, 'D', sent, 2001);
      // A's 3 events and the click id's 1 on X, each with an entry of both sinks.
      expect(await store.deleteConversions(X, { emailHashes: [hashA], clickIds: ['epik-1'] })).toEqual({
        events: 4,
        outboxEntries: 8,
        requestBodies: 0,
      });
      expect(bySink(await store.outboxStats())).toEqual([
        { sink: 'other', pending: 2, dead: 0, oldestPendingAt: 1100 },
        { sink: 'up', pending: 5, dead: 0, oldestPendingAt: 1100 },
      ]);
      expect(await store.outboxOfRequest('rA')).toEqual([]);
      expect(await store.outboxOfRequest('rK')).toEqual([]);
      // Y's events of the same user are untouched: a deletion is per account.
      expect((await store.outboxOfRequest('rYA')).map((e) => [e.sink, e.eventId, e.state])).toEqual([
        ['up', 'ya1', 'pending'],
        ['up', 'ya2', 'pending'],
        ['up', 'ya3', 'pending'],
      ]);
      const up = await claim(store, 'D', 2002);
      expect(up.map((b) => [b.adAccountId, eventIds(b)])).toEqual([
        [X, ['b1', 'b2']],
        [Y, ['ya1', 'ya2', 'ya3']],
      ]);
      const other = await claim(store, 'D', 2002, { sink: 'other' });
      expect(other.map((b) => [b.adAccountId, eventIds(b)])).toEqual([[X, ['b1', 'b2']]]);
    });

    test('after a deletion of 30 pending events, claims go on with the next ones in order', async () => {
      await store.routeOutbox([{ sink: 'up', adAccounts: null }]);
      await store.commitBatch(batch(X, 'rA', ids('a', 30), 1000, of(hashA)));
      expect(await store.deleteConversions(X, { emailHashes: [hashA], clickIds: [] })).toEqual({
        events: 30,
        outboxEntries: 30,
        requestBodies: 0,
      });
      await store.commitBatch(batch(X, 'rB', ids('b', 10), 1100, of(hashB)));
      const got: string[][] = [];
      for (let i = 0; i < 5; i++) {
        const batches = await claim(store, 'D', 2000, { batchSize: 5 });
        if (!batches.length) break;
        got.push(...batches.map(eventIds));
        for (const b of batches) await deliver(store, 'D', b, 2001);
      }
      expect(got).toEqual([ids('b', 5), ids('b', 5, 6)]);
      expect(await store.outboxStats()).toEqual([]);
    });

    test('entries whose events an earlier version deleted are removed by the claim, never in the way', async () => {
      await store.routeOutbox([{ sink: 'up', adAccounts: null }]);
      await store.commitBatch(batch(X, 'rA', ids('a', 30), 1000, of(hashA)));
      await opened.dropEvents(X);
      await store.commitBatch(batch(X, 'rB', ids('b', 10), 1100, of(hashB)));
      // The left-overs still count until a claim meets them.
      expect(await store.outboxStats()).toEqual([
        { sink: 'up', pending: 40, dead: 0, oldestPendingAt: 1000 },
      ]);
      const [first, ...none] = await claim(store, 'D', 2000, { batchSize: 5 });
      expect(none).toEqual([]);
      expect(eventIds(first)).toEqual(ids('b', 5));
      expect(await store.outboxStats()).toEqual([
        { sink: 'up', pending: 10, dead: 0, oldestPendingAt: 1100 },
      ]);
      expect(await store.outboxOfRequest('rA')).toEqual([]);
      await deliver(store, 'D', first, 2001);
      const [second] = await claim(store, 'D', 2002, { batchSize: 5 });
      expect(eventIds(second)).toEqual(ids('b', 5, 6));
      await deliver(store, 'D', second, 2003);
      expect(await store.outboxStats()).toEqual([]);
    });

    test('fractional times are stored as whole ms, rounded up', async () => {
      await store.routeOutbox([{ sink: 'up', adAccounts: null }]);
      await store.commitBatch(batch(X, 'r1', ['a']));
      const [held] = await claim(store, 'D', 2000);
      // A jittered retry: PostgreSQL's bigint columns refuse a fraction, so the stores round it.
      await store.settleOutbox('D', {
        kind: 'failed',
        adAccountId: X,
        ids: entryIds(held),
        now: 2000.7,
        error: 'HTTP 503',
        retryAt: 3000.25,
        maxAttempts: 5,
      });
      expect(await store.outboxOfRequest('r1')).toEqual([
        {
          sink: 'up',
          eventName: 'lead',
          eventId: 'a',
          state: 'pending',
          attempts: 1,
          lastError: 'HTTP 503',
          nextAttemptAt: 3001,
          deliveredAt: null,
          result: null,
        },
      ]);
      expect(await claim(store, 'D', 3000)).toEqual([]);
      const [retry] = await claim(store, 'D', 3001);
      expect(retry?.entries.map((e) => [e.eventId, e.attempts])).toEqual([['a', 1]]);
      await deliver(store, 'D', retry, 3001.5);
      expect((await store.outboxOfRequest('r1'))[0]).toMatchObject({ state: 'delivered', deliveredAt: 3002 });
    });

    test('maxAttempts 0 (a refusal such as a 401): dead at once, the later entries go on', async () => {
      await store.routeOutbox([{ sink: 'up', adAccounts: null }]);
      await store.commitBatch(batch(X, 'r1', ['a', 'b'], 1000));
      await store.commitBatch(batch(X, 'r2', ['c'], 1100));
      const [held] = await claim(store, 'D', 2000, { batchSize: 2 });
      expect(eventIds(held)).toEqual(['a', 'b']);
      await store.settleOutbox('D', {
        kind: 'failed',
        adAccountId: X,
        ids: entryIds(held),
        now: 2001,
        error: 'HTTP 401',
        retryAt: 60_000,
        maxAttempts: 0,
      });
      expect(await store.outboxStats()).toEqual([{ sink: 'up', pending: 1, dead: 2, oldestPendingAt: 1100 }]);
      expect(
        (await store.outboxOfRequest('r1')).map((e) => [e.eventId, e.state, e.attempts, e.lastError]),
      ).toEqual([
        ['a', 'dead', 1, 'HTTP 401'],
        ['b', 'dead', 1, 'HTTP 401'],
      ]);
      // Not held back until the retry time: dead entries are no longer the account's head.
      const [rest] = await claim(store, 'D', 2002);
      expect(eventIds(rest)).toEqual(['c']);
    });

    // Found by outbox-model.test.ts: a requeued entry went back in front of entries out with a deliverer.
    test('a requeued entry never lets its account be claimed beside entries still out', async () => {
      await store.routeOutbox([{ sink: 'up', adAccounts: null }]);
      await store.commitBatch(batch(X, 'r1', ['a', 'b', 'c'], 1000));
      const [first] = await claim(store, 'A', 2000, { batchSize: 1 });
      await store.settleOutbox('A', {
        kind: 'failed',
        adAccountId: X,
        ids: entryIds(first),
        now: 2000,
        error: 'HTTP 401',
        retryAt: 2000,
        maxAttempts: 1,
      });
      const [out] = await claim(store, 'B', 2001, { batchSize: 1 });
      expect(eventIds(out)).toEqual(['b']);
      expect(await store.requeueDeadOutbox(2002)).toBe(1);
      // b is out until 2101: nobody else takes the account, neither b again nor a before it.
      expect(await claim(store, 'C', 2003)).toEqual([]);
      await store.settleOutbox('B', { kind: 'delivered', adAccountId: X, ids: entryIds(out), now: 2050 });
      const [next] = await claim(store, 'C', 2102);
      expect(eventIds(next)).toEqual(['a', 'c']);
    });

    // Found by outbox-model.test.ts: after a requeue, a delivered entry showed an earlier delivery's time.
    test('a requeued entry delivered later shows its own delivery time, and retention keeps it', async () => {
      await store.routeOutbox([{ sink: 'up', adAccounts: null }]);
      await store.commitBatch(batch(X, 'r1', ['a'], 1000));
      const [first] = await claim(store, 'A', 1100);
      await store.settleOutbox('A', {
        kind: 'failed',
        adAccountId: X,
        ids: entryIds(first),
        now: 1100,
        error: 'HTTP 401',
        retryAt: 1100,
        maxAttempts: 0,
      });
      await store.commitBatch(batch(X, 'r2', ['b', 'c'], 1200));
      const [b] = await claim(store, 'A', 1400, { batchSize: 1 });
      await store.settleOutbox('A', { kind: 'delivered', adAccountId: X, ids: entryIds(b), now: 1500 });
      expect(await store.requeueDeadOutbox(1600)).toBe(1);
      const [rest] = await claim(store, 'A', 1700);
      expect(eventIds(rest)).toEqual(['a', 'c']);
      await store.settleOutbox('A', { kind: 'delivered', adAccountId: X, ids: entryIds(rest), now: 2000 });
      expect((await store.outboxOfRequest('r1')).map((e) => [e.eventId, e.state, e.deliveredAt])).toEqual([
        ['a', 'delivered', 2000],
      ]);
      expect(await store.pruneOutbox(1800)).toBe(1);
      expect((await store.outboxOfRequest('r2')).map((e) => [e.eventId, e.deliveredAt])).toEqual([
        ['c', 2000],
      ]);
      expect((await store.outboxOfRequest('r1')).map((e) => e.eventId)).toEqual(['a']);
    });

    test('two deliverers claiming at once: one owner per entry, each delivered once, in order', async () => {
      await store.routeOutbox([{ sink: 'up', adAccounts: null }]);
      const accounts = ['acc0', 'acc1', 'acc2'];
      for (const a of accounts) await store.commitBatch(batch(a, `r-${a}`, ids(`${a}-`, 20), 1000));
      const held = new Map<number, string>();
      const doubled: string[] = [];
      const seen: number[] = [];
      const order = new Map<string, string[]>();
      await Promise.all(
        ['w0', 'w1'].map(async (owner) => {
          for (let round = 0; round < 50; round++) {
            const batches = await store.claimOutbox({
              sink: 'up',
              owner,
              now: 2000,
              leaseMs: 1_000_000,
              batchSize: 4,
              batchesPerAccount: 3,
              maxAccounts: 2,
            });
            if (!batches.length) return;
            expect(new Set(batches.map((b) => b.adAccountId)).size).toBeLessThanOrEqual(2);
            for (const b of batches) {
              expect(b.entries.length).toBeLessThanOrEqual(4);
              for (const id of entryIds(b)) {
                if (held.has(id)) doubled.push(`${id}: ${held.get(id)} and ${owner}`);
                held.set(id, owner);
              }
              order.set(b.adAccountId, [...(order.get(b.adAccountId) ?? []), ...eventIds(b)]);
            }
            for (const b of batches) {
              await store.settleOutbox(owner, {
                kind: 'delivered',
                adAccountId: b.adAccountId,
                ids: entryIds(b),
                now: 2001,
              });
              seen.push(...entryIds(b));
            }
          }
          throw new Error(`${owner} never ran out of work`);
        }),
      );
      // `held` is never emptied: a delivered entry claimed again counts as doubled too.
      expect(doubled).toEqual([]);
      expect(seen.length).toBe(60);
      expect(new Set(seen).size).toBe(60);
      for (const a of accounts) expect(order.get(a)).toEqual(ids(`${a}-`, 20));
      expect(await store.outboxStats()).toEqual([]);
    });

    test('batchesPerAccount: several batches of one account in one claim, the account held until all settle', async () => {
      await store.routeOutbox([{ sink: 'up', adAccounts: null }]);
      await store.commitBatch(batch(X, 'r1', ids('e', 10), 1000));
      await store.commitBatch(batch(Y, 'r2', ['y1', 'y2'], 1100));
      const opts = { batchSize: 4, batchesPerAccount: 3, maxAccounts: 1 };
      const first = await claim(store, 'A', 2000, opts);
      expect(first.map((b) => [b.adAccountId, eventIds(b)])).toEqual([
        [X, ['e1', 'e2', 'e3', 'e4']],
        [X, ['e5', 'e6', 'e7', 'e8']],
        [X, ['e9', 'e10']],
      ]);
      // Another owner at the same time: nothing of X, only the other account.
      const other = await claim(store, 'B', 2000, opts);
      expect(other.map((b) => [b.adAccountId, eventIds(b)])).toEqual([[Y, ['y1', 'y2']]]);
      await deliver(store, 'B', other[0], 2001);
      await deliver(store, 'A', first[0], 2001);
      await deliver(store, 'A', first[1], 2001);
      // The third batch still holds the account.
      expect(await claim(store, 'B', 2002, opts)).toEqual([]);
      await store.settleOutbox('A', { kind: 'released', adAccountId: X, ids: entryIds(first[2]) });
      const again = await claim(store, 'B', 2002, opts);
      expect(again.map((b) => [b.adAccountId, b.entries.map((e) => [e.eventId, e.attempts])])).toEqual([
        [
          X,
          [
            ['e9', 0],
            ['e10', 0],
          ],
        ],
      ]);
    });
  });
