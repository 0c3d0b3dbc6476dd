import type {
  OutboxBatch,
  OutboxEntryStatus,
  OutboxState,
  OutboxStats,
  UpstreamResult,
} from '../interface/outbox.js';

/** A row of the inspector's outbox read, as both stores select it (C100). */
export interface OutboxStatusRow {
  sink: string;
  event_name: string;
  event_id: string;
  state: OutboxState;
  attempts: number;
  last_error: string | null;
  next_at: number | string;
  settled_at: number | string | null;
  /** JSON text (SQLite) or parsed jsonb (PostgreSQL). */
  result: string | UpstreamResult | null;
}

/** bigint columns arrive from pg as strings; the values stay far below 2^53. */
const num = (v: number | string | null) => (v === null ? null : Number(v));

export function toEntryStatus(r: OutboxStatusRow): OutboxEntryStatus {
  return {
    sink: r.sink,
    eventName: r.event_name,
    eventId: r.event_id,
    state: r.state,
    attempts: r.attempts,
    lastError: r.last_error,
    nextAttemptAt: r.state === 'pending' ? num(r.next_at) : null,
    deliveredAt: r.state === 'delivered' ? num(r.settled_at) : null,
    result: typeof r.result === 'string' ? (JSON.parse(r.result) as UpstreamResult) : r.result,
  };
}

/** Per-sink stats from rows counted per (sink, state); `oldestOf` gives a pending row's oldest creation. */
export function statsOf<R extends { sink: string; state: OutboxState; n: number }>(
  rows: readonly R[],
  oldestOf: (r: R) => number | null,
): OutboxStats[] {
  const bySink = new Map<string, OutboxStats>();
  for (const r of rows) {
    const s = bySink.get(r.sink) ?? { sink: r.sink, pending: 0, dead: 0, oldestPendingAt: null };
    if (r.state === 'dead') s.dead = r.n;
    else {
      s.pending = r.n;
      s.oldestPendingAt = oldestOf(r);
    }
    bySink.set(r.sink, s);
  }
  return [...bySink.values()];
}

/**
 * A claimed entry with its event, as both stores select it (ids are strings from pg's bigint); or an entry of
 * a conversion deletion request (C127): no event, its request's id and the body to send.
 */
export interface ClaimedRow<Id extends number | string = number | string> {
  id: Id;
  attempts: number;
  event_name: string | null;
  event_id: string | null;
  event: string | null;
  deletion_request_id: Id | null;
  payload: string | null;
}

/**
 * An account's claimed rows as batches of at most `size`, oldest first. An entry of a deletion request is a
 * batch of its own, between the batches of the events before and after it (C127: it goes to another route).
 */
export function toBatches(
  sink: string,
  adAccountId: string,
  rows: readonly ClaimedRow[],
  size: number,
): OutboxBatch[] {
  const batches: OutboxBatch[] = [];
  let current: OutboxBatch | null = null;
  for (const r of rows) {
    const entry = {
      id: Number(r.id),
      eventName: r.event_name ?? '',
      eventId: r.event_id ?? '',
      event: r.event ?? '',
      attempts: r.attempts,
    };
    if (r.deletion_request_id !== null) {
      batches.push({
        sink,
        adAccountId,
        entries: [entry],
        deletion: { requestId: String(r.deletion_request_id), body: r.payload ?? '{}' },
      });
      current = null;
      continue;
    }
    if (current === null || current.entries.length >= size) {
      current = { sink, adAccountId, entries: [] };
      batches.push(current);
    }
    current.entries.push(entry);
  }
  return batches;
}
