import { SEQ_PER_CALL } from '../migration-ingest.js';

/**
 * `events_commit_batches_to`: the batch call of C80 followed, in its transaction, by the outbox entries of
 * the events it stored. Migration 6 adds `lock`: taken before the entries' ids are drawn and held until the
 * call commits, so an account's entries become visible in the order of their ids (C114).
 */
function commitBatchesTo(create: string, lock: string): string {
  return `${create} FUNCTION events_commit_batches_to(
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
${lock}  INSERT INTO outbox (sink, ad_account_id, event_seq, request_id, created_at, state, attempts, next_at)
  SELECT s.sink, p_account, e.seq, e.request_id, e.received_at, 'pending', 0, e.received_at
  FROM unnest(p_sinks) AS s(sink) CROSS JOIN events e
  WHERE e.ad_account_id = p_account AND e.received_at = ANY(p_received)
    AND e.seq >= v_call * ${SEQ_PER_CALL} AND e.seq < (v_call + 1) * ${SEQ_PER_CALL}
  ORDER BY s.sink, e.seq;
END
$fn$;
`;
}

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
${commitBatchesTo('CREATE', '')}`;

/**
 * Migration 6 (C112, C114): an account's delivery as a cursor, claims and settlements by index.
 *
 * - `outbox_cursors`, one row per (account, sink): the lease of the account (a claim leases the account,
 *   not each entry) and `delivered_upto`, below which every entry still `pending` was delivered. An
 *   account's entries are delivered in order, so settling a claim's batches moves the cursor (one row)
 *   instead of rewriting each entry; a settlement that is not the next run of the account's entries marks
 *   its entries one by one, as before.
 * - `outbox_deliveries`, one row per run the cursor passed: when it was delivered (the inspector, retention).
 * - The claim's index holds pending entries only, so entries settled one by one never lengthen it; half of
 *   each new page is left free, so the few rewrites (failures, upstream results) stay on their page.
 * - Entries of events a deletion removed before this version (C91) are removed, as a deletion now does in
 *   its own transaction.
 * - The batch call draws an account's entry ids one call at a time (an advisory lock held to its commit).
 */
export const OUTBOX_INDEX_MIGRATION_SQL = `
ALTER TABLE outbox SET (fillfactor = 50);
DROP INDEX outbox_by_state;
CREATE INDEX outbox_pending ON outbox (sink, ad_account_id, id) WHERE state = 'pending';
CREATE INDEX outbox_dead ON outbox (sink) WHERE state = 'dead';
CREATE INDEX outbox_delivered ON outbox (settled_at) WHERE state = 'delivered';
CREATE TABLE outbox_cursors (
  ad_account_id text NOT NULL,
  sink text NOT NULL,
  delivered_upto bigint NOT NULL,
  lease_owner text,
  lease_until bigint,
  claimed_upto bigint,
  PRIMARY KEY (ad_account_id, sink)
);
CREATE TABLE outbox_deliveries (
  ad_account_id text NOT NULL,
  sink text NOT NULL,
  last_id bigint NOT NULL,
  delivered_at bigint NOT NULL,
  -- Whether the receiver answered per event (then an entry without a result of its own was processed).
  answered boolean NOT NULL,
  PRIMARY KEY (ad_account_id, sink, last_id)
);
CREATE INDEX outbox_deliveries_by_time ON outbox_deliveries (delivered_at);
DELETE FROM outbox o WHERE NOT EXISTS (
  SELECT 1 FROM events e
  WHERE e.ad_account_id = o.ad_account_id AND e.seq = o.event_seq AND e.received_at = o.created_at
);
${commitBatchesTo(
  'CREATE OR REPLACE',
  `  -- Two calls of one account could commit out of the order of their entries' ids, and a cursor that passed
  -- the later ones would count the earlier ones as delivered: their ids are drawn one call at a time.
  PERFORM pg_advisory_xact_lock(hashtextextended('outbox:' || p_account, 0));
`,
)}`;

/**
 * Migration 9 (C127): a conversion deletion request passed on to an upstream is an outbox entry of its own:
 * `deletion_request_id` names the request (`event_seq` is 0, no event's) and `payload` holds the body to send
 * until the upstream took it; the request keeps what the upstream answered. Columns without a default: no
 * rewrite of either table.
 */
export const OUTBOX_DELETIONS_MIGRATION_SQL = `
ALTER TABLE outbox ADD COLUMN deletion_request_id bigint, ADD COLUMN payload text;
CREATE INDEX outbox_deletions ON outbox (ad_account_id, deletion_request_id) WHERE deletion_request_id IS NOT NULL;
ALTER TABLE deletion_requests ADD COLUMN upstream_status text, ADD COLUMN upstream_processed_at bigint,
  ADD COLUMN upstream_request_id text;
