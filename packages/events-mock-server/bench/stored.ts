// What a stored row measures besides its rate (issue 37): the database's CPU, statements, and the bytes each
// event leaves in the store, read before and after the measured run of a row. A window starts after the
// warm-up; `finish` takes the run's requests and events (answered with 200).
//
// - table / indexes: growth of the allocated size of every table (heap, TOAST, free-space map) and of every
//   index over the run, per event; the request log's tables apart. PostgreSQL: pg_table_size and
//   pg_indexes_size of each table in public; SQLite: dbstat pages of each table and index.
// - request log: the bytes one entry holds (rows and index entries, live data without page overhead: the log
//   keeps 10,000 entries, so its size stops growing within a run) divided by the events of a request.
//   PostgreSQL: pgstattuple's tuple_len of request_log and its indexes; SQLite: dbstat payload.
// - WAL: PostgreSQL, the WAL inserted over the run (pg_current_wal_insert_lsn): the whole server's, so other
//   databases' writes count too, and `otherWrites` says whether there were any; SQLite, what the server
//   process wrote to disk (/proc/<pid>/io write_bytes: the WAL and the checkpoints into the database file,
//   request log included, in page-cache pages dirtied).
// - database CPU (PostgreSQL): the row's database's client backends, from /proc (postgres.ts).
// - statements (SQLite): counted in the process by sqlite-statements.mjs; PostgreSQL's come from a counting
//   pass of their own (pg-wire-count.ts) and are set on the figures after.
import { readFileSync } from 'node:fs';
import Database from 'better-sqlite3';
import pg from 'pg';
import type { WireCounts } from './pg-wire-count.js';
import { backendCpu } from './postgres.js';

export interface StatementCounts {
  statements: number;
  transactions: number;
  writes: number;
}

export interface StoredFigures {
  /** Database backends' CPU µs per event (PostgreSQL), null for SQLite (it is the server's own CPU). */
  dbCpuPerEvent: number | null;
  statementsPerRequest: number | null;
  /** Round trips to the database per request (PostgreSQL); null in-process. */
  roundTripsPerRequest: number | null;
  transactionsPerRequest: number | null;
  /** Bytes sent to the database per request (PostgreSQL's counting pass). */
  bytesToDbPerRequest: number | null;
  tableBytesPerEvent: number | null;
  indexBytesPerEvent: number | null;
  /** Null when the row has no request log (a reference, or the log off). */
  logBytesPerEvent: number | null;
  walBytesPerEvent: number | null;
  /** Rows other databases of the server inserted, updated or deleted during the run (PostgreSQL). */
  otherWrites: number | null;
}

export interface StoredWindow {
  finish(requests: number, events: number): Promise<StoredFigures>;
}

/** A request log's tables, apart from the event tables. */
const isLog = (table: string) => table === 'request_log' || table === 'timeline_counts';

interface Sizes {
  table: number;
  indexes: number;
}

async function pgQuery<R extends pg.QueryResultRow>(
  url: string,
  sql: string,
  values?: unknown[],
): Promise<R[]> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return (await c.query<R>(sql, values)).rows;
  } finally {
    await c.end();
  }
}

export function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

async function pgSizes(url: string): Promise<Sizes> {
  const rows = await pgQuery<{ relname: string; heap: string; idx: string }>(
    url,
    `SELECT c.relname, pg_table_size(c.oid) AS heap, pg_indexes_size(c.oid) AS idx
     FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE n.nspname = 'public' AND c.relkind = 'r'`,
  );
  const s = { table: 0, indexes: 0 };
  for (const r of rows)
    if (!isLog(r.relname)) {
      s.table += Number(r.heap);
      s.indexes += Number(r.idx);
    }
  return s;
}

/** Bytes of one request log entry (row and index entries, live), or null without entries. */
async function pgLogEntryBytes(url: string): Promise<number | null> {
  const [has] = await pgQuery<{ t: string | null }>(
    url,
    "SELECT to_regclass('public.request_log')::text AS t",
  );
  if (!has?.t) return null;
  await pgQuery(url, 'CREATE EXTENSION IF NOT EXISTS pgstattuple');
  const [r] = await pgQuery<{ entries: string; bytes: string }>(
    url,
    `SELECT (SELECT tuple_count FROM pgstattuple('request_log')) AS entries,
            (SELECT sum((pgstattuple(x)).tuple_len) FROM unnest(
               ARRAY['request_log'::regclass] ||
               ARRAY(SELECT indexrelid::regclass FROM pg_index WHERE indrelid = 'request_log'::regclass)) AS x) AS bytes`,
  );
  const entries = Number(r?.entries ?? 0);
  return entries > 0 ? Number(r?.bytes ?? 0) / entries : null;
}

const otherWritesSql = `SELECT coalesce(sum(tup_inserted + tup_updated + tup_deleted), 0) AS n
  FROM pg_stat_database WHERE datname IS DISTINCT FROM $1`;

