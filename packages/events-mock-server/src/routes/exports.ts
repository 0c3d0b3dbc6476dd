import { pipeline, Readable } from 'node:stream';
import { LIMITS } from '@org/events-types';
import { stringify } from 'csv-stringify';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ServerContext } from '../http/context.js';
import type { Checked } from '../http/gate.js';
import { withStore } from '../http/storage.js';
import type { EventFilter, StoredEventRow } from '../store/interface/events.js';
import type { RequestLogSummary } from '../store/interface/request-log.js';
import { storedEvent } from './admin.js';
import { cursorError } from './admin-requests.js';
import { requestFilter, summaryJson } from './request-log-json.js';

const PAGE = LIMITS.export_page_rows.value;

type Page<T> = { items: T[]; nextCursor: string | null };

/** CSV columns of each export (README, "Request log, exports and sessions"); nested values as text. */
const EVENT_COLUMNS = [
  'ad_account_id',
  'event_name',
  'event_id',
  'received_at',
  'request_id',
  'usage',
  'dedup_status',
  'duplicates',
  'event',
] as const;
const REQUEST_COLUMNS = [
  'request_id',
  'client_request_id',
  'received_at',
  'ad_account_id',
  'token_id',
  'test',
  'status',
  'duration_ms',
  'events',
  'processed',
  'failed',
  'warned',
  'event_names',
  'error_code',
  'error_message',
] as const;

function eventCsv(r: StoredEventRow): unknown[] {
  const e = storedEvent(r);
  return [
    e.ad_account_id,
    e.event_name,
    e.event_id,
    e.received_at,
    e.request_id,
    e.usage.join(';'),
    e.dedup_status,
    e.duplicates,
    JSON.stringify(e.event),
  ];
}

function requestCsv(s: RequestLogSummary): unknown[] {
  return [
    s.requestId,
    s.clientRequestId ?? '',
    s.receivedAt,
    s.adAccountId,
    s.tokenId ?? '',
    s.test,
    s.status,
    s.durationMs,
    s.events,
    s.processed,
    s.failed,
    s.warned,
    s.eventNames.join(';'),
    s.error?.code ?? '',
    s.error?.message ?? '',
  ];
}

/**
 * A text cell a spreadsheet would read as a formula (C75): it starts with `=`, `+`, `-`, `@`, a tab or a
 * carriage return, or their full-width forms, as OWASP's CSV injection guidance and csv-stringify's own
 * `escape_formulas` list them.
 */
const FORMULA_START = /^[=+\-@\t\r\uFF1D\uFF0B\uFF0D\uFF20]/;
/** A plain number (`-5`, `+3.25`) is data, never a formula: left as it is (C75). */
const PLAIN_NUMBER = /^[+-]?\d+(\.\d+)?$/;

/**
 * Text cells of the CSV exports, neutralised with a leading single quote when a spreadsheet would evaluate
 * them (C75). Number cells are written by csv-stringify as numbers and never come here; NDJSON is exact.
 */
export function csvText(value: string): string {
  return FORMULA_START.test(value) && !PLAIN_NUMBER.test(value) ? `'${value}` : value;
}

/** Every row of the pages, one page in memory at a time: the next is read once the stream wants more. */
async function* rows<T>(first: Page<T>, next: (cursor: string) => Promise<Page<T>>): AsyncGenerator<T> {
  let page = first;
  for (;;) {
    yield* page.items;
    if (page.nextCursor === null) return;
    page = await next(page.nextCursor);
  }
}

/**
 * Streams an export (C63): NDJSON lines or CSV through csv-stringify, with backpressure (Readable.from
 * pulls the next row only when the socket has drained). The first page is read before the answer starts,
 * so a store that is away still answers 503.
 */
async function send<T>(
  reply: FastifyReply,
  format: 'ndjson' | 'csv',
  name: string,
  read: (cursor: string | undefined) => Promise<Page<T>>,
  json: (row: T) => unknown,
  csv: { columns: readonly string[]; row: (row: T) => unknown[] },
) {
  const first = await read(undefined);
  const all = rows(first, (c) => read(c));
  reply.header('content-disposition', `attachment; filename="${name}.${format}"`);
  if (format === 'ndjson') {
    reply.type('application/x-ndjson; charset=utf-8');
    return reply.send(
      Readable.from(
        (async function* () {
          for await (const r of all) yield `${JSON.stringify(json(r))}\n`;
        })(),
      ),
    );
  }
  reply.type('text/csv; charset=utf-8');
  const source = Readable.from(
    (async function* () {
      for await (const r of all) yield csv.row(r);
    })(),
  );
  const out = stringify({
    header: true,
    columns: [...csv.columns],
    cast: { boolean: (b) => String(b), string: csvText },
  });
  // A store failure midway ends the answer early (the status is sent already); the log says why.
  pipeline(source, out, (err) => {
    if (err) reply.log.warn({ err }, 'export ended early');
  });
  return reply.send(out);
}

/** Exports of stored events and of the request log (C63), behind the admin token or session. */
export function exportHandlers(ctx: ServerContext) {
  return {
    'admin/events/export': async (
      _req: FastifyRequest,
      reply: FastifyReply,
      { query: q }: Checked<'admin/events/export'>,
    ) => {
      const filter: EventFilter = {
        ...(q.ad_account_id !== undefined ? { adAccountId: q.ad_account_id } : {}),
        ...(q.event_name !== undefined ? { eventName: q.event_name } : {}),
        ...(q.event_id !== undefined ? { eventId: q.event_id } : {}),
        ...(q.since !== undefined ? { since: q.since * 1000 } : {}),
        ...(q.until !== undefined ? { until: q.until * 1000 } : {}),
        limit: PAGE,
      };
      return send(
        reply,
        q.format,
        'events',
        (cursor) =>
          withStore(ctx, () => ctx.store.listEvents({ ...filter, ...(cursor ? { cursor } : {}) })).catch(
            cursorError,
          ),
        storedEvent,
        { columns: EVENT_COLUMNS, row: eventCsv },
      );
    },

    'admin/requests/export': async (
      _req: FastifyRequest,
      reply: FastifyReply,
      { query: q }: Checked<'admin/requests/export'>,
    ) => {
      await ctx.requestLog.flushed();
      const filter = requestFilter(ctx, q, PAGE);
      return send(
        reply,
        q.format,
        'requests',
        (cursor) =>
          withStore(ctx, () => ctx.store.listRequests({ ...filter, ...(cursor ? { cursor } : {}) })),
        summaryJson,
        { columns: REQUEST_COLUMNS, row: requestCsv },
      );
    },
  };
}