`;

/**
 * Inside a deletion's transaction (C127), after LOCK_ACCOUNT_ENTRIES: an entry of the request per sink. Its
 * id is drawn under the lock the batch call takes for the account's entries (migration 6), so it becomes
 * visible after every entry of the account drawn before it, and the account's cursor never passes it unsent.
 */
export const LOCK_ACCOUNT_ENTRIES = `SELECT pg_advisory_xact_lock(hashtextextended('outbox:' || $1, 0))`;
export const WRITE_DELETION = `
INSERT INTO outbox (sink, ad_account_id, event_seq, request_id, created_at, state, attempts, next_at,
  deletion_request_id, payload)
SELECT s.sink, $2, 0, $3, $4, 'pending', 0, $4, $5, $6
FROM unnest($1::text[]) WITH ORDINALITY AS s(sink, n) ORDER BY s.n`;

/** C127: what the upstream answered, kept on the request, by the settlement that delivered its entry. */
export const DELETION_ANSWERED = `
WITH answered AS (
  UPDATE outbox SET state = 'delivered', settled_at = $3, payload = NULL, last_error = NULL,
    attempts = CASE WHEN state = 'pending' THEN attempts + 1 ELSE attempts END
  WHERE ad_account_id = $1 AND id = $2 AND payload IS NOT NULL AND state <> 'dead'
  RETURNING deletion_request_id
)
UPDATE deletion_requests d SET upstream_status = $4, upstream_processed_at = $5, upstream_request_id = $6
FROM answered WHERE d.ad_account_id = $1 AND d.id = answered.deletion_request_id`;

/**
 * The status of the deletion requests of some entries, from all their entries (one per sink): PENDING while
 * one is still to deliver, CANCELLED while one is dead, else what the upstream answered.
 */
export const DELETION_STATUS = `
UPDATE deletion_requests d SET
  status = CASE
    WHEN EXISTS (SELECT 1 FROM outbox o WHERE o.ad_account_id = d.ad_account_id
                 AND o.deletion_request_id = d.id AND o.state = 'pending') THEN 'PENDING'
    WHEN EXISTS (SELECT 1 FROM outbox o WHERE o.ad_account_id = d.ad_account_id
                 AND o.deletion_request_id = d.id AND o.state = 'dead') THEN 'CANCELLED'
    ELSE coalesce(d.upstream_status, 'SUBMITTED') END,
  processed_at = CASE
    WHEN EXISTS (SELECT 1 FROM outbox o WHERE o.ad_account_id = d.ad_account_id
                 AND o.deletion_request_id = d.id AND o.state IN ('pending', 'dead'))
    THEN NULL ELSE d.upstream_processed_at END
WHERE d.ad_account_id = $1 AND d.id IN (
  SELECT deletion_request_id FROM outbox
  WHERE ad_account_id = $1 AND id = ANY($2::bigint[]) AND deletion_request_id IS NOT NULL)`;

/** Requeued entries of deletion requests (C127): their requests are PENDING again. */
export const DELETIONS_REQUEUED = `
UPDATE deletion_requests d SET status = 'PENDING', processed_at = NULL
FROM (SELECT DISTINCT ad_account_id, deletion_request_id FROM outbox
      WHERE deletion_request_id IS NOT NULL AND state = 'pending') o
