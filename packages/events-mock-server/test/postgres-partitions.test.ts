// C81: sightings are partitioned by the database's day, events by month of received_at. At start the store
// makes today's and the next two days' partitions; sighting partitions older than the window are dropped
// whole; a batch of a month without a partition (a clock far from the database's) makes it first.
import pg from 'pg';
import { describe, expect, test } from 'vitest';
import { PgStore } from '../src/store/pg/pg-store.js';
import { createTestDatabase, postgresReachable } from './support/postgres.js';

describe.skipIf(!(await postgresReachable()))('PostgreSQL partitions (C81)', () => {
  test('days made ahead, old sighting days dropped whole, a new month made before its first batch', async () => {
    const db = await createTestDatabase();
    const store = await PgStore.open({ url: db.url });
    const c = new pg.Client({ connectionString: db.url });
    await c.connect();
    try {
      const today = (await c.query<{ d: number }>('SELECT events_today() AS d')).rows[0]?.d as number;
      const children = async (parent: string) =>
        (
          await c.query<{ name: string }>(
            `SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
             WHERE i.inhparent = $1::regclass ORDER BY c.relname`,
            [parent],
          )
        ).rows.map((r) => r.name);
      const day = (d: number) => `dedup_sightings_${d}`;
      expect(await children('dedup_sightings')).toEqual([day(today), day(today + 1), day(today + 2)]);

      // Two earlier days with a sighting each: the one a lookup still reads stays, the older one goes.
      for (const d of [today - 3, today - 2]) {
        await c.query(
          `CREATE TABLE ${day(d)} PARTITION OF dedup_sightings FOR VALUES FROM (${d}) TO (${d + 1})`,
        );
        await c.query(
          `INSERT INTO dedup_sightings VALUES ('549755885175', events_key('549755885175', 'lead', 'x'), $1, 1, 1, NULL)`,
          [d],
        );
      }
      expect((await c.query('SELECT events_drop_old_sightings() AS n')).rows).toEqual([{ n: 1 }]);
      expect(await children('dedup_sightings')).toEqual([
        day(today - 2),
        day(today),
        day(today + 1),
        day(today + 2),
      ]);

      const at = Date.UTC(2031, 0, 5, 12);
      const r = await store.commitBatch({
        adAccountId: '549755885175',
        requestId: 'far',
        receivedAt: at,
        dedupSince: at - 48 * 3600 * 1000,
        events: [{ index: 0, eventName: 'lead', eventId: 'far-1', eventTime: 1, usage: [], json: '{"a":1}' }],
        failures: [],
      });
      expect(r.duplicates.size).toBe(0);
      expect(await children('events')).toContain('events_203101');
      expect((await store.listEvents({ limit: 5, eventId: 'far-1' })).items.map((i) => i.receivedAt)).toEqual(
        [at],
      );
    } finally {
      await c.end();
      await store.close();
      await db.drop();
    }
  });

  // C131: a custom plan per call re-planned the probe of the earlier days' sightings over their partitions on
  // every call; the batch functions run with generic plans, which prune the partitions when they run.
  test('the batch functions plan their statements once per connection (C131)', async () => {
    const db = await createTestDatabase();
    const store = await PgStore.open({ url: db.url });
    const c = new pg.Client({ connectionString: db.url });
    await c.connect();
    try {
      const config = await c.query<{ name: string; config: string[] | null }>(
        `SELECT proname AS name, proconfig AS config FROM pg_proc
         WHERE proname IN ('events_commit_batches', 'events_commit_batches_to') ORDER BY proname`,
      );
      expect(config.rows).toEqual([
        { name: 'events_commit_batches', config: ['plan_cache_mode=force_generic_plan'] },
        { name: 'events_commit_batches_to', config: ['plan_cache_mode=force_generic_plan'] },
      ]);
      // A sighting two days back still makes a duplicate under the generic plan (its day pruned at run time).
      const today = (await c.query<{ d: number }>('SELECT events_today() AS d')).rows[0]?.d as number;
      await c.query(
        `CREATE TABLE dedup_sightings_${today - 2} PARTITION OF dedup_sightings FOR VALUES FROM (${today - 2}) TO (${today - 1})`,
      );
      const now = Date.now();
      await c.query(
        `INSERT INTO dedup_sightings VALUES ('549755885175', events_key('549755885175', 'lead', 'old'), $1, $2, 7, NULL)`,
        [today - 2, now - 40 * 3600 * 1000],
      );
      const batch = (id: string, eventId: string) => ({
        adAccountId: '549755885175',
        requestId: id,
        receivedAt: now,
        dedupSince: now - 48 * 3600 * 1000,
        events: [{ index: 0, eventName: 'lead', eventId, eventTime: 1, usage: [], json: '{"a":1}' }],
        failures: [],
      });
      // More calls than plpgsql's five custom plans, so the cached plan is the one that answers.
      for (let i = 0; i < 7; i++)
        expect((await store.commitBatch(batch(`r${i}`, `new-${i}`))).duplicates.size).toBe(0);
      expect([...(await store.commitBatch(batch('r-old', 'old'))).duplicates.keys()]).toEqual([0]);
    } finally {
      await c.end();
      await store.close();
      await db.drop();
    }
  });
});
