// One conformance suite for every Limiter (C9, C50): the in-process sliding logs and the Redis ones. The
// same requests at the same (fake) times get the same verdicts and headers from both.
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { ManualClock } from '../src/core/clock.js';
import { type Limiter, MemoryLimiter } from '../src/ratelimit/limiter.js';
import type { AppliedLimit } from '../src/ratelimit/policy.js';
import { RedisLimiter } from '../src/ratelimit/redis-limiter.js';
import { keysUnder, REDIS_TEST_URL, redisReachable, testPrefix } from './support/redis.js';

const T0 = Date.UTC(2026, 2, 2, 12, 0, 0);
const redisUp = await redisReachable();

interface Opened {
  limiter: Limiter;
  /** Another limiter sharing the counters (another instance), when the implementation shares them. */
  peer: (() => Promise<Limiter>) | null;
  prefix: string | null;
  cleanup(): Promise<void>;
}

const IMPLEMENTATIONS: { name: string; run: boolean; open(clock: ManualClock): Promise<Opened> }[] = [
  {
    name: 'memory',
    run: true,
    async open(clock) {
      return { limiter: new MemoryLimiter(clock), peer: null, prefix: null, cleanup: async () => {} };
    },
  },
  {
    name: 'Redis',
    run: redisUp,
    async open(clock) {
      const { prefix, drop } = testPrefix();
      const opened: Limiter[] = [];
      const make = async () => {
        const l = await RedisLimiter.open({ url: REDIS_TEST_URL, prefix, clock });
        opened.push(l);
        return l;
      };
      return {
        limiter: await make(),
        peer: make,
        prefix,
        async cleanup() {
          for (const l of opened) await l.close();
          await drop();
        },
      };
    },
  },
];

const perSecond = (limit: number, key = 'k'): AppliedLimit => ({
  name: 'test_requests',
  headerName: 'test_requests',
  limit,
  window: 1,
  key,
});
const perMinute = (limit: number, key = 'm'): AppliedLimit => ({
  name: 'ads_conversions',
  headerName: 'ads_conversions_ad_account_id',
  limit,
  window: 60,
  key,
});

for (const impl of IMPLEMENTATIONS) {
  describe.skipIf(!impl.run)(`Limiter conformance: ${impl.name}`, () => {
    let clock: ManualClock;
    let o: Opened;
    beforeEach(async () => {
      clock = new ManualClock(T0);
      o = await impl.open(clock);
    });
    afterEach(() => o.cleanup());

    const admittedOf = async (limits: AppliedLimit[], n: number) => {
      let admitted = 0;
      for (let i = 0; i < n; i++) if ((await o.limiter.decide(limits, true)).admitted) admitted++;
      return admitted;
    };

    test('admits the limit, then refuses with Retry-After and the spent limit', async () => {
      const l = [perSecond(3)];
      expect(await o.limiter.decide(l, true)).toEqual({
        admitted: true,
        tightest: { limit: l[0], remaining: 2, reset: 1 },
      });
      expect(await admittedOf(l, 2)).toBe(2);
      clock.advance(400);
      expect(await o.limiter.decide(l, true)).toEqual({
        admitted: false,
        tightest: { limit: l[0], remaining: 0, reset: 1 },
        retryAfter: 1,
      });
    });

    test('no burst at a window edge: a full window frees one slot per expired admission', async () => {
      const l = [perSecond(10)];
      clock.set(T0 + 900);
      expect(await admittedOf(l, 10)).toBe(10);
      clock.set(T0 + 1000); // a fixed window would start afresh here
      expect(await admittedOf(l, 10)).toBe(0);
      clock.set(T0 + 1899);
      expect(await admittedOf(l, 1)).toBe(0);
      clock.set(T0 + 1900);
      expect(await admittedOf(l, 20)).toBe(10);
    });

    test('all limits must have room; a refused request counts against none', async () => {
      const l = [perSecond(5), perMinute(7)];
      expect(await admittedOf(l, 5)).toBe(5);
      const refused = await o.limiter.decide(l, true);
      expect(refused).toEqual({
        admitted: false,
        tightest: { limit: l[0], remaining: 0, reset: 1 },
        retryAfter: 1,
      });
      clock.advance(1000);
      // The minute limit holds 5, not 6: the refused request was not counted.
      expect(await o.limiter.decide(l, true)).toEqual({
        admitted: true,
        tightest: { limit: l[1], remaining: 1, reset: 59 },
      });
      expect((await o.limiter.decide(l, true)).admitted).toBe(true);
      const minuteSpent = await o.limiter.decide(l, true);
      expect(minuteSpent).toEqual({
        admitted: false,
        tightest: { limit: l[1], remaining: 0, reset: 59 },
        retryAfter: 59,
      });
    });

    test('a peek reports the state without counting', async () => {
      const l = [perSecond(2)];
      expect(await o.limiter.decide(l, false)).toEqual({
        admitted: true,
        tightest: { limit: l[0], remaining: 2, reset: 0 },
      });
      await o.limiter.decide(l, true);
      expect((await o.limiter.decide(l, false)).tightest).toEqual({ limit: l[0], remaining: 1, reset: 1 });
      expect(await admittedOf(l, 5)).toBe(1);
    });

    test('keys are separate; reset forgets every counter', async () => {
      expect(await admittedOf([perSecond(2, 'a')], 3)).toBe(2);
      expect(await admittedOf([perSecond(2, 'b')], 3)).toBe(2);
      await o.limiter.reset();
      expect(await admittedOf([perSecond(2, 'a')], 3)).toBe(2);
      if (o.prefix) {
        await o.limiter.reset();
        expect(await keysUnder(o.prefix)).toBe(0);
      }
    });

    test('concurrent decisions admit exactly the limit', async () => {
      const l = [perSecond(25)];
      const verdicts = await Promise.all(Array.from({ length: 60 }, () => o.limiter.decide(l, true)));
      expect(verdicts.filter((v) => v.admitted)).toHaveLength(25);
    });

    test('instances sharing the counters hold the limit in sum', async () => {
      if (!o.peer) return; // in-process counters are not shared by design (C52 refuses them with workers)
      const peer = await o.peer();
      const l = [perSecond(10)];
      const both = await Promise.all(
        Array.from({ length: 30 }, (_, i) => (i % 2 ? peer : o.limiter).decide(l, true)),
      );
      expect(both.filter((v) => v.admitted)).toHaveLength(10);
    });
  });
}