WHERE d.ad_account_id = o.ad_account_id AND d.id = o.deletion_request_id AND d.status <> 'PENDING'`;

/** The accounts of a sink with pending entries: a skip scan of the pending index, one probe per account. */
const ACCOUNTS_OF_SINK = `
WITH RECURSIVE accounts(acct) AS (
  (SELECT ad_account_id FROM outbox WHERE sink = $1 AND state = 'pending' ORDER BY ad_account_id LIMIT 1)
  UNION ALL
  SELECT (SELECT o.ad_account_id FROM outbox o
          WHERE o.sink = $1 AND o.state = 'pending' AND o.ad_account_id > a.acct
          ORDER BY o.ad_account_id LIMIT 1)
  FROM accounts a WHERE a.acct IS NOT NULL
)`;

/**
 * Step 1 of a claim: of the accounts with entries still to deliver, those whose oldest such entry is due
 * and whose lease is free, oldest head first (no account starves another). Each is locked for this
 * transaction with an advisory lock (skipped when another claim holds it).
 */
export const CLAIM_ACCOUNTS = `${ACCOUNTS_OF_SINK}, due AS (
  SELECT a.acct, h.id FROM accounts a
  LEFT JOIN outbox_cursors c ON c.ad_account_id = a.acct AND c.sink = $1
  CROSS JOIN LATERAL (
    SELECT id, next_at FROM outbox
    WHERE sink = $1 AND state = 'pending' AND ad_account_id = a.acct AND id > coalesce(c.delivered_upto, 0)
    ORDER BY id LIMIT 1
  ) h
  WHERE a.acct IS NOT NULL AND h.next_at <= $2 AND (c.lease_until IS NULL OR c.lease_until <= $2
    -- A lease whose entries were all deleted (C112) holds nothing.
    OR h.id > c.claimed_upto)
  ORDER BY h.id
)
SELECT acct AS ad_account_id FROM due
WHERE pg_try_advisory_xact_lock(hashtext($1), hashtext(acct))
LIMIT $3`;

/**
 * Step 2: the account's lease, taken only if still free (a claim that committed in between holds it). The
 * cursor is made at the account's first claim. Answers the cursor, or nothing.
 */
export const LEASE_ACCOUNT = `
INSERT INTO outbox_cursors AS c (ad_account_id, sink, delivered_upto, lease_owner, lease_until)
VALUES ($1, $2, 0, $3, $4)
ON CONFLICT (ad_account_id, sink) DO UPDATE SET lease_owner = $3, lease_until = $4, claimed_upto = NULL
  WHERE c.lease_until IS NULL OR c.lease_until <= $5 OR NOT EXISTS (
    SELECT 1 FROM outbox WHERE sink = $2 AND state = 'pending' AND ad_account_id = $1
      AND id > c.delivered_upto AND id <= c.claimed_upto)
RETURNING delivered_upto`;

/**
 * Step 3: the oldest entries still to deliver, read by the pending index with their events by the events'
 * primary key. An entry without its event comes back with a null event: the claim removes it.
 */
export const CLAIM_ROWS = `
SELECT o.id, o.attempts, o.next_at, e.event_name, e.event_id, e.event, o.deletion_request_id, o.payload
FROM (SELECT id, attempts, next_at, event_seq, created_at, deletion_request_id, payload FROM outbox
      WHERE sink = $1 AND state = 'pending' AND ad_account_id = $2 AND id > $3 ORDER BY id LIMIT $4) o
