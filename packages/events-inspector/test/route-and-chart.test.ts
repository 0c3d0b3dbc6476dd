import { describe, expect, it } from 'vitest';
import { faultSpecOf } from '../src/app/lib/fault-form.js';
import { hrefOf, parseHash } from '../src/app/lib/route.js';
import { chartOf } from '../src/app/lib/timeline.js';

describe('hash routes', () => {
  it('reads each view and writes it back', () => {
    expect(parseHash('')).toEqual({ view: 'requests', query: '' });
    expect(parseHash('#/requests?status=400')).toEqual({ view: 'requests', query: '?status=400' });
    expect(parseHash('#/requests/abc%2F1')).toEqual({ view: 'request', id: 'abc/1', query: '' });
    expect(parseHash('#/reports/549755885175')).toEqual({
      view: 'report',
      account: '549755885175',
      query: '',
    });
    expect(parseHash('#/requests/%E0%A4%A')).toEqual({ view: 'request', id: '%E0%A4%A', query: '' });
    for (const h of [
      '#/requests?x=1',
      '#/requests/abc%2F1',
      '#/events?event_name=lead',
      '#/reports/1',
      '#/faults',
    ])
      expect(hrefOf(parseHash(h))).toBe(h);
  });
});

describe('timeline chart', () => {
  it('stacks failed on processed, one column per hour, empty hours included, scaled to the busiest', () => {
    const c = chartOf(
      [
        { start: 7200, processed: 1, failed: {} },
        { start: 0, processed: 2, failed: { invalid_enum: 1, missing_required: 1 } },
      ],
      400,
      100,
      4,
      10800,
    );
    expect(c.max).toBe(4);
    expect(c.bars.map((b) => [b.start, b.x, b.width, b.processed.count, b.failed.count])).toEqual([
      [0, 10, 80, 2, 2],
      [3600, 110, 80, 0, 0],
      [7200, 210, 80, 1, 0],
      [10800, 310, 80, 0, 0],
    ]);
    expect(c.bars[0]!.processed).toEqual({ y: 50, height: 50, count: 2 });
    expect(c.bars[0]!.failed).toEqual({ y: 0, height: 50, count: 2 });
    expect(c.bars[2]!.processed).toEqual({ y: 75, height: 25, count: 1 });
    expect(c.failedByCode).toEqual([
      { code: 'invalid_enum', count: 1 },
      { code: 'missing_required', count: 1 },
    ]);
  });

  it('leaves out buckets older than the hours shown', () => {
    const c = chartOf([{ start: 0, processed: 5, failed: {} }], 200, 100, 2, 7200);
    expect(c.bars.map((b) => b.start)).toEqual([3600, 7200]);
    expect(c.max).toBe(1);
  });
});

describe('fault form', () => {
  it('builds the FaultSpec of the admin API, or says which box is wrong', () => {
    expect(
      faultSpecOf({
        kind: 'rate_limited',
        mode: 'count',
        amount: '3',
        retry_after_seconds: '2',
        ad_account_id: ' 1 ',
      }),
    ).toEqual({
      kind: 'rate_limited',
      ad_account_id: '1',
      count: 3,
      retry_after_seconds: 2,
    });
    expect(
      faultSpecOf({ kind: 'latency', mode: 'fraction', amount: '0.5', latency_ms: '250', token_id: 't' }),
    ).toEqual({
      kind: 'latency',
      token_id: 't',
      fraction: 0.5,
      latency_ms: 250,
    });
    expect(faultSpecOf({ kind: 'unavailable', mode: 'fraction', amount: '1.5' })).toBe(
      'A fraction must be more than 0 and at most 1.',
    );
    expect(faultSpecOf({ kind: 'unavailable', mode: 'count', amount: '0' })).toBe(
      'N must be a whole number of at least 1.',
    );
    expect(faultSpecOf({ kind: 'boom', mode: 'count', amount: '1' })).toBe(
      'Kind must be one of rate_limited, unavailable, latency.',
    );
  });
});
