// Issue 10 item 6: instances in separate processes on one PostgreSQL and one Redis. The same event_id sent
// to both at once is stored once; a conversion token's test limit (C7) and an OAuth token's standard limit
// (C9) hold in sum across both; SIGKILL of one instance under load leaves every acknowledged event in
// PostgreSQL exactly once. And --workers: N processes on one port, refused without shared store and limits.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RATE_LIMITS } from '@org/events-types';
import pg from 'pg';
import { afterAll, afterEach, beforeEach, describe, expect, test } from 'vitest';
import { type Child, runBin, spawnBin } from './support/child.js';
import { A, event, T, testConfig } from './support/fixtures.js';
import { createTestDatabase, postgresReachable, type TestDatabase } from './support/postgres.js';
import { REDIS_TEST_URL, redisReachable, testPrefix } from './support/redis.js';

const dir = mkdtempSync(join(tmpdir(), 'ems-scale-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const up = (await postgresReachable()) && (await redisReachable());

const post = (url: string, token: string, data: unknown[], query = '') =>
  fetch(`${url}/v5/ad_accounts/${A}/events${query}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ data }),
  });
const nowS = () => Math.floor(Date.now() / 1000);
/** The status, once the body is read (so the connection is reused). */
const statusOf = async (r: Response) => {
  await r.arrayBuffer();
  return r.status;
};

async function storedCounts(url: string): Promise<Map<string, number>> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    const { rows } = await c.query<{ event_id: string; n: number }>(
      'SELECT event_id, count(*)::int AS n FROM events GROUP BY event_id',
    );
    return new Map(rows.map((r) => [r.event_id, r.n]));
  } finally {
    await c.end();
  }
}

describe.skipIf(!up)('two instances on one PostgreSQL and one Redis', () => {
  let db: TestDatabase;
  let keys: ReturnType<typeof testPrefix>;
  let a: Child;
  let b: Child;
  let config: string;
  const args = () => [
    '--port',
    '0',
    '--config',
    config,
    '--store',
    db.url,
    '--limits',
    REDIS_TEST_URL,
    '--log-level',
    'warn',
  ];
  beforeEach(async () => {
    db = await createTestDatabase();
    keys = testPrefix();
    config = join(dir, `config-${keys.prefix.replace(/\W/g, '')}.yaml`);
    writeFileSync(config, JSON.stringify({ ...testConfig(), limits: { prefix: keys.prefix } }));
    [a, b] = await Promise.all([spawnBin(args()), spawnBin(args())]);
  }, 60_000);
  afterEach(async () => {
    for (const c of [a, b])
      if (c.proc.exitCode === null && c.proc.signalCode === null) c.proc.kill('SIGTERM');
    await Promise.all([a.exited, b.exited]);
    await db.drop();
    await keys.drop();
  }, 60_000);

  test('the same event_id sent to both at once is stored once; the other answer warns', async () => {
    const ids = Array.from({ length: 25 }, (_, i) => `race-${i}`);
    const answers = await Promise.all(
      ids.flatMap((id) =>
        [a, b].map((c) => post(c.url, T.convA, [event(nowS(), { event_id: id })]).then((r) => r.json())),
      ),
    );
    for (const ans of answers) expect(ans.events[0].status).toBe('processed');
    const warned = answers.filter((x) => x.events[0].warning_message?.includes('Duplicate')).length;
    expect(warned).toBe(ids.length);
    const counts = await storedCounts(db.url);
    expect([...counts.keys()].sort()).toEqual([...ids].sort());
    expect([...counts.values()].every((n) => n === 1)).toBe(true);
  }, 30_000);

  test(`a conversion token's ${RATE_LIMITS.testRequests.limit} test requests per second hold in sum`, async () => {
    const n = RATE_LIMITS.testRequests.limit * 3;
    const started = Date.now();
    const statuses = await Promise.all(
      Array.from({ length: n }, (_, i) =>
        post(i % 2 ? a.url : b.url, T.convA, [event(nowS(), { event_id: `t-${i}` })], '?test=true').then(
          statusOf,
        ),
      ),
    );
    const admitted = statuses.filter((s) => s === 200).length;
    // Each instance alone would admit its own 10; shared, at most 10 in any second: all 10 and no more when
    // the burst fits in one second, and 10 per second it spans on a machine too busy for that.
    const seconds = Math.ceil((Date.now() - started) / 1000);
    if (seconds <= 1) expect(admitted).toBe(RATE_LIMITS.testRequests.limit);
    else expect(admitted).toBeLessThanOrEqual(RATE_LIMITS.testRequests.limit * seconds);
    expect(statuses.filter((s) => s === 429).length).toBe(n - admitted);
  }, 30_000);

  test(`an OAuth token's standard ${RATE_LIMITS.universal.standard.limit} requests per second per user per app hold in sum`, async () => {
    const limit = RATE_LIMITS.universal.standard.limit;
    const n = Math.round(limit * 1.6);
    const started = Date.now();
    const statuses = await Promise.all(
      Array.from({ length: n }, (_, i) =>
        fetch(`${i % 2 ? a.url : b.url}/v5/ad_accounts/${A}/custom_event_types`, {
          headers: { authorization: `Bearer ${T.oauthStd}` },
        }).then(statusOf),
      ),
    );
    const admitted = statuses.filter((s) => s === 200).length;
    const seconds = Math.ceil((Date.now() - started) / 1000);
    expect(admitted).toBeLessThanOrEqual(limit * Math.max(1, seconds));
    if (seconds <= 1) expect(admitted).toBeGreaterThan(limit / 2);
    expect(statuses.filter((s) => s === 429).length).toBe(n - admitted);
  }, 30_000);

  test('SIGKILL of one instance under load: every acknowledged event is in PostgreSQL exactly once', async () => {
    const acked = new Set<string>();
    let next = 0;
    let stopped = false;
    const loops = [a, b, a, b].map(async (c) => {
      while (!stopped) {
        const batch = next++;
        const data = Array.from({ length: 20 }, (_, i) => event(nowS(), { event_id: `k${batch}-${i}` }));
        try {
          const r = await post(c.url, T.convA, data);
          if (r.status === 200) {
            const body = (await r.json()) as { num_events_processed: number };
            if (body.num_events_processed === data.length)
              for (const e of data) acked.add(e.event_id as string);
          } else await r.arrayBuffer();
        } catch {
          // The instance died under this request: not acknowledged.
        }
      }
    });
    const started = Date.now();
    while (acked.size < 400 && Date.now() - started < 15_000) await new Promise((r) => setTimeout(r, 20));
    a.proc.kill('SIGKILL');
    expect(await a.exited).toBe('SIGKILL');
    await new Promise((r) => setTimeout(r, 300));
    stopped = true;
    await Promise.all(loops);
    expect(acked.size).toBeGreaterThanOrEqual(400);
    const counts = await storedCounts(db.url);
    for (const id of acked) expect(counts.get(id), id).toBe(1);
    for (const [id, n] of counts) expect(n, id).toBe(1);
  }, 60_000);
});

