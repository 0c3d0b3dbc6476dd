import { LIMITS } from '@org/events-types';
import { appendWarning, formatMessage, validateBatch } from '@org/events-validators';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { authorizeAccountRoute } from '../auth/authorize.js';
import type { ServerContext } from '../context.js';
import { ROUTES } from '../generated/routes.gen.js';
import { type BatchWrite, type Earlier, type EventToStore, dedupKey } from '../store/store.js';
import { parseJsonBody, requireJson } from './body.js';
import { AccountEventNames } from './event-names.js';
import { enforceRateLimit } from './rate-limit.js';
import { RequestError } from './request-error.js';
import { withStore } from './storage.js';
import { readTestFlag } from './test-flag.js';

const route = ROUTES['events/create'];
const DEDUP_WINDOW_MS = LIMITS.dedup_window_seconds.value * 1000;
/** Failed events are counted under their event_name; cut so junk names cannot grow the counters table. */
const MAX_COUNTED_NAME = LIMITS.custom_event_name_max_length.value;

/** The duplicate warning of C6: names the earlier event's source and event_time. */
function duplicateMessage(e: Earlier): string {
  const source = e.source === 'tag' ? 'tag event' : `received ${new Date(e.seenAt).toISOString()}`;
  return formatMessage('duplicate_event', { source, earlierTime: e.eventTime });
}

/**
 * POST /v5/ad_accounts/{ad_account_id}/events. The request-level rows of C2 in order (413 is enforced while
 * reading the body, before this runs), then per-event rules through @org/events-validators (the same code
 * integrators run), dedup (C6), test mode (C7) and durable storage (C11) before the 200 of C3.
 */
export function createEventsHandler(ctx: ServerContext) {
  return async function createEvents(req: FastifyRequest, reply: FastifyReply) {
    requireJson(req); // 415
    const params = req.params as { ad_account_id: string };
    const { principal, account } = authorizeAccountRoute(route, req.auth, params.ad_account_id, ctx.directory); // 401, 404, 403
    const flag = readTestFlag(req.query);
    enforceRateLimit(ctx.limiter, reply, route.rateLimitCategory, principal, account.id, flag.test); // 429
    if (flag.problems.length) throw new RequestError('invalid_request', flag.problems); // 400
    const body = parseJsonBody(req); // 400

    const names = new AccountEventNames(await withStore(ctx, () => ctx.store.listCustomEventTypes(account.id)));
    const now = ctx.clock.now();
    const result = validateBatch(body, {
      now: Math.floor(now / 1000),
      currency: account.currency,
      customEventNames: names.customNames(),
    });
    if (!result.ok) {
      const { code, message, details } = result.error;
      reply.code(result.status);
      return details?.length ? { code, message, details } : { code, message };
    }
    const { response, accepted, problems } = result;
    const data = (body as { data: unknown[] }).data;
    const mode = flag.test ? 'test' : 'live';
    ctx.metrics.batchSize.observe(data.length);

    // Events to store, in request order; within-batch duplicates already carry the validators' warning.
    const toStore: EventToStore[] = [];
    const warned = new Set<number>();
    const failures: BatchWrite['failures'][number][] = [];
    for (let i = 0; i < accepted.length; i++) {
      const ev = accepted[i];
      const p = problems[i];
      if (!ev) {
        const raw = data[i] as { event_name?: unknown } | null;
        const name = raw && typeof raw.event_name === 'string' ? raw.event_name.slice(0, MAX_COUNTED_NAME) : '(missing)';
        failures.push({ eventName: name, codes: [...new Set(p?.errors.map((e) => e.code) ?? [])] });
        continue;
      }
      if (p?.warnings.some((w) => w.code === 'duplicate_event')) warned.add(i);
      const resolved = names.resolve(ev.event_name);
      toStore.push({
        index: i,
        eventName: resolved?.name ?? ev.event_name,
        eventId: ev.event_id,
        eventTime: ev.event_time,
        usage: resolved?.usage ?? [],
        json: flag.test ? '' : JSON.stringify(ev),
      });
    }

    const since = now - DEDUP_WINDOW_MS;
    let duplicates: Map<number, Earlier>;
    if (flag.test) {
      // C7: every rule runs, dedup included, but nothing is stored and no dedup state changes.
      const earlier = await withStore(ctx, () => ctx.store.findEarlier(account.id, toStore, since));
      // Earlier events of this batch count as the store would count them in live mode.
      const inBatch = new Map<string, Earlier>();
      duplicates = new Map();
      for (const e of toStore) {
        const key = dedupKey(e.eventName, e.eventId);
        const hit = earlier.get(key) ?? inBatch.get(key);
        if (hit) duplicates.set(e.index, hit);
        else inBatch.set(key, { source: 'api', seenAt: now, eventTime: e.eventTime });
      }
    } else {
      const started = performance.now();
      const committed = await withStore(ctx, () =>
        ctx.store.commitBatch({
          adAccountId: account.id,
          requestId: req.id,
          receivedAt: now,
          dedupSince: since,
          events: toStore,
          failures,
        }),
      );
      ctx.metrics.commit.observe((performance.now() - started) / 1000);
      duplicates = committed.duplicates;
    }
    for (const [i, earlier] of duplicates) {
      if (warned.has(i)) continue;
      const result = response.events[i];
      const p = problems[i];
      if (result && p) appendWarning(result, p, { path: 'event_id', code: 'duplicate_event', message: duplicateMessage(earlier) });
    }

    const dupCount = duplicates.size + [...warned].filter((i) => !duplicates.has(i)).length;
    ctx.metrics.events.inc({ outcome: 'processed', mode }, response.num_events_processed);
    ctx.metrics.events.inc({ outcome: 'failed', mode }, response.num_events_received - response.num_events_processed);
    if (dupCount) ctx.metrics.events.inc({ outcome: 'duplicate', mode }, dupCount);
    reply.type('application/json; charset=utf-8');
    return JSON.stringify(response);
  };
}
