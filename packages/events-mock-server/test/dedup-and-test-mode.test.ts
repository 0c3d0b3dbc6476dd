// C6 deduplication (across requests, within a batch, against tag events) and C7 test mode.
import { LIMITS, RATE_LIMITS } from '@org/events-types';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { A, B, event, T } from './support/fixtures.js';
import { type Harness, startHarness } from './support/server.js';

let h: Harness;
beforeEach(async () => {
  h = await startHarness();
});
afterEach(() => h.close());

const stored = async (query = '') =>
  (await h.call('GET', `/admin/events${query}`, { token: T.admin })).body.items as Array<
    Record<string, unknown>
  >;
const report = async (account = A) =>
  (await h.call('GET', `/admin/reports/${account}`, { token: T.admin })).body;

describe('C6 deduplication', () => {
  test('across requests: processed with a warning naming the earlier event, stored once', async () => {
    const e = event(h.nowS(), { event_id: 'order-1' });
    const first = await h.send(A, T.convA, [e]);
    expect(first.body.events[0]).toEqual({ status: 'processed', error_message: null, warning_message: null });
    const receivedAt = new Date(h.clock.now()).toISOString();
    h.clock.advance(60_000);
    const second = await h.send(A, T.convA, [{ ...e, event_time: h.nowS() }]);
    expect(second.status).toBe(200);
    expect(second.body.num_events_processed).toBe(1);
    const warning: string = second.body.events[0].warning_message;
    expect(warning).toContain('Duplicate');
    expect(warning).toContain(receivedAt);
    expect(warning).toContain(String(e.event_time));
    const rows = await stored(`?event_id=order-1`);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ dedup_status: 'deduplicated', duplicates: 1 });
    expect((await report()).stored).toEqual([
      expect.objectContaining({ event_name: 'checkout', processed: 1, duplicates: 1 }),
    ]);
  });

  test('within a batch: the first is stored, the later ones are warned duplicates', async () => {
    const e = event(h.nowS(), { event_id: 'same' });
    const r = await h.send(A, T.convA, [e, { ...e }, { ...e }]);
    expect(r.body.num_events_processed).toBe(3);
    expect(r.body.events[0].warning_message).toBeNull();
    expect(r.body.events[1].warning_message).toContain('Duplicate');
    expect(r.body.events[2].warning_message).toContain('Duplicate');
    expect(await stored('?event_id=same')).toHaveLength(1);
  });

  test('within a batch, live and test alike: each duplicate is warned once, counted once and logged (C102)', async () => {
    const e = event(h.nowS(), { event_id: 'twice' });
    const test = await h.send(A, T.convA, [e, { ...e }, { ...e }], '?test=true');
    const live = await h.send(A, T.convA, [e, { ...e }, { ...e }]);
    for (const r of [test, live]) {
      const warnings = r.body.events.map((x: { warning_message: string | null }) => x.warning_message);
      expect(warnings[0]).toBeNull();
      // The validators' words for a duplicate of the batch, and no second warning from the store's verdict.
      for (const w of warnings.slice(1)) {
        expect(w).toContain('data[0] of this batch');
        expect(w.split('Duplicate').length).toBe(2);
      }
      const logged = await h.call('GET', `/admin/requests/${r.headers.get('x-request-id')}`, {
        token: T.admin,
      });
      const items = logged.body.items as { index: number; duplicate_of: { event_id: string } | null }[];
      expect(
        items.filter((x) => x.duplicate_of !== null).map((x) => [x.index, x.duplicate_of?.event_id]),
      ).toEqual([
        [1, 'twice'],
        [2, 'twice'],
      ]);
    }
    const metrics = (await h.call('GET', '/metrics')).text;
    expect(metrics).toContain('events_conversion_events_total{outcome="duplicate",mode="test"} 2');
    expect(metrics).toContain('events_conversion_events_total{outcome="duplicate",mode="live"} 2');
  });

  test('the key is (ad account, event_name, event_id): other accounts and other names are not duplicates', async () => {
    const t = h.nowS();
    await h.send(A, T.convA, [event(t, { event_id: 'k' })]);
    const otherName = await h.send(A, T.convA, [event(t, { event_id: 'k', event_name: 'lead' })]);
    expect(otherName.body.events[0].warning_message).toBeNull();
    const otherAccount = await h.send(B, T.convB, [event(t, { event_id: 'k' })]);
    expect(otherAccount.body.events[0].warning_message).toBeNull();
    expect(await stored('?event_id=k')).toHaveLength(3);
  });

  test(`window: after ${LIMITS.dedup_window_seconds.value} s the same key is a new event`, async () => {
    const e = event(h.nowS(), { event_id: 'w' });
    await h.send(A, T.convA, [e]);
    h.clock.advance(LIMITS.dedup_window_seconds.value * 1000 - 1000);
    expect(
      (await h.send(A, T.convA, [{ ...e, event_time: h.nowS() }])).body.events[0].warning_message,
    ).toContain('Duplicate');
    h.clock.advance(1001);
    expect(
      (await h.send(A, T.convA, [{ ...e, event_time: h.nowS() }])).body.events[0].warning_message,
    ).toBeNull();
    expect(await stored('?event_id=w')).toHaveLength(2);
  });

  test('against tag events recorded through the admin API (tag names are accepted: Checkout)', async () => {
    const t = h.nowS() - 3600;
    const rec = await h.call('POST', '/admin/tag_events', {
      token: T.admin,
      body: { data: [{ ad_account_id: A, event_name: 'Checkout', event_id: 'tag-1', event_time: t }] },
    });
    expect(rec.status).toBe(200);
    expect(rec.body).toEqual({ recorded: 1 });
    const r = await h.send(A, T.convA, [event(h.nowS(), { event_id: 'tag-1' })]);
    expect(r.body.events[0].status).toBe('processed');
    expect(r.body.events[0].warning_message).toContain('tag event');
    expect(r.body.events[0].warning_message).toContain(String(t));
    // Stored once: the tag has it.
    expect(await stored('?event_id=tag-1')).toHaveLength(0);
    expect((await report()).stored[0]).toMatchObject({ processed: 0, duplicates: 1 });
  });

  test('tag events are validated with paths', async () => {
    const r = await h.call('POST', '/admin/tag_events', {
      token: T.admin,
      body: { data: [{ ad_account_id: '42', event_name: 'nope', event_id: '', event_time: 1.5 }] },
    });
    expect(r.status).toBe(400);
    const paths = r.body.details.map((d: { path: string }) => d.path);
    expect(paths).toEqual(
      expect.arrayContaining(['data[0].ad_account_id', 'data[0].event_id', 'data[0].event_time']),
    );
  });
});

