import type { Clock } from '../core/clock.js';
import { loadOptional } from '../core/optional-package.js';
import { type Limiter, MemoryLimiter } from './limiter.js';

/** What a limits setting may be, for messages of the config, the flags and REDIS_URL. */
export const LIMITS_URL_FORMS = 'memory or redis://[user:password@]host[:port][/db] (or rediss://)';

/** Reads a limits setting (C52): `memory`, or a Redis URL; anything else is an error naming the forms. */
export function parseLimitsUrl(
  value: string,
): { kind: 'memory' } | { kind: 'redis'; url: string } | { error: string } {
  const v = value.trim();
  if (v === 'memory') return { kind: 'memory' };
  if (/^rediss?:\/\//i.test(v)) {
    try {
      if (!new URL(v).hostname) return { error: `a redis URL needs a host; use ${LIMITS_URL_FORMS}` };
      return { kind: 'redis', url: v };
    } catch {
      return { error: `is not a valid redis URL; use ${LIMITS_URL_FORMS}` };
    }
  }
  return { error: `must be ${LIMITS_URL_FORMS}` };
}

/** Opens the limiter a setting names; rejects when Redis cannot be reached. */
export async function openLimiter(value: string, clock: Clock, prefix?: string): Promise<Limiter> {
  const parsed = parseLimitsUrl(value);
  if ('error' in parsed) throw new Error(`limits ${parsed.error}`);
  if (parsed.kind === 'memory') return new MemoryLimiter(clock);
  // Loaded only when named: in-memory limits do not carry ioredis's code in memory.
  const { RedisLimiter } = await loadOptional(
    () => import('./redis-limiter.js'),
    'ioredis',
    'redis:// limits',
  );
  return RedisLimiter.open({ url: parsed.url, clock, ...(prefix !== undefined ? { prefix } : {}) });
}
