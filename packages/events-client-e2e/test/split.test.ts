// C56 against the real server: a batch over 5 MiB is split, an event alone over it is not sent, local
// validation and hashing. The property over the batcher itself is packages/events-client/test/split.test.ts.

import { BATCH_LIMITS, EventsLocalError } from '@org/events-client';
import { afterEach, describe, expect, test } from 'vitest';
import { demoClient, event } from './support/server.js';

let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  await close?.();
  close = undefined;
});

describe('C56 against the server', () => {
  /** An event of about 56 kB: 1000 contents, the most an event holds. */
  const big = (id: string) =>
    event(id, {
      custom_data: {
        currency: 'USD',
        value: '1000.00',
        contents: Array.from({ length: 1000 }, (_, k) => ({
          id: `sku-${String(k).padStart(5, '0')}`,
          item_price: '1.00',
          quantity: 1,
        })),
      },
    });

  test('events over 5 MiB together are split by bytes; all processed', async () => {
    const { server: s, client, seen } = await demoClient();
    close = s.close;
    const events = Array.from({ length: 120 }, (_, i) => big(`big-${i}`));
    const total = events.reduce((n, e) => n + JSON.stringify(e).length + 1, 0);
    expect(total).toBeGreaterThan(BATCH_LIMITS.maxBodyBytes);
    const results = await client.sendEvents(events, { test: true });
    expect(results.every((r) => r.status === 'processed')).toBe(true);
    expect(seen.map((r) => r.status)).toEqual([200, 200]);
    for (const r of seen) expect(Buffer.byteLength(r.body!)).toBeLessThanOrEqual(BATCH_LIMITS.maxBodyBytes);
    // Batches are cut in input order; the requests may end in either order (two in flight).
    const first = seen.find((r) => r.body!.includes('"big-0"'))!;
    const n = (JSON.parse(first.body!) as { data: unknown[] }).data.length;
    expect(results.map((r) => r.batch)).toEqual(events.map((_, i) => (i < n ? 0 : 1)));
  }, 30_000);

  test('an event alone over the byte limit is not sent; the others are', async () => {
    const { server: s, client, seen } = await demoClient();
    close = s.close;
    const huge = event('huge', {
      event_source_url: `https://shop.example.com/${'x'.repeat(BATCH_LIMITS.maxBodyBytes)}`,
    });
    const results = await client.sendEvents([event('a'), huge, event('b')]);
    expect(results.map((r) => [r.status, r.batch, r.attempts])).toEqual([
      ['processed', 0, 1],
      ['not_sent', null, 0],
      ['processed', 0, 1],
    ]);
    expect(results[1]!.error).toBeInstanceOf(EventsLocalError);
    expect((results[1]!.error as EventsLocalError).kind).toBe('payload_too_large');
    expect(seen.length).toBe(1);
  });

  test('validate: failed events are answered invalid with the validator messages and not sent; hash: raw user data hashed', async () => {
    const { server: s, client, seen } = await demoClient();
    close = s.close;
    const raw = event('raw-1', { user_data: { em: ' Jane@Example.com ', ph: '+1 (650) 555-1212' } });
    const results = await client.sendEvents(
      [raw, event('bad-1', { event_name: 'subscription', partner_name: 'acme' }), event('ok-1')],
      { validate: true, hash: true },
    );
    expect(results.map((r) => [r.status, r.batch, r.attempts])).toEqual([
      ['processed', 0, 1],
      ['invalid', null, 0],
      ['processed', 0, 1],
    ]);
    // The validator's warnings come with its errors, as the service would answer them (a failed event gets
    // no match-quality advice, C88; the dropped partner_name is a warning of its own).
    expect(results[1]!.warningMessage).toContain('partner_name must be');
    expect(results[1]!.errorMessage).toContain('Invalid event_name: subscription');
    const sent = JSON.parse(seen[0]!.body!) as {
      data: { event_id: string; user_data: Record<string, string[]> }[];
    };
    expect(sent.data.map((e) => e.event_id)).toEqual(['raw-1', 'ok-1']);
    // sha256("jane@example.com")
    expect(sent.data[0]!.user_data.em).toEqual([
      '8c87b489ce35cf2e2f39f80e282cb2e804932a56a213983eeeb428407d43b52d',
    ]);
    expect(sent.data[0]!.user_data.ph![0]).toMatch(/^[0-9a-f]{64}$/);
    expect(seen[0]!.body).not.toContain('Jane');
  });
});
