// One conformance suite for every Store implementation (C11, C45-C47): SQLite in memory, an SQLite file,
// the SQLite file on its own thread, and PostgreSQL on a database of its own. Each test starts from an
// empty store; the expectations are the same literal values for all of them.
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import type { DirectoryData } from '../src/store/directory-data.js';
import { PgStore } from '../src/store/pg/pg-store.js';
import { SqliteStore } from '../src/store/sqlite-store.js';
import {
  BadCursorError,
  type BatchWrite,
  type EventToStore,
  type RequestLogRetention,
  type RequestLogWrite,
  type Store,
} from '../src/store/store.js';
import { ThreadedSqliteStore } from '../src/store/threaded-store.js';
import { createTestDatabase, postgresReachable } from './support/postgres.js';

interface Opened {
  store: Store;
  cleanup(): Promise<void>;
}

const tempDir = () => mkdtempSync(join(tmpdir(), 'ems-conformance-'));

const pgUp = await postgresReachable();

const IMPLEMENTATIONS: { name: string; run: boolean; open(): Promise<Opened> }[] = [
  {
    name: 'SQLite :memory:',
    run: true,
    async open() {
      const store = new SqliteStore({ path: ':memory:' });
      return { store, cleanup: () => store.close() };
    },
  },
  {
    name: 'SQLite file',
    run: true,
    async open() {
      const dir = tempDir();
      const store = new SqliteStore({ path: join(dir, 'events.db') });
      return {
        store,
        async cleanup() {
          await store.close();
          rmSync(dir, { recursive: true, force: true });
        },
      };
    },
  },
  {
    name: 'SQLite file on its thread',
    run: true,
    async open() {
      const dir = tempDir();
      const store = await ThreadedSqliteStore.open({ path: join(dir, 'events.db') });
      return {
        store,
        async cleanup() {
          await store.close();
          rmSync(dir, { recursive: true, force: true });
        },
      };
    },
  },
  {
    name: 'PostgreSQL',
    run: pgUp,
    async open() {
      const db = await createTestDatabase();
      const store = await PgStore.open({ url: db.url });
      return {
        store,
        async cleanup() {
          await store.close();
          await db.drop();
        },
      };
    },
  },
];

const ACCOUNT = '549755885175';
const OTHER = '549755885176';
const T0 = Date.UTC(2026, 2, 2, 12, 0, 0);
const WINDOW = 48 * 3600 * 1000;
const sha = (s: string) => createHash('sha256').update(s).digest();

const directory: DirectoryData = {
  accounts: [
    { id: ACCOUNT, name: 'Shop', currency: 'USD', ownerUserId: 'u1' },
    { id: OTHER, name: 'Other', currency: 'EUR', ownerUserId: null },
  ],
  apps: [{ id: 'app1', name: 'App', tier: 'standard' }],
  users: [{ id: 'u1', name: 'Ann', roles: [{ adAccountId: OTHER, role: 'analyst' }] }],
  tokens: [
    {
      id: 'conv',
      kind: 'conversion',
      sha256: sha('conversion-token'),
      adAccountId: ACCOUNT,
      userId: null,
      appId: null,
      scopes: [],
      revoked: false,
    },
    {
      id: 'oauth',
      kind: 'oauth',
      sha256: sha('oauth-token'),
      adAccountId: null,
      userId: 'u1',
      appId: 'app1',
      scopes: ['ads:read', 'ads:write'],
      revoked: true,
    },
  ],
};

function ev(index: number, eventId: string, eventName = 'checkout'): EventToStore {
  return {
    index,
    eventName,
    eventId,
    eventTime: 1_772_452_800 + index,
    usage: ['reporting', 'audiences'],
    json: JSON.stringify({ event_name: eventName, event_id: eventId, n: index }),
  };
}

function batch(events: EventToStore[], receivedAt = T0, over: Partial<BatchWrite> = {}): BatchWrite {
  return {
    adAccountId: ACCOUNT,
    requestId: `req-${receivedAt}`,
    receivedAt,
    dedupSince: receivedAt - WINDOW,
    events,
    failures: [],
    ...over,
  };
}

const dupObject = (m: Map<number, unknown>) => Object.fromEntries(m);

