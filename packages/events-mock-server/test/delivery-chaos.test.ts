// C100, C112-C114 under chaos: the real bin forwards to an upstream that fails in every way it can (5xx,
// 429 with and without waits, 408, refusals, reset connections, answers that never come), and is killed with
// SIGKILL three times while batches stream in. Before that, a user's events are accepted and deleted while
// the upstream is down, and another account with no sink sends too. At the end every acknowledged event of
// the routed account has reached the upstream at least once, under its account and token; no event of the
// other account ever did, and no deleted event after the deletion request (C127: a batch on the wire when it
// was made may go once before it, C132); the deletion request itself did; the repeats are counted. On SQLite, and on
// PostgreSQL.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { type Child, spawnBin } from './support/child.js';
import { A, B, event, sha256, T, testConfig } from './support/fixtures.js';
import { createTestDatabase, postgresReachable } from './support/postgres.js';

const dir = mkdtempSync(join(tmpdir(), 'ems-chaos-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const UPSTREAM_TOKEN = 'chaos-upstream-token-0123456789';
writeFileSync(join(dir, 'token'), UPSTREAM_TOKEN);

/** A small seeded generator (mulberry32): the same chaos on every run. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Received {
  at: number;
  path: string;
  auth: string;
  ids: string[];
  accepted: boolean;
}

/** The upstream: `mode` says how it answers; every request is recorded, accepted or not. */
async function chaoticUpstream() {
  const seen: Received[] = [];
  const next = random(34);
  let mode: 'down' | 'chaos' | 'healthy' = 'down';
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => {
      // A conversion deletion request passed on (C127) carries no events.
      const ids = ((JSON.parse(body) as { data?: { event_id: string }[] }).data ?? []).map((e) => e.event_id);
      const r = { at: Date.now(), path: req.url ?? '', auth: req.headers.authorization ?? '', ids };
      const answer = (status: number, headers: Record<string, string> = {}) => {
        seen.push({ ...r, accepted: status === 200 });
        const events = ids.map(() => ({ status: 'processed', error_message: null, warning_message: null }));
        res
          .writeHead(status, { 'content-type': 'application/json', ...headers })
          .end(JSON.stringify({ events }));
      };
      if (mode === 'down') return answer(500);
      if (mode === 'healthy') return answer(200);
      const x = next();
      if (x < 0.4) return answer(200);
      if (x < 0.5) return answer(500);
      if (x < 0.58) return answer(503, { 'retry-after': '0' });
      if (x < 0.66) return answer(429, { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '0' });
      if (x < 0.74) return answer(408);
      if (x < 0.78) return answer(401);
      seen.push({ ...r, accepted: false });
      // A connection reset, or an answer that never comes (the delivery times out).
      if (x < 0.9) req.socket.destroy();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    set: (m: typeof mode) => {
      mode = m;
    },
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

async function until(done: () => Promise<boolean> | boolean, what: string, ms = 90_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await done())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const post = (url: string, path: string, token: string, body: unknown) =>
  fetch(`${url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

/** Batches of A's events from 3 loops until stopped; the ids of the events of every batch answered 200. */
function stream(url: () => string) {
  const acked = new Set<string>();
  let n = 0;
  let stopped = false;
  const loops = Array.from({ length: 3 }, async () => {
    while (!stopped) {
      const batch = n++;
      const data = Array.from({ length: 20 }, (_, i) =>
        event(Math.floor(Date.now() / 1000), { event_id: `s${batch}-${i}` }),
      );
      try {
        const r = await post(url(), `/v5/ad_accounts/${A}/events`, T.convA, { data });
        if (
          r.status === 200 &&
          ((await r.json()) as { num_events_processed: number }).num_events_processed === 20
        )
          for (const e of data) acked.add(e.event_id as string);
      } catch {
        // Killed under us: not acknowledged.
        await new Promise((r) => setTimeout(r, 20));
      }
    }
  });
  return {
    acked,
    stop: async () => {
      stopped = true;
      await Promise.all(loops);
    },
  };
}

const stores: { name: string; open(): Promise<{ args: string[]; drop(): Promise<void> }> }[] = [
  { name: 'SQLite', open: async () => ({ args: ['--db', join(dir, 'sender.db')], drop: async () => {} }) },
];
if (await postgresReachable())
  stores.push({
    name: 'PostgreSQL',
    open: async () => {
      const db = await createTestDatabase();
      return { args: ['--store', db.url], drop: () => db.drop() };
    },
  });

describe.each(stores)('delivery under chaos: $name', ({ open }) => {
  test('every acknowledged event arrives at least once; never a deleted or another account’s event', async () => {
    const upstream = await chaoticUpstream();
    const store = await open();
    const config = join(dir, 'chaos.yaml');
    // The tests' directory (accounts A and B, their tokens, the admin token), and a sink for A only.
    writeFileSync(
      config,
      JSON.stringify({
        ...testConfig(),
        delivery: {
          sinks: [
            {
              name: 'up',
              kind: 'conversions_api',
              url: upstream.url,
              ad_accounts: [A],
              token_file: join(dir, 'token'),
              batch_size: 50,
            },
          ],
          retry_base_ms: 10,
          retry_max_seconds: 1,
          timeout_seconds: 1,
          lease_seconds: 2,
        },
      }),
    );
    const args = ['--port', '0', ...store.args, '--config', config, '--log-level', 'error'];
    let child: Child = await spawnBin(args);
    const admin = async (path: string, method = 'GET') =>
      (
        await fetch(`${child.url}${path}`, { method, headers: { authorization: `Bearer ${T.admin}` } })
      ).json();
    try {
      // While the upstream is down: a user's events, then their deletion; events of an account with no sink.
      const zed = Array.from({ length: 20 }, (_, i) => {
        const e = event(Math.floor(Date.now() / 1000), { event_id: `zed-${i}` });
        (e.user_data as Record<string, unknown>).em = [sha256('zed@example.com')];
        return e;
      });
      expect((await post(child.url, `/v5/ad_accounts/${A}/events`, T.convA, { data: zed })).status).toBe(200);
      const other = Array.from({ length: 20 }, (_, i) =>
        event(Math.floor(Date.now() / 1000), { event_id: `b-${i}` }),
      );
      expect((await post(child.url, `/v5/ad_accounts/${B}/events`, T.convB, { data: other })).status).toBe(
        200,
      );
      await until(() => upstream.seen.length > 0, 'a first attempt');
      const deleted = await post(child.url, `/v5/ad_accounts/${A}/conversion_deletion_requests`, T.oauthStd, {
        deletion_targets: { user_emails: ['zed@example.com'] },
      });
      expect(deleted.status).toBe(201);
      const deletedAt = Date.now();

      // Chaos, and three kills while batches stream in.
      upstream.set('chaos');
      const s = stream(() => child.url);
      for (let kill = 1; kill <= 3; kill++) {
        const target = kill * 400;
        await until(() => s.acked.size >= target, `${target} acknowledged events`);
        child.proc.kill('SIGKILL');
        expect(await child.exited).toBe('SIGKILL');
        child = await spawnBin(args);
      }
      await s.stop();

      // The upstream heals; refusals made some entries dead: they are requeued, as an operator would.
      upstream.set('healthy');
      await until(async () => {
        const sink = ((await admin('/admin/delivery')) as { sinks: { pending: number; dead: number }[] })
          .sinks[0];
        if (sink && sink.dead > 0) await admin('/admin/delivery/requeue', 'POST');
        return sink?.pending === 0 && sink.dead === 0;
      }, 'the outbox to drain');

      const accepted = upstream.seen.filter((r) => r.accepted);
      const times = new Map<string, number>();
      for (const r of accepted) for (const id of r.ids) times.set(id, (times.get(id) ?? 0) + 1);
      const missing = [...s.acked].filter((id) => !times.has(id));
      expect(missing, 'acknowledged events that never arrived').toEqual([]);
      expect(new Set(upstream.seen.map((r) => `${r.path} ${r.auth}`))).toEqual(
        new Set([
          `/v5/ad_accounts/${A}/events Bearer ${UPSTREAM_TOKEN}`,
          `/v5/ad_accounts/${A}/conversion_deletion_requests Bearer ${UPSTREAM_TOKEN}`,
        ]),
      );
      // The deletion request reached the upstream (C127), and its status says so.
      expect(accepted.some((r) => r.path.endsWith('/conversion_deletion_requests'))).toBe(true);
      const request = (await (
        await fetch(`${child.url}/v5/ad_accounts/${A}/conversion_deletion_requests`, {
          headers: { authorization: `Bearer ${T.oauthStd}` },
        })
      ).json()) as { items: { status: string }[] };
      expect(request.items.map((r) => r.status)).toEqual(['SUBMITTED']);
      expect(upstream.seen.flatMap((r) => r.ids).filter((id) => id.startsWith('b-'))).toEqual([]);
      // A batch of zed's that was on the wire when zed was deleted may still reach the upstream, before the
      // deletion request, which the upstream then applies to it (C127; one claimed but not sent is given back,
      // C132); none goes once the request went, and none is taken after the deletion's answer but that one.
      const passedOn = upstream.seen.findIndex((r) => r.path.endsWith('/conversion_deletion_requests'));
      expect(passedOn).toBeGreaterThanOrEqual(0);
      expect(
        upstream.seen.slice(passedOn).flatMap((r) => r.ids.filter((id) => id.startsWith('zed-'))),
      ).toEqual([]);
      const heldOnce = upstream.seen.filter(
        (r) => r.at > deletedAt && r.ids.some((id) => id.startsWith('zed-')),
      );
      expect(heldOnce.length, 'zed batches sent after the deletion was answered').toBeLessThanOrEqual(1);
      // Repeats (at least once): bounded by what a killed or timed-out delivery can send twice.
      const repeats = [...times.values()].reduce((n, t) => n + t - 1, 0);
      expect(repeats).toBeLessThan(s.acked.size);
    } finally {
      child.proc.kill('SIGTERM');
      await child.exited;
      await upstream.close();
      await store.drop();
    }
  }, 240_000);
});
