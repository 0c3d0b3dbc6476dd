import type { Directory } from './auth/directory.js';
import type { Clock } from './clock.js';
import type { Metrics } from './ops/metrics.js';
import type { RateLimiter } from './ratelimit/limiter.js';
import type { Store } from './store/store.js';

/** What every handler needs; built once per server. */
export interface ServerContext {
  store: Store;
  directory: Directory;
  limiter: RateLimiter;
  clock: Clock;
  metrics: Metrics;
  /** Set when shutdown starts: /readyz answers 503 so load balancers stop sending. */
  closing: boolean;
}
