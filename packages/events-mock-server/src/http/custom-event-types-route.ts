import { CUSTOM_EVENT_NAME_RULE, STANDARD_EVENT_NAMES } from '@org/events-types';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { authorizeAccountRoute } from '../auth/authorize.js';
import type { ServerContext } from '../context.js';
import { ROUTES } from '../generated/routes.gen.js';
import type { CustomEventTypeRow } from '../store/store.js';
import { objectBody, parseJsonBody, requireJson } from './body.js';
import { isStandardEventName } from './event-names.js';
import { enforceRateLimit } from './rate-limit.js';
import { detail, RequestError, received, requestError } from './request-error.js';
import { withStore } from './storage.js';

const NAME = new RegExp(CUSTOM_EVENT_NAME_RULE.pattern);
const MAX_LENGTH = CUSTOM_EVENT_NAME_RULE.maxLength;
const MAX_PER_ACCOUNT = CUSTOM_EVENT_NAME_RULE.maxPerAccount;
const BODY_KEYS = ['name', 'mapped_event_name'];

function out(row: CustomEventTypeRow) {
  return { name: row.name, mapped_event_name: row.mappedEventName, created_at: row.createdAt };
}

/** Row 400 of C2 for a create body: every problem of the body, each with its path. */
function checkCreateBody(body: unknown): { name: string; mapped: string } {
  const { b, problems } = objectBody(body, BODY_KEYS);
  const field = (path: string, problem: string) => problems.push(detail('invalid_field', path, { problem }));
  const { name, mapped_event_name: mapped } = b;
  if (typeof name !== 'string')
    field(
      'name',
      `is ${name === undefined ? 'missing' : 'not a string'}; send a name of letters, digits and underscore`,
    );
  else if (name.length > MAX_LENGTH)
    field('name', `is ${name.length} characters long; the most accepted is ${MAX_LENGTH}`);
  else if (!NAME.test(name))
    field(
      'name',
      `must hold only letters, digits and underscore, 1 to ${MAX_LENGTH}; received ${received(name)}`,
    );
  else if (STANDARD_EVENT_NAMES.some((s) => s === name.toLowerCase()))
    field('name', `${name} is a standard event name; send it as event_name as it is, no registration needed`);
  if (typeof mapped !== 'string' || !isStandardEventName(mapped))
    field(
      'mapped_event_name',
      `must be a standard event name (seed 2.2) such as checkout or lead; received ${mapped === undefined ? 'nothing' : received(mapped)}`,
    );
  if (problems.length) throw new RequestError('invalid_request', problems);
  return { name: name as string, mapped: mapped as string };
}

/** The custom event types endpoints of C10 (OAuth with ads:write). */
export function customEventTypeHandlers(ctx: ServerContext) {
  const guard = (req: FastifyRequest, reply: FastifyReply, r: (typeof ROUTES)[keyof typeof ROUTES]) => {
    const { principal, account } = authorizeAccountRoute(
      r,
      req.auth,
      (req.params as { ad_account_id: string }).ad_account_id,
      ctx.directory,
    );
    enforceRateLimit(ctx.limiter, reply, r.rateLimitCategory, principal, account.id, false);
    return account;
  };

  return {
    'custom_event_types/list': async (req: FastifyRequest, reply: FastifyReply) => {
      const account = guard(req, reply, ROUTES['custom_event_types/list']);
      const rows = await withStore(ctx, () => ctx.store.listCustomEventTypes(account.id));
      return { items: rows.map(out), max_items: MAX_PER_ACCOUNT };
    },

    'custom_event_types/create': async (req: FastifyRequest, reply: FastifyReply) => {
      requireJson(req);
      const account = guard(req, reply, ROUTES['custom_event_types/create']);
      const { name, mapped } = checkCreateBody(parseJsonBody(req));
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

    'custom_event_types/delete': async (req: FastifyRequest, reply: FastifyReply) => {
      const account = guard(req, reply, ROUTES['custom_event_types/delete']);
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
