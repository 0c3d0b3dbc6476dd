/**
 * The PostgreSQL schema as ordered migrations (C45). Each is applied once, in a transaction, and recorded
 * with a checksum of its text in `schema_migrations`; an applied migration is never edited (a later one
 * changes what it made), so a changed checksum stops the server instead of running against a schema it
 * does not know. Times are milliseconds since the epoch except event_time (Unix seconds, as sent) and
 * created_at of custom event types (Unix seconds, as answered), as in the SQLite store.
 */
import { INGEST_SCHEMA_SQL } from './migration-ingest.js';
import {
  OUTBOX_DELETIONS_MIGRATION_SQL,
  OUTBOX_INDEX_MIGRATION_SQL,
  OUTBOX_MIGRATION_SQL,
} from './outbox/outbox-sql.js';

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'directory, events, dedup keys, counters',
    sql: `
CREATE TABLE ad_accounts (
  id text PRIMARY KEY,
  name text NOT NULL,
  currency text NOT NULL,
  owner_user_id text
);
CREATE TABLE apps (
  id text PRIMARY KEY,
  name text NOT NULL,
  tier text NOT NULL
);
CREATE TABLE users (
  id text PRIMARY KEY,
  name text NOT NULL
);
CREATE TABLE user_roles (
  user_id text NOT NULL,
  ad_account_id text NOT NULL,
  role text NOT NULL,
  PRIMARY KEY (user_id, ad_account_id)
);
-- C8: a digest only, never the token.
CREATE TABLE tokens (
  id text PRIMARY KEY,
  kind text NOT NULL,
  sha256 bytea NOT NULL UNIQUE,
  ad_account_id text,
  user_id text,
  app_id text,
  scopes text[] NOT NULL,
  revoked boolean NOT NULL
);
CREATE TABLE custom_event_types (
  ad_account_id text NOT NULL,
  name_key text NOT NULL,
  name text NOT NULL,
  mapped_event_name text NOT NULL,
  created_at bigint NOT NULL,
  PRIMARY KEY (ad_account_id, name_key)
);
-- C11: processed, non-test events as accepted, in the text they were accepted as.
CREATE TABLE events (
  seq bigserial PRIMARY KEY,
  ad_account_id text NOT NULL,
  event_name text NOT NULL,
  event_id text NOT NULL,
  event_time bigint NOT NULL,
  received_at bigint NOT NULL,
  request_id text NOT NULL,
  usage text NOT NULL,
  dedup_status text NOT NULL,
  duplicates integer NOT NULL,
  event text NOT NULL
);
CREATE INDEX events_by_account ON events (ad_account_id, seq);
CREATE INDEX events_by_key ON events (ad_account_id, event_id, event_name);
-- C6, C46: the first sighting of each key, by the API or by the tracking tag. The primary key is what makes
-- two instances racing on one event_id store it once: the second insert meets the first's row and takes the
-- ON CONFLICT path, which only replaces a sighting older than the window.
CREATE TABLE dedup_keys (
  ad_account_id text NOT NULL,
  event_name text NOT NULL,
  event_id text NOT NULL,
  source text NOT NULL,
  seen_at bigint NOT NULL,
  event_time bigint NOT NULL,
  PRIMARY KEY (ad_account_id, event_name, event_id)
);
CREATE INDEX dedup_keys_by_seen ON dedup_keys (seen_at);
-- Counters are split in shards, one per connection (its backend pid modulo 64) and summed when read: a
-- single row per (account, name) would be locked by every batch of the account until it commits, which
-- serializes all of them.
CREATE TABLE event_counts (
  ad_account_id text NOT NULL,
  event_name text NOT NULL,
  shard smallint NOT NULL,
  usage text NOT NULL,
  processed bigint NOT NULL,
  duplicates bigint NOT NULL,
  PRIMARY KEY (ad_account_id, event_name, shard)
);
-- C11: failed events are counted, never stored.
CREATE TABLE failure_counts (
  ad_account_id text NOT NULL,
  event_name text NOT NULL,
  code text NOT NULL,
  shard smallint NOT NULL,
  count bigint NOT NULL,
  PRIMARY KEY (ad_account_id, event_name, code, shard)
);

-- One batch in one call (C46): a single round trip, one transaction, committed before the 200 (C11).
-- Every statement of a plpgsql function in READ COMMITTED takes a fresh snapshot, so the duplicates read in
-- step 2 include a key another instance committed while step 1 waited for it.
CREATE FUNCTION events_commit_batch(
  p_account text, p_request text, p_received bigint, p_since bigint,
  p_idx integer[], p_names text[], p_ids text[], p_times bigint[], p_usages text[], p_events text[],
  p_fail_names text[], p_fail_codes text[]
) RETURNS TABLE (dup_idx integer, dup_source text, dup_seen_at bigint, dup_event_time bigint)
LANGUAGE plpgsql AS $fn$
DECLARE
  v_new_names text[];
  v_new_ids text[];
  d_idx integer[];
  d_names text[];
  d_ids text[];
  d_sources text[];
  d_seen bigint[];
  d_times bigint[];
BEGIN
  -- 1. Claim the first occurrence of each key (in key order, so concurrent batches wait on each other in
  --    one order), and insert the events whose key was claimed.
  WITH input AS (
    SELECT * FROM unnest(p_idx, p_names, p_ids, p_times, p_usages, p_events) AS t(idx, name, id, etime, usage, ev)
  ), firsts AS (
    SELECT DISTINCT ON (name, id) * FROM input ORDER BY name, id, idx
  ), claimed AS (
    INSERT INTO dedup_keys AS d (ad_account_id, event_name, event_id, source, seen_at, event_time)
    SELECT p_account, name, id, 'api', p_received, etime FROM firsts ORDER BY name, id
    ON CONFLICT (ad_account_id, event_name, event_id) DO UPDATE
      SET source = 'api', seen_at = excluded.seen_at, event_time = excluded.event_time
      WHERE d.seen_at < p_since
    RETURNING d.event_name, d.event_id
  ), stored AS (
    INSERT INTO events (ad_account_id, event_name, event_id, event_time, received_at, request_id, usage,
                        dedup_status, duplicates, event)
    SELECT p_account, f.name, f.id, f.etime, p_received, p_request, f.usage, 'unique', 0, f.ev
    FROM firsts f JOIN claimed c ON c.event_name = f.name AND c.event_id = f.id
    ORDER BY f.idx
    RETURNING event_name, event_id
  )
  SELECT coalesce(array_agg(event_name), '{}'), coalesce(array_agg(event_id), '{}')
  INTO v_new_names, v_new_ids FROM stored;

  -- 2. Every other event is a duplicate: of an event stored just now by this batch, or of the sighting in
  --    dedup_keys (which may have been committed by another instance a moment ago).
  SELECT coalesce(array_agg(x.idx ORDER BY x.idx), '{}'), coalesce(array_agg(x.name ORDER BY x.idx), '{}'),
         coalesce(array_agg(x.id ORDER BY x.idx), '{}'), coalesce(array_agg(x.source ORDER BY x.idx), '{}'),
         coalesce(array_agg(x.seen_at ORDER BY x.idx), '{}'), coalesce(array_agg(x.event_time ORDER BY x.idx), '{}')
  INTO d_idx, d_names, d_ids, d_sources, d_seen, d_times
  FROM (
    SELECT i.idx, i.name, i.id,
           CASE WHEN n.name IS NOT NULL THEN 'api' ELSE d.source END AS source,
           CASE WHEN n.name IS NOT NULL THEN p_received ELSE d.seen_at END AS seen_at,
           CASE WHEN n.name IS NOT NULL THEN f.etime ELSE d.event_time END AS event_time
    FROM unnest(p_idx, p_names, p_ids) AS i(idx, name, id)
    JOIN (SELECT DISTINCT ON (name, id) idx, name, id, etime
          FROM unnest(p_idx, p_names, p_ids, p_times) AS t(idx, name, id, etime)
          ORDER BY name, id, idx) f ON f.name = i.name AND f.id = i.id
    LEFT JOIN unnest(v_new_names, v_new_ids) AS n(name, id) ON n.name = i.name AND n.id = i.id
    LEFT JOIN dedup_keys d ON d.ad_account_id = p_account AND d.event_name = i.name AND d.event_id = i.id
    WHERE NOT (n.name IS NOT NULL AND i.idx = f.idx)
  ) x;

  -- 3. A duplicate of a stored API event is folded into that row (C6, C11).
  IF cardinality(d_idx) > 0 THEN
    UPDATE events e SET dedup_status = 'deduplicated', duplicates = e.duplicates + g.n
    FROM (SELECT name, id, seen_at, count(*) AS n
          FROM unnest(d_names, d_ids, d_sources, d_seen) AS u(name, id, source, seen_at)
          WHERE source = 'api' GROUP BY name, id, seen_at) g
    WHERE e.ad_account_id = p_account AND e.event_id = g.id AND e.event_name = g.name
      AND e.received_at = g.seen_at;
  END IF;

  -- 4. Counters per event name, then failures per name and reason code.
  INSERT INTO event_counts AS c (ad_account_id, event_name, shard, usage, processed, duplicates)
  SELECT p_account, i.name, pg_backend_pid() % 64, max(i.usage),
         count(*) FILTER (WHERE dd.idx IS NULL), count(*) FILTER (WHERE dd.idx IS NOT NULL)
  FROM unnest(p_idx, p_names, p_usages) AS i(idx, name, usage)
  LEFT JOIN unnest(d_idx) AS dd(idx) ON dd.idx = i.idx
  GROUP BY i.name ORDER BY i.name
  ON CONFLICT (ad_account_id, event_name, shard) DO UPDATE
    SET usage = excluded.usage, processed = c.processed + excluded.processed,
        duplicates = c.duplicates + excluded.duplicates;
  IF cardinality(p_fail_names) > 0 THEN
    INSERT INTO failure_counts AS f (ad_account_id, event_name, code, shard, count)
    SELECT p_account, fn, fc, pg_backend_pid() % 64, count(*) FROM unnest(p_fail_names, p_fail_codes) AS u(fn, fc)
    GROUP BY fn, fc ORDER BY fn, fc
    ON CONFLICT (ad_account_id, event_name, code, shard) DO UPDATE SET count = f.count + excluded.count;
  END IF;

  RETURN QUERY SELECT * FROM unnest(d_idx, d_sources, d_seen, d_times);
END
$fn$;
`,
  },
  {
    version: 2,
    name: 'request log and report timeline',
    sql: `
-- C60: every request to the events endpoint with its answer; received_at in ms.
CREATE TABLE request_log (
  seq bigserial PRIMARY KEY,
  request_id text NOT NULL,
  received_at bigint NOT NULL,
  ad_account_id text NOT NULL,
  token_id text,
  test boolean NOT NULL,
  status integer NOT NULL,
  duration_ms double precision NOT NULL,
  events integer NOT NULL,
  processed integer NOT NULL,
  failed integer NOT NULL,
  warned integer NOT NULL,
  event_names text NOT NULL,
  error_code integer,
  error_message text,
  body text,
  body_truncated boolean NOT NULL,
  body_bytes integer NOT NULL,
  items text NOT NULL
);
CREATE INDEX request_log_by_id ON request_log (request_id, seq);
CREATE INDEX request_log_by_time ON request_log (received_at);
CREATE INDEX request_log_by_account ON request_log (ad_account_id, seq);
-- Covers the running total of kept body bytes, newest first (retention by size).
CREATE INDEX request_log_bytes ON request_log (seq, body_bytes);
-- C63: live events per account and hour (Unix seconds of its start); code '' counts processed events.
CREATE TABLE timeline_counts (
  ad_account_id text NOT NULL,
  hour bigint NOT NULL,
  code text NOT NULL,
  count bigint NOT NULL,
  PRIMARY KEY (ad_account_id, hour, code)
);
`,
  },
  {
    version: 3,
    name: 'request log without values refused as personal data',
    // C70: entries of earlier versions may keep values refused or dropped as personal data. TRUNCATE gives
    // the table new files and unlinks the old ones at commit, rather than leaving dead rows until a vacuum.
    sql: `
TRUNCATE request_log;
`,
  },
  { version: 4, name: 'ingest-shaped events and sightings, partitioned by time', sql: INGEST_SCHEMA_SQL },
  { version: 5, name: 'delivery outbox (C100)', sql: OUTBOX_MIGRATION_SQL },
  {
    version: 6,
    name: 'outbox claims by index, entries of deleted events removed (C112, C114)',
    sql: OUTBOX_INDEX_MIGRATION_SQL,
  },
  {
    version: 7,
    name: "the client's request id beside the service's own (C118)",
    sql: 'ALTER TABLE request_log ADD COLUMN client_request_id text;\n',
  },
  {
    version: 8,
    name: 'conversion deletion requests and the counter of their ids (C121)',
    // The key leads with the account (C82: deletion_requests distributed by account, deletion_request_ids a
    // reference table); the counter row gives every id once, whatever the account.
    sql: `
CREATE TABLE deletion_requests (
  id bigint NOT NULL,
  ad_account_id text NOT NULL,
  status text NOT NULL,
  created_at bigint NOT NULL,
  processed_at bigint,
  events integer NOT NULL,
  outbox_entries integer NOT NULL,
  request_bodies integer NOT NULL,
  PRIMARY KEY (ad_account_id, id)
);
CREATE TABLE deletion_request_ids (
  one integer PRIMARY KEY CHECK (one = 1),
  last bigint NOT NULL
);
INSERT INTO deletion_request_ids (one, last) VALUES (1, 0);
`,
  },
  {
    version: 9,
    name: 'conversion deletion requests passed on to an upstream through the outbox (C127)',
    sql: OUTBOX_DELETIONS_MIGRATION_SQL,
  },
  {
    version: 10,
    name: 'the batch call plans its statements once per connection (C131)',
    // A custom plan per call cost 74 µs of planning per call at one event per request (the probe of the
    // earlier days' sightings over their partitions); generic plans prune partitions when they run.
    sql: `
ALTER FUNCTION events_commit_batches(text, text[], bigint[], bigint[], integer[], text[], text[], bigint[],
  text[], text, text[], text[]) SET plan_cache_mode = force_generic_plan;
ALTER FUNCTION events_commit_batches_to(text[], text, text[], bigint[], bigint[], integer[], text[], text[],
  bigint[], text[], text, text[], text[]) SET plan_cache_mode = force_generic_plan;
`,
  },
];
