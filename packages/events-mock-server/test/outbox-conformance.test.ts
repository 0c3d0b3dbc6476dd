// C91, C100, C112: the outbox of every store against conversion deletions and racing deliverers. A deleted
// event is never delivered and never holds its account (its entries go in the deletion's transaction, and
// those an earlier version left are removed by the claim that meets them); seqs and entry ids freed by a
// deletion are never handed out again; times are whole ms; leases keep one owner per entry and the order per
// account. (The basic claim/settle behaviour is in outbox.test.ts.)
import { createHash } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { decodeCursor } from '../src/store/common/event-rows.js';
import type { BatchWrite } from '../src/store/interface/events.js';
import type { Outbox, OutboxBatch } from '../src/store/interface/outbox.js';
import type { Store } from '../src/store/interface/store.js';
import { leadBatch } from './support/outbox-batch.js';
import { type OpenedStore, STORE_IMPLEMENTATIONS } from './support/store-implementations.js';

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

// The outbox part of every Store implementation (issue 36: each part's suite runs against all of them).
for (const impl of STORE_IMPLEMENTATIONS)
  describe.skipIf(!impl.run)(`outbox conformance: ${impl.name}`, () => {
    let opened: OpenedStore;
    let store: Store;
    beforeEach(async () => {
      opened = await impl.open();
      store = opened.store;
    });
    afterEach(() => opened.cleanup());

    test('a deletion removes its pending entries; later events of the account go out, and only they', async () => {
      await store.routeOutbox([{ sink: 'up', adAccounts: [X] }]);
      // An older event of another account: A's events are the newest when deleted.
      await store.commitBatch(batch(Y, 'rY0', ['y0'], 900, of(hashC)));
      await store.commitBatch(batch(X, 'rA', ids('a', 5), 1000, of(hashA)));
      expect(await store.deleteConversions(X, { em: [hashA], click_id: [] })).toEqual({
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
      expect((await store.deleteConversions(X, { em: [hashA], click_id: [] })).outboxEntries).toBe(5);
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
      expect(await store.deleteConversions(X, { em: [hashA], click_id: ['epik-1'] })).toEqual({
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
      expect(await store.deleteConversions(X, { em: [hashA], click_id: [] })).toEqual({
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

    // C128: an account's run goes on with the next entries while the ones it holds are out.
    test('extendClaim: the owner’s next entries after its last, its lease renewed; another owner is refused', async () => {
      await store.routeOutbox([{ sink: 'up', adAccounts: null }]);
      await store.commitBatch(batch(X, 'r1', ids('e', 6), 1000));
      const extend = (owner: string, afterId: number, now: number, limit = 2) =>
        store.extendClaim({
          sink: 'up',
          owner,
          adAccountId: X,
          afterId,
          now,
          leaseMs: 100,
          batchSize: 2,
          limit,
        });
      const [first] = await claim(store, 'A', 2000, { batchSize: 2 });
      expect(eventIds(first)).toEqual(['e1', 'e2']);
      const last = (b: OutboxBatch | undefined) => entryIds(b).at(-1) as number;
      // Another owner: nothing, the account is A's.
      expect(await extend('B', last(first), 2010)).toBeNull();
      const next = await extend('A', last(first), 2050);
      expect(next?.map(eventIds)).toEqual([['e3', 'e4']]);
      // Renewed to 2150: at 2120 (past the claim's 2100) nobody else claims the account.
      expect(await claim(store, 'B', 2120)).toEqual([]);
      // Settled as they are answered, in order, while the owner goes on.
      await deliver(store, 'A', first, 2121);
      const more = await extend('A', last(next?.[0]), 2122, 10);
      expect(more?.map(eventIds)).toEqual([['e5', 'e6']]);
      await deliver(store, 'A', next?.[0], 2123);
      await deliver(store, 'A', more?.[0], 2124);
      expect(await extend('A', last(more?.[0]), 2125)).toEqual([]);
      // Everything settled: the owner holds nothing, and a new entry is a claim of the account from its head.
      await store.commitBatch(batch(X, 'r2', ['f1'], 2200));
      expect((await extend('A', last(more?.[0]), 2300))?.map(eventIds)).toEqual([['f1']]);
      expect(await store.outboxStats()).toEqual([{ sink: 'up', pending: 1, dead: 0, oldestPendingAt: 2200 }]);
      expect(await claim(store, 'B', 2350)).toEqual([]);
    });

    // C127: a conversion deletion request passed on to a sink that takes deletions.
    test('a deletion request is an entry of its own after the account’s earlier events; its status follows the upstream', async () => {
      await store.routeOutbox([
        { sink: 'up', adAccounts: [X], deletions: true },
        { sink: 'bus', adAccounts: null },
      ]);
      await store.commitBatch(batch(X, 'r1', ids('a', 3), 1000, of(hashA)));
      await store.commitBatch(batch(X, 'r2', ids('b', 2), 1100, of(hashB)));
      const made = await store.createDeletionRequest(X, { em: [hashA], click_id: ['epik-1'] }, 1500);
      // A's events and their entries of both sinks go at once; the request waits for the upstream.
      expect(made).toMatchObject({
        status: 'PENDING',
        processedAt: null,
        removed: { events: 3, outboxEntries: 6, requestBodies: 0 },
      });
      await store.commitBatch(batch(X, 'r3', ids('c', 2), 1600, of(hashC)));
      // An account no deletion route covers: processed here only, as before.
      expect(await store.createDeletionRequest(Y, { em: [hashA] }, 1700)).toMatchObject({
        status: 'SUBMITTED',
        processedAt: 1700,
      });
      expect(bySink(await store.outboxStats())).toEqual([
        { sink: 'bus', pending: 4, dead: 0, oldestPendingAt: 1100 },
        { sink: 'up', pending: 5, dead: 0, oldestPendingAt: 1100 },
      ]);
      const shape = (b: OutboxBatch) =>
        b.deletion ? ['deletion', b.deletion.requestId, JSON.parse(b.deletion.body)] : eventIds(b);
      const claimed = await claim(store, 'D', 2000, { batchesPerAccount: 3 });
      expect(claimed.map(shape)).toEqual([
        ['b1', 'b2'],
        ['deletion', made.requestId, { deletion_targets: { user_emails: [hashA], epiks: ['epik-1'] } }],
        ['c1', 'c2'],
      ]);
      expect(claimed[1]?.entries.map((e) => e.attempts)).toEqual([0]);
      // A sink without a deletion route gets the events only.
      expect((await claim(store, 'D', 2000, { sink: 'bus' })).map(shape)).toEqual([['b1', 'b2', 'c1', 'c2']]);
      // The events before it and the request delivered in one settlement, the rest given back.
      const [before, deletion, after] = claimed as [OutboxBatch, OutboxBatch, OutboxBatch];
      const entry = (deletion.entries[0] as { id: number }).id;
      await store.settleOutbox('D', [
        {
          kind: 'delivered',
          adAccountId: X,
          ids: [...entryIds(before), entry],
          now: 2001,
          deletions: [
            { entryId: entry, status: 'SUBMITTED', processedAt: 86_400_000, upstreamRequestId: '77' },
          ],
        },
        { kind: 'released', adAccountId: X, ids: entryIds(after) },
      ]);
      expect(await store.getDeletionRequest(X, made.requestId)).toMatchObject({
        status: 'SUBMITTED',
        processedAt: 86_400_000,
      });
      const [rest] = await claim(store, 'D', 2002);
      expect(rest && shape(rest)).toEqual(['c1', 'c2']);
      await deliver(store, 'D', rest, 2003);
      expect(bySink(await store.outboxStats())).toEqual([
        { sink: 'bus', pending: 4, dead: 0, oldestPendingAt: 1100 },
      ]);
      expect(await store.pruneOutbox(3000)).toBeGreaterThanOrEqual(5);
      // Retention removed its entry: the request keeps what the upstream answered.
      expect((await store.listDeletionRequests(X)).map((r) => [r.requestId, r.status])).toEqual([
        [made.requestId, 'SUBMITTED'],
      ]);
    });

    test('a refused deletion request is dead and CANCELLED, PENDING again once requeued; the upstream’s status kept', async () => {
      await store.routeOutbox([{ sink: 'up', adAccounts: null, deletions: true }]);
      await store.commitBatch(batch(X, 'r1', ['a'], 1000, of(hashB)));
      const made = await store.createDeletionRequest(X, { em: [hashA] }, 1500);
      expect(made.removed.outboxEntries).toBe(0);
      await store.commitBatch(batch(X, 'r2', ['c'], 1600, of(hashB)));
      const [events, deletion, ...none] = await claim(store, 'D', 2000, {
        batchSize: 1,
        batchesPerAccount: 2,
      });
      expect(none).toEqual([]);
      expect(deletion?.deletion?.requestId).toBe(made.requestId);
      await deliver(store, 'D', events, 2001);
      // A retried failure leaves it PENDING; a refusal (a 401) makes it dead at once.
      const fail = (maxAttempts: number, now: number) =>
        store.settleOutbox('D', {
          kind: 'failed',
          adAccountId: X,
          ids: entryIds(deletion),
          now,
          error: 'HTTP 401',
          retryAt: now,
          maxAttempts,
        });
      await fail(5, 2002);
      expect((await store.getDeletionRequest(X, made.requestId))?.status).toBe('PENDING');
      const [again, ...held] = await claim(store, 'D', 2003, { batchSize: 1 });
      expect(held).toEqual([]);
      expect(again?.deletion?.requestId).toBe(made.requestId);
      expect(again?.entries.map((e) => e.attempts)).toEqual([1]);
      await store.settleOutbox('D', {
        kind: 'failed',
        adAccountId: X,
        ids: entryIds(again),
        now: 2004,
        error: 'HTTP 401',
        retryAt: 2004,
        maxAttempts: 0,
      });
      expect(await store.getDeletionRequest(X, made.requestId)).toMatchObject({
        status: 'CANCELLED',
        processedAt: null,
      });
      expect(await store.outboxStats()).toEqual([{ sink: 'up', pending: 1, dead: 1, oldestPendingAt: 1600 }]);
      // Dead, it holds nothing back: the later event goes on.
      const [later] = await claim(store, 'D', 2005);
      expect(eventIds(later)).toEqual(['c']);
      await deliver(store, 'D', later, 2006);
      expect(await store.requeueDeadOutbox(2007)).toBe(1);
      expect((await store.getDeletionRequest(X, made.requestId))?.status).toBe('PENDING');
      const [requeued] = await claim(store, 'D', 2008);
      expect(requeued?.deletion).toEqual({
        requestId: made.requestId,
        body: JSON.stringify({ deletion_targets: { user_emails: [hashA] } }),
      });
      // Pinterest answers PENDING (it processes later): so does this service, not processed yet.
      await store.settleOutbox('D', {
        kind: 'delivered',
        adAccountId: X,
        ids: entryIds(requeued),
        now: 2009,
        deletions: [
          {
            entryId: entryIds(requeued)[0] as number,
            status: 'PENDING',
            processedAt: null,
            upstreamRequestId: null,
          },
        ],
      });
      expect(await store.getDeletionRequest(X, made.requestId)).toMatchObject({
        status: 'PENDING',
        processedAt: null,
      });
      expect(await store.outboxStats()).toEqual([]);
      expect(await claim(store, 'D', 9000)).toEqual([]);
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
