import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import type { Prepared } from '../src/pipeline/prepare.js';
import { fromWire, toWire } from '../src/pipeline/prepared-wire.js';

// A validation thread posts a prepared batch in its wire form (issue 25); the event loop must get back the
// batch that was prepared, result for result.

const result = fc.oneof(
  fc.constant({ status: 'processed' as const, error_message: null, warning_message: null }),
  fc.record({
    status: fc.constantFrom('processed' as const, 'failed' as const),
    error_message: fc.option(fc.string(), { nil: null }),
    warning_message: fc.option(fc.string(), { nil: null }),
  }),
);
const event = fc.record({
  index: fc.nat(999),
  eventName: fc.string(),
  eventId: fc.string(),
  eventTime: fc.integer(),
  json: fc.oneof(fc.string(), fc.record({ start: fc.nat(1 << 30), end: fc.nat(1 << 30) })),
});

type Ok = Extract<Prepared, { kind: 'ok' }>;

function ok(results: Ok['response']['events'], events: Ok['events']): Prepared {
  return {
    kind: 'ok',
    kept: { kind: 'as_sent' },
    response: {
      num_events_received: results.length,
      num_events_processed: results.filter((r) => r.status === 'processed').length,
      events: results,
    },
    events,
    failures: [{ eventName: 'lead', codes: ['invalid_value'] }],
    problems: [],
    warnedDuplicates: [2],
    fields: [[1, ['user_data.em']]],
    names: ['checkout'],
  };
}

describe('a prepared batch through its wire form', () => {
  test('literal: plain results are one byte each, the others kept in order', () => {
    const p = ok(
      [
        { status: 'processed', error_message: null, warning_message: null },
        { status: 'failed', error_message: 'Bad.', warning_message: null },
        { status: 'processed', error_message: null, warning_message: 'Hm.' },
      ],
      [{ index: 0, eventName: 'checkout', eventId: 'a', eventTime: 1, json: { start: 9, end: 20 } }],
    );
    const w = toWire(p);
    expect(w.kind === 'ok' && [...w.plain]).toEqual([1, 0, 0]);
    expect(w.kind === 'ok' && w.others).toHaveLength(2);
    expect(fromWire(structuredClone(w))).toEqual(p);
  });

  test('other outcomes pass unchanged', () => {
    const p: Prepared = { kind: 'json_error', reason: 'Unexpected end of JSON input' };
    expect(fromWire(structuredClone(toWire(p)))).toEqual(p);
  });

  test('property: any results and events survive a message', () => {
    fc.assert(
      fc.property(fc.array(result, { maxLength: 40 }), fc.array(event, { maxLength: 20 }), (rs, evs) => {
        const p = ok(rs, evs);
        expect(fromWire(structuredClone(toWire(p)))).toEqual(p);
      }),
    );
  });
});
