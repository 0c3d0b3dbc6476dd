import type { HealthState } from '@org/events-types';
import type { FastifyReply } from 'fastify';
import type { ServerContext } from '../http/context.js';

/** Liveness and readiness of C12. */
export function healthHandlers(ctx: ServerContext) {
  return {
    'operations/health': async () => ({ status: 'ok' satisfies HealthState }),
    'operations/ready': async (_req: unknown, reply: FastifyReply) => {
      if (ctx.closing)
        return reply
          .code(503)
          .send({ status: 'unavailable' satisfies HealthState, problem: 'shutting down' });
      try {
        await ctx.store.ping();
        return { status: 'ok' satisfies HealthState };
      } catch (e) {
        const err = e as { code?: string; message?: string };
        return reply.code(503).send({
          status: 'unavailable' satisfies HealthState,
          problem: `store: ${err.code ?? err.message ?? 'unavailable'}`,
        });
      }
    },
    'operations/metrics': async (_req: unknown, reply: FastifyReply) => {
      reply.type(ctx.metrics.registry.contentType);
      return ctx.metrics.registry.metrics();
    },
  };
}
