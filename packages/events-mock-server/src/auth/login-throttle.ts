import { LIMITS, type LimitKey } from '@org/events-types';
import type { Clock } from '../core/clock.js';
import { requestError } from '../core/request-error.js';
import { MemoryLimiter, RETRY_AFTER } from '../ratelimit/limiter.js';
import type { AppliedLimit } from '../ratelimit/policy.js';

/** The limits of wrong admin logins (C71); each defaults to its spec limit, the config's `admin:` wins. */
export interface LoginThrottleOptions {
  windowSeconds: number;
  failuresPerClient: number;
  failuresOverall: number;
}

export const DEFAULT_LOGIN_THROTTLE: LoginThrottleOptions = {
  windowSeconds: LIMITS.admin_login_window_seconds.value,
  failuresPerClient: LIMITS.admin_login_failures_per_client_max.value,
  failuresOverall: LIMITS.admin_login_failures_max.value,
};

/** The limits are named by their keys in the spec: the 429's detail and the metric say which one is spent. */
const PER_CLIENT: LimitKey = 'admin_login_failures_per_client_max';
const OVERALL: LimitKey = 'admin_login_failures_max';

/**
 * Wrong tokens sent to POST /admin/session, counted in exact sliding windows (the limiter of C9) per client
 * address and for all clients, in this process's memory (C71). A throttled address is refused even with
 * the right token; throttled attempts are not counted; a successful login neither counts nor clears.
 */
export class LoginThrottle {
  readonly #limiter: MemoryLimiter;
  readonly #options: LoginThrottleOptions;

  constructor(clock: Clock, options: LoginThrottleOptions) {
    this.#limiter = new MemoryLimiter(clock);
    this.#options = options;
  }

  #limits(client: string): AppliedLimit[] {
    const { windowSeconds: window, failuresPerClient, failuresOverall } = this.#options;
    return [
      {
        name: PER_CLIENT,
        headerName: PER_CLIENT,
        limit: failuresPerClient,
        window,
        key: `${PER_CLIENT}|${client}`,
      },
      { name: OVERALL, headerName: OVERALL, limit: failuresOverall, window, key: OVERALL },
    ];
  }

  /** Throws the 429 of C71 (with Retry-After) when the client or everyone has no wrong login left. */
  check(client: string): void {
    const verdict = this.#limiter.decideNow(this.#limits(client), false);
    if (verdict.admitted) return;
    const { limit } = verdict.tightest;
    throw requestError(
      'admin_login_throttled',
      `ratelimit.${limit.name}`,
      { name: limit.name, limit: limit.limit, window: limit.window, retryAfter: verdict.retryAfter },
      { [RETRY_AFTER]: String(verdict.retryAfter) },
    );
  }

  /** Counts one wrong login of the client (and of everyone). */
  failed(client: string): void {
    this.#limiter.decideNow(this.#limits(client), true);
  }
}
