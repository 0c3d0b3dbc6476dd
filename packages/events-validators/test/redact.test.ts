/**
 * C70: what a request log keeps of a body. Literal cases of the rule (hashed fields, unknown user_data
 * members, user_data as a scalar, dropped paths, malformed text), and properties: a raw value planted in a
 * hashed field never survives, whatever the JSON around it and however it is cut or spaced; text with no
 * user_data member and no dropped path comes back untouched; the lexer never throws on any text.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { personalDataPaths, redactedText, redactJson, validateEvent } from '../src/index.js';
import { EM, NOW, validEvent } from './helpers.js';

const EMAIL = 'jane.doe@example.com';
const PHONE = '+1 (555) 010-0199';

describe('redactedText', () => {
  it.each([
    [EMAIL, '(not kept: an unhashed e-mail address, 20 character(s))'],
    [PHONE, '(not kept: an unhashed phone number, 17 character(s))'],
    ['jane', '(not kept: a string of 4 character(s))'],
    ['', '(not kept: an empty string)'],
    [5550100199, '(not kept: an integer)'],
    [['a', 'b'], '(not kept: an array of 2 item(s))'],
  ])('%j -> %s', (v, text) => {
    expect(redactedText(v)).toBe(text);
  });
});

describe('redactJson (C70)', () => {
  it('replaces unhashed values of hashed fields in place, keeping digests and every other byte', () => {
    const text = `{"data": [ {"event_id":"a-1", "user_data": {"em": ["${EMAIL}", "${EM}"], "ph": "${PHONE}", "client_ip_address": "1.2.3.4"}} ]}`;
    expect(redactJson(text)).toBe(
      `{"data": [ {"event_id":"a-1", "user_data": {"em": ["(not kept: an unhashed e-mail address, 20 character(s))", "${EM}"], "ph": "(not kept: an unhashed phone number, 17 character(s))", "client_ip_address": "1.2.3.4"}} ]}`,
    );
  });

  it('replaces values under a member that is not a user_data field, at any depth, and numbers of hashed fields', () => {
    const text = JSON.stringify({ user_data: { fn: ['jane'], extra: { name: 'doe', n: 7 }, zp: [90210] } });
    expect(JSON.parse(redactJson(text) ?? '')).toEqual({
      user_data: {
        fn: ['(not kept: a string of 4 character(s))'],
        extra: { name: '(not kept: a string of 3 character(s))', n: '(not kept: an integer)' },
        zp: ['(not kept: an integer)'],
      },
    });
  });

  it('replaces user_data given as a scalar, and keeps null', () => {
    expect(redactJson(`{"user_data":"${EMAIL}"}`)).toBe(
      '{"user_data":"(not kept: an unhashed e-mail address, 20 character(s))"}',
    );
    expect(redactJson('{"user_data":{"em":null},"x":null}')).toBe(null);
  });

  it('replaces the values at dropped paths, a scalar named by its coerced item included', () => {
    const text = JSON.stringify({
      user_data: { client_ip_address: '999.1.1.1', client_user_agent: 'curl/8.0' },
      partner_name: 'acme',
    });
    const dropped = new Set([
      'user_data.client_ip_address',
      'user_data.client_user_agent[0]',
      'partner_name',
    ]);
    expect(JSON.parse(redactJson(text, dropped) ?? '')).toEqual({
      user_data: {
        client_ip_address: '(not kept: a string of 9 character(s))',
        client_user_agent: '(not kept: a string of 8 character(s))',
      },
      partner_name: '(not kept: a string of 4 character(s))',
    });
  });

  it('reads malformed text as far as it goes: a trailing comma, a missing bracket, an unterminated string', () => {
    expect(redactJson(`{"data":[{"user_data":{"em":["${EMAIL}"],}]`)).toBe(
      '{"data":[{"user_data":{"em":["(not kept: an unhashed e-mail address, 20 character(s))"],}]',
    );
    expect(redactJson(`{"user_data":{"ph":"${PHONE}`)).toBe(
      '{"user_data":{"ph":"(not kept: an unhashed phone number, 17 character(s))"',
    );
    expect(redactJson(`{"user_data":{"em":[jane@example.com]}}`)).toBe(
      '{"user_data":{"em":["(not kept: an unhashed e-mail address, 16 character(s))"]}}',
    );
  });

  it('member names with escapes are read as names', () => {
    expect(redactJson(`{"user_\\u0064ata":{"\\u0065m":["${EMAIL}"]}}`)).toBe(
      '{"user_\\u0064ata":{"\\u0065m":["(not kept: an unhashed e-mail address, 20 character(s))"]}}',
    );
  });
});

describe('personalDataPaths', () => {
  it('is null for an event with no problem under user_data and nothing dropped', () => {
    expect(personalDataPaths(validateEvent(validEvent(), { now: NOW + 60, currency: 'USD' }))).toBe(null);
  });

  it('names the dropped paths, and nothing for a problem that drops no value', () => {
    const e = validEvent();
    (e.user_data as Record<string, unknown>).em = [EMAIL];
    (e.user_data as Record<string, unknown>).client_ip_address = '0.0.0.0';
    const problems = validateEvent(e, { now: NOW + 60, currency: 'USD' });
    expect([...(personalDataPaths(problems) ?? [])].sort()).toEqual([
      'user_data.client_ip_address',
      'user_data.em[0]',
    ]);
  });
});

const digest = fc.uint8Array({ minLength: 32, maxLength: 32 }).map((b) => Buffer.from(b).toString('hex'));
/** A raw identifier: never 64 hex characters, long enough not to occur by chance elsewhere. */
const secret = fc
  .string({ minLength: 12, maxLength: 30 })
  .map((s) => `${s}@q.example`)
  .filter((s) => !s.includes('"') && !s.includes('\\'));
