// The admin API through the client (C106), against the real server: typed calls by operation id with the
// admin token, URLs built from the spec's table, and the session cookie with the CSRF header a page sends.

import { createAdminClient, createClient, EventsApiError } from '@org/events-client';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { demoServer, event, recordingFetch } from './support/server.js';

let s: Awaited<ReturnType<typeof demoServer>>;
beforeAll(async () => {
  s = await demoServer();
});
afterAll(() => s.close());

test('faults: create, list, delete by id, then the same id is a typed 404 naming the path parameter', async () => {
  const admin = createAdminClient({ baseUrl: s.url, token: s.creds.adminToken });
  const fault = await admin.call('admin/faults/create', {
    body: { kind: 'latency', latency_ms: 1, count: 2, ad_account_id: s.creds.adAccountId },
  });
  expect([fault.kind, fault.remaining]).toEqual(['latency', 2]);
  expect((await admin.call('admin/faults/list')).items.map((f) => f.id)).toEqual([fault.id]);
  await admin.call('admin/faults/delete', { path: { fault_id: fault.id } });
  const missing = (await admin
    .call('admin/faults/delete', { path: { fault_id: fault.id } })
    .catch((e: unknown) => e)) as EventsApiError;
  expect(missing).toBeInstanceOf(EventsApiError);
  expect([missing.status, missing.kind, missing.details[0]?.path]).toEqual([
    404,
    'not_found',
    'path.fault_id',
  ]);
});

test('the request log: typed query (integer, enum), a page, the detail; no retry of an admin call', async () => {
  const sender = createClient({
    baseUrl: s.url,
    token: s.creds.conversionToken,
    adAccountId: s.creds.adAccountId,
  });
  await sender.sendEvents([event('a-1'), { ...event('a-2'), event_name: 'subscription' }]);
  const { fetch, seen } = recordingFetch();
  const admin = createAdminClient({ baseUrl: s.url, token: s.creds.adminToken, fetch });
  const page = await admin.call('admin/requests/list', {
    query: { outcome: 'failed', status: 200, ad_account_id: s.creds.adAccountId, limit: 1 },
  });
  expect(page.items).toHaveLength(1);
  // The query in the spec's order, whatever the order it was given in.
  expect(seen[0]?.url).toBe(
    `${s.url}/admin/requests?ad_account_id=${s.creds.adAccountId}&status=200&outcome=failed&limit=1`,
  );
  const detail = await admin.call('admin/requests/get', { path: { request_id: page.items[0]!.request_id } });
  expect(detail.items.map((i) => i.status)).toEqual(['processed', 'failed']);
  const bad = (await admin
    .call('admin/requests/list', { query: { limit: 0 } })
    .catch((e: unknown) => e)) as EventsApiError;
  expect([bad.status, bad.kind]).toEqual([400, 'invalid_request']);
  expect(seen).toHaveLength(3);
});

test('URLs of the stream and the exports: path parameters encoded, empty values left out, relative by default', () => {
  const admin = createAdminClient();
  expect(admin.url('admin/requests/stream', { query: { ad_account_id: '' } })).toBe('/admin/requests/stream');
  expect(
    admin.url('admin/events/export', { query: { until: 5, format: 'csv', event_name: 'sign up' } }),
  ).toBe('/admin/events/export?format=csv&event_name=sign+up&until=5');
  expect(admin.url('admin/reports/get', { path: { ad_account_id: 'a/b?' } })).toBe('/admin/reports/a%2Fb%3F');
  expect(createAdminClient({ baseUrl: `${s.url}/` }).url('admin/faults/list')).toBe(`${s.url}/admin/faults`);
});

test('with the session cookie: the CSRF header is sent on the calls that need it, and only there', async () => {
  let cookie = '';
  const sent: { method: string; csrf: string | null }[] = [];
  // A cookie jar of one cookie, as a browser keeps it; the server's origin, as a page on it sends.
  const browserish: typeof globalThis.fetch = async (input, init) => {
    const headers = new Headers(init?.headers);
    if (cookie) headers.set('cookie', cookie);
    headers.set('origin', s.url);
    sent.push({ method: init?.method ?? 'GET', csrf: headers.get('x-csrf-token') });
    const res = await globalThis.fetch(input, { ...init, headers });
    const set = res.headers.get('set-cookie');
    if (set) cookie = set.split(';')[0]!;
    return res;
  };
  let csrf: string | null = null;
  const page = createAdminClient({ baseUrl: s.url, fetch: browserish, csrfToken: () => csrf });
  const session = await page.call('admin/session/create', { body: { token: s.creds.adminToken } });
  expect((await page.call('admin/session/get')).csrf_token).toBe(session.csrf_token);
  const refused = (await page
    .call('admin/faults/create', { body: { kind: 'unavailable', count: 1 } })
    .catch((e: unknown) => e)) as EventsApiError;
  expect([refused.status, refused.kind]).toEqual([403, 'forbidden']);
  csrf = session.csrf_token;
  await page.call('admin/faults/create', { body: { kind: 'unavailable', count: 1 } });
  await page.call('admin/faults/clear');
  expect((await page.call('admin/faults/list')).items).toEqual([]);
  await page.call('admin/session/delete');
  expect(sent.map((x) => `${x.method} ${x.csrf ? 'csrf' : '-'}`)).toEqual([
    'POST -', // the login's body carries the token; no session yet
    'GET -',
    'POST -',
    'POST csrf',
    'DELETE csrf',
    'GET -',
    'DELETE csrf',
  ]);
  const after = (await page.call('admin/faults/list').catch((e: unknown) => e)) as EventsApiError;
  expect(after.status).toBe(401);
});
