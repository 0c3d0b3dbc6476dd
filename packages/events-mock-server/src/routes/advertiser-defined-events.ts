// C92: Pinterest's advertiser_defined_events routes over the custom event types of C10. Each name of a
// request is processed on its own and answered with a record, in request order.
import { CUSTOM_EVENT_NAME_RULE } from '@org/events-types';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { detail, RequestProblems, received, requestError } from '../core/request-error.js';
import { checkAdvertiserDefinedEventsCreateRequest } from '../generated/request-checks.gen.js';
import { ROUTES } from '../generated/routes.gen.js';
import { parseJsonBody, requireJson } from '../http/body.js';
import type { ServerContext } from '../http/context.js';
import { isStandardEventName } from '../http/event-names.js';
import { withStore } from '../http/storage.js';
import type { CustomEventTypeRow } from '../store/store.js';
import { accountGuard } from './account-guard.js';

const MAX_PER_ACCOUNT = CUSTOM_EVENT_NAME_RULE.maxPerAccount;
const NAME = new RegExp(CUSTOM_EVENT_NAME_RULE.pattern);

type ProcessingRecord =
  | { name: string; status: 'success' }
  | { name: string; status: 'failure'; exceptions: string[] };

const success = (name: string): ProcessingRecord => ({ name, status: 'success' });
const failure = (name: string, problem: string): ProcessingRecord => ({
  name,
  status: 'failure',
  exceptions: [problem],
});

/** Pinterest's mapping type is the standard event name in upper case (SIGNUP <-> signup). */
const toMappingType = (eventName: string) => eventName.toUpperCase();
const toEventName = (mappingType: string) => mappingType.toLowerCase();

/** The checked items of a create or update body (C2 row 400 for its shape; names are judged one by one). */
function checkedItems(req: FastifyRequest): { name: string; mapped_conversion_type: string }[] {
  const problems = new RequestProblems();
  const b = checkAdvertiserDefinedEventsCreateRequest(parseJsonBody(req), problems);
  problems.throwIfAny();
  return (b?.items ?? []).filter((i) => i !== undefined);
}

/** The names of a DELETE: `event_names` repeated, or comma-separated in one value. */
function eventNames(req: FastifyRequest): string[] {
  const v = (req.query as Record<string, unknown> | undefined)?.event_names;
  const values = (Array.isArray(v) ? v : v === undefined ? [] : [v]).map(String);
  const names = values.flatMap((s) => s.split(',')).filter((s) => s !== '');
  if (names.length === 0)
    throw requestError('field_missing', 'query.event_names', { expected: 'event_names' });
  return names;
}

export function advertiserDefinedEventHandlers(ctx: ServerContext) {
  const guard = accountGuard(ctx);

  /** C10's rules for one name to register; the failure text, or undefined when it may be stored. */
  const nameProblem = (name: string): string | undefined =>
    isStandardEventName(name.toLowerCase())
      ? detail('custom_event_name_standard', 'name', { received: received(name) }).problem
      : undefined;

  const create = async (accountId: string, name: string, mapped: string): Promise<ProcessingRecord> => {
    const problem = nameProblem(name);
    if (problem) return failure(name, problem);
    const row: CustomEventTypeRow = {
      name,
      mappedEventName: toEventName(mapped),
      createdAt: Math.floor(ctx.clock.now() / 1000),
    };
    const res = await withStore(ctx, () => ctx.store.createCustomEventType(accountId, row, MAX_PER_ACCOUNT));
    if (res.ok) return success(name);
    if (res.reason === 'exists')
      return failure(
        name,
        detail('custom_event_type_exists', 'name', { received: res.existing ?? name }).problem,
      );
    return failure(name, detail('custom_event_type_cap', 'name', { max: MAX_PER_ACCOUNT }).problem);
  };

  const unknown = (name: string) =>
    failure(name, detail('custom_event_type_unknown', 'name', { received: received(name) }).problem);

  return {
    'advertiser_defined_events/get': async (req: FastifyRequest, reply: FastifyReply) => {
      const account = await guard(req, reply, ROUTES['advertiser_defined_events/get']);
      const rows = await withStore(ctx, () => ctx.store.listCustomEventTypes(account.id));
      return {
        items: rows.map((r) => ({ name: r.name, mapped_conversion_type: toMappingType(r.mappedEventName) })),
      };
    },

    'advertiser_defined_events/create': async (req: FastifyRequest, reply: FastifyReply) => {
      requireJson(req);
      const account = await guard(req, reply, ROUTES['advertiser_defined_events/create']);
      const items = checkedItems(req);
      const out: ProcessingRecord[] = [];
      // One by one, in order: a later name of the batch sees the earlier ones (exists, cap).
      for (const i of items) out.push(await create(account.id, i.name, i.mapped_conversion_type));
      ctx.customTypes.invalidate(account.id);
      return { items: out };
    },

    'advertiser_defined_events/update': async (req: FastifyRequest, reply: FastifyReply) => {
      requireJson(req);
      const account = await guard(req, reply, ROUTES['advertiser_defined_events/update']);
      const items = checkedItems(req);
      const out: ProcessingRecord[] = [];
      for (const i of items) {
        // C92: a delete and an insert of the same name; the store interface has no update.
        const existing = (await withStore(ctx, () => ctx.store.listCustomEventTypes(account.id))).find(
          (r) => r.name.toLowerCase() === i.name.toLowerCase(),
        );
        if (!existing) {
          out.push(unknown(i.name));
          continue;
        }
        await withStore(ctx, () => ctx.store.deleteCustomEventType(account.id, existing.name));
        out.push(await create(account.id, existing.name, i.mapped_conversion_type));
      }
      ctx.customTypes.invalidate(account.id);
      return { items: out };
    },

    'advertiser_defined_events/delete': async (req: FastifyRequest, reply: FastifyReply) => {
      const account = await guard(req, reply, ROUTES['advertiser_defined_events/delete']);
      const out: ProcessingRecord[] = [];
      for (const name of eventNames(req)) {
        const deleted =
          NAME.test(name) && (await withStore(ctx, () => ctx.store.deleteCustomEventType(account.id, name)));
        out.push(deleted ? success(name) : unknown(name));
      }
      ctx.customTypes.invalidate(account.id);
      return { items: out };
    },
  };
}