const plain = fc.dictionary(
  fc.constantFrom('event_id', 'event_name', 'custom_data', 'n', 'list'),
  fc.oneof(
    fc.string(),
    fc.integer(),
    fc.boolean(),
    fc.constant(null),
    fc.array(fc.string(), { maxLength: 3 }),
  ),
  { maxKeys: 4 },
);

describe('properties (C70)', () => {
  it('a raw value in a hashed field never survives, however the JSON around it is spaced', () => {
    fc.assert(
      fc.property(
        plain,
        fc.constantFrom('em', 'ph', 'ln', 'db', 'external_id', 'hashed_maids'),
        secret,
        fc.array(digest, { maxLength: 2 }),
        fc.constantFrom(0, 2),
        fc.boolean(),
        (rest, field, raw, digests, indent, scalar) => {
          const body = { data: [{ ...rest, user_data: { [field]: scalar ? raw : [...digests, raw] } }] };
          const text = JSON.stringify(body, null, indent);
          const out = redactJson(text);
          expect(out).not.toBe(null);
          expect(out).not.toContain(raw);
          // What remains is the same JSON with one value replaced: digests and the rest as sent.
          const back = JSON.parse(out as string);
          expect(back.data[0].user_data[field]).toEqual(
            scalar ? redactedText(raw) : [...digests, redactedText(raw)],
          );
          const { user_data: _, ...others } = back.data[0];
          expect(others).toEqual(rest);
        },
      ),
    );
  });

  it('text with no user_data member and no dropped path is returned untouched (null)', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (v) => {
        const text = JSON.stringify(v);
        fc.pre(!text.includes('user_data'));
        expect(redactJson(text)).toBe(null);
      }),
    );
  });

  it('never throws on any text, and a cut of a body never shows a planted value whole', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), (s) => {
        const out = redactJson(s);
        expect(out === null || typeof out === 'string').toBe(true);
      }),
    );
    fc.assert(
      fc.property(secret, fc.nat(), (raw, cut) => {
        const text = JSON.stringify({ data: [{ user_data: { em: [raw] }, event_id: 'x' }] });
        const at = text.indexOf(raw) + raw.length + (cut % 30);
        const out = redactJson(text.slice(0, at)) ?? text.slice(0, at);
        expect(out).not.toContain(raw);
      }),
    );
  });
});
