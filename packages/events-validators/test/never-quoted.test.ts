/**
 * C21: a value sent in a hashed user_data field, or in an object or array that holds one (user_data, the
 * event, the data list), never appears in any message: its shape is named instead. Random raw values carry a
 * marker that no message text contains, so finding the marker in a message means the value was quoted.
 */
import { STANDARD_EVENT_NAMES } from '@org/events-types';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { validateBatch } from '../src/index.js';
import { NOW } from './helpers.js';

const MARK = 'zQxJ';
const HASHED = ['em', 'ph', 'ln', 'db', 'ge', 'ct', 'st', 'zp', 'country', 'external_id', 'hashed_maids'];

const secret = fc
  .string({ unit: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyz0123456789@.+-_ '.split('')), maxLength: 24 })
  .map((s) => `${MARK}${s}`);
/** Any JSON-ish value holding secrets somewhere. */
const holding: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    secret,
    fc.array(tie('value'), { maxLength: 3 }),
    fc.dictionary(fc.constantFrom('a', 'em', 'x'), tie('value'), { maxKeys: 3 }),
  ),
})).value;

function messages(body: unknown): string {
  const r = validateBatch(body, { now: NOW, currency: 'USD' });
  return JSON.stringify(r);
}

const event = (user_data: unknown) => ({
  event_name: 'lead',
  action_source: 'web',
  event_time: NOW,
  event_id: 'e-1',
  user_data,
});

describe('values that may hold personal data are never quoted (C21)', () => {
  it('in any hashed field, as a scalar, an array, nested or mixed', () => {
    fc.assert(
      fc.property(fc.constantFrom(...HASHED), holding, (field, value) => {
        expect(messages({ data: [event({ [field]: value })] })).not.toContain(MARK);
      }),
      { numRuns: 500 },
    );
  });

  it('in user_data that is not an object, in an event that is not an object', () => {
    fc.assert(
      fc.property(holding, (value) => {
        expect(messages({ data: [event(value)] })).not.toContain(MARK);
        expect(messages({ data: [value] })).not.toContain(MARK);
      }),
      { numRuns: 300 },
    );
  });

  it.each([
    ['jane.doe@example.com', 'an unhashed e-mail address'],
    ['+1 (555) 010-9999', 'an unhashed phone number'],
    ['ab12', 'a string of 4 character(s)'],
    ['', 'an empty string'],
    [['jane@example.com', 'x'], 'an array of 2 item(s)'],
    [{ em: 'jane@example.com' }, 'an object with 1 key(s)'],
    [42, 'an integer'],
  ])('names the shape of %j as %s', (value, shape) => {
    const text = messages({ data: [event({ em: ['a'.repeat(64)], ph: value })] });
    if (typeof value === 'string' || typeof value === 'number')
      expect(text).toContain(`user_data.ph must be an array of SHA-256 hex digests; received ${shape}.`);
    else if (Array.isArray(value)) expect(text).not.toContain('jane');
    else expect(text).toContain(`received ${shape}.`);
    expect(text).not.toContain('jane');
  });

  it('user_data given as a string names its shape', () => {
    expect(messages({ data: [event('jane.doe@example.com')] })).toContain(
      'user_data must be an object of user identifiers with em, hashed_maids, or both client_ip_address and client_user_agent; received an unhashed e-mail address.',
    );
  });

  it('every standard name stays quotable (the rule only covers personal data)', () => {
    const text = messages({
      data: [{ ...event({ em: ['a'.repeat(64)] }), event_name: `${STANDARD_EVENT_NAMES[0]}x` }],
    });
    expect(text).toContain(`Invalid event_name: ${STANDARD_EVENT_NAMES[0]}x.`);
  });
});
