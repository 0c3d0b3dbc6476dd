import { SEQ_PER_CALL } from '../migration-ingest.js';

/**
 * Migration 5: the delivery outbox of C100 on PostgreSQL. Its primary key leads with ad_account_id, as every
 * key of the schema does (C82). Entries are written by `events_commit_batches_to`, which is
 * `events_commit_batches` (migration 4) followed, in the same transaction, by one multi-row insert of an
 * entry per sink and event the call stored: those of this call's seqs (C80: call * SEQ_PER_CALL +
 * position). A batch of an account no sink covers calls `events_commit_batches` itself: nothing more.
 * Times are milliseconds since the epoch (bigint), as in events; `created_at` is the event's received_at.
 */
export const OUTBOX_MIGRATION_SQL = `
CREATE TABLE outbox (
  id bigserial,
  sink text NOT NULL,
  ad_account_id text NOT NULL,
  event_seq bigint NOT NULL,
  request_id text NOT NULL,
  created_at bigint NOT NULL,
  state text NOT NULL,
  attempts integer NOT NULL,
  next_at bigint NOT NULL,
  lease_owner text,
  lease_until bigint,
  last_error text,
  result jsonb,
  settled_at bigint,
  PRIMARY KEY (ad_account_id, id)
);
CREATE INDEX outbox_by_state ON outbox (sink, state, ad_account_id, id);
CREATE INDEX outbox_by_request ON outbox (request_id);
CREATE FUNCTION events_commit_batches_to(
  p_sinks text[], p_account text, p_requests text[], p_received bigint[], p_since bigint[], p_batch integer[],
  p_names text[], p_ids text[], p_times bigint[], p_usages text[], p_events text,
  p_fail_names text[], p_fail_codes text[]
) RETURNS TABLE (dup_pos integer, dup_source text, dup_seen_at bigint, dup_event_time bigint)
LANGUAGE plpgsql AS $fn$
DECLARE
  v_call bigint;
BEGIN
  RETURN QUERY SELECT * FROM events_commit_batches(p_account, p_requests, p_received, p_since, p_batch,
    p_names, p_ids, p_times, p_usages, p_events, p_fail_names, p_fail_codes);
  -- The call number events_commit_batches took (one nextval per call, in this session).
  v_call := currval('event_call_seq');
  INSERT INTO outbox (sink, ad_account_id, event_seq, request_id, created_at, state, attempts, next_at)
  SELECT s.sink, p_account, e.seq, e.request_id, e.received_at, 'pending', 0, e.received_at
  FROM unnest(p_sinks) AS s(sink) CROSS JOIN events e
  WHERE e.ad_account_id = p_account AND e.received_at = ANY(p_received)
    AND e.seq >= v_call * ${SEQ_PER_CALL} AND e.seq < (v_call + 1) * ${SEQ_PER_CALL}
  ORDER BY s.sink, e.seq;
END
$fn$;
`;

/**
 * Migration 6 (C112, C114): claims and settles by index. The claim's index holds pending entries only, so
 * the delivered entries kept for the inspector never lengthen it; retention finds delivered entries by
 * their settle time; entries of events a deletion removed before this version (C91) are removed, as a
 * deletion now does in its own transaction.
 */
export const OUTBOX_INDEX_MIGRATION_SQL = `
-- Half of each new page left free: a claim's lease changes no indexed column, so it rewrites each entry on
-- its own page without new index entries (a HOT update). 8000 leases: 88-138 ms full, 33 ms with free space.
ALTER TABLE outbox SET (fillfactor = 50);
DROP INDEX outbox_by_state;
CREATE INDEX outbox_pending ON outbox (sink, ad_account_id, id) WHERE state = 'pending';
CREATE INDEX outbox_dead ON outbox (sink) WHERE state = 'dead';
CREATE INDEX outbox_delivered ON outbox (settled_at) WHERE state = 'delivered';
DELETE FROM outbox o WHERE NOT EXISTS (
  SELECT 1 FROM events e
  WHERE e.ad_account_id = o.ad_account_id AND e.seq = o.event_seq AND e.received_at = o.created_at
);
`;

/**
 * Step 1 of a claim: the accounts of a sink with pending entries, found by a skip scan of the pending index
 * (one probe per account, however deep its queue), those whose oldest entry is due and unleased, oldest
 * head first (no account starves another). Each is locked for this transaction with an advisory lock
 * (skipped when another claim holds it), so two instances never claim one account at once.
 */
