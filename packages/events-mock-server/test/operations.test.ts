// C12: health, readiness, metrics, the admin API, request ids; and the /docs mount point (issue point 7).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { A, B, event, T } from './support/fixtures.js';
import { type Harness, startHarness } from './support/server.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

describe('C12 health and metrics', () => {
  test('/healthz and /readyz answer 200 with a status', async () => {
    expect(await h.call('GET', '/healthz').then((r) => [r.status, r.body])).toEqual([200, { status: 'ok' }]);
    const target = h.server.store.description;
    expect(target).toMatch(
      process.env.EVENTS_TEST_STORE === 'postgres'
        ? /^postgres:\/\/127\.0\.0\.1:5432\/ems_test_/
        : /^sqlite:memory$/,
    );
    expect(await h.call('GET', '/readyz').then((r) => [r.status, r.body])).toEqual([
      200,
      {
        status: 'ok',
        dependencies: [
          { name: 'store', status: 'ok', target },
          { name: 'limits', status: 'ok', target: h.server.limiter.description },
        ],
      },
    ]);
  });

  test('/metrics is Prometheus text with request and event counters', async () => {
    await h.send(A, T.convA, [event(h.nowS()), event(h.nowS(), { event_name: 'nope' })]);
    const r = await h.call('GET', '/metrics');
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toContain('text/plain');
    expect(r.text).toMatch(/events_http_requests_total\{operation="events\/create",status="200"\} \d+/);
    expect(r.text).toMatch(/events_conversion_events_total\{outcome="processed",mode="live"\} \d+/);
    expect(r.text).toMatch(/events_conversion_events_total\{outcome="failed",mode="live"\} \d+/);
    expect(r.text).toContain('events_store_commit_duration_seconds_bucket');
    expect(r.text).toContain('process_resident_memory_bytes');
  });

  test('x-request-id: the client one echoed when it is plain, else the server id (C118)', async () => {
    const gen = await h.call('GET', '/healthz');
    expect(gen.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    const mine = await h.call('GET', '/healthz', { headers: { 'x-request-id': 'trace-42' } });
    expect(mine.headers.get('x-request-id')).toBe('trace-42');
    expect(mine.headers.get('x-pinterest-rid')).toMatch(/^[0-9a-f-]{36}$/);
    const hostile = await h.call('GET', '/healthz', { headers: { 'x-request-id': 'a b<script>' } });
    expect(hostile.headers.get('x-request-id')).not.toContain('script');
  });
});

describe('C12 admin API', () => {
  test('only the admin token: none, an API token, an unknown token are 401', async () => {
    for (const token of [undefined, T.convA, T.oauthStd, 'x'.repeat(20)]) {
      const r = await h.call('GET', '/admin/events', token ? { token } : {});
      expect(r.status).toBe(401);
      expect(r.body.code).toBe(2);
    }
    expect((await h.call('POST', '/admin/reset', { token: T.oauthStd })).status).toBe(401);
  });

  test('list stored events with filters and pages, newest first', async () => {
    const hh = await startHarness();
    try {
      const t0 = hh.nowS();
      await hh.send(A, T.convA, [
        event(t0, { event_id: 'p1' }),
        event(t0, { event_id: 'p2', event_name: 'lead' }),
      ]);
      hh.clock.advance(10_000);
      await hh.send(A, T.convA, [event(hh.nowS(), { event_id: 'p3' })]);
      await hh.send(B, T.convB, [
        event(hh.nowS(), { event_id: 'p4', custom_data: { currency: 'EUR', value: '3.00' } }),
      ]);
      const list = async (q: string) => (await hh.call('GET', `/admin/events${q}`, { token: T.admin })).body;
      const ids = (b: { items: { event_id: string }[] }) => b.items.map((i) => i.event_id);
      expect(ids(await list(''))).toEqual(['p4', 'p3', 'p2', 'p1']);
      expect(ids(await list(`?ad_account_id=${A}`))).toEqual(['p3', 'p2', 'p1']);
      expect(ids(await list('?event_name=lead'))).toEqual(['p2']);
      expect(ids(await list('?event_id=p3'))).toEqual(['p3']);
      expect(ids(await list(`?since=${t0 + 10}`))).toEqual(['p4', 'p3']);
      expect(ids(await list(`?until=${t0 + 10}`))).toEqual(['p2', 'p1']);
      const page1 = await list('?limit=3');
      expect(ids(page1)).toEqual(['p4', 'p3', 'p2']);
      const page2 = await list(`?limit=3&cursor=${page1.next_cursor}`);
      expect(ids(page2)).toEqual(['p1']);
      expect(page2.next_cursor).toBeNull();
      const bad = await hh.call('GET', '/admin/events?limit=0&cursor=zzz', { token: T.admin });
      expect(bad.status).toBe(400);
      expect(bad.body.details[0].path).toBe('query.limit');
      expect(
        (await hh.call('GET', '/admin/events?cursor=zzz', { token: T.admin })).body.details[0].path,
      ).toBe('query.cursor');
    } finally {
      await hh.close();
    }
  });

  test('per-account report; unknown account 404', async () => {
    const r = await h.call('GET', `/admin/reports/${B}`, { token: T.admin });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ ad_account_id: B, stored: expect.any(Array), failed: expect.any(Array) });
    expect((await h.call('GET', '/admin/reports/999999', { token: T.admin })).status).toBe(404);
  });

  test('reset deletes events, dedup state and counters; keeps tokens and custom event types', async () => {
    const hh = await startHarness();
    try {
      await hh.call('POST', `/v5/ad_accounts/${A}/custom_event_types`, {
        token: T.oauthStd,
        body: { name: 'keep_me', mapped_event_name: 'lead' },
      });
      const e = event(hh.nowS(), { event_id: 'r1' });
      await hh.send(A, T.convA, [e, event(hh.nowS(), { event_name: 'nope' })]);
      expect((await hh.call('POST', '/admin/reset', { token: T.admin })).status).toBe(204);
      expect((await hh.call('GET', '/admin/events', { token: T.admin })).body.items).toEqual([]);
      expect((await hh.call('GET', `/admin/reports/${A}`, { token: T.admin })).body).toEqual({
        ad_account_id: A,
        stored: [],
        failed: [],
        timeline: [],
      });
      expect((await hh.call('GET', '/admin/requests', { token: T.admin })).body.items).toEqual([]);
      const again = await hh.send(A, T.convA, [e]);
      expect(again.body.events[0].warning_message).toBeNull();
      expect(
        (await hh.call('GET', `/v5/ad_accounts/${A}/custom_event_types`, { token: T.oauthStd })).body.items,
      ).toHaveLength(1);
    } finally {
      await hh.close();
    }
  });
});

describe('docs mount point', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ems-docs-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test('serves /openapi.yaml and the static site of @org/events-docs when given', async () => {
    writeFileSync(join(dir, 'index.html'), '<h1>Conversion Events API</h1>');
    writeFileSync(join(dir, 'style.css'), 'h1{}');
    const hh = await startHarness({ docs: { docsRoot: dir, openapiYaml: 'openapi: 3.1.0\n' } });
    try {
      const y = await hh.call('GET', '/openapi.yaml');
      expect([y.status, y.text]).toEqual([200, `openapi: 3.1.0\nservers:\n  - url: ${hh.url}\n`]);
      expect(y.headers.get('content-type')).toContain('yaml');
      const idx = await hh.call('GET', '/docs/');
      expect(idx.text).toContain('Conversion Events API');
      expect(idx.headers.get('content-type')).toContain('text/html');
      expect((await hh.call('GET', '/docs/style.css')).headers.get('content-type')).toContain('text/css');
      expect((await hh.call('GET', '/docs/..%2f..%2fetc%2fpasswd')).status).toBe(404);
      expect((await hh.call('GET', '/docs/missing.html')).status).toBe(404);
    } finally {
      await hh.close();
    }
  });
});
