// C56 batches within the spec's limits: a property over the batcher. The real limits against the real server
// (a batch over 5 MiB is split, an event alone over it is not sent), local validation and hashing are in
// packages/events-client-e2e/test/split.test.ts, beside the server (issue 36: no server in this package).
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { Batcher, batchLimits, utf8Length } from '../src/client/batches.js';

describe('C56 the batcher', () => {
  test('every batch is within both limits, and the batches hold the events in order', () => {
    fc.assert(
      fc.property(
        fc.array(fc.string({ unit: 'grapheme', maxLength: 40 }), { maxLength: 60 }),
        fc.integer({ min: 1, max: 7 }),
        fc.integer({ min: 60, max: 300 }),
        (texts, maxEvents, maxBytes) => {
          const b = new Batcher({ maxEvents, maxBytes });
          const jsons = texts.map((t) => JSON.stringify({ t }));
          const out = [];
          for (const [index, json] of jsons.entries()) {
            if (utf8Length(`{"data":[${json}]}`) > maxBytes) continue;
            const full = b.add({ index, json });
            if (full) out.push(full);
          }
          const last = b.flush();
          if (last) out.push(last);
          const kept = jsons.flatMap((j, i) => (utf8Length(`{"data":[${j}]}`) > maxBytes ? [] : [i]));
          expect(out.flatMap((x) => x.indexes)).toEqual(kept);
          expect(out.map((x) => x.batch)).toEqual(out.map((_, i) => i));
          for (const x of out) {
            expect(x.indexes.length).toBeLessThanOrEqual(maxEvents);
            expect(new TextEncoder().encode(x.body).length).toBeLessThanOrEqual(maxBytes);
            expect(JSON.parse(x.body)).toEqual({ data: x.indexes.map((i) => JSON.parse(jsons[i]!)) });
          }
        },
      ),
    );
  });

  test('a caller may ask for smaller batches, never larger', () => {
    expect(batchLimits(5000, 10 * 2 ** 20)).toEqual({ maxEvents: 1000, maxBytes: 5242880 });
    expect(batchLimits(10, 1000)).toEqual({ maxEvents: 10, maxBytes: 1000 });
  });
});
