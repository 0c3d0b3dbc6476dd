// C111: a SQLite file the server creates has 8 KiB pages; a file created before keeps its own page size and
// its events.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, expect, test } from 'vitest';
import type { BatchWrite } from '../src/store/interface/events.js';
import { SqliteStore } from '../src/store/sqlite/sqlite-store.js';

const dir = mkdtempSync(join(tmpdir(), 'ems-page-size-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const batch = (id: string): BatchWrite => ({
  adAccountId: '1',
  requestId: `r-${id}`,
  receivedAt: 1000,
  dedupSince: 0,
  events: [
    { index: 0, eventName: 'lead', eventId: id, eventTime: 1, usage: [], json: `{"event_id":"${id}"}` },
  ],
  failures: [],
});

function pageSize(path: string): number {
  const db = new Database(path, { readonly: true });
  try {
    return db.pragma('page_size', { simple: true }) as number;
  } finally {
    db.close();
  }
}

test('a new file gets 8 KiB pages, in WAL mode', async () => {
  const path = join(dir, 'new.db');
  const store = new SqliteStore({ path });
  await store.commitBatch(batch('a'));
  await store.close();
  expect(pageSize(path)).toBe(8192);
  const db = new Database(path, { readonly: true });
  expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
  db.close();
});

test('a file made with 4 KiB pages keeps them, and its events, when the server opens it again', async () => {
  const path = join(dir, 'old.db');
  const old = new Database(path);
  old.pragma('page_size = 4096');
  old.pragma('journal_mode = WAL');
  old.exec('CREATE TABLE earlier (x INTEGER)');
  old.close();
  const store = new SqliteStore({ path });
  await store.commitBatch(batch('b'));
  const page = await store.listEvents({ adAccountId: '1', limit: 10 });
  expect(page.items.map((e) => e.eventId)).toEqual(['b']);
  await store.close();
  expect(pageSize(path)).toBe(4096);
});
