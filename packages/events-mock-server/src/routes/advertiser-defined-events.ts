// C92: Pinterest's advertiser_defined_events routes over the custom event types of C10. Each name of a
// request is processed on its own and answered with a record, in request order: a name that breaks C10's
// rules fails alone, whether the body check or the store says so.
import { CUSTOM_EVENT_NAME_RULE } from '@org/events-types';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { checkBody } from '../core/request-checks.js';
import { detail, RequestProblems, received } from '../core/request-error.js';
import {
  type CheckedAdvertiserDefinedEventInput,
  type CheckedAdvertiserDefinedEventsCreateRequest,
  OBJECT_CHECKS,
} from '../generated/request-checks.gen.js';
import type { RequestProblem, RequestProblemParams } from '../generated/request-problems.gen.js';
import { ROUTES } from '../generated/routes.gen.js';
import type { ServerContext } from '../http/context.js';
import { isStandardEventName } from '../http/event-names.js';
import { type Checked, withBodyRules } from '../http/gate.js';
import { withStore } from '../http/storage.js';
import type { CustomEventTypeRow } from '../store/interface/directory.js';

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

const BODY = ROUTES['advertiser_defined_events/create'].requestBody;
const ITEM_NAME = /^items\[(\d+)\]\.name$/;
const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The problems of a create or update body, sorted (C92): those of an item's name sent as a string (C10's
 * pattern and length) are that name's failure, kept by item; every other one makes the body another shape.
 * On a 400, the names' problems are answered with the others.
 */
class SortedProblems extends RequestProblems {
  readonly #items: readonly unknown[];
  readonly byItem = new Map<number, string[]>();
  readonly #held: (() => void)[] = [];

  constructor(items: readonly unknown[]) {
    super();
    this.#items = items;
  }

  override add<K extends RequestProblem>(key: K, path: string, params: RequestProblemParams[K]): void {
    const m = ITEM_NAME.exec(path);
    const i = m ? Number(m[1]) : -1;
    const item = this.#items[i];
    if (!isObject(item) || typeof item.name !== 'string') {
      super.add(key, path, params);
      return;
    }
    this.byItem.set(i, [...(this.byItem.get(i) ?? []), detail(key, 'name', params).problem]);
    this.#held.push(() => super.add(key, path, params));
  }

  override throwIfAny(): void {
    if (this.any) for (const add of this.#held.splice(0)) add();
    super.throwIfAny();
  }
}

/**
 * A create or update body checked again with its problems sorted: a 400 when it is not the shape; else the
 * checked body (an item whose name failed is undefined) and the failures of the names, by item.
 */
function sortBody(json: unknown) {
  const items = isObject(json) && Array.isArray(json.items) ? json.items : [];
  const p = new SortedProblems(items);
  const body = checkBody(
    OBJECT_CHECKS,
    BODY,
    json,
    p,
  ) as unknown as CheckedAdvertiserDefinedEventsCreateRequest;
  p.throwIfAny();
  return { body, names: p.byItem };
}

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
   * Each item of a create or update body (C2 row 400 for its shape), judged on its own, in order: a name the
   * body check refused fails alone, the others go to `one`; the account's cached names are dropped after.
   */
  const eachItem = async (
    accountId: string,
    json: unknown,
    one: (item: CheckedAdvertiserDefinedEventInput) => Promise<ProcessingRecord>,
  ) => {
    const { body, names } = sortBody(json);
    const raw = (json as { items: { name: string }[] }).items;
    const out: ProcessingRecord[] = [];
    for (const [i, item] of body.items.entries()) {
      const refused = names.get(i);
      if (refused)
        out.push({ name: (raw[i] as { name: string }).name, status: 'failure', exceptions: refused });
      else if (item !== undefined) out.push(await one(item));
    }
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

    // One by one, in order: a later name of the batch sees the earlier ones (exists, cap). The body's name
    // rules are judged per name too, so the gate leaves its problems to the handler.
    'advertiser_defined_events/create': withBodyRules(
      async (
        _req: FastifyRequest,
        _reply: FastifyReply,
        { account, json }: Checked<'advertiser_defined_events/create'>,
      ) => eachItem(account.id, json, (i) => create(account.id, i.name, i.mapped_conversion_type)),
    ),

    'advertiser_defined_events/update': withBodyRules(
      async (
        _req: FastifyRequest,
        _reply: FastifyReply,
        { account, json }: Checked<'advertiser_defined_events/update'>,
      ) =>
        eachItem(account.id, json, async (i) => {
          // C92: a delete and an insert of the same name; the store interface has no update.
          const existing = (await withStore(ctx, () => ctx.store.listCustomEventTypes(account.id))).find(
            (r) => r.name.toLowerCase() === i.name.toLowerCase(),
          );
          if (!existing) return unknown(i.name);
          await withStore(ctx, () => ctx.store.deleteCustomEventType(account.id, existing.name));
          return create(account.id, existing.name, i.mapped_conversion_type);
        }),
    ),

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