describe('C7 test mode', () => {
  test('test=true: same response, nothing stored, nothing counted', async () => {
    const batch = [event(h.nowS(), { event_id: 't1' }), event(h.nowS(), { event_name: 'subscription' })];
    const live = await h.send(
      B,
      T.convB,
      batch.map((e) => ({ ...e, custom_data: { currency: 'EUR', value: '1.00' } })),
    );
    const test = await h.send(
      A,
      T.convA,
      batch.map((e) => ({ ...e, custom_data: { currency: 'EUR', value: '1.00' } })),
      '?test=true',
    );
    expect(test.status).toBe(200);
    expect(test.body).toEqual(live.body);
    expect(await stored(`?ad_account_id=${A}`)).toHaveLength(0);
    expect(await report(A)).toEqual({ ad_account_id: A, stored: [], failed: [], timeline: [] });
  });

  test('is_test=true is the same (seed 4.1 rule 3); test=false stores', async () => {
    await h.send(A, T.convA, [event(h.nowS(), { event_id: 'alias' })], '?is_test=true');
    expect(await stored('?event_id=alias')).toHaveLength(0);
    await h.send(A, T.convA, [event(h.nowS(), { event_id: 'alias' })], '?test=false');
    expect(await stored('?event_id=alias')).toHaveLength(1);
  });

  test('no dedup state changes: a live event after a test one is not a duplicate', async () => {
    const e = event(h.nowS(), { event_id: 'x' });
    expect((await h.send(A, T.convA, [e], '?test=true')).body.events[0].warning_message).toBeNull();
    expect((await h.send(A, T.convA, [e])).body.events[0].warning_message).toBeNull();
  });

  test('dedup is still checked: a test event that repeats a stored one gets the warning', async () => {
    const e = event(h.nowS(), { event_id: 'y' });
    await h.send(A, T.convA, [e]);
    expect((await h.send(A, T.convA, [e], '?test=true')).body.events[0].warning_message).toContain(
      'Duplicate',
    );
    const inBatch = await h.send(
      A,
      T.convA,
      [event(h.nowS(), { event_id: 'z' }), event(h.nowS(), { event_id: 'z' })],
      '?test=true',
    );
    expect(inBatch.body.events[1].warning_message).toContain('Duplicate');
  });

  test(`${RATE_LIMITS.testRequests.limit} test requests per second per app; each conversion token is an app of its own`, async () => {
    const n = RATE_LIMITS.testRequests.limit;
    for (let i = 0; i < n; i++)
      expect((await h.send(A, T.convA, [event(h.nowS())], '?test=true')).status).toBe(200);
    expect((await h.send(A, T.convA, [event(h.nowS())], '?test=true')).status).toBe(429);
    // Another conversion token: its own app.
    expect((await h.send(B, T.convB, [event(h.nowS())], '?test=true')).status).toBe(200);
    // Two users of one OAuth app share the app's test limit.
    for (let i = 0; i < n; i++)
      expect((await h.send(A, T.oauthStd, [event(h.nowS())], '?test=true')).status).toBe(200);
    expect((await h.send(B, T.oauthBob, [event(h.nowS())], '?test=true')).status).toBe(429);
    h.clock.advance(1000);
    expect((await h.send(A, T.convA, [event(h.nowS())], '?test=true')).status).toBe(200);
  });
});
