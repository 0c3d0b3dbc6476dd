import fc from 'fast-check';
import { Counter, Histogram, Registry } from 'prom-client';
import { describe, expect, test } from 'vitest';
import { HotCounter, HotHistogram } from '../src/metrics/hot-series.js';

// The hot series (C77) must render exactly as prom-client's own classes do for the same calls, so /metrics
// and every dashboard built on it are unchanged.

const BUCKETS = [0.001, 0.01, 0.1, 1];

/** What both kinds answer to, for the calls the tests make. */
interface Pair {
  h: { observe(labels: { op: string }, value: number): void };
  c: { inc(labels: { op: string; status: number }, n?: number): void };
}

function pair() {
  const ours = new Registry();
  const theirs = new Registry();
  const config = (r: Registry) => ({
    name: 'h_seconds',
    help: 'A histogram.',
    labelNames: ['op'] as const,
    buckets: BUCKETS,
    registers: [r],
  });
  const counter = (r: Registry) => ({
    name: 'c_total',
    help: 'A counter.',
    labelNames: ['op', 'status'] as const,
    registers: [r],
  });
  return {
    ours,
    theirs,
    both: [
      { h: new HotHistogram(config(ours)), c: new HotCounter(counter(ours)) },
      { h: new Histogram(config(theirs)), c: new Counter(counter(theirs)) },
    ] as Pair[],
  };
}

describe('hot series render as prom-client does (C77)', () => {
  test('a labelled histogram and counter, literal', async () => {
    const p = pair();
    for (const m of p.both) {
      m.h.observe({ op: 'a' }, 0.005);
      m.h.observe({ op: 'a' }, 2);
      m.c.inc({ op: 'a', status: 200 });
      m.c.inc({ op: 'a', status: 200 }, 3);
    }
    const text = await p.ours.metrics();
    expect(text).toContain('h_seconds_bucket{le="0.01",op="a"} 1');
    expect(text).toContain('h_seconds_bucket{le="+Inf",op="a"} 2');
    expect(text).toContain('h_seconds_sum{op="a"} 2.005');
    expect(text).toContain('c_total{op="a",status="200"} 4');
    expect(text).toBe(await p.theirs.metrics());
  });

  test('without labels: shown at zero before the first observation', async () => {
    const ours = new Registry();
    const theirs = new Registry();
    new HotHistogram({ name: 'b', help: 'B.', buckets: BUCKETS, registers: [ours] });
    new Histogram({ name: 'b', help: 'B.', buckets: BUCKETS, registers: [theirs] });
    expect(await ours.metrics()).toBe(await theirs.metrics());
  });

  test('any sequence of calls (fast-check)', async () => {
    const call = fc.record({
      op: fc.constantFrom('a', 'b', 'c'),
      status: fc.constantFrom(200, 400, 503),
      value: fc.double({ min: 0, max: 5, noNaN: true }),
      n: fc.integer({ min: 0, max: 1000 }),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(call, { maxLength: 40 }), async (calls) => {
        const p = pair();
        for (const m of p.both)
          for (const c of calls) {
            m.h.observe({ op: c.op }, c.value);
            m.c.inc({ op: c.op, status: c.status }, c.n);
          }
        expect(await p.ours.metrics()).toBe(await p.theirs.metrics());
      }),
    );
  });
});
