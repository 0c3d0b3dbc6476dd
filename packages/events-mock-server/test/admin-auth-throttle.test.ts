// C115 (issue 35 items 2 and 3), over real HTTP: every failed admin authentication (a wrong bearer token, a
// session cookie naming no live session, a token of the API on an admin route, a wrong login) counts
// against one throttle per client address, with an overall budget that only ever refuses addresses that
// failed themselves, so no one can lock a clean address out. Unit and property tests of the throttle follow.
import fc from 'fast-check';
import { afterEach, describe, expect, test } from 'vitest';
import { CSRF_HEADER, SESSION_COOKIE } from '../src/auth/sessions.js';
import { ManualClock } from '../src/index.js';
import { AdminAuthThrottle, clientKey } from '../src/ratelimit/admin-auth-throttle.js';
import { A, event, T, testConfig } from './support/fixtures.js';
import { type Harness, startHarness, T0 } from './support/server.js';

let h: Harness;
afterEach(() => h?.close());

const PER_CLIENT_429 = {
  code: 8,
  message:
    'This request exceeded a rate limit. This can happen if the client exceeds one of the published rate limits within a short time window.',
  details: [
    {
      path: 'ratelimit.admin_login_failures_per_client_max',
      problem:
        'admin_login_failures_per_client_max limit of 10 failed admin authentications from this address per 60 seconds is spent; retry in 60 seconds',
    },
  ],
};

/** A server whose X-Forwarded-For the test chooses: the loopback peer is a trusted proxy (C71). */
const behindProxy = (admin: Record<string, unknown> = {}) =>
  startHarness({
    config: { ...testConfig(), server: { trusted_proxies: ['127.0.0.1', '::1'] }, admin },
  });
const from = (ip: string, headers: Record<string, string> = {}) => ({ 'x-forwarded-for': ip, ...headers });

const bearer = (token: string, headers: Record<string, string> = {}) =>
  h.call('GET', '/admin/events', { token, headers });
const login = (token: string, headers: Record<string, string> = {}) =>
  h.call('POST', '/admin/session', { body: { token }, headers });
const randomCookie = () => `${SESSION_COOKIE}=${crypto.randomUUID().replaceAll('-', '')}x`;

/** Status counts of many calls, sent `parallel` at a time. */
async function tally(n: number, parallel: number, one: (i: number) => Promise<{ status: number }>) {
  const out: Record<number, number> = {};
  for (let i = 0; i < n; i += parallel) {
    const batch = await Promise.all(Array.from({ length: Math.min(parallel, n - i) }, (_, j) => one(i + j)));
    for (const r of batch) out[r.status] = (out[r.status] ?? 0) + 1;
  }
  return out;
}

