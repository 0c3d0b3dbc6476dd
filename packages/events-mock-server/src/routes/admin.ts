import { LIMITS } from '@org/events-types';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { type RequestProblems, received, requestError } from '../core/request-error.js';
import type { CheckedTagEventsRequest } from '../generated/request-checks.gen.js';
import { ROUTES } from '../generated/routes.gen.js';
import type { ServerContext } from '../http/context.js';
import { AccountEventNames } from '../http/event-names.js';
import { type Checked, withBodyRules } from '../http/gate.js';
import { withStore } from '../http/storage.js';
import { timelineStart } from '../requestlog/request-log.js';
import type { StoredEventRow, TagEventWrite } from '../store/interface/events.js';
import { BadCursorError } from '../store/interface/store.js';

const AD_ACCOUNT_ID = new RegExp(ROUTES['admin/reports/get'].pathParams.ad_account_id.pattern);
const DEDUP_WINDOW_MS = LIMITS.dedup_window_seconds.value * 1000;

export function storedEvent(r: StoredEventRow) {
  return {
    ad_account_id: r.adAccountId,
    event_name: r.eventName,
    event_id: r.eventId,
    received_at: Math.floor(r.receivedAt / 1000),
    request_id: r.requestId,
    usage: r.usage,
    dedup_status: r.dedupStatus,
    duplicates: r.duplicates,
    event: r.event,
  };
}

/**
 * The tag events of a checked body (C6): each item that passed its own checks must name a configured ad
 * account and an event name of that account; every problem is reported with its path.
 */
async function resolveTagEvents(
  ctx: ServerContext,
  items: CheckedTagEventsRequest['data'],
  raw: readonly unknown[],
  names: (account: string) => Promise<AccountEventNames>,
  problems: RequestProblems,
): Promise<TagEventWrite[]> {
  const out: TagEventWrite[] = [];
  for (const [i, e] of items.entries()) {
    if (e === undefined) {
      // The item failed another check; still say when its well-formed ad account is not configured.
      const account = (raw[i] as { ad_account_id?: unknown } | undefined)?.ad_account_id;
      if (typeof account === 'string' && AD_ACCOUNT_ID.test(account) && !ctx.directory.accounts.has(account))
        problems.add('tag_event_account_unknown', `data[${i}].ad_account_id`, {
          received: received(account),
        });
      continue;
    }
    if (!ctx.directory.accounts.has(e.ad_account_id)) {
      problems.add('tag_event_account_unknown', `data[${i}].ad_account_id`, {
        received: received(e.ad_account_id),
      });
      continue;
    }
    const resolved = (await names(e.ad_account_id)).resolveTagName(e.event_name);
    if (resolved === null)
      problems.add('tag_event_name_unknown', `data[${i}].event_name`, { received: received(e.event_name) });
    else
      out.push({
        adAccountId: e.ad_account_id,
        eventName: resolved,
        eventId: e.event_id,
        eventTime: e.event_time,
      });
  }
  return out;
}

/** The admin API of C12, behind the admin token or session (checked by the gate, C101). */
export function adminHandlers(ctx: ServerContext) {
  return {
    'admin/events/list': async (
      _req: FastifyRequest,
      _reply: FastifyReply,
      { query: q }: Checked<'admin/events/list'>,
    ) => {
      const filter = {
        adAccountId: q.ad_account_id,
        eventName: q.event_name,
        eventId: q.event_id,
        cursor: q.cursor,
      };
      try {
        const page = await withStore(ctx, () =>
          ctx.store.listEvents({
            ...Object.fromEntries(Object.entries(filter).filter(([, v]) => v !== undefined)),
            ...(q.since !== undefined ? { since: q.since * 1000 } : {}),
            ...(q.until !== undefined ? { until: q.until * 1000 } : {}),
            limit: q.limit,
          }),
        );
        return { items: page.items.map(storedEvent), next_cursor: page.nextCursor };
      } catch (e) {
        const cause = (e as { cause?: unknown }).cause;
        if (cause instanceof BadCursorError) throw requestError('cursor_invalid', 'query.cursor', {});
        throw e;
      }
    },

    'admin/reports/get': async (req: FastifyRequest) => {
      const id = (req.params as { ad_account_id: string }).ad_account_id;
      if (!AD_ACCOUNT_ID.test(id))
        throw requestError('ad_account_id_invalid', 'path.ad_account_id', { received: received(id) });
      if (!ctx.directory.accounts.has(id))
        throw requestError('ad_account_unknown', 'path.ad_account_id', { received: id });
      await ctx.requestLog.flushed();
      const [r, counts] = await withStore(ctx, () =>
        Promise.all([ctx.store.report(id), ctx.store.timeline(id, timelineStart(ctx.clock.now()))]),
      );
      // C63: one row per hour with live events, oldest first; code '' counts processed events.
      const hours = new Map<number, { start: number; processed: number; failed: Record<string, number> }>();
      for (const c of counts) {
        let h = hours.get(c.start);
        if (!h) {
          h = { start: c.start, processed: 0, failed: {} };
          hours.set(c.start, h);
        }
        if (c.code === '') h.processed = c.count;
        else h.failed[c.code] = c.count;
      }
      return {
        ad_account_id: id,
        stored: r.stored.map((s) => ({
          event_name: s.eventName,
          usage: s.usage,
          processed: s.processed,
          duplicates: s.duplicates,
        })),
        failed: r.failed.map((f) => ({ event_name: f.eventName, code: f.code, count: f.count })),
        timeline: [...hours.values()],
      };
    },

    'admin/tag_events/create': withBodyRules(
      async (
        _req: FastifyRequest,
        _reply: FastifyReply,
        { body, json, problems }: Checked<'admin/tag_events/create'>,
      ) => {
        const cache = new Map<string, Promise<AccountEventNames>>();
        const names = (account: string) => {
          let p = cache.get(account);
          if (!p) {
            p = withStore(ctx, () => ctx.customTypes.get(account)).then(
              (rows) => new AccountEventNames(rows),
            );
            cache.set(account, p);
          }
          return p;
        };
        // Items that failed their own checks are undefined in `body`; their raw form still says the account.
        const raw = (json as { data: unknown[] }).data;
        const events = await resolveTagEvents(ctx, body.data, raw, names, problems);
        problems.throwIfAny();
        const recorded = await withStore(ctx, () =>
          ctx.store.recordTagEvents(events, ctx.clock.now() - DEDUP_WINDOW_MS),
        );
        return { recorded };
      },
    ),

    'admin/reset': async (_req: FastifyRequest, reply: FastifyReply) => {
      // Entries of requests answered before the reset go with it.
      await ctx.requestLog.flushed();
      await withStore(ctx, () => ctx.store.reset());
      await ctx.limiter.reset();
      return reply.code(204).send();
    },
  };
}
