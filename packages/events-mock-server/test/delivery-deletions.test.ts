// C127: a conversion deletion request accepted for an account a Conversions API sink covers is passed on to the
// upstream's same route, after the account's events accepted before it and before those after it, with the
// sink's token and account mapping; it is retried, made dead by a refusal and requeued as an event batch is,
// and its status follows the upstream's answer. Against a programmable upstream, and against another instance
// of this server (whose stored events of the user go). On the embedded store and (the postgres project) on
// PostgreSQL.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { ManualClock, type RunningServer, startServer } from '../src/index.js';
import { A, event, sha256, T, testConfig } from './support/fixtures.js';
import { type Harness, startHarness, T0 } from './support/server.js';

/** What the upstream was sent. */
interface Seen {
  path: string;
  auth: string;
  /** The events' ids (the events route), or the deletion request's body (the deletion route). */
  ids: string[];
  deletion: unknown;
  status: number;
}

type Answer = { status: number; body?: unknown };

/** A Conversions API stand-in with both routes; the test sets its answer; it records every request. */
async function upstream() {
  const seen: Seen[] = [];
  let answer: (req: IncomingMessage) => Answer | Promise<Answer> = () => ({ status: 200 });
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', async () => {
      const parsed = JSON.parse(body) as { data?: { event_id: string }[]; deletion_targets?: unknown };
      const ids = parsed.data?.map((e) => e.event_id) ?? [];
      const a = await answer(req);
      seen.push({
        path: req.url ?? '',
        auth: req.headers.authorization ?? '',
        ids,
        deletion: parsed.deletion_targets ? parsed : null,
        status: a.status,
      });
      const events = ids.map(() => ({ status: 'processed', error_message: null, warning_message: null }));
      res
        .writeHead(a.status, { 'content-type': 'application/json' })
        .end(JSON.stringify(a.body ?? (parsed.data ? { events } : { code: 1, message: 'no' })));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    answer: (a: (req: IncomingMessage) => Answer | Promise<Answer>) => {
      answer = a;
    },
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

const isDeletion = (req: IncomingMessage) => (req.url ?? '').endsWith('/conversion_deletion_requests');

async function until(done: () => Promise<boolean> | boolean): Promise<void> {
  while (!(await done())) await new Promise((r) => setTimeout(r, 25));
}

const TOKEN = 'upstream-oauth-token-5b1e9c0d2a7f';
let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'ems-delivery-deletions-'));
  writeFileSync(join(dir, 'token'), TOKEN);
  writeFileSync(join(dir, 'oauth'), T.oauthStd);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function sender(url: string, sink: Record<string, unknown> = {}, clock?: ManualClock): Promise<Harness> {
  return startHarness({
    ...(clock ? { clock } : {}),
    config: {
      ...testConfig(),
      delivery: {
        sinks: [
          {
            name: 'up',
            kind: 'conversions_api',
            url,
            token_file: join(dir, 'token'),
            ad_accounts: [A],
            ...sink,
          },
        ],
        retry_base_ms: 20,
        retry_max_seconds: 1,
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

const requests = `/v5/ad_accounts/${A}/conversion_deletion_requests`;
const deletionOf = (h: Harness, who: string) =>
  h.call('POST', requests, {
    token: T.oauthStd,
    body: { deletion_targets: { user_emails: [`${who}@example.com`] } },
  });
const readRequest = async (h: Harness, id: string) =>
  (await h.call('GET', `${requests}/${id}`, { token: T.oauthStd })).body;
const admin = async (h: Harness) =>
  (await h.call('GET', '/admin/delivery', { token: T.admin })).body.sinks[0];

test('passed on after the events accepted before it, before those after, under the mapped account and token', {
  timeout: 60_000,
}, async () => {
  const up = await upstream();
  up.answer(() => ({ status: 500 }));
  const h = await sender(up.url, { upstream_ad_account: '999999999999' });
  try {
    expect((await h.send(A, T.convA, ofUser(h, 'anna', 3))).status).toBe(200);
    expect((await h.send(A, T.convA, ofUser(h, 'bert', 2))).status).toBe(200);
    await until(() => up.seen.length > 0);
    const made = await deletionOf(h, 'anna');
    const sentBefore = up.seen.length;
    expect(made.status).toBe(201);
    // Deleted here at once; passed on, it waits for the upstream.
    expect(made.body).toMatchObject({ status: 'PENDING', processed_time: null });
    expect((await h.send(A, T.convA, ofUser(h, 'carl', 2))).status).toBe(200);
    expect(await readRequest(h, made.body.request_id)).toMatchObject({ status: 'PENDING' });

    up.answer((req) =>
      isDeletion(req)
        ? {
            status: 201,
            body: {
              request_id: '4242',
              status: 'SUBMITTED',
              created_time: '2026-11-28',
              processed_time: '2026-11-29',
            },
          }
        : { status: 200 },
    );
    await until(async () => (await readRequest(h, made.body.request_id)).status !== 'PENDING');
    expect(await readRequest(h, made.body.request_id)).toEqual({
      request_id: made.body.request_id,
      status: 'SUBMITTED',
      created_time: made.body.created_time,
      processed_time: '2026-11-29',
    });
    await until(async () => (await admin(h)).delivered === 4);
    const taken = up.seen.filter((s) => s.status === 200 || s.status === 201);
    expect(taken.map((s) => [s.path, s.deletion ?? s.ids])).toEqual([
      ['/v5/ad_accounts/999999999999/events', ['bert-0', 'bert-1']],
      [
        '/v5/ad_accounts/999999999999/conversion_deletion_requests',
        { deletion_targets: { user_emails: [sha256('anna@example.com')] } },
      ],
      ['/v5/ad_accounts/999999999999/events', ['carl-0', 'carl-1']],
    ]);
    expect(new Set(up.seen.map((s) => s.auth))).toEqual(new Set([`Bearer ${TOKEN}`]));
    // Anna's events were tried while the upstream failed. A batch of hers on the wire when she was deleted (C132:
    // one claimed but not sent is given back) may still reach the upstream once, before the deletion request,
    // which the upstream then applies to it; none goes after the request, and none was ever taken.
    const passedOn = up.seen.findIndex((s) => s.deletion !== null);
    expect(passedOn).toBeGreaterThanOrEqual(sentBefore);
    expect(
      up.seen
        .slice(passedOn)
        .flatMap((s) => s.ids)
        .filter((id) => id.startsWith('anna')),
    ).toEqual([]);
    expect(await admin(h)).toMatchObject({ pending: 0, dead: 0, delivered: 4 });
    // Cancelling is refused: deleted here, and passed on.
    expect(
      (await h.call('DELETE', `${requests}/${made.body.request_id}`, { token: T.oauthStd })).status,
    ).toBe(409);
  } finally {
    await h.close();
    await up.close();
  }
});

// C132: the run that holds the account had claimed Anna's batches behind Bert's, which the upstream is still
// answering; she is deleted meanwhile. What it claimed of her before the deletion is never sent.
test('batches claimed before a deletion and not yet sent are not sent', { timeout: 60_000 }, async () => {
  const up = await upstream();
  let release: () => void = () => {};
  const held = new Promise<void>((r) => {
    release = r;
  });
  let arrived = 0;
  up.answer(async (req) => {
    arrived++;
    if (!isDeletion(req)) await held;
    return { status: 200 };
  });
  const h = await sender(up.url, { batch_size: 2 });
  try {
    // One request, so one claim takes every batch: Bert's four go at once (the account's in-flight limit),
    // Anna's two wait behind them in the run.
    expect((await h.send(A, T.convA, [...ofUser(h, 'bert', 8), ...ofUser(h, 'anna', 4)])).status).toBe(200);
    await until(() => arrived > 0);
    // The upstream reads pipelined requests one at a time: the first one is held, the rest wait on the wire.
    expect((await deletionOf(h, 'anna')).status).toBe(201);
    release();
    await until(async () => (await admin(h)).pending === 0 && up.seen.some((s) => s.deletion !== null));
    const sentIds = up.seen.flatMap((s) => s.ids);
    expect(sentIds.filter((id) => id.startsWith('anna'))).toEqual([]);
    expect(sentIds.filter((id) => id.startsWith('bert')).sort()).toEqual(
      Array.from({ length: 8 }, (_, i) => `bert-${i}`).sort(),
    );
    expect(up.seen.filter((s) => s.deletion !== null)).toHaveLength(1);
    expect(await admin(h)).toMatchObject({ pending: 0, dead: 0 });
  } finally {
    release();
    await h.close();
    await up.close();
  }
});

test('a refusal (401) makes it dead and CANCELLED; requeued, it says what the upstream answered', {
  timeout: 60_000,
}, async () => {
  const up = await upstream();
  let refusals = 0;
  up.answer((req) => {
    if (isDeletion(req) && ++refusals === 1) return { status: 408 };
    return isDeletion(req)
      ? { status: 401, body: { code: 2, message: `token ${TOKEN} may not call this` } }
      : { status: 200 };
  });
  const h = await sender(up.url);
  try {
    expect((await h.send(A, T.convA, ofUser(h, 'dora', 1))).status).toBe(200);
    const made = await deletionOf(h, 'erik');
    await until(async () => (await readRequest(h, made.body.request_id)).status === 'CANCELLED');
    expect(await readRequest(h, made.body.request_id)).toMatchObject({
      status: 'CANCELLED',
      processed_time: null,
    });
    // A 408 is retried; the 401 after it refuses for good, recorded without the upstream's text.
    expect(up.seen.filter((s) => s.deletion).map((s) => s.status)).toEqual([408, 401]);
    const sink = await admin(h);
    expect(sink).toMatchObject({ dead: 1, pending: 0, delivered: 1 });
    expect(sink.last_error).toMatch(/HTTP 401/);
    expect(JSON.stringify(sink)).not.toContain(TOKEN);
    // Later events are not held back by it.
    expect((await h.send(A, T.convA, ofUser(h, 'fred', 1))).status).toBe(200);
    await until(async () => (await admin(h)).delivered === 2);

    // Pinterest answers PENDING (it processes later): so does this service, once requeued and passed on.
    up.answer((req) =>
      isDeletion(req)
        ? {
            status: 200,
            body: { request_id: '77', status: 'PENDING', created_time: '2026-11-28', processed_time: null },
          }
        : { status: 200 },
    );
    expect((await h.call('POST', '/admin/delivery/requeue', { token: T.admin })).status).toBe(200);
    expect((await readRequest(h, made.body.request_id)).status).toBe('PENDING');
    await until(() => up.seen.some((s) => s.deletion && s.status === 200));
    await until(async () => {
      const s = await admin(h);
      return s.pending === 0 && s.dead === 0;
    });
    expect(await readRequest(h, made.body.request_id)).toMatchObject({
      status: 'PENDING',
      processed_time: null,
    });
  } finally {
    await h.close();
    await up.close();
  }
});

test('the upstream is another instance of this server: the user’s events it holds are deleted there too', {
  timeout: 60_000,
}, async () => {
  // One clock: the upstream takes the events as recent.
  const clock = new ManualClock(T0);
  const upstreamServer: RunningServer = await startServer({
    config: testConfig(),
    clock,
    db: ':memory:',
    port: 0,
    docs: false,
    inspector: false,
    transport: { shutdownGraceSeconds: 0 },
  });
  // An OAuth token with ads:write calls both routes of the upstream (a conversion token would be refused on
  // the deletion route).
  const h = await sender(upstreamServer.url, { token_file: join(dir, 'oauth') }, clock);
  try {
    expect((await h.send(A, T.convA, [...ofUser(h, 'gina', 2), ...ofUser(h, 'hugo', 2)])).status).toBe(200);
    await until(async () => (await admin(h)).delivered === 4);
    expect((await upstreamServer.store.listEvents({ limit: 10, adAccountId: A })).items.length).toBe(4);
    const made = await deletionOf(h, 'gina');
    await until(async () => (await readRequest(h, made.body.request_id)).status === 'SUBMITTED');
    const left = await upstreamServer.store.listEvents({ limit: 10, adAccountId: A });
    expect(left.items.map((e) => e.eventId).sort()).toEqual(['hugo-0', 'hugo-1']);
    expect((await upstreamServer.store.listDeletionRequests(A)).map((r) => r.status)).toEqual(['SUBMITTED']);
  } finally {
    await h.close();
    await upstreamServer.close();
  }
});
