// The request log of C60-C62 over real HTTP: every request to the events endpoint is logged with its
// answer (processed, failed, warned, duplicate, test mode, 401, 413, 429), listed with filters and paging,
// fetched with its events, kept within its retention, and followed live.
import { matchQuality } from '@org/events-validators';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { A, B, event, T, testConfig } from './support/fixtures.js';
import { createTestDatabase, postgresReachable } from './support/postgres.js';
import { rawExchange } from './support/raw-http.js';
import { type Harness, startHarness, T0 } from './support/server.js';

const pgUp = await postgresReachable();

let h: Harness;
afterEach(() => h?.close());

const admin = (path: string) => h.call('GET', path, { token: T.admin });

/** The server's id of the one logged request its client sent as `x-request-id` (C118). */
async function rid(clientId: string, on: Harness = h): Promise<string> {
  const list = await on.call('GET', `/admin/requests?client_request_id=${clientId}`, { token: T.admin });
  expect(list.body.items).toHaveLength(1);
  return list.body.items[0].request_id;
}
const SERVER_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('C60 every request to the events endpoint is logged', () => {
  beforeEach(async () => {
    h = await startHarness();
  });

  test('a 200 with a processed, a failed and a warned event: summary and detail', async () => {
    const ok = event(h.nowS(), { event_id: 'ok-1' });
    const bad = event(h.nowS(), { event_id: 'bad-1', event_name: 'subscription' });
    const warned = event(h.nowS(), { event_id: 'warn-1', partner_name: 'acme' });
    const r = await h.call('POST', `/v5/ad_accounts/${A}/events`, {
      token: T.convA,
      body: { data: [ok, bad, warned] },
      headers: { 'x-request-id': 'req-mixed' },
    });
    expect(r.status).toBe(200);
    const list = await admin('/admin/requests');
    expect(list.status).toBe(200);
    expect(list.body.next_cursor).toBe(null);
    expect(list.body.items).toHaveLength(1);
    const s = list.body.items[0];
    expect({ ...s, duration_ms: typeof s.duration_ms }).toEqual({
      request_id: r.headers.get('x-pinterest-rid'),
      client_request_id: 'req-mixed',
      received_at: T0,
      ad_account_id: A,
      token_id: 'conv-a',
      test: false,
      status: 200,
      duration_ms: 'number',
      events: 3,
      processed: 2,
      failed: 1,
      warned: 1,
      event_names: ['checkout', 'subscription'],
      error: null,
    });
    expect(r.headers.get('x-request-id')).toBe('req-mixed');
    expect(r.headers.get('x-pinterest-rid')).toMatch(SERVER_ID);
    const d = await admin(`/admin/requests/${await rid('req-mixed')}`);
    expect(d.status).toBe(200);
    expect(d.body.body_truncated).toBe(false);
    // A value the answer says was dropped is kept as its shape (C70).
    const warnedKept = { ...warned, partner_name: '(not kept: a string of 4 character(s))' };
    expect(d.body.items.map((i: { event: unknown }) => i.event)).toEqual([ok, bad, warnedKept]);
    // Match quality of each kept event (C67), the validators' own answer (their tests hold its literals).
    expect(d.body.items.map((i: { match_quality: unknown }) => i.match_quality)).toEqual(
      [ok, bad, warnedKept].map((e) => matchQuality(e)),
    );
    expect(d.body.items[0].match_quality.identifiers).toContainEqual({
      field: 'user_data.em',
      present: true,
      well_formed: true,
    });
    expect(
      d.body.items.map(
        ({ event: _e, match_quality: _m, ...rest }: { event: unknown; match_quality: unknown }) => rest,
      ),
    ).toEqual([
      {
        index: 0,
        status: 'processed',
        error_message: null,
        warning_message: null,
        fields: [],
        duplicate_of: null,
      },
      {
        index: 1,
        status: 'failed',
        error_message: r.body.events[1].error_message,
        warning_message: null,
        fields: ['event_name'],
        duplicate_of: null,
      },
      {
        index: 2,
        status: 'processed',
        error_message: null,
        warning_message: r.body.events[2].warning_message,
        fields: ['partner_name'],
        duplicate_of: null,
      },
    ]);
    expect(r.body.events[1].error_message).toContain('subscription');
  });

  test("C118: the log's key is the server's id; three requests with one client id are three entries", async () => {
    const sent: Awaited<ReturnType<Harness['call']>>[] = [];
    for (const id of ['e-1', 'e-2', 'e-3'])
      sent.push(
        await h.call('POST', `/v5/ad_accounts/${A}/events`, {
          token: T.convA,
          // A warned event: its body is kept (C70 `problems`), so each detail shows its own event.
          body: { data: [event(h.nowS(), { event_id: id, partner_name: 'acme' })] },
          headers: { 'x-request-id': 'same-id' },
        }),
      );
    const rids = sent.map((r) => r.headers.get('x-pinterest-rid') as string);
    expect(sent.map((r) => r.headers.get('x-request-id'))).toEqual(['same-id', 'same-id', 'same-id']);
    expect(new Set(rids).size).toBe(3);
    for (const r of rids) expect(r).toMatch(SERVER_ID);
    const list = await admin('/admin/requests?client_request_id=same-id');
    expect(list.body.items.map((i: { request_id: string }) => i.request_id)).toEqual([...rids].reverse());
    const ids: string[] = [];
    for (const r of rids) ids.push((await admin(`/admin/requests/${r}`)).body.items[0].event.event_id);
    expect(ids).toEqual(['e-1', 'e-2', 'e-3']);
    // A client cannot take another request's key: its id is kept as its own, the key is new.
    const copycat = await h.call('POST', `/v5/ad_accounts/${A}/events`, {
      token: T.convA,
      body: { data: [event(h.nowS(), { event_id: 'e-4', partner_name: 'acme' })] },
      headers: { 'x-request-id': rids[0] as string },
    });
    expect(copycat.headers.get('x-pinterest-rid')).not.toBe(rids[0]);
    expect((await admin(`/admin/requests/${rids[0]}`)).body.items[0].event.event_id).toBe('e-1');
    // Without a client id, x-request-id is the server's own, and nothing is logged beside it.
    const plain = await h.send(A, T.convA, [event(h.nowS(), { event_id: 'e-5' })]);
    expect(plain.headers.get('x-request-id')).toBe(plain.headers.get('x-pinterest-rid'));
    const entry = (await admin(`/admin/requests/${plain.headers.get('x-pinterest-rid')}`)).body;
    expect(entry.client_request_id).toBe(null);
  });

  test('duplicates name the earlier event: of another request and of the same batch', async () => {
    const first = event(h.nowS(), { event_id: 'dup-1' });
    await h.call('POST', `/v5/ad_accounts/${A}/events`, {
      token: T.convA,
      body: { data: [first] },
      headers: { 'x-request-id': 'req-first' },
    });
    h.clock.advance(2000);
    await h.call('POST', `/v5/ad_accounts/${A}/events`, {
      token: T.convA,
      body: { data: [first, event(h.nowS(), { event_id: 'dup-2' }), event(h.nowS(), { event_id: 'dup-2' })] },
      headers: { 'x-request-id': 'req-again' },
    });
    const d = await admin(`/admin/requests/${await rid('req-again')}`);
    expect(d.body.warned).toBe(2);
    expect(
      d.body.items.map((i: { fields: string[]; duplicate_of: unknown }) => [i.fields, i.duplicate_of]),
    ).toEqual([
      [['event_id'], { request_id: await rid('req-first'), event_id: 'dup-1', received_at: T0 }],
      [[], null],
      [['event_id'], { request_id: await rid('req-again'), event_id: 'dup-2', received_at: T0 + 2000 }],
    ]);
  });

  test('test mode is logged as such; nothing else about it changes (C7)', async () => {
    const r = await h.send(A, T.convA, [event(h.nowS(), { event_id: 't-1' })], '?test=true');
    expect(r.status).toBe(200);
    expect((await admin('/admin/events')).body.items).toEqual([]);
    const items = (await admin('/admin/requests')).body.items;
    expect(items.map((i: { test: boolean; processed: number }) => [i.test, i.processed])).toEqual([
      [true, 1],
    ]);
    expect((await admin(`/admin/reports/${A}`)).body.timeline).toEqual([]);
  });

  test('refused requests: 401 without a token id, 413 before the body, 429 with its error', async () => {
    const unauth = await h.call('POST', `/v5/ad_accounts/${A}/events`, {
      token: 'not-a-known-token-0123456789',
      body: { data: [event(h.nowS())] },
      headers: { 'x-request-id': 'req-401' },
    });
    expect(unauth.status).toBe(401);
    const tooBig = await rawExchange(
      h.server.port,
      `POST /v5/ad_accounts/${A}/events HTTP/1.1\r\nhost: x\r\nx-request-id: req-413\r\nauthorization: Bearer ${T.convA}\r\ncontent-type: application/json\r\ncontent-length: ${5 * 1024 * 1024 + 1}\r\n\r\n`,
    );
    expect(tooBig.status).toBe(413);
    for (let i = 0; i < 10; i++) await h.send(A, T.convA, [event(h.nowS())], '?test=true');
    const limited = await h.call('POST', `/v5/ad_accounts/${A}/events?test=true`, {
      token: T.convA,
      body: { data: [event(h.nowS())] },
      headers: { 'x-request-id': 'req-429' },
    });
    expect(limited.status).toBe(429);
    const summary = async (id: string) => {
      const { duration_ms: _d, request_id, ...rest } = (await admin(`/admin/requests/${await rid(id)}`)).body;
      expect(request_id).toMatch(SERVER_ID);
      return rest;
    };
    const refused = {
      received_at: T0,
      ad_account_id: A,
      events: 0,
      processed: 0,
      failed: 0,
      warned: 0,
      event_names: [],
      items: [],
      // C96: bodies of these three were never read (refused before).
      body: null,
    };
    expect(await summary('req-401')).toEqual({
      ...refused,
      client_request_id: 'req-401',
      token_id: null,
      test: false,
      status: 401,
      // C96: what the client was told, in full.
      error: {
        code: 2,
        message: 'Authentication failed.',
        details: [{ path: 'headers.authorization', problem: 'the token is unknown or revoked' }],
      },
      body_truncated: false,
    });
    expect(await summary('req-413')).toEqual({
      ...refused,
      client_request_id: 'req-413',
      token_id: 'conv-a',
      test: false,
      status: 413,
      error: {
        code: 4196,
        message: 'The request was invalid.',
        details: [{ path: 'body', problem: 'the body is over 5242880 bytes' }],
      },
      body_truncated: false,
    });
    expect(await summary('req-429')).toEqual({
      ...refused,
      client_request_id: 'req-429',
      token_id: 'conv-a',
      test: true,
      status: 429,
      error: { code: 8, message: limited.body.message, details: limited.body.details },
      body_truncated: false,
    });
    const statuses = (await admin('/admin/requests?limit=1000')).body.items.map(
      (i: { status: number }) => i.status,
    );
    expect(statuses).toEqual([429, 200, 200, 200, 200, 200, 200, 200, 200, 200, 200, 413, 401]);
  });

  test('filters and keyset paging, newest first (C61)', async () => {
    await h.send(A, T.convA, [event(h.nowS(), { event_name: 'lead' })]);
    h.clock.advance(1000);
    await h.send(A, T.convA, [event(h.nowS(), { event_name: 'subscription' })]);
    h.clock.advance(1000);
    await h.send(B, T.convB, [
      event(h.nowS(), { partner_name: 'acme', custom_data: { currency: 'EUR', value: '1' } }),
    ]);
    h.clock.advance(1000);
    await h.send(A, T.convA, [event(h.nowS())], '?test=true');
    await h.send(A, 'not-a-known-token-0123456789', [event(h.nowS())]);
    const q = async (query: string) =>
      (await admin(`/admin/requests${query}`)).body.items.map(
        (i: { status: number; event_names: string[]; test: boolean }) =>
          `${i.status}:${i.event_names.join('+')}${i.test ? ':test' : ''}`,
      );
    expect(await q('')).toEqual([
      '401:',
      '200:checkout:test',
      '200:checkout',
      '200:subscription',
      '200:lead',
    ]);
    expect(await q(`?ad_account_id=${B}`)).toEqual(['200:checkout']);
    expect(await q('?status=401')).toEqual(['401:']);
    expect(await q('?outcome=failed')).toEqual(['200:subscription']);
    expect(await q('?outcome=warned')).toEqual(['200:checkout']);
    expect(await q('?event_name=lead')).toEqual(['200:lead']);
    expect(await q('?test=true')).toEqual(['200:checkout:test']);
    expect(await q(`?since=${h.nowS() - 2}&until=${h.nowS()}`)).toEqual(['200:checkout', '200:subscription']);
    const p1 = (await admin('/admin/requests?limit=2')).body;
    const p2 = (await admin(`/admin/requests?limit=2&cursor=${p1.next_cursor}`)).body;
    const p3 = (await admin(`/admin/requests?limit=2&cursor=${p2.next_cursor}`)).body;
    expect([...p1.items, ...p2.items, ...p3.items].map((i: { status: number }) => i.status)).toEqual([
      401, 200, 200, 200, 200,
    ]);
    expect(p3.next_cursor).toBe(null);
    const badCursor = await admin('/admin/requests?cursor=nope');
    expect(badCursor.status).toBe(400);
    expect((await admin('/admin/requests?outcome=maybe')).status).toBe(400);
    expect((await admin('/admin/requests?limit=1001')).status).toBe(400);
    expect((await h.call('GET', '/admin/requests')).status).toBe(401);
    const unknown = await admin('/admin/requests/no-such-request');
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({
      code: 2,
      message: 'Not found.',
      details: [
        {
          path: 'path.request_id',
          problem: 'no logged request "no-such-request"; it was never logged or is older than the retention',
        },
      ],
    });
  });

  test('the report gains an hourly timeline of live events (C63)', async () => {
    await h.send(A, T.convA, [event(h.nowS()), event(h.nowS(), { event_name: 'subscription' })]);
    h.clock.advance(3600_000);
    await h.send(A, T.convA, [event(h.nowS()), event(h.nowS())]);
    await h.send(A, T.convA, [event(h.nowS())], '?test=true');
    const hour = Math.floor(T0 / 3_600_000) * 3600;
    expect((await admin(`/admin/reports/${A}`)).body.timeline).toEqual([
      { start: hour, processed: 1, failed: { invalid_event_name: 1 } },
      { start: hour + 3600, processed: 2, failed: {} },
    ]);
    // 48 hours later the first hour has left the timeline.
    h.clock.advance(47 * 3600_000);
    expect((await admin(`/admin/reports/${A}`)).body.timeline).toEqual([
      { start: hour + 3600, processed: 2, failed: {} },
    ]);
  });
});

