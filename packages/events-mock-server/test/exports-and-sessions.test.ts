// Exports of stored events and of the request log (C63) parse back to the rows the list endpoints answer;
// the admin session cookie (C64) stands in for the admin token on every admin route.
import { parse } from 'csv-parse/sync';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { CSRF_HEADER } from '../src/auth/sessions.js';
import { A, B, event, T } from './support/fixtures.js';
import { type Harness, startHarness } from './support/server.js';

let h: Harness;
beforeEach(async () => {
  h = await startHarness();
});
afterEach(() => h.close());

const admin = (path: string) => h.call('GET', path, { token: T.admin });

async function seed() {
  await h.send(A, T.convA, [
    event(h.nowS(), { event_id: 'e-1' }),
    event(h.nowS(), { event_name: 'subscription' }),
  ]);
  h.clock.advance(1000);
  await h.send(A, T.convA, [event(h.nowS(), { event_id: 'e-2', event_name: 'lead' })]);
  await h.send(B, T.convB, [
    event(h.nowS(), { event_id: 'e-3', custom_data: { currency: 'EUR', value: '2' } }),
  ]);
  await h.send(A, T.convA, [event(h.nowS())], '?test=true');
  await h.send(A, 'not-a-known-token-0123456789', [event(h.nowS())]);
}

describe('C63 exports', () => {
  test('stored events as NDJSON are the items of /admin/events, in order', async () => {
    await seed();
    const r = await admin(`/admin/events/export?format=ndjson&ad_account_id=${A}`);
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('application/x-ndjson; charset=utf-8');
    expect(r.headers.get('content-disposition')).toBe('attachment; filename="events.ndjson"');
    const lines = r.text.split('\n');
    expect(lines.pop()).toBe('');
    expect(lines.map((l) => JSON.parse(l))).toEqual(
      (await admin(`/admin/events?ad_account_id=${A}`)).body.items,
    );
    expect(lines.map((l) => JSON.parse(l).event_id)).toEqual(['e-2', 'e-1']);
  });

  test('stored events as CSV: a header row, then one row per event', async () => {
    await seed();
    const r = await admin('/admin/events/export?format=csv');
    expect(r.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(r.headers.get('content-disposition')).toBe('attachment; filename="events.csv"');
    const rows = parse(r.text, { columns: true }) as Record<string, string>[];
    const items = (await admin('/admin/events')).body.items;
    expect(rows).toEqual(
      items.map((e: Record<string, unknown>) => ({
        ad_account_id: e.ad_account_id,
        event_name: e.event_name,
        event_id: e.event_id,
        received_at: String(e.received_at),
        request_id: e.request_id,
        usage: (e.usage as string[]).join(';'),
        dedup_status: e.dedup_status,
        duplicates: String(e.duplicates),
        event: JSON.stringify(e.event),
      })),
    );
    expect(rows.map((x) => x.event_id)).toEqual(['e-3', 'e-2', 'e-1']);
  });

  test('CSV cells a spreadsheet would run as formulas are neutralised; NDJSON stays exact (N8, C75)', async () => {
    const ids = [
      '=HYPERLINK("http://x","y")',
      '+1+cmd|x',
      '@SUM(A1:A9)',
      '-1+1',
      '\tpadded',
      '-5',
      '+3.25',
      'plain-5',
    ];
    const r = await h.call('POST', `/v5/ad_accounts/${A}/events`, {
      token: T.convA,
      headers: { 'x-request-id': '-2-3' },
      body: { data: ids.map((id) => event(h.nowS(), { event_id: id })) },
    });
    expect(r.body.num_events_processed).toBe(ids.length);

    const csv = await admin('/admin/events/export?format=csv');
    const rows = parse(csv.text, { columns: true }) as Record<string, string>[];
    const byEvent = new Map(rows.map((x) => [JSON.parse(x.event as string).event_id as string, x]));
    // The literal of the finding: a formula in events.csv, now text.
    expect(byEvent.get('=HYPERLINK("http://x","y")')?.event_id).toBe('\'=HYPERLINK("http://x","y")');
    expect(byEvent.get('+1+cmd|x')?.event_id).toBe("'+1+cmd|x");
    expect(byEvent.get('@SUM(A1:A9)')?.event_id).toBe("'@SUM(A1:A9)");
    expect(byEvent.get('-1+1')?.event_id).toBe("'-1+1");
    expect(byEvent.get('\tpadded')?.event_id).toBe("'\tpadded");
    // Plain numbers are data, not formulas: left as they are.
    expect(byEvent.get('-5')?.event_id).toBe('-5');
    expect(byEvent.get('+3.25')?.event_id).toBe('+3.25');
    expect(byEvent.get('plain-5')?.event_id).toBe('plain-5');
    // The request id is the server's (C118); number columns are numbers.
    const serverId = r.headers.get('x-pinterest-rid') as string;
    for (const x of rows) {
      expect(x.request_id).toBe(serverId);
      expect(x.received_at).toMatch(/^\d+$/);
      expect(x.duplicates).toBe('0');
    }
    const requests = parse((await admin('/admin/requests/export?format=csv')).text, {
      columns: true,
    }) as Record<string, string>[];
    // The client's id is text like any other column: a leading '-' cannot start a formula.
    expect(requests.map((x) => [x.request_id, x.client_request_id])).toContainEqual([serverId, "'-2-3"]);

    // NDJSON is exact: the event_ids as sent, and the request's id.
    const lines = (await admin('/admin/events/export?format=ndjson')).text.trim().split('\n');
    const items = lines.map((l) => JSON.parse(l) as { event_id: string; request_id: string });
    expect(items.map((i) => i.event_id).sort()).toEqual([...ids].sort());
    expect(items.every((i) => i.request_id === serverId)).toBe(true);
  });

  test('the request log as NDJSON and CSV, with the filters of the list', async () => {
    await seed();
    const nd = await admin('/admin/requests/export?format=ndjson');
    expect(nd.headers.get('content-disposition')).toBe('attachment; filename="requests.ndjson"');
    const list = (await admin('/admin/requests')).body.items;
    expect(list).toHaveLength(5);
    expect(
      nd.text
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l)),
    ).toEqual(list);
    const csv = await admin('/admin/requests/export?format=csv&test=false');
    const rows = parse(csv.text, { columns: true }) as Record<string, string>[];
    const live = (await admin('/admin/requests?test=false')).body.items;
    expect(rows).toEqual(
      live.map((s: Record<string, unknown>) => ({
        request_id: s.request_id,
        client_request_id: s.client_request_id ?? '',
        received_at: String(s.received_at),
        ad_account_id: s.ad_account_id,
        token_id: s.token_id ?? '',
        test: String(s.test),
        status: String(s.status),
        duration_ms: String(s.duration_ms),
        events: String(s.events),
        processed: String(s.processed),
        failed: String(s.failed),
        warned: String(s.warned),
        event_names: (s.event_names as string[]).join(';'),
        error_code: s.error === null ? '' : String((s.error as { code: number }).code),
        error_message: s.error === null ? '' : (s.error as { message: string }).message,
      })),
    );
    expect(rows.map((x) => x.status)).toEqual(['401', '200', '200', '200']);
    expect(rows[0]?.error_message).toBe('Authentication failed.');
  });

  test('NDJSON unless told; a bad format is a 400; the admin token or session is required', async () => {
    expect((await admin('/admin/events/export')).headers.get('content-disposition')).toBe(
      'attachment; filename="events.ndjson"',
    );
    expect((await admin('/admin/requests/export?format=xml')).status).toBe(400);
    expect((await h.call('GET', '/admin/events/export?format=csv')).status).toBe(401);
  });

  test('2500 events export page by page (more than two store pages), none lost or repeated', async () => {
    for (let b = 0; b < 3; b++)
      await h.send(
        A,
        T.convA,
        Array.from({ length: b < 2 ? 1000 : 500 }, (_, i) => event(h.nowS(), { event_id: `bulk-${b}-${i}` })),
      );
    const r = await admin('/admin/events/export?format=ndjson');
    const ids = r.text
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l).event_id as string);
    expect(ids).toHaveLength(2500);
    expect(new Set(ids).size).toBe(2500);
    expect(ids[0]).toBe('bulk-2-499');
    expect(ids[2499]).toBe('bulk-0-0');
  });
});

