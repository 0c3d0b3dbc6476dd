import type { Directory } from '../auth/directory.js';
import type { AdminSessions } from '../auth/sessions.js';
import type { Clock } from '../core/clock.js';
import type { Deliverer } from '../delivery/deliverer.js';
import type { Faults } from '../faults/faults.js';
import type { Metrics } from '../metrics/metrics.js';
import type { ValidationPool } from '../pipeline/pool.js';
import type { AdminAuthThrottle } from '../ratelimit/admin-auth-throttle.js';
import type { Limiter } from '../ratelimit/limiter.js';
import type { RequestLog } from '../requestlog/request-log.js';
import type { CustomTypesCache } from '../store/custom-types-cache.js';
import type { Outbox } from '../store/interface/outbox.js';
import type { Store } from '../store/interface/store.js';

/** What every handler needs; built once per server. */
export interface ServerContext {
  store: Store;
  /** The custom event types of each account, cached briefly (C10). */
  customTypes: CustomTypesCache;
  directory: Directory;
  limiter: Limiter;
  clock: Clock;
  metrics: Metrics;
  /** Faults injected into the events endpoint (C65), in this process's memory. */
  faults: Faults;
  /** Parses and validates batches, in worker threads when they are large. */
  validation: ValidationPool;
  /** C125: ad accounts whose raw user data is normalized and hashed on arrival (`hash_user_data`). */
  hashUserData: ReadonlySet<string>;
  /** Every request to the events endpoint, with its answer (C60). */
  requestLog: RequestLog;
  /** Admin sessions of the cookie login (C64). */
  sessions: AdminSessions;
  /** Failed admin authentications per client address and overall (C71, C115), in this process's memory. */
  authThrottle: AdminAuthThrottle;
  /** The origin the operator publishes the server at, accepted by the CSRF check beside the Host's (C71). */
  publicOrigin: string | undefined;
  /** C100: the delivery of accepted events onward, when a sink is configured. */
  delivery: { deliverer: Deliverer; outbox: Outbox } | null;
  /** Set when shutdown starts: /readyz answers 503 so load balancers stop sending. */
  closing: boolean;
}
