/**
 * C70 and C117: what a request log keeps of a body. Literal cases of the rules (hashed fields, unknown
 * user_data members, user_data as a scalar, dropped paths, malformed text, members the spec does not know),
 * and properties: a raw value planted in a hashed field, or a contact planted anywhere the spec knows no
 * member, never survives, whatever the JSON around it and however it is cut or spaced; text that holds
 * nothing personal comes back untouched; the lexer never throws on any text.
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
/** Text that reads as no contact: without '@' and digits, so C117 keeps it wherever it sits. */
const text = fc.string().map((s) => s.replace(/[@0-9]/g, '_'));
const plain = fc.dictionary(
  fc.constantFrom('event_id', 'event_name', 'custom_data', 'n', 'list'),
  fc.oneof(text, fc.integer(), fc.boolean(), fc.constant(null), fc.array(text, { maxLength: 3 })),
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

  it('text whose members read as no personal data and whose strings read as no contact is returned untouched (null)', () => {
    // Names from letters no word of personalMemberWords is made of; strings without '@' or digits.
    const name = fc.string({ unit: fc.constantFrom('q', 'x', 'j', 'k', 'v', 'w', '_'), maxLength: 8 });
    const text = fc.string({ unit: fc.constantFrom('a', 'b', ' ', '-', '.', 'Z'), maxLength: 12 });
    const { value } = fc.letrec((tie) => ({
      value: fc.oneof(
        { depthSize: 'small' },
        text,
        fc.integer(),
        fc.boolean(),
        fc.constant(null),
        fc.array(tie('value'), { maxLength: 3 }),
        fc.dictionary(name, tie('value'), { maxKeys: 3 }),
      ),
    }));
    fc.assert(
      fc.property(value, fc.constantFrom('body' as const, 'event' as const), (v, root) => {
        expect(redactJson(JSON.stringify(v), null, root)).toBe(null);
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

describe('C117: what the spec does not know', () => {
  it('replaces a contact in an unknown member at any depth, and a string where an event belongs', () => {
    const body = {
      data: [
        {
          event_id: 'kept-1',
          email: EMAIL,
          custom_data: { customer_email: 'c@example.org', currency: 'USD', notes: { a: [{ b: PHONE }] } },
        },
        EMAIL,
      ],
    };
    expect(JSON.parse(redactJson(JSON.stringify(body)) ?? '')).toEqual({
      data: [
        {
          event_id: 'kept-1',
          email: '(not kept: an unhashed e-mail address, 20 character(s))',
          custom_data: {
            customer_email: '(not kept: an unhashed e-mail address, 13 character(s))',
            currency: 'USD',
            notes: { a: [{ b: '(not kept: an unhashed phone number, 17 character(s))' }] },
          },
        },
        '(not kept: an unhashed e-mail address, 20 character(s))',
      ],
    });
  });

  it('keeps nothing but nulls and booleans under a member named as personal data', () => {
    const event = {
      event_id: 'kept-2',
      custom_data: {
        billing_address: { line1: '1 Main St', zip: 94107, verified: true, note: null },
        firstName: 'Jane',
        'date-of-birth': '1990-01-02',
        item_count: 3,
        coupon: 'SPRING',
      },
      ip: '203.0.113.9',
    };
    expect(JSON.parse(redactJson(JSON.stringify(event), null, 'event') ?? '')).toEqual({
      event_id: 'kept-2',
      custom_data: {
        billing_address: {
          line1: '(not kept: a string of 9 character(s))',
          zip: '(not kept: an integer)',
          verified: true,
          note: null,
        },
        firstName: '(not kept: a string of 4 character(s))',
        'date-of-birth': '(not kept: a string of 10 character(s))',
        item_count: 3,
        coupon: 'SPRING',
      },
      ip: '(not kept: an IP address, 11 character(s))',
    });
  });

  it('keeps what the spec knows as sent, even where it reads like a contact; an object where a string belongs is read', () => {
    const event = { event_id: EMAIL, event_source_url: 'https://shop.example/', event_name: { to: EMAIL } };
    expect(JSON.parse(redactJson(JSON.stringify(event), null, 'event') ?? '')).toEqual({
      event_id: EMAIL,
      event_source_url: 'https://shop.example/',
      event_name: { to: '(not kept: an unhashed e-mail address, 20 character(s))' },
    });
    // A refused body: the root is the batch, where only `data` is known.
    expect(redactJson(JSON.stringify({ data: [], contact: PHONE }))).toBe(
      '{"data":[],"contact":"(not kept: an unhashed phone number, 17 character(s))"}',
    );
  });

  it('an event with an unknown member or a wrong type is one to clean; a clean event is not', () => {
    const e = validEvent();
    (e as Record<string, unknown>).email = EMAIL;
    expect(personalDataPaths(validateEvent(e, { now: NOW + 60, currency: 'USD' }))).toEqual(new Set());
    expect(personalDataPaths(validateEvent(EMAIL, { now: NOW + 60, currency: 'USD' }))).toEqual(new Set());
  });

  const contact = fc.oneof(
    fc
      .tuple(fc.stringMatching(/^[a-z0-9._+-]{4,16}$/), fc.stringMatching(/^[a-z0-9-]{2,12}$/))
      .map(([local, host]) => `${local}@${host}.example`),
    fc.integer({ min: 1_000_000_000, max: 9_999_999_999 }).map((n) => `+1 ${n}`),
    fc.tuple(fc.nat(255), fc.nat(255), fc.nat(255)).map(([a, b, c]) => `10.${a}.${b}.${c}`),
  );
  /** Unknown member names that read as no personal data (letters outside every word of the list). */
  const stray = fc.string({
    unit: fc.constantFrom('q', 'x', 'j', 'k', 'v', 'w'),
    minLength: 1,
    maxLength: 6,
  });
  /** Where in a body a stray value may sit: a path of unknown members and array items, from a known place. */
  const at = fc.tuple(
    fc.constantFrom<(string | number)[][]>(
      [],
      ['custom_data'],
      ['custom_data', 'contents', 0],
      ['app_info'],
      ['device_info'],
    ),
    fc.array(fc.oneof(stray, fc.constant(0)), { minLength: 1, maxLength: 4 }),
  );

  function plant(path: (string | number)[], value: unknown): unknown {
    const [head, ...rest] = path;
    if (head === undefined) return value;
    return typeof head === 'number' ? [plant(rest, value)] : { [head]: plant(rest, value) };
  }

  it('a contact planted anywhere the spec knows no member never survives; the rest is as sent', () => {
    fc.assert(
      fc.property(at, contact, fc.constantFrom(0, 2), ([known, unknown], value, indent) => {
        // The first step below the known place is an unknown member, not an array item.
        const path = [...known, typeof unknown[0] === 'string' ? unknown[0] : 'qq', ...unknown.slice(1)];
        const event = { event_id: 'e-1', ...(plant(path, value) as object) };
        const out = redactJson(JSON.stringify({ data: [event] }, null, indent));
        expect(out).not.toBe(null);
        expect(out).not.toContain(value);
        expect(JSON.parse(out as string).data[0].event_id).toBe('e-1');
      }),
    );
  });

  it('under a member whose name holds a listed word, in any case and with any other words, no string or number survives', () => {
    const word = fc.constantFrom('email', 'Phone', 'first_name', 'DateOfBirth', 'zip', 'street', 'surname');
    const affix = fc.constantFrom('', 'customer_', 'billing-', 'my');
    const suffix = fc.constantFrom('', '_1', 'Value');
    const value = fc.oneof(fc.string({ minLength: 1, maxLength: 20 }), fc.integer());
    fc.assert(
      fc.property(affix, word, suffix, value, (a, w, sfx, v) => {
        const name = a === 'my' ? `my${w[0]!.toUpperCase()}${w.slice(1)}${sfx}` : `${a}${w}${sfx}`;
        const out = redactJson(JSON.stringify({ custom_data: { [name]: [v] } }), null, 'event');
        expect(JSON.parse(out as string).custom_data[name]).toEqual([redactedText(v)]);
      }),
    );
  });
});
