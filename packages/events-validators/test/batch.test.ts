/** validateBatch: request-level outcomes (C2), the seed 2.7 response (C3), dedup within a batch (C6). */
import { PROBLEM_CODES } from '@org/events-types';
import { describe, expect, it } from 'vitest';
import { appendWarning, formatMessage, validateBatch } from '../src/index.js';
import { type Json, NOW, validEvent } from './helpers.js';

const ctx = { now: NOW, currency: 'USD' };

function refused(body: unknown) {
  const r = validateBatch(body, ctx);
  if (r.ok) throw new Error('expected a request-level failure');
  return r;
}

describe('request-level failures (C2: status 400, code 4196, details from REQUEST_PROBLEMS)', () => {
  const invalid = (details: { path: string; problem: string }[]) => ({
    ok: false,
    status: 400,
    error: { code: 4196, message: 'The request was invalid.', details },
  });

  it.each([
    ['a number', 5, [{ path: 'body', problem: 'must be a JSON object holding data; received 5' }]],
    ['null', null, [{ path: 'body', problem: 'must be a JSON object holding data; received null' }]],
    [
      'an array (events without the wrapper)',
      [validEvent()],
      [
        {
          path: 'body',
          problem: expect.stringMatching(/^must be a JSON object holding data; received \[\{"action_source/),
        },
      ],
    ],
    ['no data', {}, [{ path: 'data', problem: 'is missing; send the events as data: [ ... ]' }]],
    [
      'data not an array',
      { data: { event_name: 'x' } },
      [{ path: 'data', problem: 'must be an array of events; received {"event_name":"x"}' }],
    ],
    ['data empty', { data: [] }, [{ path: 'data', problem: 'must hold at least 1 event' }]],
    [
      'data over 1000 events',
      { data: Array.from({ length: 1001 }, () => ({})) },
      [{ path: 'data', problem: 'must hold at most 1000 events; received 1001' }],
    ],
    [
      'an unknown top-level key',
      { data: [validEvent()], test: true },
      [{ path: 'test', problem: 'is not a field of the request body; only data is accepted' }],
    ],
  ])('%s', (_label, body, details) => {
    expect(refused(body)).toEqual(invalid(details as { path: string; problem: string }[]));
  });

  it('a bare event (payload 04) names the missing data and at most 10 details (C3 cap)', () => {
    const bare = {
      ...validEvent(),
      opt_out: false,
      app_id: '1',
      wifi: true,
      language: 'en',
      partner_name: 'direct',
    };
    const r = refused(bare);
    expect(r.error.details).toHaveLength(10);
    expect(r.error.details[0]).toEqual({
      path: 'data',
      problem: 'is missing; send the events as data: [ ... ]',
    });
    expect(r.error.details[1]).toEqual({
      path: 'action_source',
      problem: 'is not a field of the request body; only data is accepted',
    });
  });
});

describe('the response (seed 2.7, C3)', () => {
  it('answers events in order, counts the processed ones, and gives null messages when empty', () => {
    const bad = validEvent();
    bad.event_name = 'subscription';
    const warned = validEvent();
    warned.event_id = 'order-2';
    warned.language = 'en-US';
    const r = validateBatch({ data: [bad, validEvent(), warned] }, ctx);
    if (!r.ok) throw new Error('refused');
    expect(r.response).toEqual({
      num_events_received: 3,
      num_events_processed: 2,
      events: [
        {
          status: 'failed',
          error_message:
            'Invalid event_name: subscription. Use a supported conversion event_name (for example subscribe, checkout). Did you mean subscribe?',
          warning_message: null,
        },
        { status: 'processed', error_message: null, warning_message: null },
        {
          status: 'processed',
          error_message: null,
          warning_message:
            'language must be a two-letter lower-case ISO-639-1 code such as "en"; received "en-US". The value was dropped. Send "en".',
        },
      ],
    });
    expect(r.accepted[0]).toBeNull();
    expect(r.accepted[1]).not.toBeNull();
    expect(r.accepted[2]).not.toHaveProperty('language');
    expect(r.problems.map((p) => [p.errors.length, p.warnings.length])).toEqual([
      [1, 0],
      [0, 0],
      [0, 1],
    ]);
  });

  it('joins several warnings with "; ", in the order of the keys sent', () => {
    const e = validEvent();
    e.language = 'en-US';
    e.partner_name = 'Segment';
    const r = validateBatch({ data: [e] }, ctx);
    if (!r.ok) throw new Error('refused');
    expect(r.response.events[0]!.warning_message).toBe(
      [
        'language must be a two-letter lower-case ISO-639-1 code such as "en"; received "en-US". The value was dropped. Send "en".',
        'partner_name must be "direct" or "ss-" followed by the lower-case company name, such as "ss-shopify"; received "Segment". The value was dropped.',
      ].join('; '),
    );
  });
});

describe('dedup within a batch (C6)', () => {
  it('marks a repeat of an earlier processed (event_name, event_id) and keeps it accepted', () => {
    const first = validEvent();
    const again = validEvent();
    const r = validateBatch({ data: [first, again] }, ctx);
    if (!r.ok) throw new Error('refused');
    const message = `Duplicate of an earlier event with the same event_name and event_id (data[0] of this batch, event_time ${NOW - 60}); it is stored once.`;
    expect(r.response).toEqual({
      num_events_received: 2,
      num_events_processed: 2,
      events: [
        { status: 'processed', error_message: null, warning_message: null },
        { status: 'processed', error_message: null, warning_message: message },
      ],
    });
    expect(r.problems[1]!.warnings).toEqual([{ path: '', code: 'duplicate_event', message }]);
    expect(r.accepted[1]).not.toBeNull();
  });

  it('keys on event_name too (payload 01: one event_id, four names)', () => {
    const a = validEvent();
    const b = validEvent();
    b.event_name = 'add_to_cart';
    const r = validateBatch({ data: [a, b] }, ctx);
    if (!r.ok) throw new Error('refused');
    expect(r.problems.map((p) => p.warnings.length)).toEqual([0, 0]);
  });

  it('ignores an earlier failed event, and compares what was accepted (a custom name as registered)', () => {
    const failed = validEvent();
    failed.event_time = 'soon';
    const r = validateBatch({ data: [failed, validEvent(), validEvent()] }, ctx);
    if (!r.ok) throw new Error('refused');
    expect(r.problems.map((p) => p.warnings.map((w) => w.code))).toEqual([[], [], ['duplicate_event']]);
    expect(r.response.events[2]!.warning_message).toContain('(data[1] of this batch,');

    const upper = validEvent();
    upper.event_name = 'Quote';
    const lower = validEvent();
    lower.event_name = 'quote';
    const c = validateBatch({ data: [upper, lower] }, { ...ctx, customEventNames: ['quote'] });
    if (!c.ok) throw new Error('refused');
    expect(c.problems[1]!.warnings.map((w) => w.code)).toEqual(['duplicate_event']);
  });
});

describe('formatMessage and appendWarning (for the server: cross-request duplicates, C6)', () => {
  it('renders templates, keeping an optional part only when all its parameters are given', () => {
    expect(formatMessage('unknown_field', { path: 'x' })).toBe('x is not a known field; remove it.');
    expect(formatMessage('unknown_field', { path: 'x', suggestion: 'y' })).toBe(
      'x is not a known field; remove it. Did you mean y?',
    );
    expect(formatMessage('duplicate_event', { reason: 'an earlier request', earlierTime: 1753257600 })).toBe(
      'Duplicate of an earlier event with the same event_name and event_id (an earlier request, event_time 1753257600); it is stored once.',
    );
    // A missing parameter outside an optional part stays visible instead of vanishing.
    expect(formatMessage('missing_required', { path: 'a' })).toBe('a is missing; send {expected}.');
  });

  it('renders every template of the spec without leaving a placeholder when all parameters are given', () => {
    for (const [code, m] of Object.entries(PROBLEM_CODES)) {
      const params = Object.fromEntries(m.params.map((p) => [p, `<${p}>`]));
      const text = formatMessage(code as keyof typeof PROBLEM_CODES, params);
      expect(text).not.toMatch(/\{|\}|\[\[|\]\]/);
      for (const p of m.params) expect(text).toContain(`<${p}>`);
    }
  });

  it('appendWarning adds to one event and rebuilds its message the C3 way', () => {
    const e = validEvent();
    e.language = 'en-US';
    const r = validateBatch({ data: [e, validEvent() as Json] }, ctx);
    if (!r.ok) throw new Error('refused');
    const dup = formatMessage('duplicate_event', { source: 'an earlier request', earlierTime: 1753257000 });
    const w = { path: '', code: 'duplicate_event' as const, message: dup };
    appendWarning(r.response.events[0]!, r.problems[0]!, w);
    expect(r.response.events[0]!.warning_message).toBe(`${r.problems[0]!.warnings[0]!.message}; ${dup}`);
    const clean = validateBatch({ data: [validEvent()] }, ctx);
    if (!clean.ok) throw new Error('refused');
    appendWarning(clean.response.events[0]!, clean.problems[0]!, w);
    expect(clean.response.events[0]!.warning_message).toBe(dup);
    for (let k = 0; k < 11; k++) appendWarning(clean.response.events[0]!, clean.problems[0]!, w);
    expect(clean.response.events[0]!.warning_message).toBe(`${Array(10).fill(dup).join('; ')}; and 2 more`);
  });
});
