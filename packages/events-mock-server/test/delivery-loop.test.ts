// C100, C112-C114: the delivery loop against a programmable upstream, on the embedded store and (in the
// postgres project) on PostgreSQL: deletions never let another account's or a deleted event out, failures
// are recorded and retried on the backoff, a refusal goes dead at once, Retry-After is honoured, a delivery
// that outlives its timeout is retried, an upstream account mapping is used, and no upstream text or token
// reaches /readyz, the admin API or the store's answers.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import type { Logger } from 'pino';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { createLogger } from '../src/core/logger.js';
import { A, B, event, sha256, T, testConfig } from './support/fixtures.js';
import { createTestDatabase } from './support/postgres.js';
import { type Harness, startHarness } from './support/server.js';

/** What the upstream was sent, and what it answered. */
interface Seen {
  at: number;
  path: string;
  auth: string;
  ids: string[];
  status: number;
}

type Answer = { status: number; headers?: Record<string, string>; body?: string } | 'hang';

/** A Conversions API stand-in whose answer the test sets; it records every request. */
async function upstream(): Promise<{
  url: string;
  seen: Seen[];
  answer(a: (req: IncomingMessage, body: string) => Answer): void;
  close(): Promise<void>;
}> {
  const seen: Seen[] = [];
  let answer: (req: IncomingMessage, body: string) => Answer = () => ({ status: 200 });
  const hung: ServerResponse[] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => {
      // A conversion deletion request passed on (C127) carries no events.
      const ids = ((JSON.parse(body) as { data?: { event_id: string }[] }).data ?? []).map((e) => e.event_id);
      const a = answer(req, body);
      seen.push({
        at: Date.now(),
        path: req.url ?? '',
        auth: req.headers.authorization ?? '',
        ids,
        status: a === 'hang' ? 0 : a.status,
      });
      if (a === 'hang') {
        hung.push(res);
        return;
      }
      const events = ids.map(() => ({ status: 'processed', error_message: null, warning_message: null }));
      res
        .writeHead(a.status, { 'content-type': 'application/json', ...a.headers })
        .end(a.body ?? JSON.stringify({ events }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    answer: (a) => {
      answer = a;
    },
    close: () =>
      new Promise((r) => {
        for (const res of hung) res.destroy();
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

async function until(done: () => Promise<boolean> | boolean): Promise<void> {
  while (!(await done())) await new Promise((r) => setTimeout(r, 25));
}

const TOKEN = 'upstream-secret-token-4f9c2a7d1e8b';
let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'ems-delivery-loop-'));
  writeFileSync(join(dir, 'token'), TOKEN);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

type Sink = Record<string, unknown>;
function sender(
  url: string,
  sink: Sink = {},
  delivery: Record<string, unknown> = {},
  options: { logger?: Logger } = {},
): Promise<Harness> {
  return startHarness({
    ...options,
    config: {
      ...testConfig(),
      delivery: {
        sinks: [{ name: 'up', kind: 'conversions_api', url, token_file: join(dir, 'token'), ...sink }],
        retry_base_ms: 20,
        retry_max_seconds: 1,
        ...delivery,
      },
    },
  });
}

const ofUser = (h: Harness, who: string, n: number) =>
  Array.from({ length: n }, (_, i) => {
    const e = event(h.nowS(), { event_id: `${who}-${i}` });
    (e.user_data as Record<string, unknown>).em = [sha256(`${who}@example.com`)];
    return e;
  });

const admin = (h: Harness) => h.call('GET', '/admin/delivery', { token: T.admin });

test('a deletion never sends a deleted event, nor another account’s under this one, nor stalls the account', {
  timeout: 60_000,
}, async () => {
  const up = await upstream();
  up.answer(() => ({ status: 500 }));
  // A sink for account A only; B has none.
  const h = await sender(up.url, { ad_accounts: [A] });
  try {
    expect((await h.send(A, T.convA, ofUser(h, 'anna', 5))).status).toBe(200);
    await until(() => up.seen.length > 0);
    const deleted = await h.call('POST', `/v5/ad_accounts/${A}/conversion_deletion_requests`, {
      token: T.oauthStd,
      body: { deletion_targets: { user_emails: ['anna@example.com'] } },
    });
    expect(deleted.status).toBe(201);
    expect((await h.send(B, T.convB, ofUser(h, 'bert', 5))).status).toBe(200);
    expect((await h.send(A, T.convA, ofUser(h, 'carl', 5))).status).toBe(200);
    up.answer(() => ({ status: 200 }));
    await until(async () => (await admin(h)).body.sinks[0].delivered === 5);
    // The deletion request itself is passed on (C127), before the events accepted after it.
    const ok = up.seen.filter((s) => s.status === 200);
    expect(ok.map((s) => s.path)).toEqual([
      `/v5/ad_accounts/${A}/conversion_deletion_requests`,
      `/v5/ad_accounts/${A}/events`,
    ]);
    expect(ok.flatMap((s) => s.ids)).toEqual(['carl-0', 'carl-1', 'carl-2', 'carl-3', 'carl-4']);
    expect(up.seen.every((s) => s.auth === `Bearer ${TOKEN}`)).toBe(true);
    expect((await admin(h)).body.sinks[0]).toMatchObject({ pending: 0, dead: 0, delivered: 5 });
  } finally {
    await h.close();
    await up.close();
  }
});

test('a failing upstream is retried on the backoff, recorded sanitized, and /readyz says its status only', {
  timeout: 60_000,
}, async () => {
  const up = await upstream();
  // An error page that echoes the request's headers, as some proxies do.
  up.answer((req) => ({
    status: 503,
    body: `<html>upstream down; you sent authorization: ${req.headers.authorization} cookie=s%3Aabc</html>`,
  }));
  // Every log line the server writes, as text: the token must be in none of them.
  let logged = '';
  const logger = createLogger(
    'info',
    new Writable({
      write(chunk, _e, done) {
        logged += String(chunk);
        done();
      },
    }),
  );
  const h = await sender(up.url, {}, { max_attempts: 4 }, { logger });
  try {
    const sent = await h.call('POST', `/v5/ad_accounts/${A}/events`, {
      token: T.convA,
      body: { data: [event(h.nowS(), { event_id: 'f-1' })] },
      headers: { 'x-request-id': 'req-failing' },
    });
    expect(sent.status).toBe(200);
    // Four attempts, then dead: the count, the backoff between them and the dead entry all recorded.
    await until(async () => (await admin(h)).body.sinks[0].dead === 1);
    expect(up.seen.map((s) => s.ids)).toEqual([['f-1'], ['f-1'], ['f-1'], ['f-1']]);
    const status = (await admin(h)).body.sinks[0];
    expect(status).toMatchObject({ pending: 0, dead: 1, failures: 4, delivered: 0 });
    expect(status.last_error).toMatch(/HTTP 503/);
    expect(status.last_error).not.toContain(TOKEN);
    const detail = await h.call('GET', `/admin/requests/${sent.headers.get('x-pinterest-rid')}`, {
      token: T.admin,
    });
    expect(detail.body.items[0].delivery).toEqual([
      expect.objectContaining({ sink: 'up', state: 'dead', attempts: 4 }),
    ]);
    const ready = await h.call('GET', '/readyz');
    expect(ready.body.dependencies.find((d: { name: string }) => d.name === 'sink:up')).toEqual({
      name: 'sink:up',
      status: 'unavailable',
      target: 'conversions_api',
      problem: 'HTTP 503',
    });
    for (const r of [ready, detail, await admin(h), await h.call('GET', '/metrics')])
      expect(JSON.stringify(r.body)).not.toContain(TOKEN);
    expect(logged).toContain('delivery failed; retrying later');
    expect(logged).toContain('HTTP 503');
    expect(logged).not.toContain(TOKEN);
    // Requeued and the upstream back: delivered, and /readyz says ok again.
    up.answer(() => ({ status: 200 }));
    await h.call('POST', '/admin/delivery/requeue', { token: T.admin });
    await until(async () => (await admin(h)).body.sinks[0].delivered === 1);
    const again = await h.call('GET', '/readyz');
    expect(again.body.dependencies.find((d: { name: string }) => d.name === 'sink:up').status).toBe('ok');
  } finally {
    await h.close();
    await up.close();
  }
});

test('refusals go dead at their first answer; 408 and 429 are retried, 429 after its Retry-After', {
  timeout: 60_000,
}, async () => {
  const up = await upstream();
  const h = await sender(up.url);
  try {
    for (const [status, id] of [
      [401, 'r-401'],
      [403, 'r-403'],
      [404, 'r-404'],
      [400, 'r-400'],
      [413, 'r-413'],
    ] as const) {
      up.answer(() => ({ status }));
      const dead = (await admin(h)).body.sinks[0].dead;
      expect((await h.send(A, T.convA, [event(h.nowS(), { event_id: id })])).status).toBe(200);
      await until(async () => (await admin(h)).body.sinks[0].dead === dead + 1);
    }
    expect(up.seen.map((s) => [s.status, s.ids[0]])).toEqual([
      [401, 'r-401'],
      [403, 'r-403'],
      [404, 'r-404'],
      [400, 'r-400'],
      [413, 'r-413'],
    ]);
    // 408, then 429 asking for a second, then 200.
    let n = 0;
    up.answer(() => {
      n++;
      if (n === 1) return { status: 408 };
      if (n === 2) return { status: 429, headers: { 'retry-after': '1' } };
      return { status: 200 };
    });
    expect((await h.send(A, T.convA, [event(h.nowS(), { event_id: 'w-1' })])).status).toBe(200);
    await until(async () => (await admin(h)).body.sinks[0].delivered === 1);
    const waits = up.seen.filter((s) => s.ids[0] === 'w-1');
    expect(waits.map((s) => s.status)).toEqual([408, 429, 200]);
    // Not before the upstream's own wait (C100); the clock is the real one.
    expect((waits[2] as Seen).at - (waits[1] as Seen).at).toBeGreaterThanOrEqual(990);
  } finally {
    await h.close();
    await up.close();
  }
});

test('a delivery that outlives its timeout fails and is sent again; a mapped upstream account is used', {
  timeout: 60_000,
}, async () => {
  const up = await upstream();
  let n = 0;
  up.answer(() => (++n === 1 ? 'hang' : { status: 200 }));
  const h = await sender(up.url, { upstream_ad_account: '999999999999' }, { timeout_seconds: 1 });
  try {
    expect((await h.send(A, T.convA, [event(h.nowS(), { event_id: 't-1' })])).status).toBe(200);
    await until(async () => (await admin(h)).body.sinks[0].delivered === 1);
    const status = (await admin(h)).body.sinks[0];
    expect(status).toMatchObject({ failures: 1, delivered: 1, last_error: null });
    expect(up.seen.map((s) => [s.path, s.ids])).toEqual([
      ['/v5/ad_accounts/999999999999/events', ['t-1']],
      ['/v5/ad_accounts/999999999999/events', ['t-1']],
    ]);
  } finally {
    await h.close();
    await up.close();
  }
});

test('x-ratelimit-remaining 0 pauses the sink until x-ratelimit-reset, after a delivery that succeeded', {
  timeout: 60_000,
}, async () => {
  const up = await upstream();
  let n = 0;
  // The first batch is taken, with the upstream's word that nothing more is allowed for a second.
  up.answer(() =>
    ++n === 1
      ? { status: 200, headers: { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '1' } }
      : { status: 200 },
  );
  const h = await sender(up.url);
  try {
    expect((await h.send(A, T.convA, [event(h.nowS(), { event_id: 'p-1' })])).status).toBe(200);
    await until(() => up.seen.length === 1);
    expect((await h.send(A, T.convA, [event(h.nowS(), { event_id: 'p-2' })])).status).toBe(200);
    await until(async () => (await admin(h)).body.sinks[0].delivered === 2);
    expect(up.seen.map((s) => s.ids)).toEqual([['p-1'], ['p-2']]);
    expect((up.seen[1] as Seen).at - (up.seen[0] as Seen).at).toBeGreaterThanOrEqual(990);
    expect((await admin(h)).body.sinks[0]).toMatchObject({ failures: 0, last_error: null });
  } finally {
    await h.close();
    await up.close();
  }
});

test('a delivery that outlives its lease: another deliverer sends it again, the late answer changes nothing', {
  timeout: 60_000,
}, async () => {
  const up = await upstream();
  // Two instances on one store: a SQLite file, or (postgres project) one database.
  const pg = process.env.EVENTS_TEST_STORE === 'postgres' ? await createTestDatabase() : undefined;
  const store = pg ? { storeUrl: pg.url } : { db: join(dir, `lease-${Date.now()}.db`) };
  let n = 0;
  up.answer(() => (++n === 1 ? 'hang' : { status: 200 }));
  const config = (url: string) => ({
    ...testConfig(),
    delivery: {
      sinks: [{ name: 'up', kind: 'conversions_api', url, token_file: join(dir, 'token') }],
      lease_seconds: 1,
      timeout_seconds: 3,
      retry_base_ms: 20,
    },
  });
  const one = await startHarness({ ...store, config: config(up.url) });
  let two: Harness | undefined;
  try {
    expect((await one.send(A, T.convA, [event(one.nowS(), { event_id: 'l-1' })])).status).toBe(200);
    await until(() => up.seen.length === 1);
    // The first deliverer's request hangs past its 1 s lease; the second claims the entry and delivers it.
    two = await startHarness({ ...store, config: config(up.url) });
    const second = two;
    await until(async () => (await admin(second)).body.sinks[0].delivered === 1);
    // The first one's delivery times out (3 s): its failure is not recorded on an entry it no longer holds.
    await until(async () => (await admin(one)).body.sinks[0].failures === 1);
    expect(up.seen.map((s) => s.ids)).toEqual([['l-1'], ['l-1']]);
    const status = (await admin(second)).body.sinks[0];
    expect(status).toMatchObject({ pending: 0, dead: 0 });
  } finally {
    await two?.close();
    await one.close();
    await up.close();
    await pg?.drop();
  }
});
