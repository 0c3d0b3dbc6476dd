// Migration 4 (C80, C81) upgrades a database made by migrations 1-3 in place, its data intact: events keep
// their seq, text and fold counts, sightings still deduplicate within the window (API and tag ones), the
// report counts the same, a failure count stays, and new events are stored after the old ones. Migration 9
// (C127) keeps the deletion requests of migration 8 and passes new ones on after the account's events.
import pg from 'pg';
import { describe, expect, test } from 'vitest';
import { migrate } from '../src/store/pg/migrate.js';
import { MIGRATIONS } from '../src/store/pg/migrations.js';
import { PgStore } from '../src/store/pg/pg-store.js';
import { createTestDatabase, postgresReachable } from './support/postgres.js';

const ACCOUNT = '549755885175';
const HOUR = 3600 * 1000;
const WINDOW = 48 * HOUR;

describe.skipIf(!(await postgresReachable()))('PostgreSQL schema upgrade to migration 4', () => {
  test('a database of migration 3 keeps its events, sightings and counts', async () => {
    const db = await createTestDatabase();
    // Real times: sightings are partitioned by the database's day (C81).
    const t0 = Date.now() - 2 * HOUR;
    const tagTime = Math.floor((t0 - HOUR) / 1000);
    try {
      const pool = new pg.Pool({ connectionString: db.url });
      try {
        expect(
          await migrate(
            pool,
            MIGRATIONS.filter((m) => m.version <= 3),
          ),
        ).toBe(3);
        // The version 3 function, as a server of that version calls it: a, b, a again; then a failure.
        const call = (request: string, at: number, ids: string[], fails: string[] = []) =>
          pool.query(
            'SELECT * FROM events_commit_batch($1, $2, $3, $4, $5::int[], $6::text[], $7::text[], $8::bigint[], $9::text[], $10::text[], $11::text[], $12::text[])',
            [
              ACCOUNT,
              request,
              at,
              at - WINDOW,
              ids.map((_, i) => i),
              ids.map(() => 'checkout'),
              ids,
              ids.map(() => 1_772_452_800),
              ids.map(() => 'reporting'),
              ids.map((id) => JSON.stringify({ event_id: id, text: 'é "quoted"' })),
              fails.map(() => 'lead'),
              fails,
            ],
          );
        await call('req-1', t0, ['old-a', 'old-b', 'old-a']);
        await call('req-2', t0 + 1000, ['old-b'], ['invalid_value']);
        await pool.query(
          `INSERT INTO dedup_keys (ad_account_id, event_name, event_id, source, seen_at, event_time)
           VALUES ($1, 'lead', 'old-tag', 'tag', $2, $3)`,
          [ACCOUNT, tagTime * 1000, tagTime],
        );
      } finally {
        await pool.end();
      }

      const store = await PgStore.open({ url: db.url });
      try {
        const before = await store.listEvents({ limit: 10, adAccountId: ACCOUNT });
        expect(
          before.items.map((i) => [i.eventId, i.dedupStatus, i.duplicates, i.requestId, i.event]),
        ).toEqual([
          ['old-b', 'deduplicated', 1, 'req-1', { event_id: 'old-b', text: 'é "quoted"' }],
          ['old-a', 'deduplicated', 1, 'req-1', { event_id: 'old-a', text: 'é "quoted"' }],
        ]);
        expect(await store.report(ACCOUNT)).toEqual({
          stored: [{ eventName: 'checkout', usage: ['reporting'], processed: 2, duplicates: 2 }],
          failed: [{ eventName: 'lead', code: 'invalid_value', count: 1 }],
        });

        // The old sightings still deduplicate within the window, and name the earlier sighting.
        const now = t0 + 2 * HOUR;
        const ev = (index: number, eventName: string, eventId: string) => ({
          index,
          eventName,
          eventId,
          eventTime: 1_772_452_900,
          usage: ['reporting'],
          json: JSON.stringify({ event_id: eventId }),
        });
        const again = await store.commitBatch({
          adAccountId: ACCOUNT,
          requestId: 'req-3',
          receivedAt: now,
          dedupSince: now - WINDOW,
          events: [ev(0, 'checkout', 'old-a'), ev(1, 'lead', 'old-tag'), ev(2, 'checkout', 'new-c')],
          failures: [],
        });
        expect(Object.fromEntries(again.duplicates)).toEqual({
          0: { source: 'api', seenAt: t0, eventTime: 1_772_452_800 },
          1: { source: 'tag', seenAt: tagTime * 1000, eventTime: tagTime },
        });
        const after = await store.listEvents({ limit: 10, adAccountId: ACCOUNT });
        expect(after.items.map((i) => [i.eventId, i.duplicates])).toEqual([
          ['new-c', 0],
          ['old-b', 1],
          ['old-a', 2],
        ]);
        expect(await store.report(ACCOUNT)).toEqual({
          stored: [
            { eventName: 'checkout', usage: ['reporting'], processed: 3, duplicates: 3 },
            { eventName: 'lead', usage: ['reporting'], processed: 0, duplicates: 1 },
          ],
          failed: [{ eventName: 'lead', code: 'invalid_value', count: 1 }],
        });
      } finally {
        await store.close();
      }
    } finally {
      await db.drop();
    }
  });
});

describe.skipIf(!(await postgresReachable()))('PostgreSQL schema upgrade to migration 9', () => {
  test('a database of migration 8 keeps its deletion requests; new ones are passed on after the events', async () => {
    const db = await createTestDatabase();
    try {
      const pool = new pg.Pool({ connectionString: db.url });
      try {
        expect(
          await migrate(
            pool,
            MIGRATIONS.filter((m) => m.version <= 8),
          ),
        ).toBe(8);
        await pool.query(
          `INSERT INTO deletion_requests (id, ad_account_id, status, created_at, processed_at, events,
             outbox_entries, request_bodies) VALUES (5000, $1, 'SUBMITTED', 5, 5, 1, 0, 0)`,
          [ACCOUNT],
        );
        await pool.query('UPDATE deletion_request_ids SET last = 5000');
      } finally {
        await pool.end();
      }

      const store = await PgStore.open({ url: db.url });
      try {
        expect((await store.listDeletionRequests(ACCOUNT)).map((r) => [r.requestId, r.status])).toEqual([
          ['5000', 'SUBMITTED'],
        ]);
        await store.routeOutbox([{ sink: 'up', adAccounts: null, deletions: true }]);
        await store.commitBatch({
          adAccountId: ACCOUNT,
          requestId: 'req-1',
          receivedAt: 10_000,
          dedupSince: 0,
          events: [
            {
              index: 0,
              eventName: 'lead',
              eventId: 'kept',
              eventTime: 1,
              usage: [],
              json: '{"event_id":"kept"}',
            },
          ],
          failures: [],
        });
        const made = await store.createDeletionRequest(ACCOUNT, { click_id: ['epik-1'] }, 11_000);
        expect(made).toMatchObject({ requestId: '11000000', status: 'PENDING', processedAt: null });
        const claimed = await store.claimOutbox({
          sink: 'up',
          owner: 'D',
          now: 20_000,
          leaseMs: 1000,
          batchSize: 10,
          batchesPerAccount: 2,
          maxAccounts: 1,
        });
        expect(claimed.map((b) => b.deletion?.requestId ?? b.entries.map((e) => e.eventId))).toEqual([
          ['kept'],
          '11000000',
        ]);
      } finally {
        await store.close();
      }
    } finally {
      await db.drop();
    }
  });
});
