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

/** What a limiter knows of one limit's window at `now`: requests in it and ms until a slot frees. */
export interface WindowState {
  count: number;
  waitMs: number;
}

/**
 * The verdict of C9 from the windows of every limit that applies: refused when any is spent (Retry-After is
 * the longest wait among the spent ones), else the tightest: fewest requests left, on a tie the one that
 * frees a slot last. `windows` are read after the request was counted when it was admitted, before it
 * otherwise. Shared by the in-memory and the Redis limiter, so both answer the same headers for the same
 * history.
 */
export function verdictOf(
  limits: readonly AppliedLimit[],
  windows: readonly WindowState[],
  admitted: boolean,
): Verdict {
  if (!admitted) {
    let spent = 0;
    let wait = -1;
    for (let i = 0; i < limits.length; i++) {
      const w = windows[i] as WindowState;
      if (w.count >= (limits[i] as AppliedLimit).limit && w.waitMs > wait) [spent, wait] = [i, w.waitMs];
    }
    const retryAfter = Math.max(1, Math.ceil(wait / 1000));
    return {
      admitted: false,
      tightest: { limit: limits[spent] as AppliedLimit, remaining: 0, reset: retryAfter },
      retryAfter,
    };
  }
  let tightest: LimitState | null = null;
  for (let i = 0; i < limits.length; i++) {
    const l = limits[i] as AppliedLimit;
    const w = windows[i] as WindowState;
    const s: LimitState = { limit: l, remaining: l.limit - w.count, reset: Math.ceil(w.waitMs / 1000) };
    if (
      !tightest ||
      s.remaining < tightest.remaining ||
      (s.remaining === tightest.remaining && s.reset > tightest.reset)
    )
      tightest = s;
  }
  return { admitted: true, tightest };
}

/**
 * The rate limits of C7 and C9 as the routes use them: one implementation per process (memory) and one
 * shared by every instance (Redis, C50). A request is admitted only if every limit that applies has room,
 * and then counts against each, atomically.
 */
export interface Limiter {
  /** `memory`, or the Redis server without credentials (logs, /readyz). */
  readonly description: string;
  /** Checks the limits and, when all have room and `consume` is set, counts the request against each. */
  decide(limits: readonly AppliedLimit[], consume: boolean): Promise<Verdict>;
  /** Forgets every counter (admin reset, C12). */
  reset(): Promise<void>;
  /** Answers when the limiter can decide; rejects otherwise (/readyz). */
  ping(): Promise<void>;
  close(): Promise<void>;
}

/**
 * The limiter of one process: one exact sliding log per (limit, key). Single-threaded JavaScript makes
 * check-and-consume atomic.
 */
export class MemoryLimiter implements Limiter {
  readonly description = 'memory';
  readonly #clock: Clock;
  readonly #logs = new Map<string, SlidingLog>();
  #sweepAt = 0;

  constructor(clock: Clock) {
    this.#clock = clock;
  }

  async decide(limits: readonly AppliedLimit[], consume: boolean): Promise<Verdict> {
    return this.decideNow(limits, consume);
  }

  /** The same decision, synchronously (this limiter needs no I/O). */
  decideNow(limits: readonly AppliedLimit[], consume: boolean): Verdict {
    if (limits.length === 0) return { admitted: true, tightest: null };
    const now = this.#clock.now();
    this.#sweep(now);
    // A peek (consume = false) must not create counters: callers with bad requests would fill memory.
    const logs = limits.map(
      (l) => this.#logs.get(l.key) ?? (consume ? this.#create(l) : new SlidingLog(l.limit, l.window * 1000)),
    );
    const room = logs.every((log) => log.count(now) < log.limit);
    if (room && consume) for (const log of logs) log.tryAdmit(now);
    return verdictOf(
      limits,
      logs.map((log) => ({ count: log.count(now), waitMs: log.msUntilSlot(now) })),
      room,
    );
  }

  async reset(): Promise<void> {
    this.#logs.clear();
  }

  async ping(): Promise<void> {}

  async close(): Promise<void> {}

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

/** C89: the limit header's value template, `{limit}, {limit};w={window};name="{name}"`, split once. */
const LIMIT_VALUE = RATE_LIMITS.limitHeaderValue.split(/(\{limit\}|\{window\}|\{name\})/);

function limitValue(limit: number, window: number, name: string): string {
  let out = '';
  for (const part of LIMIT_VALUE)
    out += part === '{limit}' ? limit : part === '{window}' ? window : part === '{name}' ? name : part;
  return out;
}

/** The headers of C9 for a limit state: `N, N;w=SECONDS;name="NAME"` (C89), requests left, seconds to reset. */
export function rateLimitHeaders(s: LimitState): Record<string, string> {
  const { limit, window, headerName } = s.limit;
  return {
    [H.limit]: limitValue(limit, window, headerName),
    [H.remaining]: String(s.remaining),
    [H.reset]: String(s.reset),
  };
}

export const RETRY_AFTER = H.retryAfter;
