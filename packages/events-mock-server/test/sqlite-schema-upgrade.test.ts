// A version 1 SQLite file (before the request log, C60) gains the new tables when a version 2 server opens
// it, and keeps its events.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { expect, test } from 'vitest';
import { SqliteStore } from '../src/store/sqlite-store.js';

test('a version 1 file is upgraded to version 2 in place', async () => {
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
    expect(upgraded.database.pragma('user_version', { simple: true })).toBe(2);
    expect((await upgraded.listEvents({ limit: 10 })).items.map((e) => e.eventId)).toEqual(['kept']);
    expect((await upgraded.listRequests({ limit: 10 })).items).toEqual([]);
    await upgraded.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
