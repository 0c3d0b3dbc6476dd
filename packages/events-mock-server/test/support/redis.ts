// Real Redis for tests (C50-C52): each caller gets a key prefix of its own, deleted after. The machine's
// server is at 127.0.0.1:6379 (REDIS_TEST_URL overrides); when it cannot be reached, the tests that need it
// say so on one visible line and skip; CI starts it first and fails without it (services.ts).
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { QUICK_RUN, serviceMissing } from './services.js';

export const REDIS_TEST_URL = process.env.REDIS_TEST_URL ?? 'redis://127.0.0.1:6379';

let reachable: Promise<boolean> | undefined;

export function redisReachable(): Promise<boolean> {
  reachable ??= (async () => {
    if (QUICK_RUN) return false;
    const r = new Redis(REDIS_TEST_URL, { lazyConnect: true, maxRetriesPerRequest: 0, connectTimeout: 3000 });
    r.on('error', () => {});
    try {
      await r.connect();
      await r.ping();
      return true;
    } catch (e) {
      return serviceMissing(`Redis at ${REDIS_TEST_URL}`, `is unreachable (${(e as Error).message})`);
    } finally {
      r.disconnect();
    }
  })();
  return reachable;
}

/** A fresh key prefix and a function that deletes every key under it. */
export function testPrefix(): { prefix: string; drop(): Promise<void> } {
  const prefix = `ems-test:${randomBytes(6).toString('hex')}:`;
  return {
    prefix,
    async drop() {
      const r = new Redis(REDIS_TEST_URL);
      try {
        const keys = await r.keys(`${prefix}*`);
        if (keys.length) await r.del(...keys);
      } finally {
        r.disconnect();
      }
    },
  };
}

/** How many keys exist under a prefix. */
export async function keysUnder(prefix: string): Promise<number> {
  const r = new Redis(REDIS_TEST_URL);
  try {
    return (await r.keys(`${prefix}*`)).length;
  } finally {
    r.disconnect();
  }
}
