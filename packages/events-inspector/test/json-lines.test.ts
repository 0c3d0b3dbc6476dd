import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { absentPaths, coveringPath, jsonLines } from '../src/app/lib/json-lines.js';

const render = (lines: ReturnType<typeof jsonLines>) =>
  lines
    .map((l) => `${'  '.repeat(l.depth)}${l.key !== null ? `${l.key}: ` : ''}${l.text}${l.comma ? ',' : ''}`)
    .join('\n');

const event = {
  event_name: 'checkout',
  user_data: { em: ['not-a-digest', 'b'.repeat(64)], ph: [] },
  custom_data: { currency: 'usd', contents: [{ id: 'sku-1' }] },
};

describe('jsonLines', () => {
  it('prints exactly what JSON.stringify(value, null, 2) prints, for any JSON value', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (v) => {
        expect(render(jsonLines(v))).toBe(JSON.stringify(v, null, 2));
      }),
      { numRuns: 300 },
    );
  });

  it('names each line by the path of the message format', () => {
    const paths = jsonLines(event).map((l) => l.path);
    expect([...new Set(paths)]).toEqual([
      '',
      'event_name',
      'user_data',
      'user_data.em',
      'user_data.em[0]',
      'user_data.em[1]',
      'user_data.ph',
      'custom_data',
      'custom_data.currency',
      'custom_data.contents',
      'custom_data.contents[0]',
      'custom_data.contents[0].id',
    ]);
  });

  it('marks the named field, everything inside it, and nothing that only shares its prefix', () => {
    const lines = jsonLines(event, ['user_data.em[0]', 'custom_data.contents']);
    const marked = lines.filter((l) => l.highlighted).map((l) => `${l.path} ${l.text}`);
    expect(marked).toEqual([
      'user_data.em[0] "not-a-digest"',
      'custom_data.contents [',
      'custom_data.contents[0] {',
      'custom_data.contents[0].id "sku-1"',
      'custom_data.contents[0] }',
      'custom_data.contents ]',
    ]);
    // The message goes on the first line of each named field only.
    expect(lines.filter((l) => l.anchor !== null).map((l) => `${l.anchor} ${l.text}`)).toEqual([
      'user_data.em[0] "not-a-digest"',
      'custom_data.contents [',
    ]);
  });

  it('does not take user_data.em for user_data.e or user_data.em1', () => {
    expect(coveringPath('user_data.em', ['user_data.e'])).toBeNull();
    expect(coveringPath('user_data.em1', ['user_data.em'])).toBeNull();
    expect(coveringPath('user_data.em[3]', ['user_data', 'user_data.em'])).toBe('user_data.em');
  });

  it('lists named fields that print no line (a missing field)', () => {
    const lines = jsonLines(event, ['event_time', 'event_name']);
    expect(absentPaths(lines, ['event_time', 'event_name'])).toEqual(['event_time']);
  });
});
