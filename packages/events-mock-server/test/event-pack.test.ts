// The packed form in which events cross between threads (issue 25): a validation thread's accepted events,
// and a batch on its way to the SQLite store thread. Whatever the events hold, the other side reads back
// exactly what was sent.
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { fromWire, toWire } from '../src/pipeline/event-wire.js';
import type { Prepared, PreparedEvent } from '../src/pipeline/prepare.js';
import type { BatchWrite, EventToStore } from '../src/store/interface/events.js';
import {
  fromWireBatch,
  packEvents,
  packStoreEvents,
  toWireBatch,
  unpackEvents,
  unpackStoreEvents,
} from '../src/threads/event-pack.js';

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

  const usages = [['conversions'], ['conversions', 'audiences'], []];
  const storeEvent: fc.Arbitrary<EventToStore> = fc
    .tuple(preparedEvent, fc.constantFrom(...usages))
    .map(([e, usage]) => ({ ...e, usage }));

  test('stored events read back with their usage, each distinct usage sent once', () => {
    fc.assert(
      fc.property(fc.array(storeEvent, { maxLength: 60 }), (events) => {
        const packed = packStoreEvents(events);
        expect(packed.usages.length).toBe(new Set(events.map((e) => e.usage)).size);
        expect(unpackStoreEvents(structuredClone(packed))).toEqual(events);
      }),
    );
  });

  test('a batch for the store thread: its events packed, the rest as it is', () => {
    const usage = ['conversions'];
    const batch: BatchWrite = {
      adAccountId: '549755885175',
      requestId: 'r-1',
      receivedAt: 1_753_257_800_000,
      dedupSince: 1_753_085_000_000,
      events: [
        {
          index: 0,
          eventName: 'checkout',
          eventId: 'a',
          eventTime: 1_753_257_700,
          usage,
          json: { start: 9, end: 80 },
        },
        {
          index: 1,
          eventName: 'lead',
          eventId: 'b',
          eventTime: 1_753_257_701,
          usage,
          json: '{"event_name":"lead"}',
        },
      ],
      source: new TextEncoder().encode('{"data":[]}'),
      failures: [{ eventName: 'signup', codes: ['4101'] }],
    };
    const wire = toWireBatch(batch);
    expect(wire.events.usages).toEqual([['conversions']]);
    expect([...wire.events.usageOf]).toEqual([0, 0]);
    expect(fromWireBatch(structuredClone(wire))).toEqual(batch);
  });

  test("a body inside a larger buffer crosses as its own bytes, not the whole buffer's", () => {
    const pool = new Uint8Array(64).fill(32);
    const body = pool.subarray(8, 19);
    body.set(new TextEncoder().encode('{"data":[]}'));
    const b: BatchWrite = {
      adAccountId: 'a',
      requestId: 'r',
      receivedAt: 0,
      dedupSince: 0,
      events: [],
      source: body,
      failures: [],
    };
    const wire = toWireBatch(b);
    expect(wire.source?.buffer.byteLength).toBe(11);
    expect(new TextDecoder().decode(fromWireBatch(structuredClone(wire)).source)).toBe('{"data":[]}');
  });
});
