// A 100,000-row export streams in bounded memory (C63): the server reads the store a page at a time and only
// as fast as the client reads, so a client that stops reading stops the reading of pages.
import { afterEach, expect, test } from 'vitest';
import type { EventToStore } from '../src/store/interface/events.js';
import type { Store } from '../src/store/interface/store.js';
import { A, T } from './support/fixtures.js';
import { type Harness, startHarness, T0 } from './support/server.js';

let h: Harness;
afterEach(() => h.close());

const ROWS = 100_000;

test('100,000 stored events export whole, one page in memory at a time, with backpressure', async () => {
  h = await startHarness();
  const store: Store = h.server.store;
  for (let b = 0; b < ROWS / 1000; b++) {
    const events: EventToStore[] = Array.from({ length: 1000 }, (_, i) => ({
      index: i,
      eventName: 'checkout',
      eventId: `bulk-${b}-${i}`,
      eventTime: Math.floor(T0 / 1000),
      usage: ['reporting'],
      json: JSON.stringify({ event_name: 'checkout', event_id: `bulk-${b}-${i}`, pad: 'x'.repeat(200) }),
    }));
    await store.commitBatch({
      adAccountId: A,
      requestId: `bulk-${b}`,
      receivedAt: T0,
      dedupSince: 0,
      events,
      failures: [],
    });
  }
  // Count the pages the export reads, and how many rows each asks for.
  const limits: number[] = [];
  const listEvents = store.listEvents.bind(store);
  store.listEvents = (f) => {
    limits.push(f.limit);
    return listEvents(f);
  };

  const res = await fetch(`${h.url}/admin/events/export?format=ndjson`, {
    headers: { authorization: `Bearer ${T.admin}` },
  });
  expect(res.status).toBe(200);
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  const ids = new Set<string>();
  let tail = '';
  const take = (value: Uint8Array) => {
    const parts = (tail + decoder.decode(value, { stream: true })).split('\n');
    tail = parts.pop() as string;
    for (const p of parts) ids.add((JSON.parse(p) as { event_id: string }).event_id);
  };
  take((await reader.read()).value as Uint8Array);
  // The client reads nothing more for a while: the server fills the socket's buffers, then stops reading.
  await new Promise((r) => setTimeout(r, 500));
  const pagesWhilePaused = limits.length;
  expect(pagesWhilePaused).toBeLessThan(30);

  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    take(value);
  }
  expect(tail).toBe('');
  expect(ids.size).toBe(ROWS); // every row, none twice
  expect(new Set(limits)).toEqual(new Set([1000]));
  expect(limits).toHaveLength(ROWS / 1000);
}, 60_000);
