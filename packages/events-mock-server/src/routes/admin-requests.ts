import { type EventDelivery, LIMITS } from '@org/events-types';
import { matchQuality } from '@org/events-validators';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { received, requestError } from '../core/request-error.js';
import type { ServerContext } from '../http/context.js';
import type { Checked } from '../http/gate.js';
import { requestIdHeaders } from '../http/request-id.js';
import { withStore } from '../http/storage.js';
import type { RequestLogEntry, RequestLogItem, RequestLogSummary } from '../store/interface/request-log.js';
import { BadCursorError } from '../store/interface/store.js';
import { requestFilter, summaryJson } from './request-log-json.js';

const PING_MS = LIMITS.request_stream_ping_seconds.value * 1000;
const POLL_MS = LIMITS.request_stream_poll_seconds.value * 1000;
/** Entries read per poll of the live stream (C62). */
const POLL_PAGE = 100;

/** A bad cursor is a 400 of the caller, any other store failure the 503 withStore made. */
export function cursorError(e: unknown): never {
  const cause = (e as { cause?: unknown }).cause;
  if (cause instanceof BadCursorError) throw requestError('cursor_invalid', 'query.cursor', {});
  throw e;
}

/** The events of a kept body by index; null for each when it was not kept or is not a batch. */
function eventsOf(entry: RequestLogEntry): unknown[] {
  if (entry.body === null) return [];
  try {
    const data = (JSON.parse(entry.body) as { data?: unknown } | null)?.data;
    return Array.isArray(data) ? data : [];
  } catch {
    return [];
  }
}

/**
 * The request of a duplicate's earlier sighting (C60): this request for an earlier event of the same batch,
 * else the stored event received at that time; null for a tag sighting or an event no longer stored.
 */
async function earlierRequest(
  ctx: ServerContext,
  entry: RequestLogEntry,
  d: NonNullable<RequestLogEntry['items'][number]['duplicateOf']>,
): Promise<string | null> {
  if (d.source === 'tag') return null;
  if (d.seenAt === entry.receivedAt) return entry.requestId;
  const page = await ctx.store.listEvents({
    adAccountId: entry.adAccountId,
    eventName: d.eventName,
    eventId: d.eventId,
    limit: 10,
  });
  return page.items.find((e) => e.receivedAt === d.seenAt)?.requestId ?? null;
}

/**
 * C100: the outbox entries of a request's stored events (its processed events that are no duplicate). Each
 * is found by its event's name and id when the body is kept. Without the body, the k-th stored item has the
 * k-th entry of every sink, but only while the request still has an entry per stored event: after a deletion
 * removed some (C112), position would show another event's delivery, so none is shown. Undefined without a
 * sink, so the detail stays as it was.
 */
async function deliveryOf(ctx: ServerContext, entry: RequestLogEntry) {
  const outbox = ctx.delivery?.outbox;
  if (!outbox) return undefined;
  const bySink = new Map<string, (EventDelivery & { key: string })[]>();
  for (const e of await outbox.outboxOfRequest(entry.requestId))
    bySink.set(e.sink, [
      ...(bySink.get(e.sink) ?? []),
      {
        key: `${e.eventName}\u0000${e.eventId}`,
        sink: e.sink,
        state: e.state,
        attempts: e.attempts,
        last_error: e.lastError,
        next_attempt_at: e.nextAttemptAt,
        delivered_at: e.deliveredAt,
        upstream: e.result && {
          status: e.result.status,
          error_message: e.result.message,
          warning_message: e.result.warning,
        },
      },
    ]);
  const storedItems = entry.items.filter((i) => i.status === 'processed' && !i.duplicateOf).length;
  const whole = [...bySink.values()].every((rows) => rows.length === storedItems);
  let stored = 0;
  return (item: RequestLogItem, event: unknown): EventDelivery[] => {
    if (item.status !== 'processed' || item.duplicateOf) return [];
    const k = stored++;
    const e = event as { event_name?: unknown; event_id?: unknown } | null;
    const pick =
      e && typeof e.event_name === 'string' && typeof e.event_id === 'string'
        ? (rows: (EventDelivery & { key: string })[]) =>
            rows.find((r) => r.key === `${e.event_name}\u0000${e.event_id}`)
        : (rows: (EventDelivery & { key: string })[]) => (whole ? rows[k] : undefined);
    return [...bySink.values()].flatMap((rows) => {
      const r = pick(rows);
      if (!r) return [];
      const { key: _key, ...delivery } = r;
      return [delivery];
    });
  };
}

