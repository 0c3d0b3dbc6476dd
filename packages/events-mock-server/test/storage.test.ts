// C11 storage (and C2 row 503): what is stored, what is counted, and what a storage failure answers.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Worker } from 'node:worker_threads';
import { STANDARD_EVENT_NAME_TABLE } from '@org/events-types';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { type BatchWrite, SqliteStore, type Store, ThreadedSqliteStore } from '../src/index.js';
import { A, event, sha256, T } from './support/fixtures.js';
import { type Harness, startHarness } from './support/server.js';

const usage = (name: string) => [
  ...(STANDARD_EVENT_NAME_TABLE.find((e) => e.name === name)?.usableFor ?? []),
];

describe('C11 what is stored', () => {
  let h: Harness;
  beforeEach(async () => {
    h = await startHarness();
  });
  afterEach(() => h.close());

  test('processed events: ad account, received time, request id, the event as accepted, usage, dedup status', async () => {
    const e = event(h.nowS(), {
      event_id: 'acc-1',
      event_name: 'contact',
      user_data: {
        em: [sha256('a@example.com'), 'raw@example.com'],
        fn: [sha256('jane'), 'Jane'],
        first_name: [sha256('jane')],
        client_ip_address: '203.0.113.5',
        client_user_agent:
          'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36',
      },
    });
    const r = await h.send(A, T.convA, [e, event(h.nowS(), { event_id: 'acc-2', event_name: 'subscribe' })]);
    expect(r.body.num_events_processed).toBe(2);
    const requestId = r.headers.get('x-request-id');
    const items = (await h.call('GET', `/admin/events?ad_account_id=${A}`, { token: T.admin })).body.items;
    const byId = Object.fromEntries(items.map((i: { event_id: string }) => [i.event_id, i]));
    expect(byId['acc-1']).toMatchObject({
      ad_account_id: A,
      event_name: 'contact',
      received_at: h.nowS(),
      request_id: requestId,
      usage: usage('contact'),
      dedup_status: 'unique',
    });
    expect(byId['acc-2'].usage).toEqual(usage('subscribe'));
    // Dropped values (a raw email, a raw first name, the unknown first_name key) are not stored (C4 warnings,
    // C11 "as accepted"); fn's digest is, a hashed field like ln (C119).
    expect(byId['acc-1'].event.user_data.em).toEqual([sha256('a@example.com')]);
    expect(byId['acc-1'].event.user_data.fn).toEqual([sha256('jane')]);
    expect(byId['acc-1'].event.user_data.first_name).toBeUndefined();
    expect(JSON.stringify(items)).not.toContain('raw@example.com');
    expect(JSON.stringify(items)).not.toContain('Jane');
  });

  test('failed events are counted per account, event name and reason code, and not stored', async () => {
    const bad = event(h.nowS(), { event_name: 'subscription', event_id: 'f-1' });
    const r = await h.send(A, T.convA, [
      bad,
      { ...bad, event_id: 'f-2' },
      event(h.nowS(), { event_id: 'ok-1' }),
    ]);
    expect(r.body.num_events_processed).toBe(1);
    const items = (await h.call('GET', '/admin/events', { token: T.admin })).body.items;
    expect(items.map((i: { event_id: string }) => i.event_id)).toEqual(['ok-1']);
    const rep = (await h.call('GET', `/admin/reports/${A}`, { token: T.admin })).body;
    expect(rep.failed).toEqual([{ event_name: 'subscription', code: 'invalid_event_name', count: 2 }]);
    expect(rep.stored).toEqual([
      { event_name: 'checkout', usage: usage('checkout'), processed: 1, duplicates: 0 },
    ]);
  });
});

