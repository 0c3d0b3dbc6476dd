import type { AccountReportData, StoredEventRow } from '../interface/events.js';
import { BadCursorError } from '../interface/store.js';

/** An events row as both SQL stores keep it (C11). */
export interface EventRow {
  seq: number;
  ad_account_id: string;
  event_name: string;
  event_id: string;
  event_time: number;
  received_at: number;
  request_id: string;
  usage: string;
  dedup_status: 'unique' | 'deduplicated';
  duplicates: number;
  event: string;
}

export function toStoredEvent(r: EventRow): StoredEventRow {
  return {
    adAccountId: r.ad_account_id,
    eventName: r.event_name,
    eventId: r.event_id,
    eventTime: r.event_time,
    receivedAt: r.received_at,
    requestId: r.request_id,
    usage: r.usage ? r.usage.split(',') : [],
    dedupStatus: r.dedup_status,
    duplicates: r.duplicates,
    event: JSON.parse(r.event) as unknown,
  };
}

/** One page of rows fetched with `limit + 1`, newest first, and the cursor of the next page. */
export function eventPage(
  rows: readonly EventRow[],
  limit: number,
): { items: StoredEventRow[]; nextCursor: string | null } {
  return seqPage(rows, limit, toStoredEvent);
}

/**
 * A page of rows read newest first by `seq`, one more than `limit` asked for: the first `limit` as items, and
 * a cursor after the last when the extra row says there is more.
 */
export function seqPage<R extends { seq: number }, T>(
  rows: readonly R[],
  limit: number,
  item: (row: R) => T,
): { items: T[]; nextCursor: string | null } {
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return {
    items: page.map(item),
    nextCursor: rows.length > limit && last ? encodeCursor(last.seq) : null,
  };
}

export function encodeCursor(seq: number): string {
  return Buffer.from(`seq:${seq}`).toString('base64url');
}

/** Throws BadCursorError when the cursor does not come from a previous page. */
export function decodeCursor(cursor: string): number {
  const m = /^seq:(\d{1,16})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  if (!m) throw new BadCursorError('not a cursor of this server');
  return Number(m[1]);
}

/** Counter rows as both SQL stores read them, per event name and per (event name, reason code). */
export function toReport(
  stored: readonly { event_name: string; usage: string; processed: number; duplicates: number }[],
  failed: readonly { event_name: string; code: string; count: number }[],
): AccountReportData {
  return {
    stored: stored.map((r) => ({
      eventName: r.event_name,
      usage: r.usage ? r.usage.split(',') : [],
      processed: r.processed,
      duplicates: r.duplicates,
    })),
    failed: failed.map((r) => ({ eventName: r.event_name, code: r.code, count: r.count })),
  };
}
