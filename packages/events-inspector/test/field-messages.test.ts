import { PROBLEM_CODES } from '@org/events-types';
import { describe, expect, it } from 'vitest';
import { isHashedNote, messagesByField } from '../src/app/lib/field-messages.js';

describe('messagesByField', () => {
  it("pairs each field with its message, even when a message holds the separator '; '", () => {
    const joined =
      'event_time is missing; send an integer, Unix seconds.; user_data.em[0] must be a single SHA-256 hex digest; received an unhashed e-mail address.; custom_data.currency must be one of the ISO 4217 codes; received "usd".';
    expect(messagesByField(joined, ['custom_data.currency', 'event_time', 'user_data.em[0]'])).toEqual([
      { field: 'event_time', message: 'event_time is missing; send an integer, Unix seconds.' },
      {
        field: 'user_data.em[0]',
        message: 'user_data.em[0] must be a single SHA-256 hex digest; received an unhashed e-mail address.',
      },
      {
        field: 'custom_data.currency',
        message: 'custom_data.currency must be one of the ISO 4217 codes; received "usd".',
      },
    ]);
  });

  it('does not cut at a path that only appears inside another message', () => {
    const joined = 'user_data.em must not be empty; send user_data.em or user_data.ph.';
    expect(messagesByField(joined, ['user_data.em', 'user_data.ph'])).toEqual([
      { field: 'user_data.em', message: joined },
    ]);
  });

  it('prefers the longer path where two start at the same place', () => {
    const joined = 'user_data.em[0] is not a digest.';
    expect(messagesByField(joined, ['user_data.em', 'user_data.em[0]'])).toEqual([
      { field: 'user_data.em[0]', message: joined },
    ]);
  });

  it("keeps text that names no field under ''", () => {
    expect(messagesByField('The event is a duplicate.; event_id is reused.', ['event_id'])).toEqual([
      { field: '', message: 'The event is a duplicate.' },
      { field: 'event_id', message: 'event_id is reused.' },
    ]);
    expect(messagesByField(null, ['x'])).toEqual([]);
    expect(messagesByField('Only text.', [])).toEqual([{ field: '', message: 'Only text.' }]);
  });
});

describe('isHashedNote', () => {
  it("tells the request log's note of a field hashed on arrival (C125) from the warnings", () => {
    const note = PROBLEM_CODES.hashed_on_arrival.template.replace('{fields}', 'user_data.em, user_data.ph');
    expect(isHashedNote(note)).toBe(true);
    const dropped = PROBLEM_CODES.hash_dropped.template.replace('{path}', 'user_data.fn[0]');
    expect(isHashedNote(dropped)).toBe(false);
    // The log puts the note first: it is the text before the first message that begins with a field.
    const joined = `${note}; ${dropped}`;
    expect(messagesByField(joined, ['user_data.fn[0]', 'user_data.em', 'user_data.ph'])).toEqual([
      { field: '', message: note },
      { field: 'user_data.fn[0]', message: dropped },
    ]);
  });
});
