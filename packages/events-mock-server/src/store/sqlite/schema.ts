/** Schema version kept in PRAGMA user_version; a file of a newer version is refused rather than damaged. */
export const SCHEMA_VERSION = 8;

/**
 * Version 3 (C70): request log entries of earlier versions may hold values refused or dropped as personal
 * data; they are deleted with `secure_delete`, so their bytes are overwritten in the file rather than left in
 * free pages, and the WAL is then checkpointed and truncated.
 */
export const UPGRADE_TO_3_SQL = `
PRAGMA secure_delete = ON;
DELETE FROM request_log;
PRAGMA secure_delete = OFF;
`;

/**
 * Version 5 (decision 0041): events.seq and outbox.id never go back. Without AUTOINCREMENT, SQLite gives a
 * new row the largest rowid plus one, so deleting the newest events (C91) handed their seqs to the next
 * events stored, of any account, and an outbox entry naming a deleted event then named another one.
 */
function eventsTable(): string {
  return `CREATE TABLE IF NOT EXISTS events (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  ad_account_id TEXT NOT NULL,
  event_name TEXT NOT NULL,
  event_id TEXT NOT NULL,
  event_time INTEGER NOT NULL,
  received_at INTEGER NOT NULL,
  request_id TEXT NOT NULL,
  usage TEXT NOT NULL,
  dedup_status TEXT NOT NULL,
  duplicates INTEGER NOT NULL,
  event TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS events_by_account ON events (ad_account_id, seq);
CREATE INDEX IF NOT EXISTS events_by_key ON events (ad_account_id, event_id, event_name);`;
}

/**
 * Version 4. C100: the delivery outbox, one entry per stored event and sink covering its account, written in
 * the batch's transaction only while a sink is configured. The event itself is read from events when claimed,
 * by its account and seq.
 */
function outboxTable(): string {
  return `CREATE TABLE IF NOT EXISTS outbox (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  sink TEXT NOT NULL,
  ad_account_id TEXT NOT NULL,
  event_seq INTEGER NOT NULL,
  request_id TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  state TEXT NOT NULL,
  attempts INTEGER NOT NULL,
  next_at INTEGER NOT NULL,
  lease_owner TEXT,
  lease_until INTEGER,
  last_error TEXT,
  result TEXT,
  settled_at INTEGER
);
-- Claims (the oldest pending entries of an account), depth and dead counts.
CREATE INDEX IF NOT EXISTS outbox_by_state ON outbox (sink, state, ad_account_id, id);
-- The inspector's delivery status of a request's events.
CREATE INDEX IF NOT EXISTS outbox_by_request ON outbox (request_id);
-- Retention: the delivered entries settled before a time, without reading the others.
CREATE INDEX IF NOT EXISTS outbox_delivered ON outbox (settled_at) WHERE state = 'delivered';`;
}

/** Whether a file's table was made before version 5 (its seqs may go back). */
export const REUSES_IDS_SQL =
  "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name IN ('events', 'outbox') AND sql NOT LIKE '%AUTOINCREMENT%'";

/**
 * From a file of versions 1-4: both tables rebuilt with AUTOINCREMENT, in one transaction. The outbox
 * entries that name no event of their account and request (deleted, or a seq since taken by another event)
 * are removed: delivering them would send what was deleted, or another account's event.
 */
export const UPGRADE_TO_5_SQL = `
BEGIN IMMEDIATE;
DROP INDEX IF EXISTS events_by_account;
DROP INDEX IF EXISTS events_by_key;
ALTER TABLE events RENAME TO events_v4;
${eventsTable()}
INSERT INTO events SELECT * FROM events_v4;
DROP TABLE events_v4;
DROP INDEX IF EXISTS outbox_by_state;
DROP INDEX IF EXISTS outbox_by_request;
ALTER TABLE outbox RENAME TO outbox_v4;
${outboxTable()}
INSERT INTO outbox SELECT * FROM outbox_v4 o WHERE EXISTS (
  SELECT 1 FROM events e WHERE e.seq = o.event_seq AND e.ad_account_id = o.ad_account_id AND e.request_id = o.request_id
);
DROP TABLE outbox_v4;
COMMIT;
`;

/**
 * Tables of the embedded store (C8, C10, C11, C6). Times are milliseconds since the epoch except event_time
 * (Unix seconds, as sent) and created_at of custom event types (Unix seconds, as answered).
 */
/** Version 6 (C118): a file of an earlier version gains the client's request id beside the service's own. */
export const LACKS_CLIENT_REQUEST_ID_SQL =
  "SELECT count(*) = 0 FROM pragma_table_info('request_log') WHERE name = 'client_request_id'";
export const UPGRADE_TO_6_SQL = 'ALTER TABLE request_log ADD COLUMN client_request_id TEXT';

/**
 * Version 8 (C127): a conversion deletion request passed on to an upstream is an outbox entry of its own:
 * `deletion_request_id` names the request (`event_seq` is 0, no event's) and `payload` holds the body to send
 * until the upstream took it. The request keeps what the upstream answered. Run on every file without them,
 * a new one included (its tables are made in the version 7 shape first).
 */
export const LACKS_DELETION_ENTRIES_SQL =
  "SELECT count(*) = 0 FROM pragma_table_info('outbox') WHERE name = 'deletion_request_id'";
export const UPGRADE_TO_8_OUTBOX_SQL = `
BEGIN IMMEDIATE;
ALTER TABLE outbox ADD COLUMN deletion_request_id INTEGER;
ALTER TABLE outbox ADD COLUMN payload TEXT;
CREATE INDEX IF NOT EXISTS outbox_deletions ON outbox (ad_account_id, deletion_request_id)
  WHERE deletion_request_id IS NOT NULL;
COMMIT;
`;
export const LACKS_UPSTREAM_ANSWER_SQL =
  "SELECT count(*) = 0 FROM pragma_table_info('deletion_requests') WHERE name = 'upstream_status'";
