// C9: exact sliding windows, the tightest limit in the headers of every response, 429 with Retry-After.
import { LIMITS, RATE_LIMITS } from '@org/events-types';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { SlidingLog } from '../src/index.js';
import { A, B, event, T } from './support/fixtures.js';
import { type Harness, startHarness, T0 } from './support/server.js';

const universalStd = RATE_LIMITS.universal.standard; // 100 per second per user per app
const universalTrial = RATE_LIMITS.universal.trial; // 1000 per day per app
const testLimit = RATE_LIMITS.testRequests; // 10 per second per app

describe('SlidingLog (unit): no window ever admits more than its limit', () => {
  test('N at t=0.999 then N at t=1.001: the second N are all refused (no double burst at the edge)', () => {
    const log = new SlidingLog(5, 1000);
    for (let i = 0; i < 5; i++) expect(log.tryAdmit(999)).toBe(true);
    for (let i = 0; i < 5; i++) expect(log.tryAdmit(1001)).toBe(false);
    expect(log.tryAdmit(1998)).toBe(false);
    expect(log.msUntilSlot(1998)).toBe(1);
    expect(log.tryAdmit(1999)).toBe(true);
  });

  test('random traffic: every window of the admitted times holds at most the limit, and nothing is refused needlessly', () => {
    let seed = 42;
    const rnd = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    for (let round = 0; round < 10; round++) {
      const limit = 1 + Math.floor(rnd() * 20);
      const window = 100 + Math.floor(rnd() * 1000);
      const log = new SlidingLog(limit, window);
      const admitted: number[] = [];
      let t = 0;
      for (let i = 0; i < 2000; i++) {
        t += Math.floor(rnd() * (window / limit) * 1.5);
        const inWindow = admitted.filter((a) => a > t - window).length;
        const ok = log.tryAdmit(t);
        // Exactly the reference decision: admit iff fewer than `limit` admissions in (t - window, t].
        expect(ok).toBe(inWindow < limit);
        if (ok) admitted.push(t);
      }
    }
  });
});