LEFT JOIN events e ON e.ad_account_id = $2 AND e.seq = o.event_seq AND e.received_at = o.created_at
ORDER BY o.id`;

/** C128: the lease of an account renewed by its owner; answers the cursor, or nothing when not its owner. */
export const RENEW_LEASE = `
UPDATE outbox_cursors SET lease_until = $4 WHERE ad_account_id = $1 AND sink = $2 AND lease_owner = $3
RETURNING delivered_upto`;

/** The claim's last entry, so its settlement knows when the claim is over; or the lease let go. */
export const CLAIMED_UPTO = `UPDATE outbox_cursors SET claimed_upto = $3 WHERE ad_account_id = $1 AND sink = $2`;
export const UNLEASE = `
UPDATE outbox_cursors SET lease_owner = NULL, lease_until = NULL, claimed_upto = NULL
WHERE ad_account_id = $1 AND sink = $2 AND lease_owner = $3`;

export const FORGET_IDS = `DELETE FROM outbox WHERE ad_account_id = $1 AND id = ANY($2::bigint[])`;

/** Inside a deletion's transaction (C112): every entry of the deleted events. */
export const FORGET_EVENTS = `DELETE FROM outbox WHERE ad_account_id = $1 AND event_seq = ANY($2::bigint[])`;

/** The sink of settled entries (an outcome names the account and the entries). */
export const SINK_OF = `SELECT sink FROM outbox WHERE ad_account_id = $1 AND id = ANY($2::bigint[]) LIMIT 1`;

/** The cursor of an account leased to an owner, locked for the settlement. */
export const OWNED_CURSOR = `
SELECT delivered_upto, claimed_upto FROM outbox_cursors
WHERE ad_account_id = $1 AND sink = $2 AND lease_owner = $3 FOR UPDATE`;

/**
 * The entries still to deliver up to the settlement's last one, and how many of them it names: the
 * settlement is the account's next run when it names them all (entries deleted meanwhile are in neither).
 */
export const RUN_LENGTH = `
SELECT count(*)::int AS n, count(*) FILTER (WHERE id = ANY($5::bigint[]))::int AS ours FROM outbox
WHERE sink = $2 AND state = 'pending' AND ad_account_id = $1 AND id > $3 AND id <= $4`;

/** The cursor passes a delivered run; the run is recorded for the inspector and retention. */
export const ADVANCE = `
WITH moved AS (
  UPDATE outbox_cursors SET delivered_upto = $3 WHERE ad_account_id = $1 AND sink = $2 RETURNING 1
)
INSERT INTO outbox_deliveries (ad_account_id, sink, last_id, delivered_at, answered)
SELECT $1, $2, $3, $4, $5 FROM moved`;

/** The results of a run that say more than `processed` (failed or warned events), kept on their entries. */
export const RUN_RESULTS = `
UPDATE outbox o SET result = r.result
FROM unnest($2::bigint[], $3::jsonb[]) AS r(id, result)
WHERE o.ad_account_id = $1 AND o.id = r.id`;

/** Entries delivered out of their run (not the account's next ones): marked one by one. */
export const SETTLE_DELIVERED = `
UPDATE outbox o SET state = 'delivered', attempts = attempts + 1, settled_at = $1, result = r.result,
  last_error = NULL
FROM unnest($2::bigint[], $3::jsonb[]) AS r(id, result)
WHERE o.ad_account_id = $4 AND o.id = r.id AND o.state = 'pending'`;

export const SETTLE_FAILED = `
UPDATE outbox SET attempts = attempts + 1,
  state = CASE WHEN attempts + 1 >= $1 THEN 'dead' ELSE 'pending' END,
  settled_at = $2, last_error = $3, next_at = $4