describe('C11 group commit keeps each batch all-or-nothing', () => {
  test('batches committed together: a failing one rolls back alone, the others are stored whole', async () => {
    const store = new SqliteStore({ path: ':memory:' });
    const batch = (tag: string, n: number, bad = false) => ({
      adAccountId: A,
      requestId: tag,
      receivedAt: 1_000,
      dedupSince: 0,
      failures: [],
      events: Array.from({ length: n }, (_, i) => ({
        index: i,
        eventName: 'checkout',
        eventId: `${tag}-${i}`,
        eventTime: 1,
        usage: ['conversion_reporting'],
        // NOT NULL violation on the last event of the bad batch, after its other rows were written.
        json: bad && i === n - 1 ? (null as unknown as string) : '{}',
      })),
    });
    const results = await Promise.allSettled([
      store.commitBatch(batch('a', 100)),
      store.commitBatch(batch('b', 100, true)),
      store.commitBatch(batch('c', 100)),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    const page = await store.listEvents({ limit: 1000 });
    const byBatch = new Map<string, number>();
    for (const e of page.items) byBatch.set(e.requestId, (byBatch.get(e.requestId) ?? 0) + 1);
    expect(Object.fromEntries(byBatch)).toEqual({ a: 100, c: 100 });
    await store.close();
  });
});

describe('C2 row 503: storage unavailable', () => {
  test('a failing write answers 503 with Retry-After and stores nothing of the batch', async () => {
    const store = new SqliteStore({ path: ':memory:' });
    const h = await startHarness({ store });
    try {
      store.database.pragma('query_only = ON');
      const r = await h.send(A, T.convA, [
        event(h.nowS(), { event_id: 's-1' }),
        event(h.nowS(), { event_id: 's-2' }),
      ]);
      expect(r.status).toBe(503);
      expect(r.body.code).toBe(4197);
      expect(r.body.details[0].path).toBe('storage');
      expect(Number(r.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      store.database.pragma('query_only = OFF');
      expect((await h.call('GET', '/admin/events', { token: T.admin })).body.items).toEqual([]);
      // Recovered: the same batch is stored, and is not a duplicate of the refused one.
      const again = await h.send(A, T.convA, [event(h.nowS(), { event_id: 's-1' })]);
      expect(again.status).toBe(200);
      expect(again.body.events[0].warning_message).toBeNull();
    } finally {
      await h.close();
    }
  });

  test('a store that is gone: events 503, /readyz 503, /healthz still 200', async () => {
    const store = new SqliteStore({ path: ':memory:' });
    const h = await startHarness({ store });
    try {
      store.database.close();
      const r = await h.send(A, T.convA, [event(h.nowS())]);
      expect(r.status).toBe(503);
      expect(r.headers.get('retry-after')).toBeTruthy();
      expect((await h.call('GET', '/readyz')).status).toBe(503);
      expect((await h.call('GET', '/healthz')).status).toBe(200);
      expect((await h.send(A, T.convA, [event(h.nowS())], '?test=true')).status).toBe(503);
    } finally {
      await h.close();
    }
  });
});

describe('C74: a store thread that dies while a batch is posted to it', () => {
  test('503 "may have been stored" (4198); a call after its death is certain (4197)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ems-thread-death-'));
    let thread: Worker | undefined;
    const inner = await ThreadedSqliteStore.open({ path: join(dir, 'events.db') }, (w) => {
      thread = w;
    });
    // The thread is told to stop, then the batch is posted before the store has heard of its exit: the call
    // was posted and never answered, so whether it committed is unknown. (Stopping it after the post races
    // the commit: on a fast thread the batch is stored first.)
    const store = new Proxy(inner, {
      get(target, key) {
        if (key === 'commitBatch')
          return (b: BatchWrite) => {
            void thread?.terminate();
            return target.commitBatch(b);
          };
        const v = Reflect.get(target, key, target);
        return typeof v === 'function' ? v.bind(target) : v;
      },
    }) as Store;
    const h = await startHarness({ store });
    try {
      const r = await h.send(A, T.convA, [event(h.nowS(), { event_id: 'td-1' })]);
      expect(r.status).toBe(503);
      expect(r.headers.get('retry-after')).toBe('1');
      expect(r.body).toMatchObject({
        code: 4198,
        message:
          'The service is temporarily unavailable; this request may have been stored; retry with the same event_ids, duplicates are recognised.',
        details: [{ path: 'storage' }],
      });
      // The thread is gone: the next batch is never posted, so its 503 is certain.
      const next = await h.send(A, T.convA, [event(h.nowS(), { event_id: 'td-2' })]);
      expect(next.status).toBe(503);
      expect(next.body.code).toBe(4197);
    } finally {
      await h.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
