import { Counter, Gauge, type Registry } from 'prom-client';
import type { Outbox, OutboxStats } from '../store/interface/outbox.js';
import type { Deliverer } from './deliverer.js';

/**
 * /metrics of delivery (C100), read when scraped: outbox depth, dead entries and the age of the oldest
 * waiting entry per sink (from the store, so they count every instance's work), and this process's
 * deliveries and failures per sink. Nothing is added to the path of a request.
 */
export function registerDeliveryMetrics(registry: Registry, deliverer: Deliverer, outbox: Outbox): void {
  let stats: ReturnType<Outbox['outboxStats']> | undefined;
  // One read of the store per scrape for the three gauges.
  const read = () => {
    stats ??= outbox.outboxStats().finally(() => setImmediate(() => (stats = undefined)));
    return stats;
  };
  const sinks = () => deliverer.counters().map((c) => c.sink);
  const gauge = (name: string, help: string, value: (s: OutboxStats | undefined, now: number) => number) =>
    new Gauge({
      name,
      help,
      labelNames: ['sink'] as const,
      registers: [registry],
      async collect() {
        const bySink = new Map((await read().catch(() => [])).map((s) => [s.sink, s]));
        const now = Date.now();
        for (const sink of sinks()) this.set({ sink }, value(bySink.get(sink), now));
      },
    });
  gauge(
    'events_delivery_outbox_depth',
    'Outbox entries still to deliver, per sink (C100).',
    (s) => s?.pending ?? 0,
  );
  gauge(
    'events_delivery_outbox_dead',
    'Outbox entries whose attempts are spent, per sink, until re-queued.',
    (s) => s?.dead ?? 0,
  );
  gauge(
    'events_delivery_outbox_oldest_age_seconds',
    'Age of the oldest outbox entry still to deliver, per sink; 0 when none waits.',
    (s, now) => (s?.oldestPendingAt != null ? Math.max(0, (now - s.oldestPendingAt) / 1000) : 0),
  );
  const counter = (
    name: string,
    help: string,
    value: (c: ReturnType<Deliverer['counters']>[number]) => number,
  ) =>
    new Counter({
      name,
      help,
      labelNames: ['sink'] as const,
      registers: [registry],
      // The deliverer keeps the counts; a scrape copies them.
      collect() {
        this.reset();
        for (const c of deliverer.counters()) this.inc({ sink: c.sink }, value(c));
      },
    });
  counter(
    'events_delivery_events_total',
    'Events delivered (acknowledged by the receiver) by this process, per sink.',
    (c) => c.delivered,
  );
  counter(
    'events_delivery_failures_total',
    'Failed deliveries (batches) of this process, per sink.',
    (c) => c.failures,
  );
}