export const CLAIM_ACCOUNTS = `
WITH RECURSIVE accounts(acct) AS (
  (SELECT ad_account_id FROM outbox WHERE sink = $1 AND state = 'pending' ORDER BY ad_account_id LIMIT 1)
  UNION ALL
  SELECT (SELECT o.ad_account_id FROM outbox o
          WHERE o.sink = $1 AND o.state = 'pending' AND o.ad_account_id > a.acct
          ORDER BY o.ad_account_id LIMIT 1)
  FROM accounts a WHERE a.acct IS NOT NULL
), due AS (
  SELECT a.acct, h.id FROM accounts a
  CROSS JOIN LATERAL (
    SELECT id, next_at, lease_until FROM outbox
    WHERE sink = $1 AND state = 'pending' AND ad_account_id = a.acct ORDER BY id LIMIT 1
  ) h
  WHERE a.acct IS NOT NULL AND h.next_at <= $2 AND (h.lease_until IS NULL OR h.lease_until <= $2)
  ORDER BY h.id
)
SELECT acct AS ad_account_id FROM due
WHERE pg_try_advisory_xact_lock(hashtext($1), hashtext(acct))
LIMIT $3`;

/**
 * Step 2, a new statement (a new snapshot under READ COMMITTED): the head is checked again (a claim that
 * committed in between leased it), then the oldest entries are leased by their primary key, skipping rows
 * another transaction holds (FOR UPDATE SKIP LOCKED), and read with their events by the events' primary key.
 * An entry without its event comes back with a null event: the claim removes it.
 */
export const CLAIM_BATCH = `
WITH head AS (
  SELECT next_at, lease_until FROM outbox
  WHERE sink = $1 AND state = 'pending' AND ad_account_id = $2 ORDER BY id LIMIT 1
), picked AS (
  SELECT o.id FROM outbox o
  WHERE o.sink = $1 AND o.state = 'pending' AND o.ad_account_id = $2
    AND (o.lease_until IS NULL OR o.lease_until <= $3)
    AND EXISTS (SELECT 1 FROM head WHERE next_at <= $3 AND (lease_until IS NULL OR lease_until <= $3))
  ORDER BY o.id LIMIT $4 FOR UPDATE SKIP LOCKED
), leased AS (
  UPDATE outbox o SET lease_owner = $5, lease_until = $3 + $6
  FROM picked p WHERE o.ad_account_id = $2 AND o.id = p.id
  RETURNING o.id, o.attempts, o.event_seq, o.created_at
)
SELECT l.id, l.attempts, e.event_name, e.event_id, e.event
FROM leased l LEFT JOIN events e
  ON e.ad_account_id = $2 AND e.seq = l.event_seq AND e.received_at = l.created_at
ORDER BY l.id`;

export const FORGET_IDS = `DELETE FROM outbox WHERE ad_account_id = $1 AND id = ANY($2::bigint[])`;

/** Inside a deletion's transaction (C112): every entry of the deleted events. */
export const FORGET_EVENTS = `DELETE FROM outbox WHERE ad_account_id = $1 AND event_seq = ANY($2::bigint[])`;

export const SETTLE_DELIVERED = `
UPDATE outbox o SET state = 'delivered', attempts = attempts + 1, settled_at = $1, result = r.result,
  last_error = NULL, lease_owner = NULL, lease_until = NULL
FROM unnest($2::bigint[], $3::jsonb[]) AS r(id, result)
WHERE o.ad_account_id = $5 AND o.id = r.id AND o.lease_owner = $4 AND o.state = 'pending'`;

export const SETTLE_FAILED = `
UPDATE outbox SET attempts = attempts + 1,
  state = CASE WHEN attempts + 1 >= $1 THEN 'dead' ELSE 'pending' END,
  settled_at = $2, last_error = $3, next_at = $4, lease_owner = NULL, lease_until = NULL
WHERE ad_account_id = $7 AND id = ANY($5::bigint[]) AND lease_owner = $6 AND state = 'pending'`;

export const RELEASE = `
UPDATE outbox SET lease_owner = NULL, lease_until = NULL
WHERE ad_account_id = $3 AND id = ANY($1::bigint[]) AND lease_owner = $2 AND state = 'pending'`;

export const REQUEUE_DEAD = `
UPDATE outbox SET state = 'pending', attempts = 0, next_at = $1, settled_at = NULL
WHERE state = 'dead' AND ($2::text IS NULL OR sink = $2)`;

export const STATS = `
SELECT sink, state, count(*)::int AS n, min(created_at) FILTER (WHERE state = 'pending') AS oldest
FROM outbox WHERE state IN ('pending', 'dead') GROUP BY sink, state`;

export const PRUNE = `DELETE FROM outbox WHERE state = 'delivered' AND settled_at < $1`;

export const OF_REQUEST = `
SELECT o.sink, e.event_name, e.event_id, o.state, o.attempts, o.last_error, o.next_at, o.settled_at, o.result
FROM outbox o JOIN events e
  ON e.ad_account_id = o.ad_account_id AND e.seq = o.event_seq AND e.received_at = o.created_at
WHERE o.request_id = $1 ORDER BY o.id`;
