// A version 1 SQLite file (before the request log, C60) gains the new tables when a newer server opens it,
// and keeps its events. A version 2 file loses its request log entries, which may hold values refused as
// personal data (C70), overwritten in the file and its WAL, and keeps everything else.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { expect, test } from 'vitest';
import { SCHEMA_VERSION } from '../src/store/sqlite-schema.js';
import { SqliteStore } from '../src/store/sqlite-store.js';
import type { BatchWrite, RequestLogWrite } from '../src/store/store.js';

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
