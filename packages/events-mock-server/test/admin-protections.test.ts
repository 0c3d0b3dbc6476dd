// The admin API's protections of C71, over real HTTP: each finding of issue 19 reproduced and refused.
// N2: state-changing admin calls made with the session cookie need the server's origin and the session's
// CSRF token; the admin token needs neither. N3: wrong logins are throttled per client address and
// overall (429 with Retry-After; every failed admin authentication counts, C115, see
// admin-auth-throttle.test.ts). N6: the session cookie is Secure behind a trusted proxy saying https.
import { afterEach, describe, expect, test } from 'vitest';
import { CSRF_HEADER, SESSION_COOKIE } from '../src/auth/sessions.js';
import { validateConfig } from '../src/config/validate.js';
import { A, event, T, testConfig } from './support/fixtures.js';
import { type Harness, startHarness } from './support/server.js';

let h: Harness;
afterEach(() => h?.close());

const FOREIGN = 'http://127.0.0.1:9999';

async function login(headers: Record<string, string> = {}) {
  const r = await h.call('POST', '/admin/session', { body: { token: T.admin }, headers });
  expect(r.status).toBe(200);
  const setCookie = r.headers.get('set-cookie') as string;
  return { cookie: setCookie.split(';')[0] as string, csrf: r.body.csrf_token as string, setCookie, r };
}

async function storedCount(): Promise<number> {
  const r = await h.call('GET', '/admin/events', { token: T.admin });
  expect(r.status).toBe(200);
  return r.body.items.length;
}

