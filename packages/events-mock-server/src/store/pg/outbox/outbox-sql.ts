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
 * Step 1 of a claim: accounts of a sink whose oldest pending entry is due and unleased, each locked for
 * this transaction with an advisory lock (skipped when another claim holds it), so two instances never
 * claim one account at once and an account's entries are taken in order.
 */
export const CLAIM_ACCOUNTS = `
SELECT ad_account_id FROM (
  SELECT DISTINCT ON (ad_account_id) ad_account_id, next_at, lease_until
  FROM outbox WHERE sink = $1 AND state = 'pending'
  ORDER BY ad_account_id, id
) heads
WHERE next_at <= $2 AND (lease_until IS NULL OR lease_until <= $2)
  AND pg_try_advisory_xact_lock(hashtext($1), hashtext(ad_account_id))
LIMIT $3`;

/**
 * Step 2, a new statement (a new snapshot under READ COMMITTED): the head is checked again (a claim that
 * committed in between leased it), then the oldest entries are leased, skipping rows another transaction
 * holds (FOR UPDATE SKIP LOCKED).
 */
export const CLAIM_BATCH = `
WITH head AS (
  SELECT id, next_at, lease_until FROM outbox
  WHERE sink = $1 AND state = 'pending' AND ad_account_id = $2 ORDER BY id LIMIT 1
), picked AS (
  SELECT o.id FROM outbox o
  WHERE o.sink = $1 AND o.state = 'pending' AND o.ad_account_id = $2
    AND EXISTS (SELECT 1 FROM head WHERE next_at <= $3 AND (lease_until IS NULL OR lease_until <= $3))
  ORDER BY o.id LIMIT $4 FOR UPDATE SKIP LOCKED
)
UPDATE outbox o SET lease_owner = $5, lease_until = $3 + $6
FROM picked p, events e
WHERE o.id = p.id AND e.ad_account_id = o.ad_account_id AND e.seq = o.event_seq
  AND e.received_at = o.created_at
RETURNING o.id, o.attempts, e.event_name, e.event_id, e.event`;

export const SETTLE_DELIVERED = `
UPDATE outbox o SET state = 'delivered', attempts = attempts + 1, settled_at = $1, result = r.result,
  last_error = NULL, lease_owner = NULL, lease_until = NULL
FROM unnest($2::bigint[], $3::jsonb[]) AS r(id, result)
WHERE o.id = r.id AND o.lease_owner = $4 AND o.state = 'pending'`;

export const SETTLE_FAILED = `
UPDATE outbox SET attempts = attempts + 1,
  state = CASE WHEN attempts + 1 >= $1 THEN 'dead' ELSE 'pending' END,
  settled_at = $2, last_error = $3, next_at = $4, lease_owner = NULL, lease_until = NULL
WHERE id = ANY($5::bigint[]) AND lease_owner = $6 AND state = 'pending'`;

export const RELEASE = `
UPDATE outbox SET lease_owner = NULL, lease_until = NULL
WHERE id = ANY($1::bigint[]) AND lease_owner = $2 AND state = 'pending'`;

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
