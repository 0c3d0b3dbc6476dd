import type { DependencyStatus, HealthState } from '@org/events-types';
import type { FastifyReply } from 'fastify';
import type { ServerContext } from '../http/context.js';

/** Asks one dependency whether it answers (C48). */
async function dependency(
  name: string,
  target: string,
  ping: () => Promise<void>,
): Promise<DependencyStatus> {
  try {
    await ping();
    return { name, status: 'ok', target };
  } catch (e) {
    const err = e as { code?: string; message?: string };
    return { name, status: 'unavailable', target, problem: err.code ?? err.message ?? 'unavailable' };
  }
}

/**
 * Each delivery sink (C100): unavailable while its last delivery failed, with the failure's status only
 * (`HTTP 503`, `ECONNREFUSED`): /readyz answers anyone, and the receiver's text may echo credentials (C113).
 */
function sinkStatuses(ctx: ServerContext): DependencyStatus[] {
  return (ctx.delivery?.deliverer.counters() ?? []).map((c) => ({
    name: `sink:${c.sink}`,
    status: c.lastStatus === null ? 'ok' : 'unavailable',
    target: c.kind,
    ...(c.lastStatus !== null ? { problem: c.lastStatus } : {}),
  }));
}

/** Liveness and readiness of C12. */
export function healthHandlers(ctx: ServerContext) {
  return {
    'operations/health': async () => ({ status: 'ok' satisfies HealthState }),
    'operations/ready': async (_req: unknown, reply: FastifyReply) => {
      if (ctx.closing)
        return reply
          .code(503)
          .send({ status: 'unavailable' satisfies HealthState, problem: 'shutting down' });
      const dependencies = await Promise.all([
        dependency('store', ctx.store.description, () => ctx.store.ping()),
        dependency('limits', ctx.limiter.description, () => ctx.limiter.ping()),
      ]);
      const down = dependencies.find((d) => d.status !== 'ok');
      // C100: sinks are listed, never counted: a slow or stopped upstream must not stop events being accepted.
      dependencies.push(...sinkStatuses(ctx));
      if (!down) return { status: 'ok' satisfies HealthState, dependencies };
      return reply.code(503).send({
        status: 'unavailable' satisfies HealthState,
        problem: `${down.name}: ${down.problem}`,
        dependencies,
      });
    },
    'operations/metrics': async (_req: unknown, reply: FastifyReply) => {
      reply.type(ctx.metrics.registry.contentType);
      return ctx.metrics.registry.metrics();
    },
  };
}
