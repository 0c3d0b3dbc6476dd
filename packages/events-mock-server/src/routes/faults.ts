import type { Fault } from '@org/events-types';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { received, requestError } from '../core/request-error.js';
import { checkFaultRules } from '../faults/fault-spec.js';
import type { ActiveFault } from '../faults/faults.js';
import type { ServerContext } from '../http/context.js';
import { type Checked, withBodyRules } from '../http/gate.js';

/** A fault as the admin API shows it: its spec, then its id and what it did (C65). */
export function faultJson(f: ActiveFault): Fault {
  return { ...f.spec, id: f.id, remaining: f.remaining, matched: f.matched, created_at: f.createdAt };
}

/** The admin API of injected faults (C65), behind the admin token or session (checked by the gate, C101). */
export function faultHandlers(ctx: ServerContext) {
  return {
    'admin/faults/list': async () => {
      return { items: ctx.faults.list().map(faultJson) };
    },

    'admin/faults/create': withBodyRules(
      async (
        _req: FastifyRequest,
        reply: FastifyReply,
        { body, problems }: Checked<'admin/faults/create'>,
      ) => {
        const spec = checkFaultRules(
          body,
          { accounts: new Set(ctx.directory.accounts.keys()), tokens: ctx.directory.tokenIds },
          problems,
        );
        problems.throwIfAny();
        const fault = spec && ctx.faults.add(spec);
        if (!fault) throw requestError('faults_cap', 'body', { max: ctx.faults.max });
        reply.code(201);
        return faultJson(fault);
      },
    ),

    'admin/faults/clear': async (_req: FastifyRequest, reply: FastifyReply) => {
      ctx.faults.clear();
      return reply.code(204).send();
    },

    'admin/faults/delete': async (req: FastifyRequest, reply: FastifyReply) => {
      const id = (req.params as { fault_id: string }).fault_id;
      if (!ctx.faults.remove(id))
        throw requestError('fault_unknown', 'path.fault_id', { received: received(id) });
      return reply.code(204).send();
    },
  };
}