async function detailJson(ctx: ServerContext, entry: RequestLogEntry) {
  const events = eventsOf(entry);
  const delivery = await deliveryOf(ctx, entry);
  const items = [];
  for (const i of entry.items) {
    const d = i.duplicateOf;
    const event = events[i.index] ?? null;
    items.push({
      index: i.index,
      event,
      status: i.status,
      error_message: i.errorMessage,
      warning_message: i.warningMessage,
      fields: i.fields,
      duplicate_of: d
        ? {
            request_id: await earlierRequest(ctx, entry, d),
            event_id: d.eventId,
            received_at: d.seenAt,
          }
        : null,
      // Computed when read, from the spec's markings of the running version (C67).
      match_quality: event === null ? null : matchQuality(event),
      ...(delivery ? { delivery: delivery(i, event) } : {}),
    });
  }
  return {
    ...summaryJson(entry),
    body_truncated: entry.bodyTruncated,
    // C96: a refused request has no events to show its body through; a 200's body is in its items.
    body: entry.status === 200 ? null : entry.body,
    items,
  };
}

/** The request log API of C61 and its live stream (C62), behind the admin token or session. */
export function adminRequestHandlers(ctx: ServerContext) {
  return {
    'admin/requests/list': async (
      _req: FastifyRequest,
      _reply: FastifyReply,
      { query: q }: Checked<'admin/requests/list'>,
    ) => {
      // Read-your-writes: what this process answered before is in the log.
      await ctx.requestLog.flushed();
      const page = await withStore(ctx, () =>
        ctx.store.listRequests({
          ...requestFilter(ctx, q, q.limit),
          ...(q.cursor !== undefined ? { cursor: q.cursor } : {}),
        }),
      ).catch(cursorError);
      return { items: page.items.map(summaryJson), next_cursor: page.nextCursor };
    },

    'admin/requests/get': async (req: FastifyRequest) => {
      const id = (req.params as { request_id: string }).request_id;
      await ctx.requestLog.flushed();
      const entry = await withStore(ctx, () => ctx.store.getRequest(id, ctx.requestLog.notBefore()));
      if (!entry) throw requestError('request_log_unknown', 'path.request_id', { received: received(id) });
      return withStore(ctx, () => detailJson(ctx, entry));
    },

    'admin/requests/stream': async (
      req: FastifyRequest,
      reply: FastifyReply,
      { query: q }: Checked<'admin/requests/stream'>,
    ) => {
      await ctx.requestLog.flushed();
      // Only what is logged from now on: the newest entry now is the floor.
      const newest = await withStore(ctx, () => ctx.store.listRequests({ limit: 1 }));
      let floor = newest.items[0]?.seq ?? 0;
      const sent = new Set<number>();
      const res = reply.raw;
      reply.hijack();
      res.writeHead(200, {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-store',
        // Ends with the stream, so a shutdown does not wait for an idle kept-alive socket.
        connection: 'close',
        ...requestIdHeaders(req),
      });
      res.write(': stream of logged requests\n\n');
      const send = (s: RequestLogSummary) => {
        if (s.seq <= floor || sent.has(s.seq)) return;
        if (q.ad_account_id !== undefined && s.adAccountId !== q.ad_account_id) return;
        sent.add(s.seq);
        res.write(`event: request\nid: ${s.requestId}\ndata: ${JSON.stringify(summaryJson(s))}\n\n`);
      };
      // Entries of other instances sharing the store (C62): the newest page, oldest first.
      let polling = false;
      const poll = async () => {
        if (polling) return;
        polling = true;
        try {
          const page = await ctx.store.listRequests({
            limit: POLL_PAGE,
            since: ctx.requestLog.notBefore(),
            ...(q.ad_account_id !== undefined ? { adAccountId: q.ad_account_id } : {}),
          });
          for (const s of [...page.items].reverse()) send(s);
          // What is older than the page can no longer come back: forget it.
          const oldest = page.items[page.items.length - 1]?.seq;
          if (oldest !== undefined && page.items.length === POLL_PAGE) {
            floor = Math.max(floor, oldest - 1);
            for (const seq of sent) if (seq <= floor) sent.delete(seq);
          }
        } catch {
          // The store is away: the next poll tries again.
        } finally {
          polling = false;
        }
      };
      const pollTimer = setInterval(poll, POLL_MS);
      const pingTimer = setInterval(() => res.write(': ping\n\n'), PING_MS);
      const stop = () => {
        clearInterval(pollTimer);
        clearInterval(pingTimer);
        unsubscribe();
      };
      const unsubscribe = ctx.requestLog.subscribe(send, () => {
        stop();
        res.end();
      });
      res.on('close', stop);
    },
  };
}
