import { LIMITS } from '@org/events-types';
import { Counter, collectDefaultMetrics, Registry } from 'prom-client';
import { HotCounter, HotHistogram } from './hot-series.js';

/** Batch-size buckets from the fewest to the most events a request may hold (C2), so they follow the limits. */
function batchSizeBuckets(): number[] {
  const min = LIMITS.batch_min_events.value;
  const max = LIMITS.batch_max_events.value;
  const steps = [0.01, 0.05, 0.1, 0.25, 0.5]
    .map((f) => Math.round(max * f))
    .filter((n) => n > min && n < max);
  return [...new Set([min, ...steps, max])];
}

/**
 * Prometheus metrics of C12; those counted on every request are hot series (C77), the rest prom-client's. One registry per server (not prom-client's global one), so several servers in
 * one process (integrators' tests, ours) do not collide.
 */
export function createMetrics() {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  return {
    registry,
    requests: new HotCounter({
      name: 'events_http_requests_total',
      help: 'HTTP requests by operationId and status.',
      labelNames: ['operation', 'status'] as const,
      registers: [registry],
    }),
    duration: new HotHistogram({
      name: 'events_http_request_duration_seconds',
      help: 'Time from request to response by operationId.',
      labelNames: ['operation'] as const,
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
      registers: [registry],
    }),
    events: new HotCounter({
      name: 'events_conversion_events_total',
      help: 'Conversion events by outcome (processed, failed, duplicate) and mode (live, test).',
      labelNames: ['outcome', 'mode'] as const,
      registers: [registry],
    }),
    batchSize: new HotHistogram({
      name: 'events_batch_size',
      help: 'Events per well-formed batch.',
      buckets: batchSizeBuckets(),
      registers: [registry],
    }),
    validation: new HotHistogram({
      name: 'events_batch_validation_duration_seconds',
      help: 'Time to parse and validate one batch (JSON.parse and @org/events-validators), by where it ran.',
      labelNames: ['thread'] as const,
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1],
      registers: [registry],
    }),
    commit: new HotHistogram({
      name: 'events_store_commit_duration_seconds',
      help: 'Time to store one batch durably.',
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1],
      registers: [registry],
    }),
    rateLimited: new Counter({
      name: 'events_rate_limited_total',
      help: 'Requests refused with 429, by the limit that was spent.',
      labelNames: ['limit'] as const,
      registers: [registry],
    }),
    requestLogErrors: new Counter({
      name: 'events_request_log_errors_total',
      help: 'Request log entries that could not be written (C60); the requests were answered as usual.',
      registers: [registry],
    }),
    storageErrors: new Counter({
      name: 'events_storage_errors_total',
      help: 'Store calls that failed (answered 503).',
      registers: [registry],
    }),
  };
}

export type Metrics = ReturnType<typeof createMetrics>;