describe('item 2: failed authentication on every admin route is throttled per client address (C115)', () => {
  test('the finding: of 3,000 wrong bearer tokens on GET /admin/events, 10 are answered 401 and the rest 429', async () => {
    h = await startHarness();
    const statuses = await tally(3000, 25, (i) => bearer(`guess-${i}-0123456789abcdef`));
    expect(statuses).toEqual({ 401: 10, 429: 2990 });
    const refused = await bearer('one-more-guess-0123456789abcdef');
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('60');
    expect(refused.body).toEqual(PER_CLIENT_429);
    // The right token from the same address is refused too: the throttle does not confirm a guess.
    const right = await bearer(T.admin);
    expect(right.status).toBe(429);
    expect(right.headers.get('retry-after')).toBe('60');
    h.clock.advance(30_000);
    expect((await bearer(T.admin)).headers.get('retry-after')).toBe('30');
    h.clock.advance(30_000);
    expect((await bearer(T.admin)).status).toBe(200);
  });

  test('the finding: of 2,000 random session cookies, 10 are answered 401 and the rest 429', async () => {
    h = await startHarness();
    const statuses = await tally(2000, 25, () =>
      h.call('GET', '/admin/events', { headers: { cookie: randomCookie() } }),
    );
    expect(statuses).toEqual({ 401: 10, 429: 1990 });
  });

  test('each kind of failure counts: a dead cookie on the session routes, a token of the API, a malformed header, a wrong login', async () => {
    h = await startHarness({ config: { ...testConfig(), admin: { login_failures_per_client: 6 } } });
    const dead = { cookie: randomCookie() };
    expect((await h.call('GET', '/admin/session', { headers: dead })).status).toBe(401);
    // Logging out with a dead cookie ends nothing and says so as before, but it is a failure: a live cookie
    // would be answered 403 without the CSRF checks, so the route tells live cookies from dead ones.
    expect((await h.call('DELETE', '/admin/session', { headers: dead })).status).toBe(204);
    expect((await bearer(T.convA)).status).toBe(401);
    expect((await h.call('GET', '/admin/faults', { token: T.oauthStd })).status).toBe(401);
    expect((await h.call('GET', '/admin/events', { headers: { authorization: 'Basic eDp5' } })).status).toBe(
      401,
    );
    expect((await login(T.convA)).status).toBe(401);
    const refused = await h.call('POST', '/admin/reset', { token: T.admin });
    expect(refused.status).toBe(429);
    expect(refused.body.details[0].problem).toBe(
      'admin_login_failures_per_client_max limit of 6 failed admin authentications from this address per 60 seconds is spent; retry in 60 seconds',
    );
  });

  test('what is not a failure is not counted: no credentials, the right token, a live session, another cookie', async () => {
    h = await startHarness({ config: { ...testConfig(), admin: { login_failures_per_client: 1 } } });
    const ok = await login(T.admin);
    const cookie = (ok.headers.get('set-cookie') as string).split(';')[0] as string;
    for (let i = 0; i < 20; i++) {
      expect((await h.call('GET', '/admin/events')).status).toBe(401);
      expect((await h.call('GET', '/admin/session')).status).toBe(401);
      expect((await h.call('GET', '/admin/events', { headers: { cookie: 'other=1' } })).status).toBe(401);
      expect((await bearer(T.admin)).status).toBe(200);
      expect((await h.call('GET', '/admin/events', { headers: { cookie } })).status).toBe(200);
      expect((await login(T.admin)).status).toBe(200);
    }
    // The first real failure spends the allowance of 1.
    expect((await bearer('wrong-0123456789abcdef')).status).toBe(401);
    expect((await bearer(T.admin)).status).toBe(429);
  });

  test('a throttled address is refused before its credentials are looked at: a live session, even without CSRF', async () => {
    h = await behindProxy();
    const x = from('10.0.0.7');
    const ok = await login(T.admin, x);
    const cookie = (ok.headers.get('set-cookie') as string).split(';')[0] as string;
    const csrf = ok.body.csrf_token as string;
    // Unthrottled, a live cookie without CSRF is 403 and a dead one 401: that difference is what a
    // throttled address must no longer see.
    expect((await h.call('POST', '/admin/reset', { headers: { ...x, cookie } })).status).toBe(403);
    for (let i = 0; i < 10; i++) expect((await bearer(`wrong-${i}-0123456789abcdef`, x)).status).toBe(401);
    for (const [method, path, headers] of [
      ['POST', '/admin/reset', { cookie }],
      ['POST', '/admin/reset', { cookie, origin: h.url, [CSRF_HEADER]: csrf }],
      ['GET', '/admin/session', { cookie }],
      ['GET', '/admin/events', { cookie }],
      ['GET', '/admin/events', { authorization: `Bearer ${T.admin}` }],
      ['GET', '/admin/events', {}],
    ] as const) {
      const r = await h.call(method, path, { headers: { ...x, ...headers } });
      expect([method, path, r.status, r.headers.get('retry-after')]).toEqual([method, path, 429, '60']);
    }
    const relogin = await login(T.admin, x);
    expect(relogin.status).toBe(429);
    expect(relogin.headers.get('set-cookie')).toBe(null);
    // Other addresses are not concerned.
    expect((await bearer(T.admin, from('10.0.0.8'))).status).toBe(200);
    h.clock.advance(60_000);
    expect((await h.call('GET', '/admin/events', { headers: { ...x, cookie } })).status).toBe(200);
    expect((await bearer(T.admin, x)).status).toBe(200);
  });

  test('concurrent guesses get no more than the allowance: logins and bearer tokens, 200 at once', async () => {
    h = await startHarness();
    const logins = await tally(200, 200, (i) => login(`guess-${i}-0123456789abcdef`));
    expect(logins).toEqual({ 401: 10, 429: 190 });
    await h.close();
    h = await startHarness();
    const tokens = await tally(200, 200, (i) => bearer(`guess-${i}-0123456789abcdef`));
    expect(tokens).toEqual({ 401: 10, 429: 190 });
  });

  test('the 429s are counted in events_rate_limited_total by the limit spent', async () => {
    h = await startHarness({ config: { ...testConfig(), admin: { login_failures_per_client: 2 } } });
    for (let i = 0; i < 5; i++) await bearer(`wrong-${i}-0123456789abcdef`);
    const metrics = await h.call('GET', '/metrics');
    expect(metrics.text).toContain(
      'events_rate_limited_total{limit="admin_login_failures_per_client_max"} 3',
    );
  });

  test('the conversion API is not part of it: wrong tokens on /v5 neither count nor are throttled here', async () => {
    h = await startHarness({ config: { ...testConfig(), admin: { login_failures_per_client: 1 } } });
    for (let i = 0; i < 30; i++)
      expect((await h.send(A, `wrong-${i}-0123456789abcdef`, [event(h.nowS())])).status).toBe(401);
    expect((await bearer(T.admin)).status).toBe(200);
  });
});

