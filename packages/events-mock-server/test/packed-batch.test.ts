import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { packBatch, unpackBatch } from '../src/store/packed-batch.js';
import type { BatchWrite } from '../src/store/store.js';

// The store thread gets a batch as columns (issue 25); what it rebuilds must be the batch that was sent.

const base = {
  adAccountId: '549755885175',
  requestId: 'req-1',
  receivedAt: 1_753_300_000_123,
  dedupSince: 1_753_127_200_123,
  failures: [{ eventName: 'checkout', codes: ['invalid_value'] }],
};

describe('a batch packed for the store thread', () => {
  test('literal: an own text, a span, usage names', () => {
    const b: BatchWrite = {
      ...base,
      source: new Uint8Array([1, 2, 3]),
      events: [
        {
          index: 0,
          eventName: 'checkout',
          eventId: 'e1',
          eventTime: 1_753_300_000,
          usage: [],
          json: '{"a":1}',
        },
        {
          index: 2,
          eventName: 'lead',
          eventId: 'é🎉',
          eventTime: 1_753_300_001,
          usage: ['conversion_reporting', 'audience_creation'],
          json: { start: 10, end: 42 },
        },
      ],
    };
    const p = packBatch(b);
    expect(p.packed.usage).toEqual(['', 'conversion_reporting,audience_creation']);
    expect(unpackBatch(structuredClone(p))).toEqual(b);
  });

  test('property: any events survive the round trip through a message', () => {
    const name = fc.string({ maxLength: 20 });
    const usage = fc.array(fc.stringMatching(/^[a-z_]{1,20}$/), { maxLength: 3 });
    const json = fc.oneof(fc.string(), fc.record({ start: fc.nat(1 << 30), end: fc.nat(1 << 30) }));
    const event = fc.record({
      index: fc.nat(999),
      eventName: name,
      eventId: name,
      eventTime: fc.oneof(fc.integer(), fc.double({ noNaN: true })),
      usage,
      json,
    });
    fc.assert(
      fc.property(fc.array(event, { maxLength: 30 }), (events) => {
        const b: BatchWrite = { ...base, events };
        expect(unpackBatch(structuredClone(packBatch(b)))).toEqual(b);
      }),
    );
  });
});