describe('C60 retention and body size', () => {
  test('at most max_entries, none older than max_age_seconds', async () => {
    h = await startHarness({ requestLog: { maxEntries: 3, maxAgeSeconds: 60 } });
    for (let i = 0; i < 5; i++) {
      await h.call('POST', `/v5/ad_accounts/${A}/events`, {
        token: T.convA,
        body: { data: [event(h.nowS())] },
        headers: { 'x-request-id': `keep-${i}` },
      });
      h.clock.advance(10_000);
    }
    const ids = async () =>
      (await admin('/admin/requests')).body.items.map(
        (i: { client_request_id: string }) => i.client_request_id,
      );
    expect(await ids()).toEqual(['keep-4', 'keep-3', 'keep-2']);
    const [keep3, keep2] = [await rid('keep-3'), await rid('keep-2')];
    // keep-2 was received 30 s before the clock's now; 31 s on it is past the age, even before a prune.
    h.clock.advance(31_000);
    expect(await ids()).toEqual(['keep-4', 'keep-3']);
    expect((await admin(`/admin/requests/${keep2}`)).status).toBe(404);
    expect((await admin(`/admin/requests/${keep3}`)).status).toBe(200);
  });

  test('a body over max_body_bytes is not kept: body_truncated, events null', async () => {
    h = await startHarness({ requestLog: { maxBodyBytes: 100 } });
    await h.call('POST', `/v5/ad_accounts/${A}/events`, {
      token: T.convA,
      body: { data: [event(h.nowS())] },
      headers: { 'x-request-id': 'big' },
    });
    const d = (await admin(`/admin/requests/${await rid('big')}`)).body;
    expect(d.body_truncated).toBe(true);
    expect(d.items.map((i: { event: unknown; status: string }) => [i.event, i.status])).toEqual([
      [null, 'processed'],
    ]);
  });

  test('a log write that fails is counted in /metrics, and the request is answered as usual', async () => {
    const { SqliteStore } = await import('../src/store/sqlite/sqlite-store.js');
    const store = new SqliteStore({ path: ':memory:' });
    store.appendRequests = () => Promise.reject(new Error('disk full'));
    h = await startHarness({ store });
    const r = await h.send(A, T.convA, [event(h.nowS())]);
    expect(r.status).toBe(200);
    expect((await admin('/admin/requests')).body.items).toEqual([]);
    const metrics = (await h.call('GET', '/metrics')).text;
    expect(metrics).toContain('events_request_log_errors_total 1');
  });
});