describe('item 3: no one can lock a clean address out (C115)', () => {
  test('the finding: 150 wrong logins from 150 addresses spend the overall budget, and a clean address still logs in', async () => {
    h = await behindProxy();
    for (let i = 0; i < 150; i++)
      expect((await login(T.convA, from(`10.1.${i >> 8}.${i & 255}`))).status).toBe(401);
    const clean = from('192.0.2.1');
    const ok = await login(T.admin, clean);
    expect(ok.status).toBe(200);
    const cookie = (ok.headers.get('set-cookie') as string).split(';')[0] as string;
    expect((await h.call('GET', '/admin/events', { headers: { ...clean, cookie } })).status).toBe(200);
    expect((await bearer(T.admin, clean)).status).toBe(200);
    expect((await bearer(T.admin, from('192.0.2.2'))).status).toBe(200);
  });

  test('wrong bearer tokens from many addresses: once the budget is spent each failed address is refused, a new one gets one guess', async () => {
    h = await behindProxy();
    // One failure from an address, then 9 addresses spend their 10 each and one more 9: the overall 100.
    expect((await bearer('early-0123456789abcdef', from('10.2.9.9'))).status).toBe(401);
    for (let a = 0; a < 10; a++)
      for (let i = 0; i < (a < 9 ? 10 : 9); i++)
        expect((await bearer(`w-${a}-${i}-0123456789abcdef`, from(`10.2.0.${a}`))).status).toBe(401);
    expect((await bearer(`over-0123456789abcdef`, from('10.2.0.0'))).status).toBe(429);
    // A new address gets one guess, then is refused by the overall limit, even with the right token.
    expect((await bearer('new-0123456789abcdef', from('10.2.1.1'))).status).toBe(401);
    const refused = await bearer(T.admin, from('10.2.1.1'));
    expect(refused.status).toBe(429);
    expect(refused.body.details).toEqual([
      {
        path: 'ratelimit.admin_login_failures_max',
        problem:
          'admin_login_failures_max limit of 100 failed admin authentications from all addresses per 60 seconds is spent, and this address failed within it; retry in 60 seconds',
      },
    ]);
    // An address that failed once before the budget was spent is refused as well, and so is the one
    // that had failed 9 times, although it has one failure of its own left.
    expect((await bearer(T.admin, from('10.2.9.9'))).status).toBe(429);
    expect((await bearer(T.admin, from('10.2.0.9'))).status).toBe(429);
    // A clean address is always admitted, by token, login and session.
    const clean = from('192.0.2.1');
    expect((await bearer(T.admin, clean)).status).toBe(200);
    const ok = await login(T.admin, clean);
    expect(ok.status).toBe(200);
    h.clock.advance(60_000);
    expect((await bearer(T.admin, from('10.2.1.1'))).status).toBe(200);
    expect((await bearer(T.admin, from('10.2.0.0'))).status).toBe(200);
  });

  test('100+ wrong logins from one address stop only that address', async () => {
    h = await behindProxy();
    const statuses = await tally(120, 10, () => login(T.convA, from('10.3.0.1')));
    expect(statuses).toEqual({ 401: 10, 429: 110 });
    expect((await login(T.admin, from('10.3.0.2'))).status).toBe(200);
    expect((await bearer(T.admin, from('10.3.0.2'))).status).toBe(200);
  });
});

