// Retries against the real server (C55): the test limit of 10 requests per second answers 429 with
// Retry-After, a failing store answers 503; both are retried until every batch is acknowledged once. A 401 is
// final (send.test.ts).

import { createClient } from '@org/events-client';
import { type BatchWrite, SqliteStore, type Store } from '@org/events-mock-server';
import { afterEach, describe, expect, test } from 'vitest';
import { demoClient, demoServer, event, recordingFetch } from './support/server.js';

let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  await close?.();
  close = undefined;
});

describe('C55 retries', () => {
  test('the test limit (10 requests/s) forces 429s; every batch ends processed and none acknowledged is sent again', async () => {
    const s = await demoServer();
    close = s.close;
    const { fetch, seen } = recordingFetch();
    const retries: number[] = [];
    const client = createClient({
      baseUrl: s.url,
      token: s.creds.conversionToken,
      adAccountId: s.creds.adAccountId,
      maxBatchEvents: 1,
      concurrency: 8,
      fetch,
    });
    const events = Array.from({ length: 25 }, (_, i) => event(`rl-${i}`));
    const results = await client.sendEvents(events, {
      test: true,
      onRetry: (r) => retries.push(r.status ?? 0),
    });
    expect(results.map((r) => r.status)).toEqual(events.map(() => 'processed'));
    expect(results.map((r) => r.batch)).toEqual(events.map((_, i) => i));
    // 25 batches against 10 per second: some were refused and waited.
    expect(seen.filter((r) => r.status === 429).length).toBeGreaterThan(0);
    expect(new Set(retries)).toEqual(new Set([429]));
    expect(results.some((r) => r.attempts > 1)).toBe(true);
    expect(seen.every((r) => r.status === 200 || r.status === 429)).toBe(true);
    // Each body acknowledged exactly once, and never sent after its 200.
    const acknowledged = new Set<string>();
    for (const r of seen) {
      expect(acknowledged.has(r.body!)).toBe(false);
      if (r.status === 200) acknowledged.add(r.body!);
    }
    expect(acknowledged.size).toBe(25);
    // attempts counts the requests of each batch.
    for (const r of results) {
      const body = seen.find((x) => x.status === 200 && x.body!.includes(`"rl-${r.index}"`))!.body;
      expect(seen.filter((x) => x.body === body).length).toBe(r.attempts);
    }
  }, 30_000);

  test('a 503 from a failing store is retried after Retry-After; the batch is stored once', async () => {
    const inner = new SqliteStore({ path: ':memory:' });
    let refusals = 2;
    // The store of the server, whose first two commits fail (as a full disk or a lost database would).
    const store = new Proxy(inner, {
      get(target, key) {
        if (key === 'commitBatch')
          return async (b: BatchWrite) => {
            if (refusals-- > 0) throw new Error('disk I/O error');
            return target.commitBatch(b);
          };
        const v = Reflect.get(target, key, target);
        return typeof v === 'function' ? v.bind(target) : v;
      },
    }) as Store;
    const { server: s, client, seen } = await demoClient({}, { store });
    close = s.close;
    const results = await client.sendEvents([event('st-1'), event('st-2')]);
    expect(seen.map((r) => r.status)).toEqual([503, 503, 200]);
    expect(results.map((r) => [r.status, r.attempts, r.batch])).toEqual([
      ['processed', 3, 0],
      ['processed', 3, 0],
    ]);
    const listed = await globalThis.fetch(`${s.url}/admin/events?ad_account_id=${s.creds.adAccountId}`, {
      headers: { authorization: `Bearer ${s.creds.adminToken}` },
    });
    const items = ((await listed.json()) as { items: { event_id: string; dedup_status: string }[] }).items;
    expect(items.map((i) => [i.event_id, i.dedup_status]).sort()).toEqual([
      ['st-1', 'unique'],
      ['st-2', 'unique'],
    ]);
  }, 20_000);

  test('retries stop at maxAttempts with the last error', async () => {
    const inner = new SqliteStore({ path: ':memory:' });
    const store = new Proxy(inner, {
      get(target, key) {
        if (key === 'commitBatch') return async () => Promise.reject(new Error('disk I/O error'));
        const v = Reflect.get(target, key, target);
        return typeof v === 'function' ? v.bind(target) : v;
      },
    }) as Store;
    const { server: s, client, seen } = await demoClient({ retry: { maxAttempts: 2 } }, { store });
    close = s.close;
    const [r] = await client.sendEvents([event('x-1')]);
    expect(seen.map((x) => x.status)).toEqual([503, 503]);
    expect([r!.status, r!.attempts, r!.error?.name]).toEqual(['not_sent', 2, 'EventsApiError']);
    expect(r!.errorMessage).toContain('503 The service is temporarily unavailable');
  }, 20_000);
});

// Issue 13 item 4: a CI job makes the server answer 429 on demand (C65); the client retries through it.
describe('C55 retries through an injected fault (C65)', () => {
  test('a 429 fault on the next 2 requests: the batch is retried after Retry-After and stored once', async () => {
    const { server: s, client, seen } = await demoClient({ maxBatchEvents: 10 });
    close = s.close;
    const admin = { authorization: `Bearer ${s.creds.adminToken}`, 'content-type': 'application/json' };
    const added = await globalThis.fetch(`${s.url}/admin/faults`, {
      method: 'POST',
      headers: admin,
      body: JSON.stringify({ ad_account_id: s.creds.adAccountId, kind: 'rate_limited', count: 2 }),
    });
    expect(added.status).toBe(201);
    const events = Array.from({ length: 4 }, (_, i) => event(`ft-${i}`));
    const retried: (number | null)[] = [];
    const results = await client.sendEvents(events, { onRetry: (r) => retried.push(r.status ?? null) });
    expect(seen.map((r) => r.status)).toEqual([429, 429, 200]);
    expect(retried).toEqual([429, 429]);
    expect(results.map((r) => [r.status, r.attempts])).toEqual(events.map(() => ['processed', 3]));
    const listed = await globalThis.fetch(`${s.url}/admin/events?ad_account_id=${s.creds.adAccountId}`, {
      headers: admin,
    });
    const items = ((await listed.json()) as { items: { event_id: string; dedup_status: string }[] }).items;
    expect(items.map((i) => [i.event_id, i.dedup_status]).sort()).toEqual(
      events.map((e) => [e.event_id, 'unique']),
    );
    const faults = await (await globalThis.fetch(`${s.url}/admin/faults`, { headers: admin })).json();
    expect((faults as { items: { matched: number; remaining: number }[] }).items).toMatchObject([
      { matched: 2, remaining: 0 },
    ]);
  }, 20_000);
});