/** Reads a server-sent event stream until `pred` holds of what arrived (or the stream ends). */
async function follow(url: string, headers: Record<string, string>) {
  const ac = new AbortController();
  const res = await fetch(url, { headers, signal: ac.signal });
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  const state = { text: '', res };
  const until = async (pred: (text: string) => boolean) => {
    while (!pred(state.text)) {
      const { value, done } = await reader.read();
      if (done) break;
      state.text += new TextDecoder().decode(value);
    }
  };
  await until((t) => t.includes('\n\n'));
  return { state, until, stop: () => ac.abort() };
}

describe('C60 config', () => {
  test('the request_log section of the config sets the retention', async () => {
    h = await startHarness({ config: { ...testConfig(), request_log: { max_entries: 2 } } });
    for (let i = 0; i < 3; i++) await h.send(A, T.convA, [event(h.nowS())]);
    expect((await admin('/admin/requests')).body.items).toHaveLength(2);
  });
});

describe('C62 live stream', () => {
  test.skipIf(!pgUp)(
    'two instances on one PostgreSQL store: a request to one arrives on the stream of the other',
    async () => {
      const db = await createTestDatabase();
      const one = await startHarness({ storeUrl: db.url });
      const two = await startHarness({ storeUrl: db.url });
      try {
        const s = await follow(`${two.url}/admin/requests/stream`, { authorization: `Bearer ${T.admin}` });
        const sent = await one.call('POST', `/v5/ad_accounts/${A}/events`, {
          token: T.convA,
          body: { data: [event(one.nowS())] },
          headers: { 'x-request-id': 'from-one' },
        });
        await s.until((t) => t.includes('event: request'));
        s.stop();
        expect(s.state.text).toContain(`id: ${sent.headers.get('x-pinterest-rid')}\n`);
        expect(s.state.text).toContain('"client_request_id":"from-one"');
      } finally {
        await one.close();
        await two.close();
        await db.drop();
      }
    },
  );

  test('a request sent after subscribing arrives as an event; other accounts are filtered out', async () => {
    h = await startHarness();
    await h.send(A, T.convA, [event(h.nowS())]); // before subscribing: not sent
    // The session cookie works here as on every admin route (the inspector's EventSource sends it).
    const login = await h.call('POST', '/admin/session', { body: { token: T.admin } });
    const cookie = (login.headers.get('set-cookie') as string).split(';')[0] as string;
    const s = await follow(`${h.url}/admin/requests/stream?ad_account_id=${A}`, { cookie });
    expect(s.state.res.status).toBe(200);
    expect(s.state.res.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    await h.send(B, T.convB, [event(h.nowS(), { custom_data: { currency: 'EUR', value: '1' } })]);
    const live = await h.call('POST', `/v5/ad_accounts/${A}/events`, {
      token: T.convA,
      body: { data: [event(h.nowS())] },
      headers: { 'x-request-id': 'live-1' },
    });
    await s.until((t) => t.includes('event: request'));
    s.stop();
    const events = s.state.text.split('\n\n').filter((b) => b.startsWith('event: request'));
    expect(events).toHaveLength(1);
    const [kind, id, data] = (events[0] as string).split('\n');
    expect([kind, id]).toEqual(['event: request', `id: ${live.headers.get('x-pinterest-rid')}`]);
    expect(JSON.parse((data as string).slice('data: '.length))).toMatchObject({
      request_id: live.headers.get('x-pinterest-rid'),
      client_request_id: 'live-1',
      ad_account_id: A,
      status: 200,
      processed: 1,
    });
  });
});
