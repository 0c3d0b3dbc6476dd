// Properties of the faults of one process (C65) over open inputs: whatever the faults and the requests, a
// count fault answers exactly min(count, requests it matches first) requests, a request gets at most one
// fault, and the oldest matching fault that fires is the one that answers.
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { ManualClock } from '../src/core/clock.js';
import { Faults } from '../src/faults/faults.js';

const ACCOUNTS = ['1', '2'];
const TOKENS = ['t1', 't2', 't3'];

const spec = fc.record(
  {
    ad_account_id: fc.constantFrom(...ACCOUNTS),
    token_id: fc.constantFrom(...TOKENS),
    kind: fc.constantFrom('rate_limited' as const, 'unavailable' as const),
    count: fc.integer({ min: 1, max: 5 }),
  },
  { requiredKeys: ['kind', 'count'] },
);
const request = fc.record({ account: fc.constantFrom(...ACCOUNTS), token: fc.constantFrom(...TOKENS) });

describe('C65 count faults (property)', () => {
  test('each request takes the oldest matching fault with room; counts never go below zero', () => {
    fc.assert(
      fc.property(
        fc.array(spec, { maxLength: 6 }),
        fc.array(request, { maxLength: 40 }),
        (specs, requests) => {
          const faults = new Faults({ clock: new ManualClock(0), random: () => 0 });
          const added = specs.map((s) => faults.add(s)!);
          // Reference: remaining slots per fault, oldest first.
          const left = specs.map((s) => s.count);
          for (const r of requests) {
            const expected = specs.findIndex(
              (s, i) =>
                (left[i] as number) > 0 &&
                (s.ad_account_id === undefined || s.ad_account_id === r.account) &&
                (s.token_id === undefined || s.token_id === r.token),
            );
            const got = faults.take(r.account, r.token);
            if (expected < 0) expect(got).toBeNull();
            else {
              expect(got?.id).toBe(added[expected]?.id);
              left[expected] = (left[expected] as number) - 1;
            }
          }
          expect(faults.list().map((f) => f.remaining)).toEqual(left);
          expect(faults.list().map((f) => f.matched)).toEqual(
            specs.map((s, i) => s.count - (left[i] as number)),
          );
        },
      ),
      { numRuns: 300 },
    );
  });

  test('a fraction fault fires exactly when the random draw is below it', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.array(fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }), { maxLength: 30 }),
        (fraction, draws) => {
          let i = 0;
          const faults = new Faults({ clock: new ManualClock(0), random: () => draws[i++] as number });
          faults.add({ kind: 'latency', fraction, latency_ms: 1 });
          const fired = draws.map(() => faults.take('1', 't1') !== null);
          expect(fired).toEqual(draws.map((d) => d < fraction));
          expect(faults.list()[0]?.matched).toBe(fired.filter(Boolean).length);
        },
      ),
    );
  });
});