describe('N2: CSRF on state-changing admin calls made with the session cookie (C71)', () => {
  test('the finding: foreign Origin, cookie, form content type, empty body is 403 and nothing is wiped', async () => {
    h = await startHarness();
    await h.send(A, T.convA, [event(h.nowS(), { event_id: 'keep-me' })]);
    expect(await storedCount()).toBe(1);
    const { cookie, csrf } = await login();
    const form = { cookie, origin: FOREIGN };
    const refused = await h.call('POST', '/admin/reset', {
      raw: '',
      contentType: 'application/x-www-form-urlencoded',
      headers: form,
    });
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({
      code: 29,
      message: 'You are not permitted to access that resource.',
      details: [
        {
          path: 'headers.origin',
          problem: `must be this server's origin ${h.url} for a state-changing admin call with the session cookie; received "${FOREIGN}"`,
        },
      ],
    });
    // Even with the session's token: the origin is foreign.
    const withToken = await h.call('POST', '/admin/reset', { headers: { ...form, [CSRF_HEADER]: csrf } });
    expect(withToken.status).toBe(403);
    expect(await storedCount()).toBe(1);
  });

  test('same origin without the token is 403; a wrong token is 403; the token works', async () => {
    h = await startHarness();
    await h.send(A, T.convA, [event(h.nowS())]);
    const { cookie, csrf } = await login();
    const same = { cookie, origin: h.url };
    const missing = await h.call('POST', '/admin/reset', { headers: same });
    expect(missing.status).toBe(403);
    expect(missing.body.details).toEqual([
      {
        path: `headers.${CSRF_HEADER}`,
        problem:
          "missing; a state-changing admin call with the session cookie sends the session's CSRF token (from POST or GET /admin/session) in this header, or uses Authorization: Bearer <admin token>",
      },
    ]);
    const wrong = await h.call('POST', '/admin/reset', { headers: { ...same, [CSRF_HEADER]: `${csrf}x` } });
    expect(wrong.status).toBe(403);
    expect(wrong.body.details[0].problem).toBe(
      'is not the CSRF token of this session; read it again from GET /admin/session',
    );
    // Another session's token is not this session's.
    const other = await login();
    const crossed = await h.call('POST', '/admin/reset', {
      headers: { ...same, [CSRF_HEADER]: other.csrf },
    });
    expect(crossed.status).toBe(403);
    expect(await storedCount()).toBe(1);

    const ok = { ...same, [CSRF_HEADER]: csrf };
    expect((await h.call('POST', '/admin/reset', { headers: ok })).status).toBe(204);
    expect(await storedCount()).toBe(0);
    // Faults: create, delete one, clear; tag events.
    const created = await h.call('POST', '/admin/faults', {
      headers: ok,
      body: { kind: 'unavailable', count: 1 },
    });
    expect(created.status).toBe(201);
    expect(
      (await h.call('POST', '/admin/faults', { headers: same, body: { kind: 'unavailable', count: 1 } }))
        .status,
    ).toBe(403);
    expect((await h.call('DELETE', `/admin/faults/${created.body.id}`, { headers: same })).status).toBe(403);
    expect((await h.call('DELETE', `/admin/faults/${created.body.id}`, { headers: ok })).status).toBe(204);
    expect((await h.call('DELETE', '/admin/faults', { headers: same })).status).toBe(403);
    expect((await h.call('DELETE', '/admin/faults', { headers: ok })).status).toBe(204);
    const tag = {
      data: [{ ad_account_id: A, event_name: 'checkout', event_id: 't-1', event_time: h.nowS() }],
    };
    expect((await h.call('POST', '/admin/tag_events', { headers: same, body: tag })).status).toBe(403);
    expect((await h.call('POST', '/admin/tag_events', { headers: ok, body: tag })).status).toBe(200);
    // Reading calls need the cookie only.
    expect((await h.call('GET', '/admin/faults', { headers: { cookie } })).status).toBe(200);
    expect((await h.call('GET', '/admin/events', { headers: { cookie, origin: FOREIGN } })).status).toBe(200);
  });

  test('without Origin: Sec-Fetch-Site decides, then Referer; with none of them the call is refused', async () => {
    h = await startHarness();
    const { cookie, csrf } = await login();
    const base = { cookie, [CSRF_HEADER]: csrf };
    const reset = (headers: Record<string, string>) => h.call('POST', '/admin/reset', { headers });
    const site = await reset({ ...base, 'sec-fetch-site': 'same-site' });
    expect(site.status).toBe(403);
    expect(site.body.details[0].path).toBe('headers.sec-fetch-site');
    expect((await reset({ ...base, 'sec-fetch-site': 'same-origin' })).status).toBe(204);
    const ref = await reset({ ...base, referer: `${FOREIGN}/page` });
    expect(ref.status).toBe(403);
    expect(ref.body.details[0]).toEqual({
      path: 'headers.referer',
      problem: `must be this server's origin ${h.url} for a state-changing admin call with the session cookie; received "${FOREIGN}"`,
    });
    expect((await reset({ ...base, referer: `${h.url}/inspector/` })).status).toBe(204);
    const none = await reset(base);
    expect(none.status).toBe(403);
    expect(none.body.details).toEqual([
      {
        path: 'headers.origin',
        problem: `missing; a state-changing admin call with the session cookie sends Origin ${h.url} (or Sec-Fetch-Site: same-origin, or a Referer of that origin)`,
      },
    ]);
    expect((await reset({ ...base, origin: 'null' })).status).toBe(403);
  });

  test('the admin token needs no Origin and no CSRF token; a configured public origin is accepted', async () => {
    const publicOrigin = 'https://events.example.com';
    h = await startHarness({ config: { ...testConfig(), admin: { public_origin: publicOrigin } } });
    await h.send(A, T.convA, [event(h.nowS())]);
    expect((await h.call('POST', '/admin/reset', { token: T.admin })).status).toBe(204);
    expect(await storedCount()).toBe(0);
    // A script's bearer call from anywhere, even with a stale cookie beside it: the header is what counts.
    expect(
      (await h.call('POST', '/admin/reset', { token: T.admin, headers: { origin: FOREIGN, cookie: 'x=1' } }))
        .status,
    ).toBe(204);
    const { cookie, csrf } = await login();
    const call = (origin: string) =>
      h.call('POST', '/admin/reset', { headers: { cookie, origin, [CSRF_HEADER]: csrf } });
    expect((await call(publicOrigin)).status).toBe(204);
    expect((await call(h.url)).status).toBe(204);
    const foreign = await call(FOREIGN);
    expect(foreign.status).toBe(403);
    expect(foreign.body.details[0].problem).toContain(`origin ${h.url} or ${publicOrigin} for`);
  });

  test('GET /admin/session answers the token again; DELETE /admin/session needs the checks', async () => {
    h = await startHarness();
    const { cookie, csrf, r } = await login();
    expect(r.body).toEqual({ csrf_token: csrf, expires_at: h.nowS() + 12 * 3600 });
    expect(csrf).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const again = await h.call('GET', '/admin/session', { headers: { cookie } });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(r.body);
    const none = await h.call('GET', '/admin/session');
    expect(none.status).toBe(401);
    expect(none.body.details).toEqual([
      {
        path: `cookies.${SESSION_COOKIE}`,
        problem: 'no live admin session; log in with POST /admin/session',
      },
    ]);
    // A foreign page cannot end the session.
    const foreign = await h.call('DELETE', '/admin/session', { headers: { cookie, origin: FOREIGN } });
    expect(foreign.status).toBe(403);
    expect(foreign.headers.get('set-cookie')).toBe(null);
    expect((await h.call('GET', '/admin/session', { headers: { cookie } })).status).toBe(200);
    const out = await h.call('DELETE', '/admin/session', {
      headers: { cookie, origin: h.url, [CSRF_HEADER]: csrf },
    });
    expect(out.status).toBe(204);
    expect((await h.call('GET', '/admin/session', { headers: { cookie } })).status).toBe(401);
    // Without a live session nothing is ended: 204, the cookie cleared.
    const stale = await h.call('DELETE', '/admin/session', { headers: { cookie } });
    expect(stale.status).toBe(204);
    expect(stale.headers.get('set-cookie')).toMatch(new RegExp(`^${SESSION_COOKIE}=; Max-Age=0`));
  });
});

