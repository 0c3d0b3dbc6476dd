import { RATE_LIMITS } from '@org/events-types';
import type { Clock } from '../core/clock.js';
import type { AppliedLimit } from './policy.js';
import { SlidingLog } from './sliding-log.js';

/** The state of one limit as the headers of C9 report it. */
export interface LimitState {
  limit: AppliedLimit;
  remaining: number;
  /** Seconds until one more request fits under this limit (rounded up). */
  reset: number;
}

export type Verdict =
  | { admitted: true; tightest: LimitState | null }
  | { admitted: false; tightest: LimitState; retryAfter: number };

const H = RATE_LIMITS.headers;

/**
 * Keeps one exact sliding log per (limit, key) and decides requests against all the limits that apply to
 * them at once: a request is admitted only if every limit has room, and then counts against each.
 * Single-threaded JavaScript makes check-and-consume atomic.
 */
export class RateLimiter {
  readonly #clock: Clock;
  readonly #logs = new Map<string, SlidingLog>();
  #sweepAt = 0;

  constructor(clock: Clock) {
    this.#clock = clock;
  }

  /** Checks the limits and, when all have room and `consume` is set, counts the request against each. */
  decide(limits: readonly AppliedLimit[], consume: boolean): Verdict {
    if (limits.length === 0) return { admitted: true, tightest: null };
    const now = this.#clock.now();
    this.#sweep(now);
    // A peek (consume = false) must not create counters: callers with bad requests would fill memory.
    const logs = limits.map(
      (l) => this.#logs.get(l.key) ?? (consume ? this.#create(l) : new SlidingLog(l.limit, l.window * 1000)),
    );
    // Refused when any limit is spent; Retry-After is the longest wait among the spent ones.
    let spent = -1;
    let wait = 0;
    for (let i = 0; i < logs.length; i++) {
      const log = logs[i] as SlidingLog;
      if (log.count(now) < log.limit) continue;
      const w = log.msUntilSlot(now);
      if (spent < 0 || w > wait) [spent, wait] = [i, w];
    }
    if (spent >= 0) {
      const retryAfter = Math.max(1, Math.ceil(wait / 1000));
      return {
        admitted: false,
        tightest: { limit: limits[spent] as AppliedLimit, remaining: 0, reset: retryAfter },
        retryAfter,
      };
    }
    if (consume) for (const log of logs) log.tryAdmit(now);
    // Tightest: fewest requests left; on a tie, the one that frees a slot last.
    let tightest: LimitState | null = null;
    for (let i = 0; i < logs.length; i++) {
      const log = logs[i] as SlidingLog;
      const s: LimitState = {
        limit: limits[i] as AppliedLimit,
        remaining: log.limit - log.count(now),
        reset: Math.ceil(log.msUntilSlot(now) / 1000),
      };
      if (
        !tightest ||
        s.remaining < tightest.remaining ||
        (s.remaining === tightest.remaining && s.reset > tightest.reset)
      )
        tightest = s;
    }
    return { admitted: true, tightest };
  }

  /** Forgets every counter (admin reset, C12). */
  reset(): void {
    this.#logs.clear();
  }

  #create(l: AppliedLimit): SlidingLog {
    const log = new SlidingLog(l.limit, l.window * 1000);
    this.#logs.set(l.key, log);
    return log;
  }

  /** Drops idle logs now and then so keys of past callers do not accumulate. */
  #sweep(now: number): void {
    if (now < this.#sweepAt) return;
    this.#sweepAt = now + 60_000;
    for (const [k, log] of this.#logs) if (log.idle(now)) this.#logs.delete(k);
  }
}

/** The headers of C9 for a limit state: `N, N;w=SECONDS`, requests left, seconds to reset. */
export function rateLimitHeaders(s: LimitState): Record<string, string> {
  const { limit, window } = s.limit;
  return {
    [H.limit]: `${limit}, ${limit};w=${window}`,
    [H.remaining]: String(s.remaining),
    [H.reset]: String(s.reset),
  };
}

export const RETRY_AFTER = H.retryAfter;
