// Faults of the PostgreSQL store (C48): a batch failing mid-way stores nothing of it and answers 503 with
// Retry-After; the database refusing connections answers 503 and /readyz says so; once it is back, the pool
// reconnects by itself and the same server stores again. A server that cannot reach it does not start.
// C74 (issue 19 N5): a connection cut after the batch's commit was sent answers the other 503, saying the
// batch may have been stored; the retry with the same event_ids is answered as duplicates.
import pg from 'pg';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { startServer } from '../src/index.js';
import { migrate } from '../src/store/pg/migrate.js';
import { MIGRATIONS } from '../src/store/pg/migrations.js';
import { spawnBin } from './support/child.js';
import { A, event, T, testConfig } from './support/fixtures.js';
import { createTestDatabase, postgresReachable, type TestDatabase } from './support/postgres.js';
import { type Harness, startHarness } from './support/server.js';
import { startTcpProxy } from './support/tcp-proxy.js';

const ADMIN_URL = process.env.PG_TEST_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

async function sql(url: string, text: string): Promise<void> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    await c.query(text);
  } finally {
    await c.end();
  }
}

describe.skipIf(!(await postgresReachable()))('PostgreSQL faults (C48)', () => {
  let db: TestDatabase;
  let h: Harness;
  beforeEach(async () => {
    db = await createTestDatabase();
    h = await startHarness({ storeUrl: db.url });
  });
  afterEach(async () => {
    await sql(ADMIN_URL, `ALTER DATABASE ${db.name} ALLOW_CONNECTIONS true`).catch(() => {});
    await h.close();
    await db.drop();
  });

  const storedIds = async () =>
    ((await h.call('GET', '/admin/events', { token: T.admin })).body.items as { event_id: string }[])
      .map((e) => e.event_id)
      .sort();

  test('a statement failing mid-batch: 503 with Retry-After, nothing of the batch stored', async () => {
    // A trigger that fails on the second event's row, after the first row was inserted.
    await sql(
      db.url,
      `CREATE FUNCTION boom() RETURNS trigger LANGUAGE plpgsql AS $$
         BEGIN IF NEW.event_id = 'boom' THEN RAISE EXCEPTION 'injected failure'; END IF; RETURN NEW; END $$;
       CREATE TRIGGER boom BEFORE INSERT ON events FOR EACH ROW EXECUTE FUNCTION boom();`,
    );
    const r = await h.send(A, T.convA, [
      event(h.nowS(), { event_id: 'fine-1' }),
      event(h.nowS(), { event_id: 'boom' }),
    ]);
    expect(r.status).toBe(503);
    expect(r.headers.get('retry-after')).toBe('1');
    expect(r.body.details[0].path).toBe('storage');
    // The database answered with an error: rolled back, so the 503 is certain (C74).
    expect(r.body.code).toBe(4197);
    expect(r.body.message).toBe(
      'The service is temporarily unavailable; nothing of this request was stored.',
    );
    expect(await storedIds()).toEqual([]);
    // Nothing was claimed either: the same first event, sent alone, is stored and is no duplicate.
    const again = await h.send(A, T.convA, [event(h.nowS(), { event_id: 'fine-1' })]);
    expect(again.status).toBe(200);
    expect(again.body.events[0].warning_message).toBeNull();
    expect(await storedIds()).toEqual(['fine-1']);
  });

  test('the database refusing connections: 503 and /readyz 503; back again: stored without a restart', async () => {
    expect((await h.send(A, T.convA, [event(h.nowS(), { event_id: 'before' })])).status).toBe(200);
    await sql(ADMIN_URL, `ALTER DATABASE ${db.name} ALLOW_CONNECTIONS false`);
    await sql(
      ADMIN_URL,
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '${db.name}' AND pid <> pg_backend_pid()`,
    );
    const down = await h.send(A, T.convA, [event(h.nowS(), { event_id: 'during' })]);
    expect(down.status).toBe(503);
    expect(down.headers.get('retry-after')).toBe('1');
    // No connection could be had: nothing was sent, the 503 is certain (C74). A pooled connection that the
    // termination has not yet been noticed on takes the batch before it fails: that 503 cannot know the
    // batch never ran, and says it may have been stored (4198). Either way nothing was stored.
    expect([4197, 4198]).toContain(down.body.code);
    const ready = await h.call('GET', '/readyz');
    expect(ready.status).toBe(503);
    expect(ready.body.status).toBe('unavailable');
    expect(ready.body.dependencies[0]).toMatchObject({ name: 'store', status: 'unavailable' });
    expect((await h.call('GET', '/healthz')).status).toBe(200);

    await sql(ADMIN_URL, `ALTER DATABASE ${db.name} ALLOW_CONNECTIONS true`);
    expect((await h.send(A, T.convA, [event(h.nowS(), { event_id: 'after' })])).status).toBe(200);
    expect((await h.call('GET', '/readyz')).status).toBe(200);
    expect(await storedIds()).toEqual(['after', 'before']);
  });
});

describe.skipIf(!(await postgresReachable()))('PostgreSQL cut after the commit was sent (C74)', () => {
  test('503 "may have been stored"; the batch was stored; the retry is answered as duplicates', async () => {
    const db = await createTestDatabase();
    const proxy = await startTcpProxy('127.0.0.1', Number(new URL(db.url).port || 5432));
    const viaProxy = new URL(db.url);
    viaProxy.port = String(proxy.port);
    const h = await startHarness({ storeUrl: viaProxy.toString() });
    try {
      const batch = Array.from({ length: 10 }, (_, i) => event(h.nowS(), { event_id: `cut-${i}` }));
      // The batch goes through the proxy whole; then the connection drops before the answer comes back.
      const cut = proxy.cutAfterSending('events_commit_batch');
      const r = await h.send(A, T.convA, batch);
      await cut;
      expect(r.status).toBe(503);
      expect(r.headers.get('retry-after')).toBe('1');
      expect(r.body.code).toBe(4198);
      expect(r.body.message).toBe(
        'The service is temporarily unavailable; this request may have been stored; retry with the same event_ids, duplicates are recognised.',
      );
      expect(r.body.details).toHaveLength(1);
      expect(r.body.details[0].path).toBe('storage');
      expect(r.body.details[0].problem).toMatch(
        /^the connection to storage broke while the batch was being committed \(.+\); it may have been stored$/,
      );
      // It was stored indeed: the database committed before its answer was lost (read past the proxy).
      const stored = async () => {
        const c = new pg.Client({ connectionString: db.url });
        await c.connect();
        try {
          return (await c.query<{ n: number }>('SELECT count(*)::int AS n FROM events')).rows[0]?.n ?? 0;
        } finally {
          await c.end();
        }
      };
      while ((await stored()) < batch.length) await new Promise((res) => setTimeout(res, 50));
      // The retry the message asks for: every event answered processed with the duplicate warning, none
      // stored twice.
      const again = await h.send(A, T.convA, batch);
      expect(again.status).toBe(200);
      expect(again.body.num_events_processed).toBe(batch.length);
      for (const e of again.body.events as { status: string; warning_message: string | null }[]) {
        expect(e.status).toBe('processed');
        expect(e.warning_message).toMatch(/duplicate/i);
      }
      expect(await stored()).toBe(batch.length);
    } finally {
      await h.close();
      await proxy.close();
      await db.drop();
    }
  }, 30_000);
});

describe.skipIf(!(await postgresReachable()))('PostgreSQL at start', () => {
  test('the bin takes DATABASE_URL and names the store without its credentials', async () => {
    const db = await createTestDatabase();
    try {
      const bin = await spawnBin(['--port', '0'], { DATABASE_URL: db.url });
      try {
        expect(bin.stdout()).toContain(`(store: postgres://127.0.0.1:5432/${db.name}; limits: memory)`);
        expect((await fetch(`${bin.url}/readyz`).then((r) => r.json())).dependencies).toEqual([
          { name: 'store', status: 'ok', target: `postgres://127.0.0.1:5432/${db.name}` },
          { name: 'limits', status: 'ok', target: 'memory' },
        ]);
      } finally {
        bin.proc.kill('SIGTERM');
        expect(await bin.exited).toBe(0);
      }
    } finally {
      await db.drop();
    }
  }, 30_000);

  test('an unreachable database: the server does not start, and says why', async () => {
    await expect(
      startServer({ config: testConfig(), docs: false, storeUrl: 'postgres://postgres@127.0.0.1:1/none' }),
    ).rejects.toThrow(/ECONNREFUSED/);
  });

  test('a database with a migration this server does not know is refused', async () => {
    const db = await createTestDatabase();
    try {
      const first = await startServer({ config: testConfig(), docs: false, storeUrl: db.url });
      await first.close();
      await sql(
        db.url,
        "INSERT INTO schema_migrations (version, name, checksum) VALUES (999, 'future', 'x')",
      );
      await expect(startServer({ config: testConfig(), docs: false, storeUrl: db.url })).rejects.toThrow(
        'the database has schema migration 999, which this server does not know',
      );
    } finally {
      await db.drop();
    }
  });

  test('C70: a database of migration 2 loses its request log entries on upgrade', async () => {
    const db = await createTestDatabase();
    try {
      const pool = new pg.Pool({ connectionString: db.url });
      try {
        await migrate(
          pool,
          MIGRATIONS.filter((m) => m.version <= 2),
        );
        await pool.query(
          `INSERT INTO request_log (request_id, received_at, ad_account_id, test, status, duration_ms, events,
             processed, failed, warned, event_names, body, body_truncated, body_bytes, items)
           VALUES ('old', 1, $1, false, 200, 1, 1, 1, 0, 1, 'lead', $2, false, 60, '[]')`,
          [A, '{"data":[{"user_data":{"em":["version2.jane@example.com"]}}]}'],
        );
      } finally {
        await pool.end();
      }
      const h = await startHarness({ config: testConfig(), storeUrl: db.url });
      try {
        const sent = await h.send(A, T.convA, [event(h.nowS(), { event_id: 'after-upgrade' })]);
        expect(sent.status).toBe(200);
        const c = new pg.Client({ connectionString: db.url });
        await c.connect();
        try {
          const log = await c.query('SELECT request_id, body FROM request_log');
          expect(log.rows.map((r) => r.request_id)).not.toContain('old');
          expect(JSON.stringify(log.rows)).not.toContain('version2.jane@example.com');
          const events = await c.query('SELECT event_id FROM events');
          expect(events.rows).toEqual([{ event_id: 'after-upgrade' }]);
        } finally {
          await c.end();
        }
      } finally {
        await h.close();
      }
    } finally {
      await db.drop();
    }
  });

  test('two instances starting at once on an empty database migrate it once', async () => {
    const db = await createTestDatabase();
    try {
      const servers = await Promise.all(
        [0, 1, 2].map(() => startServer({ config: testConfig(), docs: false, storeUrl: db.url })),
      );
      await Promise.all(servers.map((s) => s.close()));
      const c = new pg.Client({ connectionString: db.url });
      await c.connect();
      try {
        const { rows } = await c.query('SELECT version FROM schema_migrations ORDER BY version');
        expect(rows).toEqual(MIGRATIONS.map((m) => ({ version: m.version })));
      } finally {
        await c.end();
      }
    } finally {
      await db.drop();
    }
  });
});
