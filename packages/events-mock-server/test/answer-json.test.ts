// The answer's JSON as the validating thread writes it: the all-processed template is byte for byte what
// JSON.stringify makes of the response, whatever the batch size; any other batch is JSON.stringify itself.
import type { BatchResponse } from '@org/events-types';
import { validateBatch } from '@org/events-validators';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { answerJson, prepareBatch } from '../src/pipeline/prepare.js';
import { event } from './support/fixtures.js';

const NOW = 1_753_257_700;
const ctx = { now: NOW, currency: 'USD' };

describe('answer JSON', () => {
  test('a clean batch of any size: the template equals JSON.stringify of the validators response', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 1000 }), (n) => {
        const body = { data: Array.from({ length: n }, () => event(NOW)) };
        const r = validateBatch(body, ctx);
        if (!r.ok) throw new Error('the batch should be valid');
        expect(r.response.events.every((e) => e.warning_message === null)).toBe(true);
        expect(answerJson(r.response)).toBe(JSON.stringify(r.response));
      }),
      { numRuns: 40 },
    );
  });

  test('a batch with a failed or warned event is JSON.stringify of its response', () => {
    const body = {
      data: [event(NOW, { event_id: 'x' }), event(NOW, { event_id: 'x' }), { event_name: 'nope' }],
    };
    const prepared = prepareBatch(Buffer.from(JSON.stringify(body)), ctx, false);
    if (prepared.kind !== 'ok') throw new Error(prepared.kind);
    const r = validateBatch(body, ctx);
    if (!r.ok) throw new Error('the batch should be answered');
    expect(prepared.answer.json).toBe(JSON.stringify(r.response));
    expect(prepared.answer.notable.map(([i, res]) => [i, res.status])).toEqual([
      [1, 'processed'],
      [2, 'failed'],
    ]);
  });

  test('the template is used only when every result is plain', () => {
    const response: BatchResponse = {
      num_events_received: 2,
      num_events_processed: 1,
      events: [
        { status: 'processed', error_message: null, warning_message: null },
        { status: 'failed', error_message: 'x', warning_message: null },
      ],
    };
    expect(answerJson(response)).toBe(JSON.stringify(response));
    expect(answerJson({ num_events_received: 0, num_events_processed: 0, events: [] })).toBe(
      '{"num_events_received":0,"num_events_processed":0,"events":[]}',
    );
  });
});
