// A version 1 SQLite file (before the request log, C60) gains the new tables when a newer server opens it,
// and keeps its events. A version 2 file loses its request log entries, which may hold values refused as
// personal data (C70), overwritten in the file and its WAL, and keeps everything else. A version 6 file gains
// the conversion deletion requests (C121); a version 7 file, the outbox entries of those passed on (C127).
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { expect, test } from 'vitest';
import type { BatchWrite } from '../src/store/interface/events.js';
import type { RequestLogWrite } from '../src/store/interface/request-log.js';
import { SCHEMA_VERSION } from '../src/store/sqlite/schema.js';
import { SqliteStore } from '../src/store/sqlite/sqlite-store.js';

test('a version 1 file is upgraded to the current version in place', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'ems-upgrade-'));
  const path = join(dir, 'events.db');
  try {
    const first = new SqliteStore({ path });
    await first.commitBatch({
      adAccountId: '1',
      requestId: 'old',
      receivedAt: 1000,
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
    await first.close();
    // Make it a version 1 file: no request log tables.
    const raw = new Database(path);
    raw.exec('DROP TABLE request_log; DROP TABLE timeline_counts; PRAGMA user_version = 1;');
    raw.close();

    const upgraded = new SqliteStore({ path });
    expect(upgraded.database.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    expect((await upgraded.listEvents({ limit: 10 })).items.map((e) => e.eventId)).toEqual(['kept']);
    expect((await upgraded.listRequests({ limit: 10 })).items).toEqual([]);
    await upgraded.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

const RAW_EMAIL = 'version2.jane@example.com';

const batch: BatchWrite = {
  adAccountId: '1',
  requestId: 'old',
  receivedAt: 1000,
  dedupSince: 0,
  events: [
    { index: 0, eventName: 'lead', eventId: 'kept', eventTime: 1, usage: [], json: '{"event_id":"kept"}' },
  ],
  failures: [],
};

/** An entry as version 2 wrote it: the body as received, a raw e-mail address in it. */
const oldEntry: RequestLogWrite = {
  requestId: 'old',
  clientRequestId: null,
  receivedAt: 1000,
  adAccountId: '1',
  tokenId: 'conv',
  test: false,
  status: 200,
  durationMs: 1,
  events: 1,
  processed: 1,
  failed: 0,
  warned: 1,
  eventNames: ['lead'],
  error: null,
  body: `{"data":[{"event_id":"kept","user_data":{"em":["${RAW_EMAIL}"]}}]}`,
  bodyTruncated: false,
  items: [],
  timeline: null,
};

test('C70: a version 2 file loses its request log, overwritten in the file and the WAL; events stay', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'ems-upgrade-'));
  const path = join(dir, 'events.db');
  const files = () =>
    readdirSync(dir)
      .map((f) => readFileSync(join(dir, f)).toString('latin1'))
      .join('');
  try {
    const first = new SqliteStore({ path });
    await first.commitBatch(batch);
    await first.appendRequests([oldEntry], {
      maxEntries: 100,
      maxBytes: 1_000_000,
      maxAgeMs: 3_600_000,
      now: 1000,
      timelineSince: 0,
    });
    first.database.pragma('user_version = 2');
    await first.close();
    // The raw value is in the file as version 2 left it: the search below reads what it must.
    expect(files()).toContain(RAW_EMAIL);

    const upgraded = new SqliteStore({ path });
    expect(upgraded.database.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    expect((await upgraded.listRequests({ limit: 10 })).items).toEqual([]);
    expect((await upgraded.listEvents({ limit: 10 })).items.map((e) => e.eventId)).toEqual(['kept']);
    expect(files()).not.toContain(RAW_EMAIL);
    expect(files()).toContain('"event_id":"kept"');
    await upgraded.close();
    expect(files()).not.toContain(RAW_EMAIL);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('C100: a version 3 file gains the outbox and keeps its events', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'ems-upgrade-'));
  const path = join(dir, 'events.db');
  try {
    const first = new SqliteStore({ path });
    await first.commitBatch(batch);
    await first.close();
    const raw = new Database(path);
    raw.exec('DROP TABLE outbox; PRAGMA user_version = 3;');
    raw.close();

    const upgraded = new SqliteStore({ path });
    expect(upgraded.database.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    expect((await upgraded.listEvents({ limit: 10 })).items.map((e) => e.eventId)).toEqual(['kept']);
    await upgraded.routeOutbox([{ sink: 'up', adAccounts: null }]);
    await upgraded.commitBatch({
      ...batch,
      requestId: 'new',
      events: [{ ...batch.events[0]!, eventId: 'new' }],
    });
    expect(await upgraded.outboxStats()).toEqual([
      { sink: 'up', pending: 1, dead: 0, oldestPendingAt: 1000 },
    ]);
    await upgraded.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('C112: a version 4 file gets seqs that never go back, and loses entries that name no event of theirs', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'ems-upgrade-'));
  const path = join(dir, 'events.db');
  try {
    const first = new SqliteStore({ path });
    await first.routeOutbox([{ sink: 'up', adAccounts: null }]);
    const events = (ids: string[]) => ids.map((id, index) => ({ ...batch.events[0]!, index, eventId: id }));
    await first.commitBatch({ ...batch, requestId: 'r1', events: events(['a', 'b', 'c']) });
    await first.close();
    // As version 4 made them: both tables without AUTOINCREMENT. Then what a deletion of version 4 left: c
    // deleted with its entry kept, and its seq given to d of another account, whose request is r2.
    const raw = new Database(path);
    raw.exec(`
      CREATE TABLE events_v4 AS SELECT * FROM events;
      CREATE TABLE outbox_v4 AS SELECT id, sink, ad_account_id, event_seq, request_id, created_at, state, attempts,
        next_at, lease_owner, lease_until, last_error, result, settled_at FROM outbox;
      DROP TABLE events; DROP TABLE outbox;
      CREATE TABLE events (seq INTEGER PRIMARY KEY, ad_account_id TEXT NOT NULL, event_name TEXT NOT NULL,
        event_id TEXT NOT NULL, event_time INTEGER NOT NULL, received_at INTEGER NOT NULL,
        request_id TEXT NOT NULL, usage TEXT NOT NULL, dedup_status TEXT NOT NULL, duplicates INTEGER NOT NULL,
        event TEXT NOT NULL);
      CREATE TABLE outbox (id INTEGER PRIMARY KEY, sink TEXT NOT NULL, ad_account_id TEXT NOT NULL,
        event_seq INTEGER NOT NULL, request_id TEXT NOT NULL, created_at INTEGER NOT NULL, state TEXT NOT NULL,
        attempts INTEGER NOT NULL, next_at INTEGER NOT NULL, lease_owner TEXT, lease_until INTEGER,
        last_error TEXT, result TEXT, settled_at INTEGER);
      INSERT INTO events SELECT * FROM events_v4; INSERT INTO outbox SELECT * FROM outbox_v4;
      DROP TABLE events_v4; DROP TABLE outbox_v4;
      UPDATE events SET ad_account_id = '2', event_id = 'd', request_id = 'r2' WHERE event_id = 'c';
      PRAGMA user_version = 4;
    `);
    raw.close();

    const upgraded = new SqliteStore({ path });
    expect(upgraded.database.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    const sql = upgraded.database
      .prepare("SELECT sql FROM sqlite_master WHERE type = 'table' AND name IN ('events', 'outbox')")
      .pluck()
      .all() as string[];
    expect(sql.every((s) => s.includes('AUTOINCREMENT'))).toBe(true);
    await upgraded.routeOutbox([{ sink: 'up', adAccounts: null }]);
    // c's entry named d's seq: gone. a and b are delivered as they were accepted, and nothing of account 2.
    const claimed = await upgraded.claimOutbox({
      sink: 'up',
      owner: 'o',
      now: 2000,
      leaseMs: 100,
      batchSize: 10,
      batchesPerAccount: 1,
      maxAccounts: 10,
    });
    expect(claimed.map((b) => [b.adAccountId, b.entries.map((e) => e.eventId)])).toEqual([['1', ['a', 'b']]]);
    // d, the newest event, deleted: the next event does not take its seq.
    upgraded.database.prepare("DELETE FROM events WHERE event_id = 'd'").run();
    await upgraded.commitBatch({ ...batch, requestId: 'r3', events: events(['e']) });
    const seqs = upgraded.database.prepare('SELECT seq FROM events ORDER BY seq').pluck().all() as number[];
    expect(seqs).toEqual([1, 2, 4]);
    await upgraded.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('C118: a version 5 file gains the client request id; its entries read with none, new ones keep theirs', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'ems-upgrade-'));
  const path = join(dir, 'events.db');
  const retention = { maxEntries: 100, maxBytes: 1e9, maxAgeMs: 1e12, now: 0, timelineSince: 0 };
  try {
    const first = new SqliteStore({ path });
    await first.appendRequests([{ ...oldEntry, body: null }], retention);
    await first.close();
    const raw = new Database(path);
    raw.exec('ALTER TABLE request_log DROP COLUMN client_request_id; PRAGMA user_version = 5;');
    raw.close();

    const upgraded = new SqliteStore({ path });
    expect(upgraded.database.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    await upgraded.appendRequests(
      [{ ...oldEntry, body: null, requestId: 'new', clientRequestId: 'trace-7', receivedAt: 2000 }],
      retention,
    );
    const page = await upgraded.listRequests({ limit: 10 });
    expect(page.items.map((e) => [e.requestId, e.clientRequestId])).toEqual([
      ['new', 'trace-7'],
      ['old', null],
    ]);
    expect(
      (await upgraded.listRequests({ limit: 10, clientRequestId: 'trace-7' })).items.map((e) => e.requestId),
    ).toEqual(['new']);
    await upgraded.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('C121: a version 6 file gains the deletion requests and the counter of their ids', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'ems-upgrade-'));
  const path = join(dir, 'events.db');
  try {
    const first = new SqliteStore({ path });
    await first.close();
    const raw = new Database(path);
    raw.exec('DROP TABLE deletion_requests; DROP TABLE deletion_request_ids; PRAGMA user_version = 6;');
    raw.close();

    const upgraded = new SqliteStore({ path });
    expect(upgraded.database.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    const made = await upgraded.createDeletionRequest('1', { em: [], click_id: ['e'] }, 5);
    expect(made.requestId).toBe('5000');
    await upgraded.close();
    // Opened again, the counter goes on from where it was.
    const again = new SqliteStore({ path });
    expect((await again.createDeletionRequest('1', { em: [], click_id: ['e'] }, 5)).requestId).toBe('5001');
    expect((await again.listDeletionRequests('1')).map((r) => r.requestId)).toEqual(['5001', '5000']);
    await again.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('C127: a version 7 file gains the entries of deletion requests; its pending entries go first', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'ems-upgrade-'));
  const path = join(dir, 'events.db');
  try {
    const first = new SqliteStore({ path });
    await first.routeOutbox([{ sink: 'up', adAccounts: null }]);
    await first.commitBatch({ ...batch, requestId: 'r1', events: batch.events.slice(0, 1) });
    await first.createDeletionRequest('1', { em: [], click_id: ['e'] }, 5);
    await first.close();
    const raw = new Database(path);
    raw.exec(`DROP INDEX outbox_deletions;
      ALTER TABLE outbox DROP COLUMN deletion_request_id; ALTER TABLE outbox DROP COLUMN payload;
      ALTER TABLE deletion_requests DROP COLUMN upstream_status;
      ALTER TABLE deletion_requests DROP COLUMN upstream_processed_at;
      ALTER TABLE deletion_requests DROP COLUMN upstream_request_id;
      PRAGMA user_version = 7;`);
    raw.close();

    const upgraded = new SqliteStore({ path });
    expect(upgraded.database.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    // The request of version 7 reads as before.
    expect((await upgraded.listDeletionRequests('1')).map((r) => [r.requestId, r.status])).toEqual([
      ['5000', 'SUBMITTED'],
    ]);
    await upgraded.routeOutbox([{ sink: 'up', adAccounts: null, deletions: true }]);
    const made = await upgraded.createDeletionRequest('1', { em: [], click_id: ['f'] }, 6);
    expect(made).toMatchObject({ requestId: '6000', status: 'PENDING', processedAt: null });
    const claimed = await upgraded.claimOutbox({
      sink: 'up',
      owner: 'D',
      now: 10_000,
      leaseMs: 100,
      batchSize: 10,
      batchesPerAccount: 2,
      maxAccounts: 1,
    });
    expect(claimed.map((b) => b.deletion?.requestId ?? b.entries.map((e) => e.eventId))).toEqual([
      [batch.events[0]?.eventId],
      '6000',
    ]);
    await upgraded.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
