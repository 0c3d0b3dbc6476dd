// The one in-batch verdict of C6 (C102): foldBatch against a model written from the decision's words, on
// batches whose keys collide often, with and without earlier sightings.
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { asSighting, foldBatch } from '../src/store/common/dedup-fold.js';
import { dedupKey, type Earlier, type EventToStore } from '../src/store/interface/events.js';

const RECEIVED = 1_772_452_800_000;

const events = fc
  .array(fc.record({ name: fc.constantFrom('checkout', 'lead'), id: fc.constantFrom('a', 'b', 'c') }), {
    maxLength: 12,
  })
  .map((keys) =>
    keys.map(
      (k, index): EventToStore => ({
        index: index * 2, // request indexes need not be consecutive (failed events are not stored)
        eventName: k.name,
        eventId: k.id,
        eventTime: 1_772_000_000 + index,
        usage: [],
        json: '{}',
      }),
    ),
  );

const earlier = fc
  .uniqueArray(
    fc.record({
      name: fc.constantFrom('checkout', 'lead'),
      id: fc.constantFrom('a', 'b', 'c'),
      source: fc.constantFrom<'api' | 'tag'>('api', 'tag'),
      seenAt: fc.integer({ min: 0, max: RECEIVED }),
    }),
    { selector: (e) => dedupKey(e.name, e.id), maxLength: 6 },
  )
  .map(
    (rows) =>
      new Map(
        rows.map((r): [string, Earlier] => [
          dedupKey(r.name, r.id),
          { source: r.source, seenAt: r.seenAt, eventTime: 1_700_000_000 },
        ]),
      ),
  );

describe('foldBatch (C6, C102)', () => {
  test('each event is a duplicate of the sighting before the batch, else of its first event in the batch', () => {
    fc.assert(
      fc.property(events, earlier, (batch, before) => {
        const fold = foldBatch(batch, before, asSighting, RECEIVED);
        const firstInBatch = new Map<string, EventToStore>();
        const want = new Map<number, Earlier>();
        for (const e of batch) {
          const key = dedupKey(e.eventName, e.eventId);
          const first = firstInBatch.get(key);
          const hit = before.get(key);
          if (hit) want.set(e.index, hit);
          else if (first) want.set(e.index, { source: 'api', seenAt: RECEIVED, eventTime: first.eventTime });
          else firstInBatch.set(key, e);
        }
        expect(fold.duplicates).toEqual(want);
        expect(fold.fresh).toEqual([...firstInBatch.values()]);
        // Every duplicate is folded into exactly one place: an earlier sighting or a first event here.
        expect(fold.intoEarlier.length + fold.intoFresh.length).toBe(want.size);
        for (const i of fold.intoFresh) expect(fold.fresh[i]).toBeDefined();
      }),
    );
  });

  test('a batch of one key three times over an empty store: one stored, two duplicates of it', () => {
    const e = (index: number): EventToStore => ({
      index,
      eventName: 'checkout',
      eventId: 'x',
      eventTime: 100 + index,
      usage: [],
      json: '{}',
    });
    const fold = foldBatch([e(0), e(1), e(3)], new Map<string, Earlier>(), asSighting, RECEIVED);
    expect({ fresh: fold.fresh.map((f) => f.index), dups: Object.fromEntries(fold.duplicates) }).toEqual({
      fresh: [0],
      dups: {
        1: { source: 'api', seenAt: RECEIVED, eventTime: 100 },
        3: { source: 'api', seenAt: RECEIVED, eventTime: 100 },
      },
    });
    expect(fold.intoFresh).toEqual([0, 0]);
  });
});
