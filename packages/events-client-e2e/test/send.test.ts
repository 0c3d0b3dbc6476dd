// The client against the real server (startServer in process, real HTTP): splitting (C56), retries (C55),
// results in input order (C57).

import { BATCH_LIMITS, EventsApiError, SerializedEvent } from '@org/events-client';
import { afterEach, describe, expect, test } from 'vitest';
import { demoClient, event } from './support/server.js';

let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  await close?.();
  close = undefined;
});

describe('sendEvents against the server', () => {
  test('results map to inputs across batches, in input order (C57)', async () => {
    const { server: s, client, seen } = await demoClient({ maxBatchEvents: 3 });
    close = s.close;
    const events = Array.from({ length: 8 }, (_, i) =>
      i % 3 === 1 ? event(`e-${i}`, { event_name: 'subscription' }) : event(`e-${i}`),
    );
    const results = await client.sendEvents(events);
    expect(results.map((r) => [r.index, r.status, r.batch, r.attempts])).toEqual([
      [0, 'processed', 0, 1],
      [1, 'failed', 0, 1],
      [2, 'processed', 0, 1],
      [3, 'processed', 1, 1],
      [4, 'failed', 1, 1],
      [5, 'processed', 1, 1],
      [6, 'processed', 2, 1],
      [7, 'failed', 2, 1],
    ]);
    expect(results[1]!.errorMessage).toContain('Invalid event_name: subscription');
    expect(seen.map((r) => r.status)).toEqual([200, 200, 200]);
    expect(seen.map((r) => (JSON.parse(r.body!) as { data: unknown[] }).data.length)).toEqual([3, 3, 2]);
  });

  test('a 401 is not retried: every event not_sent with the typed error', async () => {
    const { server: s, client, seen } = await demoClient({ token: 'wrong-token' });
    close = s.close;
    const results = await client.sendEvents([event('a'), event('b')]);
    expect(seen.map((r) => r.status)).toEqual([401]);
    expect(results.map((r) => [r.status, r.attempts])).toEqual([
      ['not_sent', 1],
      ['not_sent', 1],
    ]);
    const e = results[0]!.error as EventsApiError;
    expect(e).toBeInstanceOf(EventsApiError);
    expect([e.status, e.code, e.kind, e.body.message]).toEqual([
      401,
      2,
      'unauthorized',
      'Authentication failed.',
    ]);
    expect(e.requestId).toMatch(/./);
  });

  test('a SerializedEvent is sent as it is; with hash it is parsed first', async () => {
    const { server: s, client, seen } = await demoClient();
    close = s.close;
    const line = ` ${JSON.stringify(event('raw-1'))} `;
    const [r] = await client.sendEvents([new SerializedEvent(line)], { test: true });
    expect(r!.status).toBe('processed');
    expect(seen[0]!.body).toBe(`{"data":[${line}]}`);
    const raw = JSON.stringify(event('raw-2', { user_data: { em: 'Jane@Example.com' } }));
    await client.sendEvents([new SerializedEvent(raw)], { test: true, hash: true });
    expect(seen[1]!.body).toContain(
      '"em":["8c87b489ce35cf2e2f39f80e282cb2e804932a56a213983eeeb428407d43b52d"]',
    );
  });

  test('the spec limits are the defaults', () => {
    expect(BATCH_LIMITS).toEqual({ maxEvents: 1000, minEvents: 1, maxBodyBytes: 5242880 });
  });
});