/** The window of a PostgreSQL row: `database` on the server of `adminUrl`. */
export async function pgWindow(adminUrl: string, database: string): Promise<StoredWindow> {
  const url = withDatabase(adminUrl, database);
  const cpu = await backendCpu(adminUrl, database);
  const before = await pgSizes(url);
  const [lsn] = await pgQuery<{ lsn: string }>(adminUrl, 'SELECT pg_current_wal_insert_lsn()::text AS lsn');
  const [others] = await pgQuery<{ n: string }>(adminUrl, otherWritesSql, [database]);
  return {
    async finish(requests, events) {
      const dbMicros = cpu ? await cpu() : null;
      const [wal] = await pgQuery<{ bytes: string }>(
        adminUrl,
        'SELECT pg_wal_lsn_diff(pg_current_wal_insert_lsn(), $1::pg_lsn) AS bytes',
        [lsn?.lsn],
      );
      const [othersAfter] = await pgQuery<{ n: string }>(adminUrl, otherWritesSql, [database]);
      const after = await pgSizes(url);
      const entry = await pgLogEntryBytes(url);
      const per = (n: number) => (events > 0 ? n / events : null);
      return {
        dbCpuPerEvent: dbMicros === null ? null : per(dbMicros),
        statementsPerRequest: null,
        roundTripsPerRequest: null,
        transactionsPerRequest: null,
        bytesToDbPerRequest: null,
        tableBytesPerEvent: per(after.table - before.table),
        indexBytesPerEvent: per(after.indexes - before.indexes),
        logBytesPerEvent: entry === null || requests === 0 ? null : (entry * requests) / events,
        walBytesPerEvent: per(Number(wal?.bytes ?? 0)),
        otherWrites: Number(othersAfter?.n ?? 0) - Number(others?.n ?? 0),
      };
    },
  };
}

/** Sizes of a SQLite file's tables and indexes, and the live bytes of one request log entry. */
function sqliteSizes(file: string): Sizes & { logEntry: number | null } {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const rows = db
      .prepare(
        `SELECT m.tbl_name AS tbl, m.type AS type, sum(s.pgsize) AS size, sum(s.payload) AS payload
         FROM dbstat AS s JOIN sqlite_schema AS m ON m.name = s.name GROUP BY s.name`,
      )
      .all() as { tbl: string; type: string; size: number; payload: number }[];
    const s = { table: 0, indexes: 0, logEntry: null as number | null };
    let logPayload = 0;
    for (const r of rows) {
      if (r.tbl === 'request_log') logPayload += r.payload;
      if (isLog(r.tbl)) continue;
      if (r.type === 'index') s.indexes += r.size;
      else s.table += r.size;
    }
    const hasLog = rows.some((r) => r.tbl === 'request_log');
    const entries = hasLog ? (db.prepare('SELECT count(*) FROM request_log').pluck().get() as number) : 0;
    s.logEntry = entries > 0 ? logPayload / entries : null;
    return s;
  } finally {
    db.close();
  }
}

/** Bytes the process has caused to be written to storage (all threads), from /proc/<pid>/io. */
function writeBytes(pid: number): number | null {
  try {
    const m = /^write_bytes: (\d+)$/m.exec(readFileSync(`/proc/${pid}/io`, 'utf8'));
    return m ? Number(m[1]) : null;
  } catch {
    return null;
  }
}

/**
 * The window of a SQLite row: the server process `pid` writing `file`; `statements` asks the process for
 * its statement counts (sqlite-statements.mjs).
 */
export async function sqliteWindow(
  file: string,
  pid: number,
  statements: () => Promise<StatementCounts | null>,
): Promise<StoredWindow> {
  const before = sqliteSizes(file);
  const written = writeBytes(pid);
  const counted = await statements();
  return {
    async finish(requests, events) {
      const counts = await statements();
      const writtenAfter = writeBytes(pid);
      const after = sqliteSizes(file);
      const per = (n: number) => (events > 0 ? n / events : null);
      const perRequest = (n: number) => (requests > 0 && counts && counted ? n / requests : null);
      return {
        dbCpuPerEvent: null,
        statementsPerRequest: perRequest((counts?.statements ?? 0) - (counted?.statements ?? 0)),
        roundTripsPerRequest: null,
        transactionsPerRequest: perRequest((counts?.transactions ?? 0) - (counted?.transactions ?? 0)),
        bytesToDbPerRequest: null,
        tableBytesPerEvent: per(after.table - before.table),
        indexBytesPerEvent: per(after.indexes - before.indexes),
        logBytesPerEvent:
          after.logEntry === null || requests === 0 ? null : (after.logEntry * requests) / events,
        walBytesPerEvent: written === null || writtenAfter === null ? null : per(writtenAfter - written),
        otherWrites: null,
      };
    },
  };
}

/** A PostgreSQL row's figures with the counts of its counting pass (per request of that pass). */
export function withWireCounts(f: StoredFigures, c: WireCounts, requests: number): StoredFigures {
  const per = (n: number) => (requests > 0 ? n / requests : null);
  return {
    ...f,
    statementsPerRequest: per(c.statements),
    roundTripsPerRequest: per(c.roundTrips),
    transactionsPerRequest: per(c.transactions),
    bytesToDbPerRequest: per(c.bytesToDb),
  };
}
