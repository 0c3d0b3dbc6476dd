import { LIMITS, type LimitKey } from '@org/events-types';
import type { Clock } from '../core/clock.js';
import { type RequestError, requestError } from '../core/request-error.js';
import { RETRY_AFTER } from './limiter.js';
import { SlidingLog } from './sliding-log.js';

/** The limits of failed admin authentications (C71, C115); each defaults to its spec limit, the config's `admin:` wins. */
export interface AdminAuthThrottleOptions {
  windowSeconds: number;
  failuresPerClient: number;
  failuresOverall: number;
  /** Client addresses remembered at once; beyond it the one that failed least recently is forgotten. */
  clientsMax: number;
}

export const DEFAULT_ADMIN_AUTH_THROTTLE: AdminAuthThrottleOptions = {
  windowSeconds: LIMITS.admin_login_window_seconds.value,
  failuresPerClient: LIMITS.admin_login_failures_per_client_max.value,
  failuresOverall: LIMITS.admin_login_failures_max.value,
  clientsMax: LIMITS.admin_auth_clients_max.value,
};

/** The limits are named by their keys in the spec: the 429's detail and the metric say which one is spent. */
const PER_CLIENT: LimitKey = 'admin_login_failures_per_client_max';
const OVERALL: LimitKey = 'admin_login_failures_max';

const MAPPED_V4 = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i;

/**
 * The client a failure is counted for (C115): an IPv4 address as it is (an IPv4-mapped IPv6 address as its
 * IPv4 address), an IPv6 address by its /64 prefix, the block one subscriber or host is given, so a spray
 * from one allocation is one client.
 */
export function clientKey(address: string | undefined): string {
  // A socket already closed has no address (Node gives undefined): such requests share one key.
  if (address === undefined) return '';
  if (!address.includes(':')) return address;
  const v4 = MAPPED_V4.exec(address);
  if (v4) return v4[1] as string;
  const bare = address.split('%')[0] as string;
  const [head = '', tail] = bare.split('::') as [string, string | undefined];
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  // An IPv4 tail (::ffff:a.b.c.d aside) stands for two groups; only the first four groups matter here.
  const rightGroups = right.length + (right.some((g) => g.includes('.')) ? 1 : 0);
  const groups = [...left, ...Array<string>(Math.max(0, 8 - left.length - rightGroups)).fill('0'), ...right];
  return `${groups
    .slice(0, 4)
    .map((g) => (Number.parseInt(g, 16) || 0).toString(16))
    .join(':')}::/64`;
}

/**
 * Failed admin authentications (C71, C115), in this process's memory: wrong logins, and on every admin
 * route an Authorization header that is not the admin token or a session cookie naming no live session.
 * They are counted in exact sliding windows (the `SlidingLog` of C9) per client (`clientKey`) and for all
 * clients, and answered as follows:
 *
 * - a client with `failuresPerClient` failures in the window is refused;
 * - once all clients together have `failuresOverall` in the window, a client with at least one failure in
 *   the window is refused too;
 * - a client with no failure in the window is always admitted: no one can lock out an address that has not
 *   failed, and while the overall budget is spent each new address gets one guess.
 *
 * The overall window holds at most `failuresOverall` times (a failure while it is full is counted for its
 * client only). At most `clientsMax` clients are remembered, least recently failed first: past the cap
 * that one is forgotten, so memory is bounded by `clientsMax` times `failuresPerClient` times. A refusal
 * is answered before the credentials are looked at and is not counted; a success neither counts nor clears.
 */
export class AdminAuthThrottle {
  readonly #clock: Clock;
  readonly #options: AdminAuthThrottleOptions;
  readonly #windowMs: number;
  /** Per client, its failures in the window; in the order of each client's latest failure, oldest first. */
  readonly #clients = new Map<string, SlidingLog>();
  readonly #overall: SlidingLog;

  constructor(clock: Clock, options: AdminAuthThrottleOptions) {
    this.#clock = clock;
    this.#options = options;
    this.#windowMs = options.windowSeconds * 1000;
    this.#overall = new SlidingLog(options.failuresOverall, this.#windowMs);
  }

  /** How many clients are remembered now (at most `clientsMax`). */
  get trackedClients(): number {
    return this.#clients.size;
  }

  /**
   * The 429 (with Retry-After) of a client that may not try now, or undefined. Costs one map lookup for a
   * client that has not failed, and nothing at all while no client has.
   */
  refusal(address: string): RequestError | undefined {
    if (this.#clients.size === 0) return undefined;
    const log = this.#clients.get(clientKey(address));
    if (log === undefined) return undefined;
    const now = this.#clock.now();
    const mine = log.count(now);
    if (mine === 0) return undefined;
    const { failuresPerClient, failuresOverall, windowSeconds } = this.#options;
    const ownSpent = mine >= failuresPerClient;
    const overallSpent = this.#overall.count(now) >= failuresOverall;
    if (!ownSpent && !overallSpent) return undefined;
    // Admitted again once below its own limit and, while the overall budget is spent, once its own failures
    // have left the window or the oldest overall one has (assuming no one else fails meanwhile).
    const own = ownSpent ? log.msUntilSlot(now) : 0;
    const shared = overallSpent ? Math.min(this.#overall.msUntilSlot(now), log.msUntilEmpty(now)) : 0;
    const retryAfter = Math.max(1, Math.ceil(Math.max(own, shared) / 1000));
    const [problem, name, limit] =
      ownSpent && own >= shared
        ? (['admin_auth_throttled', PER_CLIENT, failuresPerClient] as const)
        : (['admin_auth_throttled_overall', OVERALL, failuresOverall] as const);
    return requestError(
      problem,
      `ratelimit.${name}`,
      { name, limit, window: windowSeconds, retryAfter },
      { [RETRY_AFTER]: String(retryAfter) },
    );
  }

  /** Counts one failed admin authentication of the client (and of everyone, while the overall window has room). */
  failed(address: string): void {
    const now = this.#clock.now();
    this.#overall.tryAdmit(now);
    const key = clientKey(address);
    let log = this.#clients.get(key);
    if (log !== undefined) this.#clients.delete(key);
    else {
      log = new SlidingLog(this.#options.failuresPerClient, this.#windowMs);
      this.#forgetIdle(now);
      if (this.#clients.size >= this.#options.clientsMax) this.#forgetOldest();
    }
    log.tryAdmit(now);
    // Re-inserted last: the map stays ordered by each client's latest failure.
    this.#clients.set(key, log);
  }

  /** Drops the clients whose failures all left the window: they are the first ones of the map. */
  #forgetIdle(now: number): void {
    for (const [key, log] of this.#clients) {
      if (!log.idle(now)) return;
      this.#clients.delete(key);
    }
  }

  /** C115: at the cap, the client that failed least recently is forgotten. */
  #forgetOldest(): void {
    for (const key of this.#clients.keys()) {
      this.#clients.delete(key);
      return;
    }
  }
}