WHERE ad_account_id = $6 AND id = ANY($5::bigint[]) AND state = 'pending'`;

/**
 * Dead entries back to pending, due now. Those the cursor has passed would count as delivered: the cursor
 * first goes back to below the oldest of them, and the entries it passed on the way are marked delivered
 * one by one (with the time of their run).
 */
export const REQUEUE_DEAD = `
WITH dead AS (
  SELECT ad_account_id, sink, min(id) AS first FROM outbox
  WHERE state = 'dead' AND ($2::text IS NULL OR sink = $2) GROUP BY ad_account_id, sink
), passed AS (
  UPDATE outbox o SET state = 'delivered', attempts = o.attempts + 1,
    settled_at = (SELECT min(d.delivered_at) FROM outbox_deliveries d
                  WHERE d.ad_account_id = o.ad_account_id AND d.sink = o.sink AND d.last_id >= o.id)
  FROM dead, outbox_cursors c
  WHERE c.ad_account_id = dead.ad_account_id AND c.sink = dead.sink AND c.delivered_upto >= dead.first
    AND o.ad_account_id = dead.ad_account_id AND o.sink = dead.sink AND o.state = 'pending'
    AND o.id > dead.first AND o.id <= c.delivered_upto
  RETURNING o.id
), runs AS (
  -- The runs the cursor goes back over are gone with it: their entries carry their own time now.
  DELETE FROM outbox_deliveries d USING dead, outbox_cursors c
  WHERE c.ad_account_id = dead.ad_account_id AND c.sink = dead.sink AND c.delivered_upto >= dead.first
    AND d.ad_account_id = dead.ad_account_id AND d.sink = dead.sink AND d.last_id >= dead.first
  RETURNING 1
), back AS (
  UPDATE outbox_cursors c SET delivered_upto = dead.first - 1
  FROM dead WHERE c.ad_account_id = dead.ad_account_id AND c.sink = dead.sink AND c.delivered_upto >= dead.first
  RETURNING 1
)
UPDATE outbox SET state = 'pending', attempts = 0, next_at = $1, settled_at = NULL
WHERE state = 'dead' AND ($2::text IS NULL OR sink = $2)
  AND (SELECT count(*) FROM passed) >= 0 AND (SELECT count(*) FROM runs) >= 0
  AND (SELECT count(*) FROM back) >= 0`;

/** Per sink: entries still to deliver (above each account's cursor), their oldest, and dead entries. */
export const STATS = `
WITH RECURSIVE keys(sink, acct) AS (
  (SELECT sink, ad_account_id FROM outbox WHERE state = 'pending' ORDER BY sink, ad_account_id LIMIT 1)
  UNION ALL
  SELECT n.sink, n.ad_account_id FROM keys k CROSS JOIN LATERAL (
    SELECT sink, ad_account_id FROM outbox
    WHERE state = 'pending' AND (sink, ad_account_id) > (k.sink, k.acct)
    ORDER BY sink, ad_account_id LIMIT 1
  ) n
)
SELECT k.sink, 'pending' AS state, sum(p.n)::int AS n, min(p.oldest) AS oldest
FROM keys k
LEFT JOIN outbox_cursors c ON c.ad_account_id = k.acct AND c.sink = k.sink
CROSS JOIN LATERAL (
  SELECT count(*) AS n, min(created_at) AS oldest FROM outbox
  WHERE sink = k.sink AND state = 'pending' AND ad_account_id = k.acct AND id > coalesce(c.delivered_upto, 0)
) p
GROUP BY k.sink HAVING sum(p.n) > 0
UNION ALL
SELECT sink, 'dead', count(*)::int, NULL FROM outbox WHERE state = 'dead' GROUP BY sink`;

/**
 * Retention: entries delivered before `$1`, marked one by one or passed by their cursor in a run recorded
 * before it; then the runs themselves.
 */
export const PRUNE = `
WITH old_runs AS (
  SELECT ad_account_id, sink, max(last_id) AS upto FROM outbox_deliveries
  WHERE delivered_at < $1 GROUP BY ad_account_id, sink
), by_cursor AS (
  DELETE FROM outbox o USING old_runs r
  WHERE o.ad_account_id = r.ad_account_id AND o.sink = r.sink AND o.state = 'pending' AND o.id <= r.upto
  RETURNING 1
), one_by_one AS (
  DELETE FROM outbox WHERE state = 'delivered' AND settled_at < $1 RETURNING 1
), runs AS (
  DELETE FROM outbox_deliveries WHERE delivered_at < $1 RETURNING 1
)
SELECT (SELECT count(*) FROM by_cursor)::int + (SELECT count(*) FROM one_by_one)::int AS n,
       (SELECT count(*) FROM runs)::int AS runs`;

/**
 * The inspector's entries of a request: an entry the cursor passed shows as delivered, with its run's time,
 * its own result or (when the receiver answered per event) `processed`.
 */
export const OF_REQUEST = `
SELECT o.sink, e.event_name, e.event_id,
  CASE WHEN passed THEN 'delivered' ELSE o.state END AS state,
  CASE WHEN passed THEN o.attempts + 1 ELSE o.attempts END AS attempts,
  CASE WHEN passed THEN NULL ELSE o.last_error END AS last_error,
  o.next_at,
  CASE WHEN passed THEN d.delivered_at ELSE o.settled_at END AS settled_at,
  CASE WHEN passed AND o.result IS NULL AND d.answered
    THEN '{"status":"processed","message":null,"warning":null}'::jsonb
    -- A JSON null: the receiver answered for the run but said nothing of this event.
    WHEN o.result = 'null'::jsonb THEN NULL ELSE o.result END AS result
FROM outbox o
JOIN events e ON e.ad_account_id = o.ad_account_id AND e.seq = o.event_seq AND e.received_at = o.created_at
LEFT JOIN outbox_cursors c ON c.ad_account_id = o.ad_account_id AND c.sink = o.sink
CROSS JOIN LATERAL (SELECT o.state = 'pending' AND o.id <= coalesce(c.delivered_upto, 0) AS passed) x
LEFT JOIN LATERAL (
  SELECT delivered_at, answered FROM outbox_deliveries d
  WHERE d.ad_account_id = o.ad_account_id AND d.sink = o.sink AND d.last_id >= o.id
  ORDER BY d.last_id LIMIT 1
) d ON passed
WHERE o.request_id = $1 ORDER BY o.id`;
