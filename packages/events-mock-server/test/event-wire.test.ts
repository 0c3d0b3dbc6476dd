// The packed form in which a validation thread posts a batch's accepted events back (issue 25): whatever the
// events hold, the event loop reads back exactly what the thread prepared.
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { fromWire, packEvents, toWire, unpackEvents } from '../src/pipeline/event-wire.js';
import type { Prepared, PreparedEvent } from '../src/pipeline/prepare.js';

const preparedEvent: fc.Arbitrary<PreparedEvent> = fc.record({
  index: fc.nat({ max: 5000 }),
  // Any UTF-16, lone surrogates and empty names included: lengths are counted in code units.
  eventName: fc.string({ unit: 'binary', maxLength: 12 }),
  eventId: fc.string({ unit: 'binary', maxLength: 40 }),
  eventTime: fc.integer({ min: -2_000_000_000, max: 4_000_000_000 }),
  json: fc.oneof(
    fc.constant(''),
    fc.string({ unit: 'binary', minLength: 1, maxLength: 30 }),
    fc
      .tuple(fc.nat({ max: 5_000_000 }), fc.nat({ max: 5000 }))
      .map(([start, n]) => ({ start, end: start + n })),
  ),
});

describe('accepted events between threads', () => {
  test('read back exactly as packed, in order', () => {
    fc.assert(
      fc.property(fc.array(preparedEvent, { maxLength: 60 }), (events) => {
        expect(unpackEvents(structuredClone(packEvents(events)))).toEqual(events);
      }),
    );
  });

  test('a batch of three: one span, one text, one empty', () => {
    const events: PreparedEvent[] = [
      {
        index: 0,
        eventName: 'checkout',
        eventId: 'a-1',
        eventTime: 1_753_257_700,
        json: { start: 9, end: 120 },
      },
      { index: 2, eventName: 'lead', eventId: 'b', eventTime: 1_753_257_701, json: '{"event_name":"lead"}' },
      { index: 3, eventName: 'custom', eventId: '', eventTime: 0, json: '' },
    ];
    const packed = packEvents(events);
    expect(packed.text).toBe('checkouta-1leadbcustom');
    expect([...packed.lengths]).toEqual([8, 3, 4, 1, 6, 0]);
    expect(packed.jsons).toEqual(['{"event_name":"lead"}']);
    expect(unpackEvents(packed)).toEqual(events);
  });

  test('only an accepted batch has events to pack; the other outcomes cross as they are', () => {
    const refused: Prepared = { kind: 'json_error', reason: 'Unexpected end of JSON input' };
    expect(toWire(refused)).toBe(refused);
    expect(fromWire(toWire(refused))).toBe(refused);
  });
});
