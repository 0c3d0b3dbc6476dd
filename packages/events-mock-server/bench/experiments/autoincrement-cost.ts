// What AUTOINCREMENT (C112, SQLite schema 5) costs a stored batch: the events table with and without it, the
// same indexes, 1000-row batches inserted much as SqliteStore does (multi-row statements, here of 100 rows
// to divide 1000; one transaction per batch, WAL, synchronous=FULL, 8 KiB pages), the two files taking turns batch by batch.
// Usage: node --import tsx bench/experiments/autoincrement-cost.ts [batches]. Three runs of 300 batches:
// 6.05/5.95, 5.97/5.97, 6.07/6.16 ms per batch without/with: no cost that shows.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { bodyParts } from '../bench-body.js';

const BATCHES = Number(process.argv[2] ?? 300);
const CHUNK = 100;
const dir = mkdtempSync(join(tmpdir(), 'ems-autoinc-'));
const open = (name: string, autoincrement: boolean) => {
  const db = new Database(join(dir, `${name}.db`));
  db.pragma('page_size = 8192');
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.pragma('cache_size = -16384');
  db.exec(`CREATE TABLE events (seq INTEGER PRIMARY KEY${autoincrement ? ' AUTOINCREMENT' : ''},
    ad_account_id TEXT NOT NULL, event_name TEXT NOT NULL, event_id TEXT NOT NULL, event_time INTEGER NOT NULL,
    received_at INTEGER NOT NULL, request_id TEXT NOT NULL, usage TEXT NOT NULL, dedup_status TEXT NOT NULL,
    duplicates INTEGER NOT NULL, event TEXT NOT NULL);
    CREATE INDEX events_by_account ON events (ad_account_id, seq);
    CREATE INDEX events_by_key ON events (ad_account_id, event_id, event_name);`);
  const insert = db.prepare(
    `INSERT INTO events (ad_account_id, event_name, event_id, event_time, received_at, request_id, usage,
       dedup_status, duplicates, event) VALUES ${Array(CHUNK).fill("(?, ?, ?, ?, ?, ?, ?, 'unique', 0, ?)").join(',')}`,
  );
  const commit = db.transaction((rows: unknown[][]) => {
    for (let i = 0; i < rows.length; i += CHUNK) insert.run(...rows.slice(i, i + CHUNK).flat());
  });
  return { db, commit, ms: 0 };
};
const files = { plain: open('plain', false), autoincrement: open('autoincrement', true) };
const parts = bodyParts(1000);
for (let b = 0; b < BATCHES; b++) {
  const events = (JSON.parse(parts.join(`x${b}`)) as { data: { event_name: string; event_id: string }[] })
    .data;
  const rows = events.map((e) => [
    '549755885175',
    e.event_name,
    e.event_id,
    1,
    Date.now(),
    `r${b}`,
    '',
    JSON.stringify(e),
  ]);
  const order = b % 2 ? (['plain', 'autoincrement'] as const) : (['autoincrement', 'plain'] as const);
  for (const k of order) {
    const t = performance.now();
    files[k].commit(rows);
    files[k].ms += performance.now() - t;
  }
}
for (const [k, f] of Object.entries(files)) {
  process.stdout.write(`${k}: ${(f.ms / BATCHES).toFixed(2)} ms per 1000-event batch\n`);
  f.db.close();
}
rmSync(dir, { recursive: true, force: true });
