/**
 * Migration 4 (C80-C82): the ingest-shaped schema. Applied in place to a database of migrations 1-3, its rows
 * moved over in the same transaction. What it makes:
 *
 * - `dedup_sightings`: one row per (ad account, key) and claim day, the key a 16-byte hash (uuid) of account,
 *   event name and event_id; partitioned by the day of the database's clock on which the sighting was
 *   recorded, so sightings leave by dropping a partition (C81). Its primary key is the one unique key of an
 *   event and includes ad_account_id (C82).
 * - `events`: partitioned by month of received_at, one index (its primary key, account first).
 * - Counters derived from `events` when read; `event_counts` keeps only what events cannot tell (duplicates
 *   of tag sightings, and the counts of events older than the window's rows when upgraded).
 * - `events_commit_batches`: batches of one account in one call, the event texts as one text (C80, C83).
 */

/** Minutes before midnight (database clock) in which a claim also takes the next day's row (C81). */
export const CLAIM_MARGIN_MS = 10 * 60 * 1000;
/** Seqs per batch call (C80): more than the events of any call (1000 per request, 1000 per group). */
export const SEQ_PER_CALL = 2 ** 20;
/** statement_timeout of the store's connections: a claim lives far shorter than the margin (C81). */
export const STATEMENT_TIMEOUT_MS = 60 * 1000;

