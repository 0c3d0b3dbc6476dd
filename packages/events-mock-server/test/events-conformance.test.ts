// The events part of every Store implementation (C6, C7, C11, C91, C121; issue 36: one conformance suite
// per part, each against SQLite in memory, an SQLite file, the file on its own thread and PostgreSQL on a
// database of its own). Each test starts from an empty store; the expectations are the same literal values
// for all of them.
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import type { EventToStore } from '../src/store/interface/events.js';
import { BadCursorError, type Store } from '../src/store/interface/store.js';
import {
  ACCOUNT,
  batch,
  directory,
  dupObject,
  ev,
  KEEP,
  logged,
  OTHER,
  T0,
  WINDOW,
} from './support/store-fixtures.js';
import { type OpenedStore, STORE_IMPLEMENTATIONS } from './support/store-implementations.js';

for (const impl of STORE_IMPLEMENTATIONS) {
  describe.skipIf(!impl.run)(`Events conformance: ${impl.name}`, () => {
    let opened: OpenedStore;
    let store: Store;
    beforeEach(async () => {
      opened = await impl.open();
      store = opened.store;
    });
    afterEach(() => opened.cleanup());

    test('a batch is stored as sent; duplicates within it and across batches are folded (C6)', async () => {
      const first = await store.commitBatch(batch([ev(0, 'a'), ev(1, 'b'), ev(2, 'a')]));
      expect(dupObject(first.duplicates)).toEqual({
        2: { source: 'api', seenAt: T0, eventTime: 1_772_452_800 },
      });
      const second = await store.commitBatch(batch([ev(0, 'b'), ev(1, 'c'), ev(2, 'b', 'lead')], T0 + 1000));
      expect(dupObject(second.duplicates)).toEqual({
        0: { source: 'api', seenAt: T0, eventTime: 1_772_452_801 },
      });
      const { items, nextCursor } = await store.listEvents({ limit: 10 });
      expect(nextCursor).toBeNull();
      expect(items.map((i) => [i.eventName, i.eventId, i.dedupStatus, i.duplicates])).toEqual([
        ['lead', 'b', 'unique', 0],
        ['checkout', 'c', 'unique', 0],
        ['checkout', 'b', 'deduplicated', 1],
        ['checkout', 'a', 'deduplicated', 1],
      ]);
      expect(items[3]).toEqual({
        adAccountId: ACCOUNT,
        eventName: 'checkout',
        eventId: 'a',
        eventTime: 1_772_452_800,
        receivedAt: T0,
        requestId: `req-${T0}`,
        usage: ['reporting', 'audiences'],
        dedupStatus: 'deduplicated',
        duplicates: 1,
        event: { event_name: 'checkout', event_id: 'a', n: 0 },
      });
    });

    test('the key is (ad account, event_name, event_id), within the window only', async () => {
      await store.commitBatch(batch([ev(0, 'k')]));
      const other = await store.commitBatch(batch([ev(0, 'k')], T0 + 1, { adAccountId: OTHER }));
      expect(other.duplicates.size).toBe(0);
      const inside = await store.commitBatch(batch([ev(0, 'k')], T0 + WINDOW));
      expect(inside.duplicates.size).toBe(1);
      const after = await store.commitBatch(batch([ev(0, 'k')], T0 + WINDOW + 1));
      expect(after.duplicates.size).toBe(0);
      expect((await store.listEvents({ limit: 10, adAccountId: ACCOUNT, eventId: 'k' })).items).toHaveLength(
        2,
      );
    });

    test('in a batch of many keys, an event_id stored under another event_name is no duplicate', async () => {
      await store.commitBatch(batch([ev(0, 'shared', 'lead'), ev(1, 'only-lead', 'lead')]));
      const keys = [ev(0, 'shared', 'checkout'), ev(1, 'shared', 'lead'), ev(2, 'fresh', 'checkout')];
      const expected = { '1': { source: 'api', seenAt: T0, eventTime: 1_772_452_800 } };
      expect(dupObject((await store.dryRunBatch(batch(keys, T0 + 1))).duplicates)).toEqual(expected);
      expect(dupObject((await store.commitBatch(batch(keys, T0 + 1))).duplicates)).toEqual(expected);
    });

    test('tag events: the first sighting within the window wins; API events repeat them (C6)', async () => {
      const tagTime = Math.floor(T0 / 1000) - 3600;
      const tag = { adAccountId: ACCOUNT, eventName: 'checkout', eventId: 't1', eventTime: tagTime };
      expect(await store.recordTagEvents([tag], T0 - WINDOW)).toBe(1);
      expect(await store.recordTagEvents([{ ...tag, eventTime: tagTime + 60 }], T0 - WINDOW)).toBe(0);
      const r = await store.commitBatch(batch([ev(0, 't1'), ev(1, 't2')]));
      expect(dupObject(r.duplicates)).toEqual({
        0: { source: 'tag', seenAt: tagTime * 1000, eventTime: tagTime },
      });
      // An API event stored first; a tag that saw the same key earlier becomes the first sighting.
      expect(await store.recordTagEvents([{ ...tag, eventId: 't2', eventTime: tagTime }], T0 - WINDOW)).toBe(
        1,
      );
      const found = await store.findEarlier(ACCOUNT, [{ eventName: 'checkout', eventId: 't2' }], T0 - WINDOW);
      expect(Object.fromEntries(found)).toEqual({
        'checkout\u0000t2': { source: 'tag', seenAt: tagTime * 1000, eventTime: tagTime },
      });
    });

    test('findEarlier reads without changing anything (C7)', async () => {
      await store.commitBatch(batch([ev(0, 'f1')]));
      const keys = [
        { eventName: 'checkout', eventId: 'f1' },
        { eventName: 'checkout', eventId: 'f2' },
        { eventName: 'lead', eventId: 'f1' },
      ];
      const found = await store.findEarlier(ACCOUNT, keys, T0 - WINDOW);
      expect(Object.fromEntries(found)).toEqual({
        'checkout\u0000f1': { source: 'api', seenAt: T0, eventTime: 1_772_452_800 },
      });
      expect((await store.findEarlier(ACCOUNT, keys, T0 + 1)).size).toBe(0);
      expect((await store.findEarlier(OTHER, keys, T0 - WINDOW)).size).toBe(0);
      expect((await store.commitBatch(batch([ev(0, 'f2')]))).duplicates.size).toBe(0);
    });

    test('a dry run answers what the commit answers, in the batch and at the window edge, and changes nothing (C7, C102)', async () => {
      const R = T0 + WINDOW;
      await store.commitBatch(batch([ev(0, 'old')], T0 - 1));
      await store.commitBatch(batch([ev(0, 'edge')], T0));
      const tagTime = Math.floor(T0 / 1000) + 3600;
      await store.recordTagEvents(
        [{ adAccountId: ACCOUNT, eventName: 'checkout', eventId: 't', eventTime: tagTime }],
        T0 - WINDOW,
      );
      const events = [
        ev(0, 'edge'),
        ev(1, 'old'),
        ev(2, 'old'),
        ev(3, 'new'),
        ev(4, 'new'),
        ev(5, 't'),
        ev(6, 'edge', 'lead'),
      ];
      const verdict = {
        // Received exactly one window before: still a duplicate (the window's first millisecond).
        0: { source: 'api', seenAt: T0, eventTime: 1_772_452_800 },
        // The stored 'old' left the window a millisecond ago: its first event here is new, the second not.
        2: { source: 'api', seenAt: R, eventTime: 1_772_452_801 },
        4: { source: 'api', seenAt: R, eventTime: 1_772_452_803 },
        5: { source: 'tag', seenAt: tagTime * 1000, eventTime: tagTime },
      };
      const before = { report: await store.report(ACCOUNT), events: await store.listEvents({ limit: 100 }) };
      const dry = await store.dryRunBatch(batch(events, R));
      expect(dupObject(dry.duplicates)).toEqual(verdict);
      // Nothing stored, counted or marked: the same dry run answers the same, and the store reads the same.
      expect(dupObject((await store.dryRunBatch(batch(events, R))).duplicates)).toEqual(verdict);
      expect({ report: await store.report(ACCOUNT), events: await store.listEvents({ limit: 100 }) }).toEqual(
        before,
      );
      expect(dupObject((await store.commitBatch(batch(events, R))).duplicates)).toEqual(verdict);
      // Live, the batch's first sightings are stored: a dry run now finds them.
      expect(dupObject((await store.dryRunBatch(batch([ev(0, 'new')], R + 1))).duplicates)).toEqual({
        0: { source: 'api', seenAt: R, eventTime: 1_772_452_803 },
      });
    });

    test('reports count processed, duplicates and failures per name and code; reset keeps the directory', async () => {
      await store.replaceDirectory(directory);
      await store.createCustomEventType(ACCOUNT, { name: 'kept', mappedEventName: 'lead', createdAt: 1 }, 15);
      await store.commitBatch(
        batch([ev(0, 'r1'), ev(1, 'r1'), ev(2, 'r2', 'lead')], T0, {
          failures: [
            { eventName: 'checkout', codes: ['invalid_value', 'missing_field'] },
            { eventName: 'checkout', codes: ['invalid_value'] },
          ],
        }),
      );
      expect(await store.report(ACCOUNT)).toEqual({
        stored: [
          { eventName: 'checkout', usage: ['reporting', 'audiences'], processed: 1, duplicates: 1 },
          { eventName: 'lead', usage: ['reporting', 'audiences'], processed: 1, duplicates: 0 },
        ],
        failed: [
          { eventName: 'checkout', code: 'invalid_value', count: 2 },
          { eventName: 'checkout', code: 'missing_field', count: 1 },
        ],
      });
      expect(await store.report(OTHER)).toEqual({ stored: [], failed: [] });
      await store.reset();
      expect(await store.report(ACCOUNT)).toEqual({ stored: [], failed: [] });
      expect((await store.listEvents({ limit: 10 })).items).toEqual([]);
      expect((await store.commitBatch(batch([ev(0, 'r1')]))).duplicates.size).toBe(0);
      expect((await store.loadDirectory()).accounts).toHaveLength(2);
      expect(await store.listCustomEventTypes(ACCOUNT)).toHaveLength(1);
    });

    test('listEvents pages newest first with a cursor and filters; a foreign cursor is refused', async () => {
      for (let i = 0; i < 5; i++)
        await store.commitBatch(batch([ev(0, `p${i}`, i % 2 ? 'lead' : 'checkout')], T0 + i * 1000));
      const p1 = await store.listEvents({ limit: 2 });
      expect(p1.items.map((i) => i.eventId)).toEqual(['p4', 'p3']);
      const p2 = await store.listEvents({ limit: 2, cursor: p1.nextCursor as string });
      expect(p2.items.map((i) => i.eventId)).toEqual(['p2', 'p1']);
      const p3 = await store.listEvents({ limit: 2, cursor: p2.nextCursor as string });
      expect(p3.items.map((i) => i.eventId)).toEqual(['p0']);
      expect(p3.nextCursor).toBeNull();
      expect((await store.listEvents({ limit: 10, eventName: 'lead' })).items.map((i) => i.eventId)).toEqual([
        'p3',
        'p1',
      ]);
      const range = await store.listEvents({ limit: 10, since: T0 + 1000, until: T0 + 3000 });
      expect(range.items.map((i) => i.eventId)).toEqual(['p2', 'p1']);
      await expect(store.listEvents({ limit: 2, cursor: 'bm90LWEtY3Vyc29y' })).rejects.toBeInstanceOf(
        BadCursorError,
      );
    });

    test('parallel batches sharing event_ids store each key once', async () => {
      const keys = Array.from({ length: 40 }, (_, i) => `par-${i}`);
      const results = await Promise.all(
        Array.from({ length: 8 }, (_, b) =>
          store.commitBatch(
            batch(
              keys.map((_k, i) => ev(i, keys[(i + b * 5) % keys.length] as string)),
              T0 + b,
            ),
          ),
        ),
      );
      const dups = results.reduce((n, r) => n + r.duplicates.size, 0);
      expect(dups).toBe(8 * 40 - 40);
      const stored = await store.listEvents({ limit: 100 });
      expect(stored.items).toHaveLength(40);
      expect(new Set(stored.items.map((i) => i.eventId)).size).toBe(40);
      expect(stored.items.reduce((n, i) => n + i.duplicates, 0)).toBe(8 * 40 - 40);
    });

    test("deleteConversions: the users' events, their dedup sightings and the bodies holding them go (C91)", async () => {
      const H1 = 'a'.repeat(64);
      const H2 = 'b'.repeat(64);
      const user = (index: number, eventId: string, userData: Record<string, unknown>): EventToStore => ({
        ...ev(index, eventId),
        json: JSON.stringify({ event_name: 'checkout', event_id: eventId, user_data: userData }),
      });
      await store.commitBatch(
        batch([
          user(0, 'by-email', { em: [H2, H1] }),
          user(1, 'by-click', { click_id: 'epik-1' }),
          user(2, 'someone-else', { em: [H2], click_id: 'epik-2' }),
        ]),
      );
      await store.commitBatch(batch([user(0, 'other-account', { em: [H1] })], T0, { adAccountId: OTHER }));
      // A big body is kept compressed where the store can: it is searched in its plain text.
      const big = `{"data":[${Array.from({ length: 400 }, (_, i) => `{"event_id":"n-${i}"}`).join(',')},{"user_data":{"em":["${H1}"]}}]}`;
      await store.appendRequests(
        [
          logged(0, { body: `{"data":[{"user_data":{"em":["${H1}"]}}]}` }),
          logged(1, { body: '{"data":[{"user_data":{"click_id":"epik-1"}}]}', test: true }),
          logged(2, { body: `{"data":[{"user_data":{"em":["${H2}"]}}]}` }),
          logged(3, { body: new Uint8Array(Buffer.from(big)) }),
          logged(4, { adAccountId: OTHER, body: `{"data":[{"user_data":{"em":["${H1}"]}}]}` }),
        ],
        KEEP,
      );

      expect(await store.deleteConversions(ACCOUNT, { em: [H1], click_id: ['epik-1'] })).toEqual({
        events: 2,
        outboxEntries: 0,
        requestBodies: 3,
      });
      const left = await store.listEvents({ limit: 10 });
      expect(left.items.map((i) => [i.adAccountId, i.eventId])).toEqual([
        [OTHER, 'other-account'],
        [ACCOUNT, 'someone-else'],
      ]);
      // The dedup sightings went with them: the same keys are new again; the other user's is still seen.
      const again = await store.commitBatch(
        batch([ev(0, 'by-email'), ev(1, 'by-click'), ev(2, 'someone-else')], T0 + 1000),
      );
      expect([...again.duplicates.keys()]).toEqual([2]);
      // The reports' counts stay (C91), also where they are derived from the stored events (C80).
      expect(await store.report(ACCOUNT)).toEqual({
        stored: [{ eventName: 'checkout', usage: ['reporting', 'audiences'], processed: 5, duplicates: 1 }],
        failed: [],
      });
      const bodies = await Promise.all(['r0', 'r1', 'r2', 'r3', 'r4'].map((r) => store.getRequest(r, 0)));
      expect(bodies.map((b) => b?.body ?? null)).toEqual([
        null,
        null,
        `{"data":[{"user_data":{"em":["${H2}"]}}]}`,
        null,
        `{"data":[{"user_data":{"em":["${H1}"]}}]}`,
      ]);
      // The entries themselves stay: status and counts are no personal data.
      expect(bodies.map((b) => b?.status)).toEqual([200, 200, 200, 200, 200]);
      expect(await store.deleteConversions(ACCOUNT, { em: [H1], click_id: ['epik-1'] })).toEqual({
        events: 0,
        outboxEntries: 0,
        requestBodies: 0,
      });
    });

    test('createDeletionRequest: the deletion and its record in one transaction, ids from a counter that never goes back (C121)', async () => {
      const H1 = 'c'.repeat(64);
      const withEm = (index: number, eventId: string): EventToStore => ({
        ...ev(index, eventId),
        json: JSON.stringify({ event_name: 'checkout', event_id: eventId, user_data: { em: [H1] } }),
      });
      await store.commitBatch(batch([withEm(0, 'by-email'), ev(1, 'nobody')]));
      const base = T0 * 1000;
      const first = await store.createDeletionRequest(ACCOUNT, { em: [H1], click_id: [] }, T0);
      expect(first).toEqual({
        requestId: String(base),
        adAccountId: ACCOUNT,
        status: 'SUBMITTED',
        createdAt: T0,
        processedAt: T0,
        removed: { events: 1, outboxEntries: 0, requestBodies: 0 },
      });
      expect((await store.listEvents({ limit: 10 })).items.map((i) => i.eventId)).toEqual(['nobody']);
      // The same instant, then a clock behind: the counter goes on, whatever the account.
      const second = await store.createDeletionRequest(ACCOUNT, { em: [], click_id: ['x'] }, T0);
      const other = await store.createDeletionRequest(OTHER, { em: [H1], click_id: [] }, T0 - 5000);
      expect([second.requestId, other.requestId]).toEqual([String(base + 1), String(base + 2)]);
      expect(second.removed).toEqual({ events: 0, outboxEntries: 0, requestBodies: 0 });
      expect(await store.listDeletionRequests(ACCOUNT)).toEqual([second, first]);
      expect(await store.listDeletionRequests(OTHER)).toEqual([other]);
      expect(await store.getDeletionRequest(ACCOUNT, first.requestId)).toEqual(first);
      expect(await store.getDeletionRequest(OTHER, first.requestId)).toBeNull();
      expect(await store.getDeletionRequest(ACCOUNT, '1')).toBeNull();
      // A reset deletes the requests, not the counter; a later clock moves the base on.
      await store.reset();
      expect(await store.listDeletionRequests(ACCOUNT)).toEqual([]);
      const afterReset = await store.createDeletionRequest(ACCOUNT, { em: [], click_id: [] }, T0);
      expect(afterReset.requestId).toBe(String(base + 3));
      const later = await store.createDeletionRequest(ACCOUNT, { em: [], click_id: [] }, T0 + 10);
      expect(later.requestId).toBe(String((T0 + 10) * 1000));
    });

    test('after close, calls reject', async () => {
      await store.close();
      await expect(store.ping()).rejects.toThrow();
      await expect(store.commitBatch(batch([ev(0, 'late')]))).rejects.toThrow();
    });
  });
}
