import { LIMITS } from '@org/events-types';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { authorizeAdmin } from '../auth/authorize.js';
import type { ServerContext } from '../context.js';
import { ROUTES } from '../generated/routes.gen.js';
import { objectBody, parseJsonBody, requireJson } from '../http/body.js';
import { AccountEventNames } from '../http/event-names.js';
import { type Detail, detail, RequestError, received, requestError } from '../http/request-error.js';
import { withStore } from '../http/storage.js';
import { BadCursorError, type StoredEventRow, type TagEventWrite } from '../store/store.js';

const AD_ACCOUNT_ID = new RegExp(ROUTES['admin/reports/get'].pathParams.ad_account_id.pattern);
const DEDUP_WINDOW_MS = LIMITS.dedup_window_seconds.value * 1000;
// Page size bounds and default of GET /admin/events, from the spec's `limit` parameter.
const PAGE = ROUTES['admin/events/list'].queryParams.limit;

function storedEvent(r: StoredEventRow) {
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

/** Reads an optional integer query parameter; a bad value is a 400 with its path. */
function intParam(
  q: Record<string, unknown>,
  name: string,
  min: number,
  max: number,
  problems: Detail[],
): number | undefined {
  const v = q[name];
  if (v === undefined) return undefined;
  if (typeof v === 'string' && /^-?\d{1,16}$/.test(v)) {
    const n = Number(v);
    if (n >= min && n <= max) return n;
  }
  problems.push(
    detail('invalid_field', `query.${name}`, {
      problem: `must be an integer from ${min} to ${max}; received ${received(v)}`,
    }),
  );
  return undefined;
}

function strParam(q: Record<string, unknown>, name: string, problems: Detail[]): string | undefined {
  const v = q[name];
  if (v === undefined || typeof v === 'string') return v;
  problems.push(detail('invalid_field', `query.${name}`, { problem: 'must be given once' }));
  return undefined;
}

/** Checks the TagEventsRequest body (C6); every problem is reported with its path. */
function checkTagEvents(
  ctx: ServerContext,
  body: unknown,
  names: (account: string) => Promise<AccountEventNames>,
) {
  const { b, problems } = objectBody(body, ['data']);
  const data = b.data;
  if (data === undefined) throw requestError('data_missing', 'data', {});
  if (!Array.isArray(data)) throw requestError('data_not_array', 'data', { received: typeof data });
  if (data.length < LIMITS.batch_min_events.value)
    throw requestError('data_empty', 'data', { min: LIMITS.batch_min_events.value });
  if (data.length > LIMITS.batch_max_events.value)
    throw requestError('data_too_many', 'data', { max: LIMITS.batch_max_events.value, count: data.length });
  return async (): Promise<TagEventWrite[]> => {
    const out: TagEventWrite[] = [];
    for (let i = 0; i < data.length; i++) {
      const e = data[i] as Record<string, unknown> | null;
      const at = (k: string) => `data[${i}].${k}`;
      const bad = (k: string, problem: string) => problems.push(detail('invalid_field', at(k), { problem }));
      if (e === null || typeof e !== 'object' || Array.isArray(e)) {
        problems.push(detail('invalid_field', `data[${i}]`, { problem: 'must be an object' }));
        continue;
      }
      for (const k of Object.keys(e))
        if (!['ad_account_id', 'event_name', 'event_id', 'event_time'].includes(k))
          bad(k, 'is not a field of a tag event');
      const { ad_account_id: account, event_name: name, event_id: id, event_time: time } = e;
      let ok = true;
      if (
        typeof account !== 'string' ||
        !AD_ACCOUNT_ID.test(account) ||
        !ctx.directory.accounts.has(account)
      ) {
        bad('ad_account_id', `must be the id of a configured ad account; received ${received(account)}`);
        ok = false;
      }
      if (typeof id !== 'string' || id.length === 0 || id.length > LIMITS.event_id_max_length.value) {
        bad('event_id', `must be a string of 1 to ${LIMITS.event_id_max_length.value} characters`);
        ok = false;
      }
      if (
        typeof time !== 'number' ||
        !Number.isSafeInteger(time) ||
        time < 0 ||
        time >= LIMITS.event_time_milliseconds_threshold.value
      ) {
        bad('event_time', `must be Unix seconds (an integer); received ${received(time)}`);
        ok = false;
      }
      let resolved: string | null = null;
      if (typeof name !== 'string' || name === '') bad('event_name', 'must be a non-empty string');
      else if (ok) {
        resolved = (await names(account as string)).resolveTagName(name);
        if (!resolved)
          bad(
            'event_name',
            `must be a standard event name (API or tag form) or a custom event type of the ad account; received ${received(name)}`,
          );
      }
      if (ok && resolved)
        out.push({
          adAccountId: account as string,
          eventName: resolved,
          eventId: id as string,
          eventTime: time as number,
        });
    }
    if (problems.length) throw new RequestError('invalid_request', problems);
    return out;
  };
}

/** The admin API of C12, behind the admin token. */
export function adminHandlers(ctx: ServerContext) {
  return {
    'admin/events/list': async (req: FastifyRequest) => {
      authorizeAdmin(req.auth);
      const q = (req.query ?? {}) as Record<string, unknown>;
      const problems: Detail[] = [];
      const since = intParam(q, 'since', 0, 1e11, problems);
      const until = intParam(q, 'until', 0, 1e11, problems);
      const limit = intParam(q, 'limit', PAGE.minimum, PAGE.maximum, problems) ?? PAGE.default;
      const filter = {
        adAccountId: strParam(q, 'ad_account_id', problems),
        eventName: strParam(q, 'event_name', problems),
        eventId: strParam(q, 'event_id', problems),
        cursor: strParam(q, 'cursor', problems),
      };
      if (problems.length) throw new RequestError('invalid_request', problems);
      try {
        const page = await withStore(ctx, () =>
          ctx.store.listEvents({
            ...Object.fromEntries(Object.entries(filter).filter(([, v]) => v !== undefined)),
            ...(since !== undefined ? { since: since * 1000 } : {}),
            ...(until !== undefined ? { until: until * 1000 } : {}),
            limit,
          }),
        );
        return { items: page.items.map(storedEvent), next_cursor: page.nextCursor };
      } catch (e) {
        const cause = (e as { cause?: unknown }).cause;
        if (cause instanceof BadCursorError)
          throw requestError('invalid_field', 'query.cursor', {
            problem: 'is not a cursor of this server; send next_cursor of the previous page',
          });
        throw e;
      }
    },

    'admin/reports/get': async (req: FastifyRequest) => {
      authorizeAdmin(req.auth);
      const id = (req.params as { ad_account_id: string }).ad_account_id;
      if (!AD_ACCOUNT_ID.test(id))
        throw requestError('ad_account_id_invalid', 'path.ad_account_id', { received: received(id) });
      if (!ctx.directory.accounts.has(id))
        throw requestError('ad_account_unknown', 'path.ad_account_id', { received: id });
      const r = await withStore(ctx, () => ctx.store.report(id));
      return {
        ad_account_id: id,
        stored: r.stored.map((s) => ({
          event_name: s.eventName,
          usage: s.usage,
          processed: s.processed,
          duplicates: s.duplicates,
        })),
        failed: r.failed.map((f) => ({ event_name: f.eventName, code: f.code, count: f.count })),
      };
    },

    'admin/tag_events/create': async (req: FastifyRequest) => {
      requireJson(req);
      authorizeAdmin(req.auth);
      const cache = new Map<string, Promise<AccountEventNames>>();
      const names = (account: string) => {
        let p = cache.get(account);
        if (!p) {
          p = withStore(ctx, () => ctx.customTypes.get(account)).then((rows) => new AccountEventNames(rows));
          cache.set(account, p);
        }
        return p;
      };
      const events = await checkTagEvents(ctx, parseJsonBody(req), names)();
      const recorded = await withStore(ctx, () =>
        ctx.store.recordTagEvents(events, ctx.clock.now() - DEDUP_WINDOW_MS),
      );
      return { recorded };
    },

    'admin/reset': async (req: FastifyRequest, reply: FastifyReply) => {
      authorizeAdmin(req.auth);
      await withStore(ctx, () => ctx.store.reset());
      ctx.limiter.reset();
      return reply.code(204).send();
    },
  };
}
