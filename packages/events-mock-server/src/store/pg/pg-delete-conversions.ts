// C91 on PostgreSQL: a conversion deletion request, in the transaction the store opens. Kept in its own file
// beside the store: it reads the tables of migration versions 1 and 2 and needs no migration of its own.
import type pg from 'pg';
import {
  bodyMatches,
  type DeletionCounts,
  type DeletionTargets,
  eventMatches,
} from '../conversion-deletion.js';

export async function deleteConversionsTx(
  c: pg.PoolClient,
  adAccountId: string,
  t: DeletionTargets,
): Promise<DeletionCounts> {
  const events = await c.query<{ seq: string; event_name: string; event_id: string; event: string }>(
    'SELECT seq, event_name, event_id, event FROM events WHERE ad_account_id = $1 FOR UPDATE',
    [adAccountId],
  );
  const gone = events.rows.filter((e) => eventMatches(e.event, t));
  if (gone.length) {
    await c.query('DELETE FROM events WHERE seq = ANY($1::bigint[])', [gone.map((e) => e.seq)]);
    // The API sightings of the deleted events (C6); the tag's own sightings carry no user data.
    await c.query(
      `DELETE FROM dedup_keys d USING unnest($2::text[], $3::text[]) AS k(event_name, event_id)
       WHERE d.ad_account_id = $1 AND d.source = 'api' AND d.event_name = k.event_name AND d.event_id = k.event_id`,
      [adAccountId, gone.map((e) => e.event_name), gone.map((e) => e.event_id)],
    );
  }
  const bodies = await c.query<{ seq: string; body: string }>(
    'SELECT seq, body FROM request_log WHERE ad_account_id = $1 AND body IS NOT NULL FOR UPDATE',
    [adAccountId],
  );
  const dropped = bodies.rows.filter((r) => bodyMatches(r.body, t)).map((r) => r.seq);
  if (dropped.length)
    await c.query('UPDATE request_log SET body = NULL, body_bytes = 0 WHERE seq = ANY($1::bigint[])', [
      dropped,
    ]);
  return { events: gone.length, requestBodies: dropped.length };
}
