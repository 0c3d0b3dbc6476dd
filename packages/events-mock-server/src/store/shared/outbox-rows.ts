import type { OutboxBatch, OutboxEntryStatus, OutboxState, OutboxStats, UpstreamResult } from './outbox.js';

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

/** A claimed entry with its event, as both stores select it (ids are strings from pg's bigint). */
export interface ClaimedRow<Id extends number | string = number | string> {
  id: Id;
  attempts: number;
  event_name: string;
  event_id: string;
  event: string;
}

/** An account's claimed rows as batches of at most `size`, oldest first. */
export function toBatches(
  sink: string,
  adAccountId: string,
  rows: readonly ClaimedRow[],
  size: number,
): OutboxBatch[] {
  const batches: OutboxBatch[] = [];
  for (let i = 0; i < rows.length; i += size)
    batches.push({
      sink,
      adAccountId,
      entries: rows.slice(i, i + size).map((r) => ({
        id: Number(r.id),
        eventName: r.event_name,
        eventId: r.event_id,
        event: r.event,
        attempts: r.attempts,
      })),
    });
  return batches;
}
