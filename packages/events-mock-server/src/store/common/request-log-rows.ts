import { brotliCompressSync, brotliDecompressSync, constants as zlibConstants } from 'node:zlib';
import { asBuffer } from '../interface/events.js';
import type {
  RequestLogEntry,
  RequestLogError,
  RequestLogFilter,
  RequestLogItem,
  RequestLogSummary,
  RequestLogWrite,
} from '../interface/request-log.js';
import { decodeCursor, seqPage } from './event-rows.js';

/** A request_log row as both SQL stores keep it (C60); `test` and `body_truncated` are 0/1 or booleans. */
export interface RequestLogRow {
  seq: number;
  request_id: string;
  client_request_id: string | null;
  received_at: number;
  ad_account_id: string;
  token_id: string | null;
  test: number | boolean;
  status: number;
  duration_ms: number;
  events: number;
  processed: number;
  failed: number;
  warned: number;
  event_names: string;
  error_code: number | null;
  error_message: string | null;
  body?: string | Uint8Array | null;
  body_truncated?: number | boolean;
  items?: string;
}

/** The columns of a summary: lists and exports never read bodies or items. */
export const SUMMARY_COLUMNS =
  'seq, request_id, client_request_id, received_at, ad_account_id, token_id, test, status, duration_ms, events, processed, failed, warned, event_names, error_code, error_message';

/** Columns written for one entry, in the order of `entryValues`. */
export const WRITE_COLUMNS =
  'request_id, client_request_id, received_at, ad_account_id, token_id, test, status, duration_ms, events, processed, failed, warned, event_names, error_code, error_message, body, body_truncated, body_bytes, items';

/**
 * Event names are kept as one text, each name between newlines, so "holds an event named X" is a substring
 * test for `\nX\n` in either database. A newline inside a name (only failed events can have one) becomes a
 * space.
 */
export function encodeNames(names: readonly string[]): string {
  return names.length ? `\n${names.map((n) => n.replaceAll('\n', ' ')).join('\n')}\n` : '';
}

export function nameNeedle(name: string): string {
  return `\n${name.replaceAll('\n', ' ')}\n`;
}

function decodeNames(s: string): string[] {
  return s === '' ? [] : s.slice(1, -1).split('\n');
}

export const WRITE_COLUMN_COUNT = WRITE_COLUMNS.split(',').length;

/** Bodies from this size on are kept compressed where the store can (SQLite); smaller ones as text. */
const COMPRESS_FROM_BYTES = 16 * 1024;

/**
 * Brotli at its fastest setting: a 0.75 MB 1000-event body in about 1 ms, to a ninth of its size, so
 * SQLite writes, checkpoints and later deletes 80 KB instead of 750 KB per logged request.
 */
function compressBody(b: Uint8Array): Buffer {
  return brotliCompressSync(b, {
    params: { [zlibConstants.BROTLI_PARAM_QUALITY]: 1, [zlibConstants.BROTLI_PARAM_SIZE_HINT]: b.byteLength },
  });
}

/**
 * The values of one entry for WRITE_COLUMNS; booleans as 0/1 (SQLite) or kept (PostgreSQL). A large body
 * given as bytes is kept compressed where `compress` is asked (SQLite: a blob in the text column is the
 * compressed form, text the plain one, see `bodyText`); any other body is written as text. `body_bytes`
 * is always the body's own size, which the retention of C60 counts.
 */
export function entryValues(e: RequestLogWrite, bool: (b: boolean) => unknown, compress: boolean): unknown[] {
  const body =
    e.body === null || typeof e.body === 'string'
      ? e.body
      : compress && e.body.byteLength >= COMPRESS_FROM_BYTES
        ? compressBody(e.body)
        : asBuffer(e.body).toString('utf8');
  return [
    e.requestId,
    e.clientRequestId,
    e.receivedAt,
    e.adAccountId,
    e.tokenId,
    bool(e.test),
    e.status,
    e.durationMs,
    e.events,
    e.processed,
    e.failed,
    e.warned,
    encodeNames(e.eventNames),
    e.error?.code ?? null,
    e.error?.message ?? null,
    body,
    bool(e.bodyTruncated),
    e.body === null ? 0 : typeof e.body === 'string' ? Buffer.byteLength(e.body) : e.body.byteLength,
    // C96: a refused request has no events; its items column keeps the details of its answer instead.
    e.error?.details
      ? JSON.stringify({ details: e.error.details })
      : JSON.stringify(e.items.filter((i) => !plain(i))),
  ];
}

/**
 * A processed event without messages is most of a clean batch and says nothing the counts do not: it is
 * not written, and comes back from the event count when read (a 1000-event batch writes no item at all).
 */
function plain(i: RequestLogItem): boolean {
  return (
    i.status === 'processed' &&
    i.errorMessage === null &&
    i.warningMessage === null &&
    i.fields.length === 0 &&
    i.duplicateOf === null
  );
}

function expandItems(kept: RequestLogItem[], events: number, status: number): RequestLogItem[] {
  if (status !== 200) return kept;
  const byIndex = new Map(kept.map((i) => [i.index, i]));
  return Array.from(
    { length: events },
    (_, index) =>
      byIndex.get(index) ?? {
        index,
        status: 'processed',
        errorMessage: null,
        warningMessage: null,
        fields: [],
        duplicateOf: null,
      },
  );
}

