import { CUSTOM_EVENT_NAME_RULE } from '@org/events-types';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { received, requestError } from '../core/request-error.js';
import type { ServerContext } from '../http/context.js';
import { isStandardEventName } from '../http/event-names.js';
import { type Checked, withBodyRules } from '../http/gate.js';
import { withStore } from '../http/storage.js';
import type { CustomEventTypeRow } from '../store/interface/directory.js';

const NAME = new RegExp(CUSTOM_EVENT_NAME_RULE.pattern);
const MAX_PER_ACCOUNT = CUSTOM_EVENT_NAME_RULE.maxPerAccount;

function out(row: CustomEventTypeRow) {
  return { name: row.name, mapped_event_name: row.mappedEventName, created_at: row.createdAt };
}

/** The custom event types endpoints of C10 (OAuth with ads:write; the gate authorizes and limits, C101). */
export function customEventTypeHandlers(ctx: ServerContext) {
  return {
    'custom_event_types/list': async (
      _req: FastifyRequest,
      _reply: FastifyReply,
      { account }: Checked<'custom_event_types/list'>,
    ) => {
      const rows = await withStore(ctx, () => ctx.store.listCustomEventTypes(account.id));
      return { items: rows.map(out), max_items: MAX_PER_ACCOUNT };
    },

    'custom_event_types/create': withBodyRules(
      async (
        _req: FastifyRequest,
        reply: FastifyReply,
        { account, body, problems }: Checked<'custom_event_types/create'>,
      ) => {
        const { name, mapped_event_name: mapped } = body;
        // C10's one rule the schema cannot say: a standard name needs no registration.
        if (isStandardEventName(name.toLowerCase()))
          problems.add('custom_event_name_standard', 'name', { received: received(name) });
        problems.throwIfAny();
        const row: CustomEventTypeRow = {
          name,
          mappedEventName: mapped,
          createdAt: Math.floor(ctx.clock.now() / 1000),
        };
        const res = await withStore(ctx, () =>
          ctx.store.createCustomEventType(account.id, row, MAX_PER_ACCOUNT),
        );
        ctx.customTypes.invalidate(account.id);
        if (!res.ok) {
          if (res.reason === 'exists')
            throw requestError('custom_event_type_exists', 'name', { received: res.existing ?? name });
          throw requestError('custom_event_type_cap', 'name', { max: MAX_PER_ACCOUNT });
        }
        reply.code(201);
        return out(res.row);
      },
    ),

    'custom_event_types/delete': async (
      req: FastifyRequest,
      reply: FastifyReply,
      { account }: Checked<'custom_event_types/delete'>,
    ) => {
      const name = (req.params as { name: string }).name;
      const deleted =
        NAME.test(name) && (await withStore(ctx, () => ctx.store.deleteCustomEventType(account.id, name)));
      ctx.customTypes.invalidate(account.id);
      if (!deleted)
        throw requestError('custom_event_type_unknown', 'path.name', { received: received(name) });
      return reply.code(204).send();
    },
  };
}