/** A request log entry received `i` seconds after T0 (C60). */
function logged(i: number, over: Partial<RequestLogWrite> = {}): RequestLogWrite {
  return {
    requestId: `r${i}`,
    clientRequestId: null,
    receivedAt: T0 + i * 1000,
    adAccountId: ACCOUNT,
    tokenId: 'conv',
    test: false,
    status: 200,
    durationMs: 1.5,
    events: 2,
    processed: 1,
    failed: 1,
    warned: 0,
    eventNames: ['checkout', 'lead'],
    error: null,
    body: '{"data":[{"event_name":"checkout"},{"event_name":"lead"}]}',
    bodyTruncated: false,
    items: [
      {
        index: 0,
        status: 'processed',
        errorMessage: null,
        warningMessage: null,
        fields: [],
        duplicateOf: null,
      },
      {
        index: 1,
        status: 'failed',
        errorMessage: 'event_time is missing',
        warningMessage: null,
        fields: ['event_time'],
        duplicateOf: null,
      },
    ],
    timeline: null,
    ...over,
  };
}

const KEEP: RequestLogRetention = {
  maxEntries: 100,
  maxBytes: 1_000_000,
  maxAgeMs: 3600_000,
  now: T0,
  timelineSince: 0,
};

for (const impl of IMPLEMENTATIONS) {
  describe.skipIf(!impl.run)(`Store conformance: ${impl.name}`, () => {
    let opened: Opened;
    let store: Store;
    beforeEach(async () => {
      opened = await impl.open();
      store = opened.store;
    });
    afterEach(() => opened.cleanup());

    test('ping answers; the directory is replaced and read back whole', async () => {
      await store.ping();
      await store.replaceDirectory(directory);
      await store.replaceDirectory(directory);
      const d = await store.loadDirectory();
      expect(d.accounts).toEqual(directory.accounts);
      expect(d.apps).toEqual(directory.apps);
      expect(d.users).toEqual(directory.users);
      expect(d.tokens.map((t) => ({ ...t, sha256: Buffer.from(t.sha256).toString('hex') }))).toEqual(
        directory.tokens.map((t) => ({ ...t, sha256: t.sha256.toString('hex') })),
      );
      await store.replaceDirectory({ accounts: [directory.accounts[0]!], apps: [], users: [], tokens: [] });
      expect((await store.loadDirectory()).accounts.map((a) => a.id)).toEqual([ACCOUNT]);
    });

    test('custom event types: case-insensitive names, the cap, delete', async () => {
      const row = (name: string, createdAt: number) => ({ name, mappedEventName: 'lead', createdAt });
      expect(await store.createCustomEventType(ACCOUNT, row('Quote_Request', 100), 2)).toEqual({
        ok: true,
        row: row('Quote_Request', 100),
      });
      expect(await store.createCustomEventType(ACCOUNT, row('quote_request', 101), 2)).toEqual({
        ok: false,
        reason: 'exists',
        existing: 'Quote_Request',
      });
      expect((await store.createCustomEventType(ACCOUNT, row('trial', 102), 2)).ok).toBe(true);
      expect(await store.createCustomEventType(ACCOUNT, row('third', 103), 2)).toEqual({
        ok: false,
        reason: 'cap',
      });
      expect((await store.createCustomEventType(OTHER, row('third', 104), 2)).ok).toBe(true);
      expect(await store.listCustomEventTypes(ACCOUNT)).toEqual([
        { name: 'Quote_Request', mappedEventName: 'lead', createdAt: 100 },
        { name: 'trial', mappedEventName: 'lead', createdAt: 102 },
      ]);
      expect(await store.deleteCustomEventType(ACCOUNT, 'QUOTE_REQUEST')).toBe(true);
      expect(await store.deleteCustomEventType(ACCOUNT, 'quote_request')).toBe(false);
      expect((await store.listCustomEventTypes(ACCOUNT)).map((r) => r.name)).toEqual(['trial']);
    });

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

    test('request log: entries read back whole, filtered, paged newest first (C60, C61)', async () => {
      const seqs = await store.appendRequests(
        [
          logged(0),
          logged(1, {
            test: true,
            status: 200,
            failed: 0,
            warned: 1,
            eventNames: ['page_visit'],
            clientRequestId: 'trace-1',
          }),
          logged(2, {
            status: 401,
            tokenId: null,
            events: 0,
            processed: 0,
            failed: 0,
            eventNames: [],
            error: { code: 2, message: 'Authentication failed.' },
            body: null,
            items: [],
          }),
          logged(3, { adAccountId: OTHER, requestId: 'r0', eventNames: ['lead\nx'] }),
        ],
        { ...KEEP, now: T0 + 3000 },
      );
      expect(seqs).toHaveLength(4);
      expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
      const all = await store.listRequests({ limit: 10 });
      expect(all.items.map((r) => r.requestId)).toEqual(['r0', 'r2', 'r1', 'r0']);
      expect(all.nextCursor).toBe(null);
      const { seq: _seq, ...summary } = all.items[3]!;
      const { body: _b, bodyTruncated: _t, items: _i, timeline: _tl, ...written } = logged(0);
      expect(summary).toEqual(written);
      expect(all.items[1]).toMatchObject({
        status: 401,
        tokenId: null,
        error: { code: 2, message: 'Authentication failed.' },
      });

      const ids = async (f: Parameters<Store['listRequests']>[0]) =>
        (await store.listRequests(f)).items.map((r) => r.requestId);
      expect(await ids({ limit: 10, adAccountId: OTHER })).toEqual(['r0']);
      // C118: the client's id is kept beside the store's key, and filters.
      expect(all.items.map((r) => r.clientRequestId)).toEqual([null, null, 'trace-1', null]);
      expect(await ids({ limit: 10, clientRequestId: 'trace-1' })).toEqual(['r1']);
      expect(await ids({ limit: 10, status: 401 })).toEqual(['r2']);
      expect(await ids({ limit: 10, outcome: 'failed' })).toEqual(['r0', 'r0']);
      expect(await ids({ limit: 10, outcome: 'warned' })).toEqual(['r1']);
      expect(await ids({ limit: 10, eventName: 'lead' })).toEqual(['r0']);
      expect(await ids({ limit: 10, eventName: 'lead x' })).toEqual(['r0']);
      expect(await ids({ limit: 10, eventName: 'page' })).toEqual([]);
      expect(await ids({ limit: 10, test: true })).toEqual(['r1']);
      expect(await ids({ limit: 10, test: false })).toEqual(['r0', 'r2', 'r0']);
      expect(await ids({ limit: 10, since: T0 + 1000, until: T0 + 3000 })).toEqual(['r2', 'r1']);

      const first = await store.listRequests({ limit: 3 });
      expect(first.items.map((r) => r.receivedAt)).toEqual([T0 + 3000, T0 + 2000, T0 + 1000]);
      const second = await store.listRequests({ limit: 3, cursor: first.nextCursor as string });
      expect(second.items.map((r) => r.receivedAt)).toEqual([T0]);
      expect(second.nextCursor).toBe(null);
      await expect(store.listRequests({ limit: 3, cursor: 'bm9wZQ' })).rejects.toBeInstanceOf(BadCursorError);

      // The newest entry of a request id; nothing before notBefore.
      const { timeline: _t2, ...whole } = logged(3, {
        adAccountId: OTHER,
        requestId: 'r0',
        eventNames: ['lead x'],
      });
      const got = await store.getRequest('r0', 0);
      expect(got && { ...got, seq: 0 }).toEqual({ ...whole, seq: 0 });
      expect(await store.getRequest('r1', 0)).toMatchObject({
        test: true,
        items: whole.items,
        bodyTruncated: false,
      });
      expect(await store.getRequest('r1', T0 + 1001)).toBe(null);
      expect(await store.getRequest('nope', 0)).toBe(null);
    });

    test('request log retention: at most max entries, none older than max age (C60)', async () => {
      await store.appendRequests(
        [0, 1, 2, 3, 4].map((i) => logged(i)),
        { ...KEEP, maxEntries: 3, now: T0 + 4000 },
      );
      expect((await store.listRequests({ limit: 10 })).items.map((r) => r.requestId)).toEqual([
        'r4',
        'r3',
        'r2',
      ]);
      await store.appendRequests([logged(5)], { ...KEEP, maxEntries: 3, now: T0 + 5000 });
      expect((await store.listRequests({ limit: 10 })).items.map((r) => r.requestId)).toEqual([
        'r5',
        'r4',
        'r3',
      ]);
      // Age: the entries older than 1.5 s before `now` go.
      await store.appendRequests([logged(6)], { ...KEEP, maxAgeMs: 1500, now: T0 + 6000 });
      expect((await store.listRequests({ limit: 10 })).items.map((r) => r.requestId)).toEqual(['r6', 'r5']);
      // Size: bodies of 100 bytes, at most 250 bytes of them kept: the two newest (r6 has its own 100).
      const body = 'x'.repeat(100);
      await store.appendRequests(
        [7, 8, 9].map((i) => logged(i, { body })),
        { ...KEEP, maxAgeMs: 1500, maxBytes: 250, now: T0 + 9000 },
      );
      expect((await store.listRequests({ limit: 10 })).items.map((r) => r.requestId)).toEqual(['r9', 'r8']);
      await store.reset();
      expect((await store.listRequests({ limit: 10 })).items).toEqual([]);
    });

    test('request log: a body given as bytes reads back as its text, counted in bytes for retention', async () => {
      const text = '{"data":[{"event_name":"checkout","custom_data":{"content_name":"Crème brûlée 🍮"}}]}';
      const bytes = Buffer.from(text);
      // A view into a larger buffer, as the server's body may be: only the view's bytes are the body.
      const padded = Buffer.concat([Buffer.from('xx'), bytes, Buffer.from('yy')]);
      await store.appendRequests(
        [
          logged(0, { body: new Uint8Array(bytes) }),
          logged(1, { body: padded.subarray(2, 2 + bytes.length) }),
        ],
        { ...KEEP, now: T0 + 1000 },
      );
      expect((await store.getRequest('r0', 0))?.body).toBe(text);
      expect((await store.getRequest('r1', 0))?.body).toBe(text);
      // Two bodies of bytes.length bytes (not characters) each: a cap one byte short of both keeps one.
      expect(bytes.length).toBeGreaterThan(text.length);
      await store.appendRequests([logged(2, { body: new Uint8Array(bytes) })], {
        ...KEEP,
        maxBytes: 2 * bytes.length - 1,
        now: T0 + 2000,
      });
      expect((await store.listRequests({ limit: 10 })).items.map((r) => r.requestId)).toEqual(['r2']);
      // A large body (kept compressed where the store can) reads back exactly, and retention counts its own
      // size, not what it takes on disk: two of them do not fit under a cap of one and a half.
      const big = `{"data":[${Array.from({ length: 800 }, (_, i) => `{"event_id":"é-${i}","n":${i}}`).join(',')}]}`;
      const bigBytes = Buffer.from(big);
      expect(bigBytes.length).toBeGreaterThan(16 * 1024);
      await store.appendRequests(
        [logged(3, { body: new Uint8Array(bigBytes) }), logged(4, { body: new Uint8Array(bigBytes) })],
        { ...KEEP, maxBytes: Math.floor(bigBytes.length * 1.5), now: T0 + 3000 },
      );
      expect((await store.getRequest('r4', 0))?.body).toBe(big);
      expect((await store.listRequests({ limit: 10 })).items.map((r) => r.requestId)).toEqual(['r4']);
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

      expect(await store.deleteConversions(ACCOUNT, { emailHashes: [H1], clickIds: ['epik-1'] })).toEqual({
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
      expect(await store.deleteConversions(ACCOUNT, { emailHashes: [H1], clickIds: ['epik-1'] })).toEqual({
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
      const first = await store.createDeletionRequest(ACCOUNT, { emailHashes: [H1], clickIds: [] }, T0);
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
      const second = await store.createDeletionRequest(ACCOUNT, { emailHashes: [], clickIds: ['x'] }, T0);
      const other = await store.createDeletionRequest(OTHER, { emailHashes: [H1], clickIds: [] }, T0 - 5000);
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
      const afterReset = await store.createDeletionRequest(ACCOUNT, { emailHashes: [], clickIds: [] }, T0);
      expect(afterReset.requestId).toBe(String(base + 3));
      const later = await store.createDeletionRequest(ACCOUNT, { emailHashes: [], clickIds: [] }, T0 + 10);
      expect(later.requestId).toBe(String((T0 + 10) * 1000));
    });

    test('timeline counts of live requests per hour and code (C63)', async () => {
      const hour = Math.floor(T0 / 3_600_000) * 3600;
      await store.appendRequests(
        [
          logged(0, { timeline: { processed: 3, failedCodes: { missing_required: 1 } } }),
          logged(1, { timeline: { processed: 1, failedCodes: { missing_required: 2, invalid_value: 1 } } }),
          logged(3700, { timeline: { processed: 2, failedCodes: {} } }),
          logged(2, { adAccountId: OTHER, timeline: { processed: 5, failedCodes: {} } }),
          logged(3, { test: true }),
        ],
        { ...KEEP, maxAgeMs: 10 * 3600_000, now: T0 + 3700_000 },
      );
      expect(await store.timeline(ACCOUNT, 0)).toEqual([
        { start: hour, code: '', count: 4 },
        { start: hour, code: 'invalid_value', count: 1 },
        { start: hour, code: 'missing_required', count: 3 },
        { start: hour + 3600, code: '', count: 2 },
      ]);
      expect(await store.timeline(ACCOUNT, hour + 1)).toEqual([{ start: hour + 3600, code: '', count: 2 }]);
      // Hours before timelineSince are deleted as entries are written.
      await store.appendRequests([], { ...KEEP, maxAgeMs: 10 * 3600_000, timelineSince: hour + 3600 });
      await store.appendRequests([logged(3800)], {
        ...KEEP,
        maxAgeMs: 10 * 3600_000,
        timelineSince: hour + 3600,
      });
      expect(await store.timeline(ACCOUNT, 0)).toEqual([{ start: hour + 3600, code: '', count: 2 }]);
    });

    test('after close, calls reject', async () => {
      await store.close();
      await expect(store.ping()).rejects.toThrow();
      await expect(store.commitBatch(batch([ev(0, 'late')]))).rejects.toThrow();
    });
  });
}