describe('N3: wrong admin logins are throttled (C71)', () => {
  const wrong = (headers: Record<string, string> = {}) =>
    h.call('POST', '/admin/session', { body: { token: T.convA }, headers });
  const right = (headers: Record<string, string> = {}) =>
    h.call('POST', '/admin/session', { body: { token: T.admin }, headers });

  test('the finding: with the spec defaults, the 11th wrong login of a client is 429 with Retry-After', async () => {
    h = await startHarness();
    for (let i = 0; i < 10; i++) expect((await wrong()).status).toBe(401);
    const refused = await wrong();
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('60');
    expect(refused.body).toEqual({
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
    });
    // Even the right token is refused while throttled: the throttle does not confirm a guess.
    const blocked = await right();
    expect(blocked.status).toBe(429);
    expect(blocked.headers.get('set-cookie')).toBe(null);
    // C115: so is the bearer token from this address (every admin route is throttled alike).
    expect((await h.call('GET', '/admin/events', { token: T.admin })).status).toBe(429);
    h.clock.advance(30_000);
    expect((await wrong()).headers.get('retry-after')).toBe('30');
    h.clock.advance(30_000);
    expect((await right()).status).toBe(200);
  });

  test('per client address behind a trusted proxy, and overall; successful logins are not counted', async () => {
    h = await startHarness({
      config: {
        ...testConfig(),
        server: { trusted_proxies: ['127.0.0.1', '::1'] },
        admin: { login_failures_per_client: 2, login_failures_overall: 5, login_window_seconds: 10 },
      },
    });
    const from = (ip: string) => ({ 'x-forwarded-for': ip });
    for (let i = 0; i < 3; i++) expect((await right(from('10.0.0.1'))).status).toBe(200);
    expect((await wrong(from('10.0.0.1'))).status).toBe(401);
    expect((await wrong(from('10.0.0.1'))).status).toBe(401);
    expect((await wrong(from('10.0.0.1'))).status).toBe(429);
    // Another address still has its own attempts, until every client together has spent 5.
    expect((await wrong(from('10.0.0.2'))).status).toBe(401);
    expect((await wrong(from('10.0.0.3'))).status).toBe(401);
    expect((await wrong(from('10.0.0.4'))).status).toBe(401);
    // Then an address that failed is refused, even with the right token; one that did not is not (C115).
    const overall = await right(from('10.0.0.2'));
    expect(overall.status).toBe(429);
    expect(overall.headers.get('retry-after')).toBe('10');
    expect(overall.body.details[0].path).toBe('ratelimit.admin_login_failures_max');
    expect((await right(from('10.0.0.5'))).status).toBe(200);
    h.clock.advance(10_000);
    expect((await right(from('10.0.0.1'))).status).toBe(200);
  });

  test('X-Forwarded-For from an untrusted peer does not make a client another address', async () => {
    h = await startHarness({ config: { ...testConfig(), admin: { login_failures_per_client: 2 } } });
    expect((await wrong({ 'x-forwarded-for': '10.0.0.1' })).status).toBe(401);
    expect((await wrong({ 'x-forwarded-for': '10.0.0.2' })).status).toBe(401);
    expect((await wrong({ 'x-forwarded-for': '10.0.0.3' })).status).toBe(429);
  });
});

