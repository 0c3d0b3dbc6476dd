// C92: Pinterest's advertiser_defined_events routes over the custom event types of C10. Each name of a
// request is processed on its own and answered with a record, in request order.
import { CUSTOM_EVENT_NAME_RULE } from '@org/events-types';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { detail, received } from '../core/request-error.js';
import type {
  CheckedAdvertiserDefinedEventInput,
  CheckedAdvertiserDefinedEventsCreateRequest,
} from '../generated/request-checks.gen.js';
import type { ServerContext } from '../http/context.js';
import { isStandardEventName } from '../http/event-names.js';
import type { Checked } from '../http/gate.js';
import { withStore } from '../http/storage.js';
import type { CustomEventTypeRow } from '../store/store.js';

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

export function advertiserDefinedEventHandlers(ctx: ServerContext) {
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

  /**
   * Each item of a create or update body, checked by the gate (C2 row 400 for its shape; names are judged
   * one by one), in order; the account's cached names are dropped after.
   */
  const eachItem = async (
    accountId: string,
    body: CheckedAdvertiserDefinedEventsCreateRequest,
    one: (item: CheckedAdvertiserDefinedEventInput) => Promise<ProcessingRecord>,
  ) => {
    const out: ProcessingRecord[] = [];
    for (const i of body.items) if (i !== undefined) out.push(await one(i));
    ctx.customTypes.invalidate(accountId);
    return { items: out };
  };

  const unknown = (name: string) =>
    failure(name, detail('custom_event_type_unknown', 'name', { received: received(name) }).problem);

  return {
    'advertiser_defined_events/get': async (
      _req: FastifyRequest,
      _reply: FastifyReply,
      { account }: Checked<'advertiser_defined_events/get'>,
    ) => {
      const rows = await withStore(ctx, () => ctx.store.listCustomEventTypes(account.id));
      return {
        items: rows.map((r) => ({ name: r.name, mapped_conversion_type: toMappingType(r.mappedEventName) })),
      };
    },

    // One by one, in order: a later name of the batch sees the earlier ones (exists, cap).
    'advertiser_defined_events/create': async (
      _req: FastifyRequest,
      _reply: FastifyReply,
      { account, body }: Checked<'advertiser_defined_events/create'>,
    ) => eachItem(account.id, body, (i) => create(account.id, i.name, i.mapped_conversion_type)),

    'advertiser_defined_events/update': async (
      _req: FastifyRequest,
      _reply: FastifyReply,
      { account, body }: Checked<'advertiser_defined_events/update'>,
    ) =>
      eachItem(account.id, body, async (i) => {
        // C92: a delete and an insert of the same name; the store interface has no update.
        const existing = (await withStore(ctx, () => ctx.store.listCustomEventTypes(account.id))).find(
          (r) => r.name.toLowerCase() === i.name.toLowerCase(),
        );
        if (!existing) return unknown(i.name);
        await withStore(ctx, () => ctx.store.deleteCustomEventType(account.id, existing.name));
        return create(account.id, existing.name, i.mapped_conversion_type);
      }),

    'advertiser_defined_events/delete': async (
      _req: FastifyRequest,
      _reply: FastifyReply,
      { account, query }: Checked<'advertiser_defined_events/delete'>,
    ) => {
      const out: ProcessingRecord[] = [];
      // `event_names` repeated or comma-separated; the gate answers its absence (C101).
      for (const name of query.event_names) {
        const deleted =
          NAME.test(name) && (await withStore(ctx, () => ctx.store.deleteCustomEventType(account.id, name)));
        out.push(deleted ? success(name) : unknown(name));
      }
      ctx.customTypes.invalidate(account.id);
      return { items: out };
    },
  };
}