export const INGEST_SCHEMA_SQL = `
-- The one unique key of an event (C80): fixed size, whatever the lengths of its parts; each part is prefixed
-- by its length, so no two different (account, name, id) give the same text to hash. Every operator in it is
-- immutable (the lengths cast to text), so calls are inlined rather than run as a function per row.
CREATE FUNCTION events_key(p_account text, p_name text, p_id text) RETURNS uuid
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT md5(length(p_account)::text || ':' || p_account || length(p_name)::text || ':' || p_name || p_id)::uuid
$$;
-- Days since the epoch on the database's clock (transaction start): the partition of a sighting (C81).
CREATE FUNCTION events_today() RETURNS integer
LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT (floor(extract(epoch FROM now()) / 86400))::integer
$$;

CREATE TABLE dedup_sightings (
  ad_account_id text NOT NULL,
  key_hash uuid NOT NULL,
  day integer NOT NULL,
  -- When the key was sighted: received_at of an API event, event_time (ms) of a tag event.
  seen_at bigint NOT NULL,
  event_time bigint NOT NULL,
  -- The stored event (its seq) of an API sighting; null for a tag sighting.
  event_seq bigint,
  PRIMARY KEY (ad_account_id, key_hash, day)
) PARTITION BY RANGE (day);

ALTER TABLE events RENAME TO events_v3;
ALTER INDEX events_pkey RENAME TO events_v3_pkey;
-- C80: a call's events take seqs call * ${SEQ_PER_CALL} + position, after every seq of migration 1.
CREATE SEQUENCE event_call_seq;
SELECT setval('event_call_seq', coalesce((SELECT max(seq) FROM events_v3), 0) / ${SEQ_PER_CALL} + 1, false);
-- The columns of migration 1, without the default of seq; one index, its primary key (C80, C82).
CREATE TABLE events (LIKE events_v3) PARTITION BY RANGE (received_at);
ALTER TABLE events ADD PRIMARY KEY (ad_account_id, seq, received_at);

-- Creates the partitions the given times (ms) need: the events month of each, and the sighting days of the
-- database's today and the next two. One caller at a time (instances, and a batch meeting a missing one).
CREATE FUNCTION events_ensure_partitions(p_times bigint[]) RETURNS void
LANGUAGE plpgsql AS $fn$
DECLARE
  d integer;
  m timestamp;
  v_from bigint;
  v_to bigint;
BEGIN
  PERFORM pg_advisory_xact_lock(7254300080);
  FOR d IN SELECT events_today() + k FROM generate_series(0, 2) AS k LOOP
    IF to_regclass(format('dedup_sightings_%s', d)) IS NULL THEN
      EXECUTE format('CREATE TABLE %I PARTITION OF dedup_sightings FOR VALUES FROM (%s) TO (%s)',
                     format('dedup_sightings_%s', d), d, d + 1);
    END IF;
  END LOOP;
  FOR m IN SELECT DISTINCT date_trunc('month', to_timestamp(t / 1000.0) AT TIME ZONE 'UTC')
           FROM unnest(p_times) AS t WHERE t >= 0 LOOP
    IF to_regclass(format('events_%s', to_char(m, 'YYYYMM'))) IS NULL THEN
      v_from := (extract(epoch FROM m) * 1000)::bigint;
      v_to := (extract(epoch FROM m + interval '1 month') * 1000)::bigint;
      EXECUTE format('CREATE TABLE %I PARTITION OF events FOR VALUES FROM (%s) TO (%s)',
                     format('events_%s', to_char(m, 'YYYYMM')), v_from, v_to);
    END IF;
  END LOOP;
END
$fn$;

-- Drops the sighting partitions no lookup reads any more (days before today - 2, C81): a sighting recorded
-- then is older than the window. Returns how many it dropped.
CREATE FUNCTION events_drop_old_sightings() RETURNS integer
LANGUAGE plpgsql AS $fn$
DECLARE
  r record;
  n integer := 0;
BEGIN
  PERFORM pg_advisory_xact_lock(7254300080);
  FOR r IN SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
           WHERE i.inhparent = 'dedup_sightings'::regclass
             AND c.relname ~ '^dedup_sightings_[0-9]+$'
             AND substring(c.relname FROM 17)::integer < events_today() - 2 LOOP
    EXECUTE format('DROP TABLE %I', r.relname);
    n := n + 1;
  END LOOP;
  RETURN n;
END
$fn$;

SELECT events_ensure_partitions(
  (SELECT coalesce(array_agg(DISTINCT received_at / 86400000 * 86400000), '{}') FROM events_v3)
  || (extract(epoch FROM now()) * 1000)::bigint
);
INSERT INTO events (seq, ad_account_id, event_name, event_id, event_time, received_at, request_id, usage,
                    dedup_status, duplicates, event)
SELECT seq, ad_account_id, event_name, event_id, event_time, received_at, request_id, usage,
       dedup_status, duplicates, event
FROM events_v3;

-- Every sighting of migration 1 moves to today's partition (whatever its age: the lookup filters by time).
INSERT INTO dedup_sightings (ad_account_id, key_hash, day, seen_at, event_time, event_seq)
SELECT d.ad_account_id, events_key(d.ad_account_id, d.event_name, d.event_id), events_today(), d.seen_at,
       d.event_time, e.seq
FROM dedup_keys d
LEFT JOIN LATERAL (
  SELECT v.seq FROM events_v3 v
  WHERE d.source = 'api' AND v.ad_account_id = d.ad_account_id AND v.event_id = d.event_id
    AND v.event_name = d.event_name AND v.received_at = d.seen_at
  ORDER BY v.seq LIMIT 1
) e ON true;

-- What the stored events cannot tell (C80): the counters minus what is derived from events when read.
ALTER TABLE event_counts RENAME TO event_counts_v3;
ALTER INDEX event_counts_pkey RENAME TO event_counts_v3_pkey;
CREATE TABLE event_counts (LIKE event_counts_v3 INCLUDING ALL);
INSERT INTO event_counts (ad_account_id, event_name, shard, usage, processed, duplicates)
SELECT c.ad_account_id, c.event_name, 0, c.usage, c.processed - coalesce(e.processed, 0),
       c.duplicates - coalesce(e.duplicates, 0)
FROM (SELECT ad_account_id, event_name, max(usage) AS usage, sum(processed) AS processed,
             sum(duplicates) AS duplicates
      FROM event_counts_v3 GROUP BY ad_account_id, event_name) c
LEFT JOIN (SELECT ad_account_id, event_name, count(*) AS processed, sum(duplicates) AS duplicates
           FROM events_v3 GROUP BY ad_account_id, event_name) e
  ON e.ad_account_id = c.ad_account_id AND e.event_name = c.event_name
WHERE c.processed <> coalesce(e.processed, 0) OR c.duplicates <> coalesce(e.duplicates, 0);

DROP FUNCTION events_commit_batch(text, text, bigint, bigint, integer[], text[], text[], bigint[], text[],
                                  text[], text[], text[]);
DROP TABLE dedup_keys, events_v3, event_counts_v3;

-- C82: the request log's key leads with the account (its by-account index was that key already).
ALTER TABLE request_log DROP CONSTRAINT request_log_pkey;
ALTER TABLE request_log ADD PRIMARY KEY (ad_account_id, seq);
DROP INDEX request_log_by_account;

-- Batches of one account in one call (C80, C83): one round trip, one transaction, committed before their
-- 200s (C11). Events come in request order, batch after batch: p_batch gives each event's batch (1-based)
-- into p_requests, p_received and p_since. An event of a later batch that repeats a key of an earlier one is
-- its duplicate, as if the batches had been committed one after the other. The event texts come as one text
-- joined by U+001E, which JSON text never holds raw: no array literal to escape and parse. Every statement
-- of a plpgsql function in READ COMMITTED takes a fresh snapshot, so the sightings read after the claim
-- include one another instance committed while this one waited for it. Returns the duplicates, by position
-- (1-based) in the event arrays.
CREATE FUNCTION events_commit_batches(
  p_account text, p_requests text[], p_received bigint[], p_since bigint[], p_batch integer[],
  p_names text[], p_ids text[], p_times bigint[], p_usages text[], p_events text,
  p_fail_names text[], p_fail_codes text[]
) RETURNS TABLE (dup_pos integer, dup_source text, dup_seen_at bigint, dup_event_time bigint)
LANGUAGE plpgsql AS $fn$
DECLARE
  v_day integer := events_today();
  -- C81: a claim close to midnight also takes the next day's row, so two batches racing across midnight
  -- still meet on one primary key.
  v_days integer[] := CASE
    WHEN floor((extract(epoch FROM now()) * 1000 + ${CLAIM_MARGIN_MS}) / 86400000) > v_day
    THEN ARRAY[v_day, v_day + 1] ELSE ARRAY[v_day] END;
  -- The window (C6) is the same for every batch: received at minus its since.
  v_window bigint := p_received[1] - p_since[1];
  v_hash uuid[];
  v_call bigint;
  c_o bigint[];
  c_h uuid[];
  c_seq bigint[];
  v_lost uuid[];
  d_o bigint[];
  d_seen bigint[];
  d_time bigint[];
  d_seq bigint[];
BEGIN
  SELECT array_agg(events_key(p_account, t.n, t.i) ORDER BY t.o) INTO v_hash
  FROM unnest(p_names, p_ids) WITH ORDINALITY AS t(n, i, o);

  -- 1. The first occurrence of each key with no sighting within its batch's window on an earlier day is a
  --    candidate: today's sightings are met by the claim's own insert into today's primary key (step 2),
  --    which probes it anyway. Each key is probed on its own (a lateral subquery with LIMIT is never turned
  --    into a join): a join could scan the account's whole partition when the statistics of a young
  --    partition say it is small. Seqs are this call's number and the position (C80): one nextval per
  --    call, not one per event.
  v_call := nextval('event_call_seq');
  SELECT coalesce(array_agg(f.o ORDER BY f.o), '{}'), coalesce(array_agg(f.h ORDER BY f.o), '{}'),
         coalesce(array_agg(v_call * ${SEQ_PER_CALL} + f.o ORDER BY f.o), '{}')
  INTO c_o, c_h, c_seq
  FROM (
    SELECT DISTINCT ON (u.h) u.o, u.h FROM unnest(v_hash, p_batch) WITH ORDINALITY AS u(h, b, o)
    LEFT JOIN LATERAL (
      SELECT 1 AS hit FROM dedup_sightings s
      WHERE s.ad_account_id = p_account AND s.key_hash = u.h AND s.day >= v_day - 2 AND s.day < v_day
        AND s.seen_at >= p_since[u.b]
      LIMIT 1
    ) seen ON true
    WHERE seen.hit IS NULL
    ORDER BY u.h, u.o) f;

  -- 2. Claim them, in key order (concurrent calls wait on each other in one order). A plain insert: a
  --    sighting of today (an earlier batch, or an instance that committed one of the keys meanwhile) makes
  --    it fail whole, and the careful path runs.
  BEGIN
    INSERT INTO dedup_sightings (ad_account_id, key_hash, day, seen_at, event_time, event_seq)
    SELECT p_account, c.h, d.day, p_received[p_batch[c.o]], p_times[c.o], c.seq
    FROM unnest(c_h, c_o, c_seq) AS c(h, o, seq) CROSS JOIN unnest(v_days) AS d(day)
    ORDER BY c.h, d.day;
  EXCEPTION WHEN unique_violation THEN
    -- A row within the window is someone's sighting: the key is lost to it. A row older than the window
    -- (a sighting of the same day on a clock far from this one) no longer counts and is taken over.
    WITH ins AS (
      INSERT INTO dedup_sightings AS s (ad_account_id, key_hash, day, seen_at, event_time, event_seq)
      SELECT p_account, c.h, d.day, p_received[p_batch[c.o]], p_times[c.o], c.seq
      FROM unnest(c_h, c_o, c_seq) AS c(h, o, seq) CROSS JOIN unnest(v_days) AS d(day)
      ORDER BY c.h, d.day
      ON CONFLICT (ad_account_id, key_hash, day) DO UPDATE
        SET seen_at = excluded.seen_at, event_time = excluded.event_time, event_seq = excluded.event_seq
        WHERE s.seen_at < excluded.seen_at - v_window
      RETURNING s.key_hash
    ), won AS (SELECT key_hash, count(*) AS n FROM ins GROUP BY key_hash)
    SELECT coalesce(array_agg(c.h), '{}') INTO v_lost
    FROM unnest(c_h) AS c(h) LEFT JOIN won w ON w.key_hash = c.h
    WHERE coalesce(w.n, 0) < cardinality(v_days);
    IF cardinality(v_lost) > 0 THEN
      -- A key half claimed (one day's row won, the other lost) gives its row back.
      DELETE FROM dedup_sightings
      WHERE ad_account_id = p_account AND key_hash = ANY(v_lost) AND day = ANY(v_days) AND event_seq = ANY(c_seq);
      SELECT coalesce(array_agg(c.o ORDER BY c.o), '{}'), coalesce(array_agg(c.h ORDER BY c.o), '{}'),
             coalesce(array_agg(c.seq ORDER BY c.o), '{}')
      INTO c_o, c_h, c_seq
      FROM unnest(c_o, c_h, c_seq) AS c(o, h, seq) WHERE NOT (c.h = ANY(v_lost));
    END IF;
  END;

  -- 3. The events whose key was claimed, in request order.
  INSERT INTO events (seq, ad_account_id, event_name, event_id, event_time, received_at, request_id, usage,
                      dedup_status, duplicates, event)
  SELECT c.seq, p_account, t.n, t.i, t.tm, p_received[t.b], p_requests[t.b], t.u, 'unique', 0, t.ev
  FROM unnest(p_names, p_ids, p_times, p_usages, p_batch, string_to_array(p_events, E'\\x1e'))
         WITH ORDINALITY AS t(n, i, tm, u, b, ev, o)
  JOIN unnest(c_o, c_seq) AS c(o, seq) ON c.o = t.o
  ORDER BY c.seq;

  -- Failed events are counted, never stored (C11); counters of stored events are derived when read (C80).
  -- Shards as in migration 1: one row per connection, so concurrent calls do not wait on one counter.
  IF cardinality(p_fail_names) > 0 THEN
    INSERT INTO failure_counts AS f (ad_account_id, event_name, code, shard, count)
    SELECT p_account, u.fn, u.fc, pg_backend_pid() % 64, count(*)
    FROM unnest(p_fail_names, p_fail_codes) AS u(fn, fc) GROUP BY 2, 3 ORDER BY 2, 3
    ON CONFLICT ON CONSTRAINT failure_counts_pkey DO UPDATE SET count = f.count + excluded.count;
  END IF;
  -- No duplicate: the common case of ingest.
  IF cardinality(c_o) = cardinality(v_hash) THEN
    RETURN;
  END IF;

  -- 4. Every other event is a duplicate of the earliest sighting within its window: one of these batches,
  --    or one committed before (by another instance, maybe a moment ago). An API sighting wins a tie.
  SELECT coalesce(array_agg(d.o ORDER BY d.o), '{}'), coalesce(array_agg(e.seen_at ORDER BY d.o), '{}'),
         coalesce(array_agg(e.event_time ORDER BY d.o), '{}'), coalesce(array_agg(e.event_seq ORDER BY d.o), '{}')
  INTO d_o, d_seen, d_time, d_seq
  FROM (SELECT u.o, u.h, u.b FROM unnest(v_hash, p_batch) WITH ORDINALITY AS u(h, b, o)
        LEFT JOIN unnest(c_o) AS c(o) ON c.o = u.o WHERE c.o IS NULL) d
  JOIN LATERAL (
    SELECT s.seen_at, s.event_time, s.event_seq FROM dedup_sightings s
    WHERE s.ad_account_id = p_account AND s.key_hash = d.h AND s.day BETWEEN v_day - 2 AND v_day
      AND s.seen_at >= p_since[d.b]
    ORDER BY s.seen_at, s.event_seq IS NULL LIMIT 1
  ) e ON true;
  IF cardinality(c_o) + cardinality(d_o) <> cardinality(v_hash) THEN
    -- A sighting vanished between two statements (a reset ran): answer nothing rather than drop an event.
    RAISE EXCEPTION 'a sighting changed during the batch' USING ERRCODE = 'serialization_failure';
  END IF;

  -- 5. A duplicate of a stored API event is folded into that row (C6, C11); one of a tag sighting is counted.
  UPDATE events e SET dedup_status = 'deduplicated', duplicates = e.duplicates + g.n
  FROM (SELECT seq, seen, count(*) AS n FROM unnest(d_seq, d_seen) AS u(seq, seen)
        WHERE seq IS NOT NULL GROUP BY seq, seen) g
  WHERE e.ad_account_id = p_account AND e.seq = ANY(d_seq) AND e.seq = g.seq AND e.received_at = g.seen;
  INSERT INTO event_counts AS c (ad_account_id, event_name, shard, usage, processed, duplicates)
  SELECT p_account, p_names[u.o], pg_backend_pid() % 64, max(p_usages[u.o]), 0, count(*)
  FROM unnest(d_o, d_seq) AS u(o, seq) WHERE u.seq IS NULL
  GROUP BY p_names[u.o] ORDER BY 2
  ON CONFLICT (ad_account_id, event_name, shard) DO UPDATE
    SET usage = excluded.usage, duplicates = c.duplicates + excluded.duplicates;

  RETURN QUERY
  SELECT u.o::integer, CASE WHEN u.seq IS NULL THEN 'tag' ELSE 'api' END, u.seen, u.t
  FROM unnest(d_o, d_seen, d_time, d_seq) AS u(o, seen, t, seq);
END
$fn$;
`;