export const UPGRADE_TO_8_DELETIONS_SQL = `
BEGIN IMMEDIATE;
ALTER TABLE deletion_requests ADD COLUMN upstream_status TEXT;
ALTER TABLE deletion_requests ADD COLUMN upstream_processed_at INTEGER;
ALTER TABLE deletion_requests ADD COLUMN upstream_request_id TEXT;
COMMIT;
`;

export const SCHEMA_SQL = `
CREATE TABLE IF NOT EXISTS ad_accounts (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  currency TEXT NOT NULL,
  owner_user_id TEXT
);
CREATE TABLE IF NOT EXISTS apps (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  tier TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS users (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS user_roles (
  user_id TEXT NOT NULL,
  ad_account_id TEXT NOT NULL,
  role TEXT NOT NULL,
  PRIMARY KEY (user_id, ad_account_id)
);
-- C8: a digest only, never the token.
CREATE TABLE IF NOT EXISTS tokens (
  id TEXT PRIMARY KEY,
  kind TEXT NOT NULL,
  sha256 BLOB NOT NULL UNIQUE,
  ad_account_id TEXT,
  user_id TEXT,
  app_id TEXT,
  scopes TEXT NOT NULL,
  revoked INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS custom_event_types (
  ad_account_id TEXT NOT NULL,
  name_key TEXT NOT NULL,
  name TEXT NOT NULL,
  mapped_event_name TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  PRIMARY KEY (ad_account_id, name_key)
);
-- C11: processed, non-test events as accepted. The second index is also the dedup index of C6: the stored
-- rows of a key within the window are its earlier sightings, so no separate dedup table has to be written.
${eventsTable()}
-- C6: events seen by the service's own tracking tag (admin API); seen_at is their event_time.
CREATE TABLE IF NOT EXISTS tag_events (
  ad_account_id TEXT NOT NULL,
  event_name TEXT NOT NULL,
  event_id TEXT NOT NULL,
  seen_at INTEGER NOT NULL,
  event_time INTEGER NOT NULL,
  PRIMARY KEY (ad_account_id, event_id, event_name)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS event_counts (
  ad_account_id TEXT NOT NULL,
  event_name TEXT NOT NULL,
  usage TEXT NOT NULL,
  processed INTEGER NOT NULL,
  duplicates INTEGER NOT NULL,
  PRIMARY KEY (ad_account_id, event_name)
) WITHOUT ROWID;
-- C11: failed events are counted, never stored.
CREATE TABLE IF NOT EXISTS failure_counts (
  ad_account_id TEXT NOT NULL,
  event_name TEXT NOT NULL,
  code TEXT NOT NULL,
  count INTEGER NOT NULL,
  PRIMARY KEY (ad_account_id, event_name, code)
) WITHOUT ROWID;
-- Version 2. C60: every request to the events endpoint with its answer; received_at in ms. Tables of a new
-- version are created with IF NOT EXISTS, so a version 1 file gains them when opened.
CREATE TABLE IF NOT EXISTS request_log (
  seq INTEGER PRIMARY KEY,
  request_id TEXT NOT NULL,
  -- Version 6 (C118): the x-request-id its client sent, beside the service's own id.
  client_request_id TEXT,
  received_at INTEGER NOT NULL,
  ad_account_id TEXT NOT NULL,
  token_id TEXT,
  test INTEGER NOT NULL,
  status INTEGER NOT NULL,
  duration_ms REAL NOT NULL,
  events INTEGER NOT NULL,
  processed INTEGER NOT NULL,
  failed INTEGER NOT NULL,
  warned INTEGER NOT NULL,
  event_names TEXT NOT NULL,
  error_code INTEGER,
  error_message TEXT,
  body TEXT,
  body_truncated INTEGER NOT NULL,
  body_bytes INTEGER NOT NULL,
  items TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS request_log_by_id ON request_log (request_id, seq);
CREATE INDEX IF NOT EXISTS request_log_by_time ON request_log (received_at);
CREATE INDEX IF NOT EXISTS request_log_by_account ON request_log (ad_account_id, seq);
-- Covers the running total of kept body bytes, newest first (retention by size).
CREATE INDEX IF NOT EXISTS request_log_bytes ON request_log (seq, body_bytes);
-- C63: live events per account and hour (Unix seconds of its start); code '' counts processed events.
CREATE TABLE IF NOT EXISTS timeline_counts (
  ad_account_id TEXT NOT NULL,
  hour INTEGER NOT NULL,
  code TEXT NOT NULL,
  count INTEGER NOT NULL,
  PRIMARY KEY (ad_account_id, hour, code)
) WITHOUT ROWID;
${outboxTable()}
-- Version 7 (C121): conversion deletion requests (never their targets), written in their deletion's
-- transaction, and the one counter row their ids come from: it never goes back, so an id is never given
-- twice. A file of an earlier version gains both when opened.
CREATE TABLE IF NOT EXISTS deletion_requests (
  id INTEGER PRIMARY KEY,
  ad_account_id TEXT NOT NULL,
  status TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  processed_at INTEGER,
  events INTEGER NOT NULL,
  outbox_entries INTEGER NOT NULL,
  request_bodies INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS deletion_requests_by_account ON deletion_requests (ad_account_id, id);
CREATE TABLE IF NOT EXISTS deletion_request_ids (
  one INTEGER PRIMARY KEY CHECK (one = 1),
  last INTEGER NOT NULL
);
INSERT OR IGNORE INTO deletion_request_ids (one, last) VALUES (1, 0);
`;