describe('N6: the session cookie is Secure over HTTPS behind a trusted proxy (C71)', () => {
  const https = { 'x-forwarded-proto': 'https' };

  test('the finding: X-Forwarded-Proto: https from an untrusted peer does not make it Secure', async () => {
    h = await startHarness();
    const { setCookie } = await login(https);
    expect(setCookie).toMatch(
      new RegExp(`^${SESSION_COOKIE}=[A-Za-z0-9_-]{43}; Max-Age=43200; Path=/; HttpOnly; SameSite=Strict$`),
    );
  });

  test('a trusted proxy saying https makes it Secure (and the served origin https)', async () => {
    h = await startHarness({
      config: { ...testConfig(), server: { trusted_proxies: ['127.0.0.0/8', '::1'] } },
    });
    const secure = await login(https);
    expect(secure.setCookie).toMatch(
      new RegExp(
        `^${SESSION_COOKIE}=[A-Za-z0-9_-]{43}; Max-Age=43200; Path=/; HttpOnly; Secure; SameSite=Strict$`,
      ),
    );
    expect((await login()).setCookie).not.toContain('Secure');
    // The CSRF check follows: behind the proxy the page's origin is https.
    const httpsOrigin = h.url.replace('http:', 'https:');
    const call = (origin: string) =>
      h.call('POST', '/admin/reset', {
        headers: { ...https, cookie: secure.cookie, origin, [CSRF_HEADER]: secure.csrf },
      });
    expect((await call(httpsOrigin)).status).toBe(204);
    expect((await call(h.url)).status).toBe(403);
    const out = await h.call('DELETE', '/admin/session', {
      headers: { ...https, cookie: secure.cookie, origin: httpsOrigin, [CSRF_HEADER]: secure.csrf },
    });
    expect(out.headers.get('set-cookie')).toContain('; Secure;');
  });

  test('a proxy list that does not hold the peer is not believed', async () => {
    h = await startHarness({ config: { ...testConfig(), server: { trusted_proxies: ['10.0.0.0/8'] } } });
    expect((await login(https)).setCookie).not.toContain('Secure');
  });

  test('the config refuses what is not an address, a range or an origin', () => {
    const { issues } = validateConfig({
      ...testConfig(),
      server: { trusted_proxies: ['10.0.0.0/8', 'proxy.internal', '10.0.0.0/33'] },
      admin: { public_origin: 'https://events.example.com/inspector', login_failures_per_client: 0 },
    });
    expect(issues.map((i) => [i.path.join('.'), i.problem])).toEqual([
      [
        'server.trusted_proxies.1',
        'must be an IP address or a CIDR range such as 10.0.0.0/8; received "proxy.internal"',
      ],
      [
        'server.trusted_proxies.2',
        'must be an IP address or a CIDR range such as 10.0.0.0/8; received "10.0.0.0/33"',
      ],
      [
        'admin.public_origin',
        'must be an origin such as https://events.example.com (scheme, host, port; no path); received "https://events.example.com/inspector"',
      ],
      ['admin.login_failures_per_client', 'must be an integer from 1 to 1000000; received number 0'],
    ]);
  });
});