export function toSummary(r: RequestLogRow): RequestLogSummary {
  return {
    seq: r.seq,
    requestId: r.request_id,
    clientRequestId: r.client_request_id ?? null,
    receivedAt: r.received_at,
    adAccountId: r.ad_account_id,
    tokenId: r.token_id,
    test: r.test === true || r.test === 1,
    status: r.status,
    durationMs: r.duration_ms,
    events: r.events,
    processed: r.processed,
    failed: r.failed,
    warned: r.warned,
    eventNames: decodeNames(r.event_names),
    error: r.error_code === null ? null : { code: r.error_code, message: r.error_message ?? '' },
  };
}

/** A kept body as text: a blob is the compressed form (`entryValues`). */
export function bodyText(b: string | Uint8Array): string {
  return typeof b === 'string' ? b : brotliDecompressSync(b).toString('utf8');
}

export function toEntry(r: RequestLogRow): RequestLogEntry {
  const summary = toSummary(r);
  const kept = JSON.parse(r.items ?? '[]') as RequestLogItem[] | { details: RequestLogError['details'] };
  return {
    ...summary,
    ...(Array.isArray(kept) || !summary.error ? {} : { error: { ...summary.error, details: kept.details } }),
    body: r.body == null ? null : bodyText(r.body),
    bodyTruncated: r.body_truncated === true || r.body_truncated === 1,
    items: Array.isArray(kept) ? expandItems(kept, r.events, r.status) : [],
  };
}

/**
 * The WHERE clause of a request log filter for either database: `ph` renders the placeholder of the next
 * argument, `contains` the substring test of the event-name needle and `bool` a boolean value.
 */
export function requestLogWhere(
  f: RequestLogFilter,
  ph: (n: number) => string,
  contains: (column: string, needle: string) => string,
  bool: (b: boolean) => unknown,
): { sql: string; args: unknown[] } {
  const where: string[] = [];
  const args: unknown[] = [];
  const add = (sql: (p: string) => string, value: unknown) => {
    if (value === undefined) return;
    args.push(value);
    where.push(sql(ph(args.length)));
  };
  add((p) => `ad_account_id = ${p}`, f.adAccountId);
  add((p) => `client_request_id = ${p}`, f.clientRequestId);
  add((p) => `status = ${p}`, f.status);
  if (f.outcome === 'failed') where.push('failed > 0');
  if (f.outcome === 'warned') where.push('warned > 0');
  add((p) => contains('event_names', p), f.eventName === undefined ? undefined : nameNeedle(f.eventName));
  add((p) => `test = ${p}`, f.test === undefined ? undefined : bool(f.test));
  add((p) => `received_at >= ${p}`, f.since);
  add((p) => `received_at < ${p}`, f.until);
  add((p) => `seq < ${p}`, f.cursor === undefined ? undefined : decodeCursor(f.cursor));
  return { sql: where.length ? `WHERE ${where.join(' AND ')}` : '', args };
}

/** One page of rows fetched with `limit + 1`, newest first, and the cursor of the next page. */
export function requestPage(
  rows: readonly RequestLogRow[],
  limit: number,
): { items: RequestLogSummary[]; nextCursor: string | null } {
  return seqPage(rows, limit, toSummary);
}

/**
 * Retention by size (C60): deletes the newest entry whose running total of body bytes, newest first, is
 * over the cap, and every older one. The same statement in both databases (window functions).
 */
/**
 * The body bytes kept, asked before PRUNE_BY_BYTES: a scan of a covering index (≈ 0.5 ms at 10,000 rows)
 * where the prune's running total sorts the whole log (≈ 7 ms); the prune runs only when it has work.
 */
export const BYTES_KEPT = 'SELECT coalesce(sum(body_bytes), 0) AS total FROM request_log';

export const PRUNE_BY_BYTES = (ph: string) => `DELETE FROM request_log WHERE seq <= (
  SELECT seq FROM (SELECT seq, sum(body_bytes) OVER (ORDER BY seq DESC) AS total FROM request_log) t
  WHERE total > ${ph} ORDER BY seq DESC LIMIT 1)`;

/** Timeline counts of the live requests of one write, per (account, hour start, code). */
export function timelineRows(entries: readonly RequestLogWrite[]): [string, number, string, number][] {
  const sums = new Map<string, [string, number, string, number]>();
  const add = (account: string, hour: number, code: string, n: number) => {
    if (n === 0) return;
    const key = `${account}\u0000${hour}\u0000${code}`;
    const row = sums.get(key);
    if (row) row[3] += n;
    else sums.set(key, [account, hour, code, n]);
  };
  for (const e of entries) {
    if (!e.timeline) continue;
    const hour = Math.floor(e.receivedAt / 3_600_000) * 3600;
    add(e.adAccountId, hour, '', e.timeline.processed);
    for (const [code, n] of Object.entries(e.timeline.failedCodes)) add(e.adAccountId, hour, code, n);
  }
  return [...sums.values()];
}
