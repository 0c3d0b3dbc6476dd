import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import type { Clock } from '../core/clock.js';
import { type Limiter, type Verdict, verdictOf, type WindowState } from './limiter.js';
import type { AppliedLimit } from './policy.js';

/**
 * The sliding logs of every limit a request meets, decided in one atomic script (C50): each log is a
 * sorted set of admission times; entries at or before `now - window` are dropped, the request is admitted
 * only if every set holds fewer than its limit, and then it is added to each. This is the in-memory
 * SlidingLog's rule, so no window of any length ever admits more than its limit across all instances, and
 * no window edge lets a burst through (a fixed-window counter would admit up to twice the limit there).
 * `now` comes from the server's clock, so tests drive it; each set expires a minute after its last
 * admission has left the window (Redis counts expiry in real time, the scores follow the server's clock,
 * so the minute covers any gap between them), so idle keys leave Redis by themselves.
 *
 * ARGV: now (ms), consume (1|0), member, then limit and window (ms) per key.
 * Returns: admitted (1|0), then count and ms until a slot frees, per key.
 */
const DECIDE_LUA = `
local now = tonumber(ARGV[1])
local consume = ARGV[2] == '1'
local n = #KEYS
local counts = {}
local room = true
for i = 1, n do
  local limit = tonumber(ARGV[2 + 2 * i])
  local win = tonumber(ARGV[3 + 2 * i])
  redis.call('ZREMRANGEBYSCORE', KEYS[i], '-inf', now - win)
  counts[i] = redis.call('ZCARD', KEYS[i])
  if counts[i] >= limit then room = false end
end
if room and consume then
  for i = 1, n do
    redis.call('ZADD', KEYS[i], now, ARGV[3])
    redis.call('PEXPIRE', KEYS[i], tonumber(ARGV[3 + 2 * i]) + 60000)
    counts[i] = counts[i] + 1
  end
end
local out = { room and 1 or 0 }
for i = 1, n do
  local oldest = redis.call('ZRANGE', KEYS[i], 0, 0, 'WITHSCORES')
  local wait = 0
  if oldest[2] then wait = tonumber(oldest[2]) + tonumber(ARGV[3 + 2 * i]) - now end
  out[#out + 1] = counts[i]
  out[#out + 1] = wait
end
return out
`;

export interface RedisLimiterOptions {
  /** redis://[user:password@]host:port[/db] or rediss://... */
  url: string;
  /** Prefix of every key this limiter writes (default `events:rl:`); instances that share limits share it. */
  prefix?: string;
  clock: Clock;
}

/** `redis://host:6379/0`, never the credentials. */
export function describeRedisUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${u.pathname === '' ? '' : u.pathname}`;
  } catch {
    return 'redis';
  }
}

type DecideClient = Redis & {
  eventsDecide(numKeys: number, ...keysAndArgs: (string | number)[]): Promise<number[]>;
};

/**
 * The limiter shared by every instance (C50, C51). Fails closed: when Redis does not answer within two seconds,
 * the request is refused with 503 and Retry-After upstream, never admitted uncounted.
 */
export class RedisLimiter implements Limiter {
  readonly description: string;
  readonly #redis: DecideClient;
  readonly #prefix: string;
  readonly #clock: Clock;
  readonly #instance = randomBytes(6).toString('hex');
  #seq = 0;

  private constructor(o: RedisLimiterOptions) {
    this.description = describeRedisUrl(o.url);
    this.#prefix = o.prefix ?? 'events:rl:';
    this.#clock = o.clock;
    this.#redis = new Redis(o.url, {
      lazyConnect: true,
      // Fail fast rather than queue: a request must not wait on a Redis that is away (C51).
      enableOfflineQueue: false,
      maxRetriesPerRequest: 1,
      commandTimeout: 2000,
      connectTimeout: 3000,
    }) as DecideClient;
    this.#redis.defineCommand('eventsDecide', { lua: DECIDE_LUA });
    // Connection errors surface as rejected commands; ioredis reconnects by itself.
    this.#redis.on('error', () => {});
  }

  /** Connects; rejects when Redis cannot be reached, so a server does not start without its limits. */
  static async open(o: RedisLimiterOptions): Promise<RedisLimiter> {
    const l = new RedisLimiter(o);
    try {
      await l.#redis.connect();
      await l.#redis.ping();
    } catch (e) {
      l.#redis.disconnect();
      throw new Error(`cannot reach Redis at ${l.description}: ${(e as Error).message}`);
    }
    return l;
  }

  async decide(limits: readonly AppliedLimit[], consume: boolean): Promise<Verdict> {
    if (limits.length === 0) return { admitted: true, tightest: null };
    const args: (string | number)[] = limits.map((l) => this.#prefix + l.key);
    args.push(this.#clock.now(), consume ? 1 : 0, `${this.#instance}:${++this.#seq}`);
    for (const l of limits) args.push(l.limit, l.window * 1000);
    const out = await this.#redis.eventsDecide(limits.length, ...args);
    const windows: WindowState[] = limits.map((_, i) => ({
      count: Number(out[1 + 2 * i]),
      waitMs: Number(out[2 + 2 * i]),
    }));
    return verdictOf(limits, windows, out[0] === 1);
  }

  async reset(): Promise<void> {
    let cursor = '0';
    do {
      const [next, keys] = await this.#redis.scan(cursor, 'MATCH', `${this.#prefix}*`, 'COUNT', 500);
      cursor = next;
      if (keys.length) await this.#redis.unlink(...keys);
    } while (cursor !== '0');
  }

  async ping(): Promise<void> {
    await this.#redis.ping();
  }

  async close(): Promise<void> {
    await this.#redis.quit().catch(() => this.#redis.disconnect());
  }
}