describe('over HTTP, with a fake clock', () => {
  let h: Harness;
  beforeEach(async () => {
    h = await startHarness();
  });
  afterEach(() => h.close());

  const at = (ms: number) => h.clock.set(T0 + ms);
  const oauthSend = (token: string = T.oauthStd, account = A, query = '') =>
    h.send(account, token, [event(h.nowS())], query);

  test(`standard tier: ${universalStd.limit} at t=0.999 s, then ${universalStd.limit} more at t=1.001 s are all refused`, async () => {
    at(999);
    for (let i = 0; i < universalStd.limit; i++) expect((await oauthSend()).status).toBe(200);
    at(1001);
    for (let i = 0; i < universalStd.limit; i++) {
      const r = await oauthSend();
      expect(r.status).toBe(429);
      expect(r.headers.get('retry-after')).toBe('1');
      expect(r.headers.get('x-ratelimit-remaining')).toBe('0');
    }
    at(1998);
    expect((await oauthSend()).status).toBe(429);
    at(1999);
    expect((await oauthSend()).status).toBe(200);
  });

  test('headers: `N, N;w=SECONDS;name="NAME"`, remaining counts down, reset in seconds (C9, seed 8 rule 3, C89)', async () => {
    at(0);
    const r1 = await oauthSend();
    expect(r1.headers.get('x-ratelimit-limit')).toBe(
      `${universalStd.limit}, ${universalStd.limit};w=${universalStd.window};name="universal"`,
    );
    expect(r1.headers.get('x-ratelimit-remaining')).toBe(String(universalStd.limit - 1));
    expect(r1.headers.get('x-ratelimit-reset')).toBe('1');
    const r2 = await oauthSend();
    expect(r2.headers.get('x-ratelimit-remaining')).toBe(String(universalStd.limit - 2));
  });

  test('the tightest limit is reported: trial tier is 1000 per day', async () => {
    at(0);
    const r = await oauthSend(T.oauthTrial);
    expect(r.status).toBe(200);
    expect(r.headers.get('x-ratelimit-limit')).toBe(
      `${universalTrial.limit}, ${universalTrial.limit};w=${universalTrial.window};name="universal"`,
    );
    expect(r.headers.get('x-ratelimit-remaining')).toBe(String(universalTrial.limit - 1));
    expect(r.headers.get('x-ratelimit-reset')).toBe(String(universalTrial.window));
    at(3_600_000);
    expect((await oauthSend(T.oauthTrial)).headers.get('x-ratelimit-reset')).toBe(
      String(universalTrial.window - 3600),
    );
  });

  test('test requests: the 10/s limit is tighter and is reported and enforced', async () => {
    at(0);
    for (let i = 0; i < testLimit.limit; i++) {
      const r = await oauthSend(T.oauthStd, A, '?test=true');
      expect(r.status).toBe(200);
      expect(r.headers.get('x-ratelimit-limit')).toBe(
        `${testLimit.limit}, ${testLimit.limit};w=${testLimit.window};name="test_requests"`,
      );
      expect(r.headers.get('x-ratelimit-remaining')).toBe(String(testLimit.limit - 1 - i));
    }
    const refused = await oauthSend(T.oauthStd, A, '?test=true');
    expect(refused.status).toBe(429);
    expect(refused.body.details[0].problem).toContain('test_requests');
    // Live requests of the same app are not test requests: still admitted.
    expect((await oauthSend()).status).toBe(200);
  });

  test('a 429 counts nothing: after the window, exactly the limit is admitted again', async () => {
    at(0);
    for (let i = 0; i < testLimit.limit; i++) await h.send(A, T.convA, [event(h.nowS())], '?test=true');
    for (let i = 0; i < 5; i++)
      expect((await h.send(A, T.convA, [event(h.nowS())], '?test=true')).status).toBe(429);
    at(1000);
    for (let i = 0; i < testLimit.limit; i++)
      expect((await h.send(A, T.convA, [event(h.nowS())], '?test=true')).status).toBe(200);
    expect((await h.send(A, T.convA, [event(h.nowS())], '?test=true')).status).toBe(429);
  });

  test('a conversion token has no limit on live events; the headers name the category, nothing counted (seed 8 rule 2, C89)', async () => {
    at(0);
    for (let i = 0; i < universalStd.limit + 20; i++) {
      const r = await h.send(A, T.convA, [event(h.nowS())]);
      expect(r.status).toBe(200);
      expect(r.headers.get('x-ratelimit-limit')).toBe(
        '120000, 120000;w=60;name="ads_conversions_ad_account_id"',
      );
      expect(r.headers.get('x-ratelimit-remaining')).toBe('120000');
      expect(r.headers.get('x-ratelimit-reset')).toBe('0');
    }
    // An answer before the rate-limit row (400) carries them too.
    const bad = await h.call('POST', `/v5/ad_accounts/${A}/events`, { raw: '{bad', token: T.convA });
    expect(bad.status).toBe(400);
    expect(bad.headers.get('x-ratelimit-limit')).toBe(
      '120000, 120000;w=60;name="ads_conversions_ad_account_id"',
    );
  });

  test("x-pinterest-rid: the server's request id under Pinterest's name, on every answer (C89, C118)", async () => {
    const given = await h.call('POST', `/v5/ad_accounts/${A}/events`, {
      raw: '{bad',
      token: T.convA,
      headers: { 'x-request-id': 'client-id-1' },
    });
    // The client's id is echoed where it sent it; Pinterest's name carries the server's own.
    expect(given.headers.get('x-request-id')).toBe('client-id-1');
    expect(given.headers.get('x-pinterest-rid')).toMatch(/^[0-9a-f-]{36}$/);
    const chosen = await h.call('GET', '/healthz');
    expect(chosen.headers.get('x-pinterest-rid')).toBe(chosen.headers.get('x-request-id'));
    expect(chosen.headers.get('x-pinterest-rid')).toMatch(/^[0-9a-f-]{36}$/);
    const unauthorized = await h.send(A, 'no-such-token', [event(h.nowS())]);
    expect(unauthorized.status).toBe(401);
    expect(unauthorized.headers.get('x-pinterest-rid')).toBe(unauthorized.headers.get('x-request-id'));
  });

  test('limits are kept per user per app: another user of the same app has its own universal window', async () => {
    at(0);
    for (let i = 0; i < universalStd.limit; i++) await oauthSend();
    expect((await oauthSend()).status).toBe(429);
    expect((await oauthSend(T.oauthBob, B)).status).toBe(200);
    // Alice's other app (trial) is another key too.
    expect((await oauthSend(T.oauthTrial)).status).toBe(200);
  });

  test('every response of the API endpoints of a known caller carries the headers: 200, 400, 403, 404, 413, 415, 429', async () => {
    at(0);
    const check = (r: { headers: Headers; status: number }, status: number) => {
      expect(r.status).toBe(status);
      expect(r.headers.get('x-ratelimit-limit')).toMatch(/^\d+, \d+;w=\d+;name="[a-z_]+"$/);
      expect(r.headers.get('x-ratelimit-remaining')).toMatch(/^\d+$/);
      expect(r.headers.get('x-ratelimit-reset')).toMatch(/^\d+$/);
    };
    const path = `/v5/ad_accounts/${A}/events`;
    check(await oauthSend(), 200);
    check(await h.call('POST', path, { raw: '{bad', token: T.oauthStd }), 400);
    check(
      await h.call('POST', `/v5/ad_accounts/${B}/events`, { body: { data: [] }, token: T.oauthStd }),
      403,
    );
    check(await h.call('POST', '/v5/ad_accounts/123/events', { body: { data: [] }, token: T.oauthStd }), 404);
    check(await h.call('POST', path, { raw: 'x', contentType: 'text/plain', token: T.oauthStd }), 415);
    check(
      await h.call('POST', path, {
        raw: Buffer.alloc(LIMITS.body_max_bytes.value + 1, 0x20),
        token: T.oauthStd,
      }),
      413,
    );
    check(await h.call('GET', `/v5/ad_accounts/${A}/custom_event_types`, { token: T.oauthStd }), 200);
    for (let i = 0; i < universalStd.limit; i++) await oauthSend();
    check(await oauthSend(), 429);
  });

  test('requests answered before the rate-limit row (403, 404, 415) do not count against it', async () => {
    at(0);
    for (let i = 0; i < 20; i++)
      await h.call('POST', `/v5/ad_accounts/${B}/events`, { body: { data: [] }, token: T.oauthStd });
    const r = await oauthSend();
    expect(r.headers.get('x-ratelimit-remaining')).toBe(String(universalStd.limit - 1));
  });

  test('custom event type endpoints are limited by their categories too (ads_write, ads_read)', async () => {
    at(0);
    const r = await h.call('POST', `/v5/ad_accounts/${A}/custom_event_types`, {
      token: T.oauthStd,
      body: { name: 'quiz_done', mapped_event_name: 'lead' },
    });
    expect(r.status).toBe(201);
    expect(r.headers.get('x-ratelimit-limit')).toBeTruthy();
  });

  test('admin reset clears rate-limit state (C12)', async () => {
    at(0);
    for (let i = 0; i < universalStd.limit; i++) await oauthSend();
    expect((await oauthSend()).status).toBe(429);
    expect((await h.call('POST', '/admin/reset', { token: T.admin })).status).toBe(204);
    expect((await oauthSend()).status).toBe(200);
  });
});
