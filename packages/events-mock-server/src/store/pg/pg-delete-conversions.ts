// C91 on PostgreSQL: a conversion deletion request, in the transaction the store opens. Kept in its own file
// beside the store: it reads the tables of migrations 2 and 4; the requests themselves and the counter of
// their ids are the tables of migration 8 (C121).
import type pg from 'pg';
import {
  bodyMatches,
  DELETION_REQUEST_COLUMNS,
  type DeletionCounts,
  type DeletionRequestRow,
  type DeletionTargets,
  deletionBody,
  deletionEntryRequestId,
  deletionRequestIdBase,
  deletionRequestOfRow,
  deletionRequestValues,
  eventMatches,
  processedDeletionRequest,
} from '../common/conversion-deletion.js';
import { LOCK_ACCOUNT_ENTRIES, WRITE_DELETION } from './outbox/outbox-sql.js';
import { PgOutbox } from './outbox/pg-outbox.js';

/**
 * C121: the deletion, then the request's id from the counter row (its row lock, held to the commit, makes
 * instances sharing the database take turns; taken last, it is held the shortest time) and its record.
 * C127: with `sinks` that take deletions for the account, an outbox entry per sink, after the account's
 * entries written before it; the request is PENDING until an upstream answered.
 */
export async function createDeletionRequestTx(
  c: pg.PoolClient,
  adAccountId: string,
  t: DeletionTargets,
  at: number,
  sinks: readonly string[] = [],
): Promise<DeletionRequestRow> {
  const removed = await deleteConversionsTx(c, adAccountId, t);
  // Before the counter row: the batch calls of the account take this lock, then no other, so the two locks
  // are always taken in this order.
  if (sinks.length) await c.query(LOCK_ACCOUNT_ENTRIES, [adAccountId]);
  const ids = await c.query<{ last: number }>(
    'UPDATE deletion_request_ids SET last = greatest(last + 1, $1) WHERE one = 1 RETURNING last',
    [deletionRequestIdBase(at)],
  );
  const id = (ids.rows[0] as { last: number }).last;
  const row = processedDeletionRequest(id, adAccountId, at, removed, sinks.length > 0);
  await c.query(
    `INSERT INTO deletion_requests (${DELETION_REQUEST_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
    [...deletionRequestValues(row)],
  );
  if (sinks.length)
    await c.query(WRITE_DELETION, [
      sinks,
      adAccountId,
      deletionEntryRequestId(id),
      Math.ceil(at),
      id,
      deletionBody(t),
    ]);
  return deletionRequestOfRow(row);
}

export async function deleteConversionsTx(
  c: pg.PoolClient,
  adAccountId: string,
  t: DeletionTargets,
): Promise<DeletionCounts> {
  const events = await c.query<{
    seq: string;
    event_name: string;
    usage: string;
    duplicates: number;
    event: string;
  }>('SELECT seq, event_name, usage, duplicates, event FROM events WHERE ad_account_id = $1 FOR UPDATE', [
    adAccountId,
  ]);
  const gone = events.rows.filter((e) => eventMatches(e.event, t));
  let outboxEntries = 0;
  if (gone.length) {
    const seqs = gone.map((e) => e.seq);
    // C91 keeps the reports' counts, which are derived from the stored events since migration 4 (C80): the
    // deleted events' counts move to event_counts first.
    await c.query(
      `INSERT INTO event_counts AS c (ad_account_id, event_name, shard, usage, processed, duplicates)
       SELECT $1, g.name, 0, max(g.usage), count(*), sum(g.dups)
       FROM unnest($2::text[], $3::text[], $4::int[]) AS g(name, usage, dups) GROUP BY g.name ORDER BY g.name
       ON CONFLICT (ad_account_id, event_name, shard) DO UPDATE
         SET processed = c.processed + excluded.processed, duplicates = c.duplicates + excluded.duplicates`,
      [adAccountId, gone.map((e) => e.event_name), gone.map((e) => e.usage), gone.map((e) => e.duplicates)],
    );
    await c.query('DELETE FROM events WHERE ad_account_id = $1 AND seq = ANY($2::bigint[])', [
      adAccountId,
      seqs,
    ]);
    // The API sightings of the deleted events (C6), which name them by seq; the tag's own sightings carry no
    // user data.
    await c.query('DELETE FROM dedup_sightings WHERE ad_account_id = $1 AND event_seq = ANY($2::bigint[])', [
      adAccountId,
      seqs,
    ]);
    // Their outbox entries, in every state: a deleted event is never delivered and never waits (C112).
    outboxEntries = await PgOutbox.forgetEvents(c, adAccountId, seqs);
  }
  const bodies = await c.query<{ seq: string; body: string }>(
    'SELECT seq, body FROM request_log WHERE ad_account_id = $1 AND body IS NOT NULL FOR UPDATE',
    [adAccountId],
  );
  const dropped = bodies.rows.filter((r) => bodyMatches(r.body, t)).map((r) => r.seq);
  if (dropped.length)
    await c.query(
      'UPDATE request_log SET body = NULL, body_bytes = 0 WHERE ad_account_id = $1 AND seq = ANY($2::bigint[])',
      [adAccountId, dropped],
    );
  return { events: gone.length, outboxEntries, requestBodies: dropped.length };
}