describe('AdminAuthThrottle (unit, C115)', () => {
  const options = { windowSeconds: 10, failuresPerClient: 3, failuresOverall: 5, clientsMax: 4 };

  test('a spray from more addresses than the cap keeps the tracked set at the cap, forgetting the least recently failed', () => {
    const clock = new ManualClock(T0);
    const t = new AdminAuthThrottle(clock, options);
    t.failed('10.0.0.1');
    t.failed('10.0.0.1');
    for (let i = 2; i < 10_000; i++) {
      t.failed(`10.0.${i >> 8}.${i & 255}`);
      expect(t.trackedClients).toBeLessThanOrEqual(4);
    }
    expect(t.trackedClients).toBe(4);
    // 10.0.0.1 was forgotten: it is admitted although the overall budget is spent.
    expect(t.refusal('10.0.0.1')).toBeUndefined();
    // The 4 most recent ones are remembered, and refused while the overall budget is spent.
    expect(t.refusal('10.0.39.15')?.headers).toEqual({ 'Retry-After': '10' });
    // Entries whose failures left the window go first.
    clock.advance(10_000);
    t.failed('10.9.9.9');
    expect(t.trackedClients).toBe(1);
  });

  test('a client that never failed costs nothing and is admitted; refusals name the limit that binds', () => {
    const clock = new ManualClock(T0);
    const t = new AdminAuthThrottle(clock, { ...options, clientsMax: 100 });
    expect(t.refusal('10.0.0.1')).toBeUndefined();
    expect(t.trackedClients).toBe(0);
    for (let i = 0; i < 3; i++) t.failed('10.0.0.1');
    const own = t.refusal('10.0.0.1');
    expect(own?.body.details?.[0]?.path).toBe('ratelimit.admin_login_failures_per_client_max');
    clock.advance(4_000);
    t.failed('10.0.0.2');
    t.failed('10.0.0.2');
    // Overall spent (5); 10.0.0.2 failed, so it waits until its last failure leaves or the oldest overall does.
    const overall = t.refusal('10.0.0.2');
    expect(overall?.body.details?.[0]?.path).toBe('ratelimit.admin_login_failures_max');
    expect(overall?.headers).toEqual({ 'Retry-After': '6' });
    // 10.0.0.1 is held by its own limit (6 s) and the overall one after it: the longer wait is answered.
    expect(t.refusal('10.0.0.1')?.headers).toEqual({ 'Retry-After': '6' });
    expect(t.refusal('10.0.0.3')).toBeUndefined();
  });

  test('IPv6 addresses count per /64; IPv4-mapped addresses as IPv4', () => {
    expect(clientKey('203.0.113.9')).toBe('203.0.113.9');
    expect(clientKey('::ffff:203.0.113.9')).toBe('203.0.113.9');
    expect(clientKey('2001:db8:1:2:aaaa::1')).toBe(clientKey('2001:0db8:0001:0002:ffff:1:2:3'));
    expect(clientKey('2001:db8:1:2::1')).not.toBe(clientKey('2001:db8:1:3::1'));
    expect(clientKey('::1')).toBe('0:0:0:0::/64');
    expect(clientKey('fe80::1%eth0')).toBe('fe80:0:0:0::/64');
  });

  // A reference with unbounded memory: every failure time per client, the overall window capped at its limit.
  class Reference {
    readonly own = new Map<string, number[]>();
    readonly overall: number[] = [];
    constructor(
      readonly window: number,
      readonly perClient: number,
      readonly overallMax: number,
    ) {}
    live(ts: number[], now: number) {
      return ts.filter((x) => x > now - this.window);
    }
    refused(c: string, now: number): boolean {
      const mine = this.live(this.own.get(c) ?? [], now).length;
      return mine >= this.perClient || (mine > 0 && this.live(this.overall, now).length >= this.overallMax);
    }
    failed(c: string, now: number) {
      const mine = this.live(this.own.get(c) ?? [], now);
      if (mine.length < this.perClient) this.own.set(c, [...mine, now]);
      if (this.live(this.overall, now).length < this.overallMax) this.overall.push(now);
    }
  }

  const step = fc.oneof(
    fc.record({ kind: fc.constant('fail' as const), client: fc.integer({ min: 0, max: 7 }) }),
    fc.record({ kind: fc.constant('wait' as const), ms: fc.integer({ min: 1, max: 4_000 }) }),
  );

  test('property: a client that never failed is always admitted, whatever the others did (any cap)', () => {
    fc.assert(
      fc.property(
        fc.array(step, { maxLength: 300 }),
        fc.integer({ min: 1, max: 5 }),
        fc.integer({ min: 1, max: 10 }),
        fc.integer({ min: 1, max: 6 }),
        (steps, perClient, overall, cap) => {
          const clock = new ManualClock(T0);
          const t = new AdminAuthThrottle(clock, {
            windowSeconds: 10,
            failuresPerClient: perClient,
            failuresOverall: overall,
            clientsMax: cap,
          });
          for (const s of steps) {
            if (s.kind === 'wait') clock.advance(s.ms);
            else if (t.refusal(`10.0.0.${s.client}`) === undefined) t.failed(`10.0.0.${s.client}`);
            expect(t.refusal('192.0.2.1')).toBeUndefined();
            expect(t.trackedClients).toBeLessThanOrEqual(cap);
          }
        },
      ),
    );
  });

  test('property: below the cap, refusals are exactly those of the unbounded reference', () => {
    fc.assert(
      fc.property(
        fc.array(step, { maxLength: 300 }),
        fc.integer({ min: 1, max: 5 }),
        fc.integer({ min: 1, max: 10 }),
        (steps, perClient, overall) => {
          const clock = new ManualClock(T0);
          const t = new AdminAuthThrottle(clock, {
            windowSeconds: 10,
            failuresPerClient: perClient,
            failuresOverall: overall,
            clientsMax: 8,
          });
          const ref = new Reference(10_000, perClient, overall);
          for (const s of steps) {
            if (s.kind === 'wait') {
              clock.advance(s.ms);
              continue;
            }
            const c = `10.0.0.${s.client}`;
            const now = clock.now();
            expect(t.refusal(c) !== undefined).toBe(ref.refused(c, now));
            if (!ref.refused(c, now)) {
              t.failed(c);
              ref.failed(c, now);
            }
            for (let other = 0; other < 8; other++)
              expect(t.refusal(`10.0.0.${other}`) !== undefined).toBe(ref.refused(`10.0.0.${other}`, now));
          }
        },
      ),
    );
  });
});
