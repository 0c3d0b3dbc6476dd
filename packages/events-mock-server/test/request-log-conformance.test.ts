// The request log part of every Store implementation (C60-C63, C118; issue 36: one conformance suite per
// part, each against every implementation). Each test starts from an empty store.
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { BadCursorError, type Store } from '../src/store/interface/store.js';
import { ACCOUNT, KEEP, logged, OTHER, T0 } from './support/store-fixtures.js';
import { type OpenedStore, STORE_IMPLEMENTATIONS } from './support/store-implementations.js';

for (const impl of STORE_IMPLEMENTATIONS) {
  describe.skipIf(!impl.run)(`Request log conformance: ${impl.name}`, () => {
    let opened: OpenedStore;
    let store: Store;
    beforeEach(async () => {
      opened = await impl.open();
      store = opened.store;
    });
    afterEach(() => opened.cleanup());

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
  });
}