describe('--workers', () => {
  test('refused with SQLite or in-memory limits, saying what to use instead', async () => {
    const r = await runBin(['--workers', '2', '--db', ':memory:']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      '--workers 2 needs a store and rate limits that every worker shares: give --store postgres://... (or DATABASE_URL) instead of SQLite and give --limits redis://... (or REDIS_URL) instead of in-memory limits',
    );
    const bad = await runBin(['--workers', 'many']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--workers must be an integer from 1 to 64; received many');
  }, 30_000);

  test.skipIf(!up)(
    'N processes on one port share the store and the limits; SIGTERM stops them all',
    async () => {
      const db = await createTestDatabase();
      const keys = testPrefix();
      const config = join(dir, 'workers.yaml');
      writeFileSync(config, JSON.stringify({ ...testConfig(), limits: { prefix: keys.prefix } }));
      try {
        const bin = await spawnBin([
          '--port',
          '0',
          '--workers',
          '2',
          '--config',
          config,
          '--store',
          db.url,
          '--limits',
          REDIS_TEST_URL,
          '--log-level',
          'warn',
        ]);
        try {
          expect(bin.stdout()).toContain('; workers: 2)');
          const answers = await Promise.all(
            Array.from({ length: 40 }, (_, i) =>
              post(bin.url, T.convA, [event(nowS(), { event_id: `w-${i % 20}` })]).then((r) => r.json()),
            ),
          );
          expect(answers.every((x) => x.events[0].status === 'processed')).toBe(true);
          const counts = await storedCounts(db.url);
          expect(counts.size).toBe(20);
          expect([...counts.values()].every((n) => n === 1)).toBe(true);
        } finally {
          bin.proc.kill('SIGTERM');
          expect(await bin.exited).toBe(0);
        }
      } finally {
        await db.drop();
        await keys.drop();
      }
    },
    60_000,
  );
});
