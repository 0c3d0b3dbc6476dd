import type { DeliveryStatus } from '@org/events-types';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ServerContext } from '../http/context.js';
import type { Checked } from '../http/gate.js';
import { withStore } from '../http/storage.js';

/** The sinks, their outbox and this process's counters (C100); the outbox is read once. */
export async function deliveryStatus(ctx: ServerContext): Promise<DeliveryStatus> {
  const d = ctx.delivery;
  if (!d) return { sinks: [] };
  const stats = new Map((await d.outbox.outboxStats()).map((s) => [s.sink, s]));
  const now = Date.now();
  return {
    sinks: d.deliverer.counters().map((c) => {
      const s = stats.get(c.sink);
      return {
        name: c.sink,
        kind: c.kind,
        pending: s?.pending ?? 0,
        dead: s?.dead ?? 0,
        oldest_pending_age_seconds:
          s?.oldestPendingAt != null ? Math.max(0, (now - s.oldestPendingAt) / 1000) : null,
        delivered: c.delivered,
        failures: c.failures,
        last_error: c.lastError,
      };
    }),
  };
}

/** The admin API of delivery (C100), behind the admin token or session (checked by the gate, C101). */
export function deliveryHandlers(ctx: ServerContext) {
  return {
    'admin/delivery/status': async () => {
      return withStore(ctx, () => deliveryStatus(ctx));
    },

    'admin/delivery/requeue': async (
      _req: FastifyRequest,
      _reply: FastifyReply,
      { query: q }: Checked<'admin/delivery/requeue'>,
    ) => {
      const outbox = ctx.delivery?.outbox;
      if (!outbox) return { requeued: 0 };
      return { requeued: await withStore(ctx, () => outbox.requeueDeadOutbox(Date.now(), q.sink)) };
    },
  };
}
