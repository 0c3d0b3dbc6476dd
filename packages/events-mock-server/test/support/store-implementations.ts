// Every Store implementation the conformance suites run against (C11, C45-C47, issue 36): SQLite in memory,
// an SQLite file, the SQLite file on its own thread, and PostgreSQL on a database of its own (when the test
// server answers; else its suites are skipped, said on one visible line). Each opens an empty store.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import type { Store } from '../../src/store/interface/store.js';
import { PgStore } from '../../src/store/pg/pg-store.js';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { ThreadedSqliteStore } from '../../src/store/threaded-store.js';
import { createTestDatabase, postgresReachable } from './postgres.js';
import { QUICK_RUN } from './services.js';

export interface OpenedStore {
  store: Store;
  /** Deletes an account's events behind the store's back, leaving their outbox entries (as an earlier version did). */
  dropEvents(adAccountId: string): Promise<void>;
  /** Closes the store (again, if a test closed it) and removes its file or drops its database. */
  cleanup(): Promise<void>;
}

export interface StoreImplementation {
  name: string;
  /** False when what it needs is missing (the PostgreSQL server): its suite is skipped. */
  run: boolean;
  open(): Promise<OpenedStore>;
}

const tempDir = () => mkdtempSync(join(tmpdir(), 'ems-conformance-'));

/** A second connection to the file (WAL): the store sees the change on its next read. */
function dropEventsOfFile(path: string) {
  return async (adAccountId: string) => {
    const db = new Database(path);
    try {
      db.pragma('busy_timeout = 5000');
      db.prepare('DELETE FROM events WHERE ad_account_id = ?').run(adAccountId);
    } finally {
      db.close();
    }
  };
}

/** An SqliteStore in this thread, on `path` (`:memory:` or a file of a fresh folder). */
function sqliteStore(path: ':memory:' | 'file'): () => Promise<OpenedStore> {
  return async () => {
    const dir = path === 'file' ? tempDir() : null;
    const store = new SqliteStore({ path: dir ? join(dir, 'events.db') : ':memory:' });
    return {
      store,
      dropEvents: async (a) =>
        void store.database.prepare('DELETE FROM events WHERE ad_account_id = ?').run(a),
      async cleanup() {
        await store.close();
        if (dir) rmSync(dir, { recursive: true, force: true });
      },
    };
  };
}

export const STORE_IMPLEMENTATIONS: readonly StoreImplementation[] = [
  { name: 'SQLite :memory:', run: true, open: sqliteStore(':memory:') },
  { name: 'SQLite file', run: true, open: sqliteStore('file') },
  {
    name: 'SQLite file on its thread',
    // A thread started per test (about half a second each): `pnpm test:quick` leaves it to the full run.
    run: !QUICK_RUN,
    async open() {
      const dir = tempDir();
      const path = join(dir, 'events.db');
      const store = await ThreadedSqliteStore.open({ path });
      return {
        store,
        dropEvents: dropEventsOfFile(path),
        async cleanup() {
          await store.close();
          rmSync(dir, { recursive: true, force: true });
        },
      };
    },
  },
  {
    name: 'PostgreSQL',
    run: await postgresReachable(),
    async open() {
      const db = await createTestDatabase();
      const store = await PgStore.open({ url: db.url });
      return {
        store,
        async dropEvents(a) {
          const c = new pg.Client({ connectionString: db.url });
          await c.connect();
          try {
            await c.query('DELETE FROM events WHERE ad_account_id = $1', [a]);
          } finally {
            await c.end();
          }
        },
        async cleanup() {
          await store.close();
          await db.drop();
        },
      };
    },
  },
];