describe('C64 admin sessions', () => {
  test('log in with the admin token, use the cookie on admin routes, log out', async () => {
    const login = await h.call('POST', '/admin/session', { body: { token: T.admin } });
    expect(login.status).toBe(200);
    // C71: the answer holds the session's CSRF token, for state-changing calls made with the cookie.
    expect(Object.keys(login.body)).toEqual(['csrf_token', 'expires_at']);
    const setCookie = login.headers.get('set-cookie') as string;
    expect(setCookie).toMatch(
      /^ems_admin=[A-Za-z0-9_-]{43}; Max-Age=43200; Path=\/; HttpOnly; SameSite=Strict$/,
    );
    const cookie = setCookie.split(';')[0] as string;
    const withCookie = (method: string, path: string) => h.call(method, path, { headers: { cookie } });
    expect((await withCookie('GET', '/admin/requests')).status).toBe(200);
    expect((await withCookie('GET', `/admin/reports/${A}`)).status).toBe(200);
    expect((await withCookie('GET', '/admin/events')).status).toBe(200);
    // The cookie is not a token of the API.
    expect(
      (await h.call('POST', `/v5/ad_accounts/${A}/events`, { headers: { cookie }, body: { data: [] } }))
        .status,
    ).toBe(401);
    const logout = await h.call('DELETE', '/admin/session', {
      headers: { cookie, origin: h.url, [CSRF_HEADER]: login.body.csrf_token },
    });
    expect(logout.status).toBe(204);
    expect(logout.headers.get('set-cookie')).toMatch(
      /^ems_admin=; Max-Age=0; Path=\/; Expires=Thu, 01 Jan 1970 00:00:00 GMT; HttpOnly; SameSite=Strict$/,
    );
    expect((await withCookie('GET', '/admin/requests')).status).toBe(401);
  });

  test('a wrong token answers the usual 401; a session expires after 12 hours', async () => {
    const wrong = await h.call('POST', '/admin/session', { body: { token: T.convA } });
    expect(wrong.status).toBe(401);
    expect(wrong.body).toEqual({
      code: 2,
      message: 'Authentication failed.',
      details: [{ path: 'body.token', problem: 'is not the admin token' }],
    });
    expect(wrong.headers.get('set-cookie')).toBe(null);
    expect((await h.call('POST', '/admin/session', { body: {} })).status).toBe(400);
    const cookie = (
      (await h.call('POST', '/admin/session', { body: { token: T.admin } })).headers.get(
        'set-cookie',
      ) as string
    ).split(';')[0] as string;
    h.clock.advance(12 * 3600_000 - 1);
    expect((await h.call('GET', '/admin/requests', { headers: { cookie } })).status).toBe(200);
    h.clock.advance(1);
    expect((await h.call('GET', '/admin/requests', { headers: { cookie } })).status).toBe(401);
    expect((await h.call('GET', '/admin/requests', { headers: { cookie: 'ems_admin=forged' } })).status).toBe(
      401,
    );
  });
});
