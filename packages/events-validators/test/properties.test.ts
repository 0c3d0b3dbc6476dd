/**
 * Property-based tests (fast-check):
 * 1. generated valid events are processed with no error;
 * 2. one mutation of one field fails or warns the event with a problem whose path names that field;
 * 3. ajv, compiled from the same OpenAPI schemas (the generated structural JSON Schema), agrees with
 *    validateEvent on structural validity.
 *
 * "Structural" is what a JSON Schema can say about the event: JSON types and nullability, required fields,
 * enums (opt_out_type case-insensitively, C4), string lengths, array sizes, integer bounds, and unknown keys
 * where they fail the event (event, custom_data, contents items, app_info, device_info). Semantic rules are
 * excluded on both sides: event names, times, URLs, code lists, decimals, IPs, user agents, digests,
 * identifiers, and the warnings (unknown user_data keys, partner_name) that drop rather than fail.
 */
import { CURRENCY_CODES, LANGUAGE_CODES, type ProblemCode, STANDARD_EVENT_NAMES } from '@org/events-types';
import { Ajv } from 'ajv';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CONVERSION_EVENT_JSON_SCHEMA } from '../src/generated/json-schema.gen.js';
import { validateEvent } from '../src/index.js';
import { type Json, NOW, sha256 } from './helpers.js';

const ctx = { now: NOW, currency: 'USD' };

const digest = fc.uint8Array({ minLength: 32, maxLength: 32 }).map((b) => Buffer.from(b).toString('hex'));
const digests = fc.array(digest, { minLength: 1, maxLength: 3 });
const userAgent = fc.constantFrom(
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36',
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148',
  'Dalvik/2.1.0 (Linux; U; Android 14; SM-S918B Build/UP1A.231005.007)',
);
const ip = fc.oneof(
  fc.ipV4().filter((a) => a !== '0.0.0.0'),
  fc.ipV6().filter((a) => !/^[0:]+$/.test(a) && !a.includes('.')),
);
const decimal = fc
  .tuple(fc.integer({ min: 1, max: 9_999_999 }), fc.integer({ min: 0, max: 99 }))
  .map(([units, cents]) => `${units}.${String(cents).padStart(2, '0')}`);
const text = fc.string({ minLength: 1, maxLength: 40 });

const userData = fc.oneof(
  fc.record({ em: digests }, { requiredKeys: ['em'] }),
  fc.record({ hashed_maids: digests }),
  fc.record({ client_ip_address: ip, client_user_agent: userAgent }),
  fc.record(
    {
      em: digests,
      ph: digests,
      ln: digests,
      ct: digests,
      st: digests,
      zp: digests,
      country: digests,
      external_id: digests,
      hashed_maids: digests,
      click_id: text,
      client_ip_address: ip,
      client_user_agent: userAgent,
      partner_id: text,
    },
    { requiredKeys: ['em'] },
  ),
);

const customData = fc
  .record(
    {
      currency: fc.constantFrom(...CURRENCY_CODES),
      value: decimal,
      content_name: text,
      num_items: fc.nat({ max: 50 }),
      order_id: text,
      search_string: text,
      opt_out_type: fc.constantFrom('ldp', 'LDP', 'Ldp'),
      np: text,
      predicted_ltv: decimal,
      items: fc.array(fc.record({ id: text, item_price: decimal, quantity: fc.nat({ max: 9 }) }), {
        maxLength: 3,
      }),
    },
    { requiredKeys: [] },
  )
  .map(({ items, ...rest }) => {
    // A value always comes with its currency (else the currency_defaulted warning is right to appear).
    const out: Json =
      rest.value !== undefined && rest.currency === undefined ? { ...rest, currency: 'USD' } : { ...rest };
    if (items !== undefined && items.length > 0) {
      out.contents = items;
      out.content_ids = items.map((x) => x.id);
    }
    return out;
  });

/** An event no rule fails: every field drawn from what the spec accepts. */
const validEvent = fc
  .record(
    {
      action_source: fc.constantFrom('web', 'app_ios', 'app_android', 'offline'),
      event_id: fc.string({ minLength: 1, maxLength: 64 }),
      event_name: fc.constantFrom(...STANDARD_EVENT_NAMES),
      event_time: fc.integer({ min: NOW - 604_800, max: NOW + 300 }),
      event_source_url: fc.webUrl({
        validSchemes: ['http', 'https'],
        withQueryParameters: true,
        withFragments: true,
      }),
      opt_out: fc.boolean(),
      partner_name: fc.oneof(fc.constant('direct'), fc.stringMatching(/^ss-[a-z0-9][a-z0-9._-]{0,12}$/)),
      user_data: userData,
      custom_data: customData,
      app_id: text,
      device_model: text,
      language: fc.constantFrom(...LANGUAGE_CODES),
      wifi: fc.boolean(),
      app_info: fc.record({ app_name: text, install_time: fc.nat() }, { requiredKeys: [] }),
      device_info: fc.record(
        {
          brand: text,
          battery_level: fc.integer({ min: 0, max: 100 }),
          os_family: fc.constantFrom('ios', 'android'),
        },
        { requiredKeys: [] },
      ),
    },
    { requiredKeys: ['action_source', 'event_id', 'event_name', 'event_time', 'user_data'] },
  )
  .map((e) => {
    // C23: a valid np is the event's agreed partner_name; anything else is dropped with a warning.
    const cd = e.custom_data as Json | undefined;
    if (cd?.np !== undefined) {
      if (typeof e.partner_name === 'string' && e.partner_name !== 'direct') cd.np = e.partner_name;
      else delete cd.np;
    }
    return e as Json;
  });

describe('valid events (fast-check)', () => {
  it('are processed with no error; only recommended fields may be asked for', () => {
    fc.assert(
      fc.property(validEvent, (e) => {
        const r = validateEvent(e, ctx);
        expect(r.errors).toEqual([]);
        expect(r.status).toBe('processed');
        expect(r.warnings.every((w) => w.code === 'recommended_missing')).toBe(true);
      }),
      { numRuns: 1500 },
    );
  });
});

/** One mutation: where it happens, and what it does. */
interface Mutation {
  path: string;
  apply(e: Json): void;
}

const at = (e: Json, parent: string): Json => {
  if (parent === '') return e;
  const v = e[parent];
  if (typeof v === 'object' && v !== null && !Array.isArray(v)) return v as Json;
  const fresh: Json = {};
  e[parent] = fresh;
  return fresh;
};

function set(path: string, value: unknown): Mutation {
  const [parent, key] = path.includes('.') ? (path.split('.') as [string, string]) : ['', path];
  return {
    path,
    apply: (e) => {
      at(e, parent)[key] = value;
    },
  };
}

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.constantFrom('action_source', 'event_id', 'event_name', 'event_time', 'user_data').map((f) => ({
    path: f,
    apply: (e: Json) => void delete e[f],
  })),
  fc.constantFrom(
    set('action_source', 'app'),
    set('action_source', 5),
    set('event_id', ''),
    set('event_id', 'x'.repeat(257)),
    set('event_id', 12),
    set('event_name', 'purchase'),
    set('event_name', 'Checkout'),
    set('event_time', NOW * 1000),
    set('event_time', String(NOW)),
    set('event_time', NOW - 700_000),
    set('event_time', NOW + 3600),
    set('event_time', 1.5),
    set('event_source_url', 'https: //x.example'),
    set('event_source_url', 42),
    set('opt_out', 'yes'),
    set('wifi', 0),
    set('partner_name', 'Segment'),
    set('language', 'en-US'),
    set('language', 'english'),
    set('app_id', 'x'.repeat(300)),
    set('unexpected_key', 1),
    set('user_data.em', 'Jane@example.com'),
    set('user_data.em', ['Jane@example.com']),
    set('user_data.ph', [sha256('1').slice(1)]),
    set('user_data.client_ip_address', '0.0.0.0'),
    set('user_data.client_user_agent', 'Other'),
    set('user_data.first_name', ['x']),
    set('user_data.fn', ['Jane']),
    set('custom_data.value', 42),
    // A zero fails a purchase event and warns on any other (C120): never silent.
    set('custom_data.value', '0'),
    set('custom_data.value', '0.00'),
    set('custom_data.value', '-1'),
    set('custom_data.value', 'abc'),
    set('custom_data.value', '100000000.5'),
    set('custom_data.currency', 'usd'),
    set('custom_data.currency', 'XXX1'),
    set('custom_data.num_items', -1),
    set('custom_data.num_items', 1.5),
    set('custom_data.opt_out_type', 'gdpr'),
    set('custom_data.contents', [{ id: 'a', quantity: -1 }]),
    set('custom_data.contents', [{ price: 1 }]),
    set('custom_data.category_name', 'x'),
    set('device_info.battery_level', 101),
    set('device_info.form_factor', 'phone'),
    set('app_info.colour', 'red'),
  ),
);

describe('one mutation (fast-check)', () => {
  it('fails or warns the event, with a problem whose path names the mutated field', () => {
    fc.assert(
      fc.property(validEvent, mutation, (e, m) => {
        m.apply(e);
        const r = validateEvent(e, ctx);
        const problems = [...r.errors, ...r.warnings].filter((p) => p.code !== 'recommended_missing');
        expect(problems.length).toBeGreaterThan(0);
        const names = (p: string) => p === m.path || p.startsWith(`${m.path}[`) || p.startsWith(`${m.path}.`);
        expect(problems.some((p) => names(p.path))).toBe(true);
      }),
      { numRuns: 1500 },
    );
  });
});

const STRUCTURAL: ReadonlySet<ProblemCode> = new Set<ProblemCode>([
  'missing_required',
  'invalid_type',
  'invalid_enum',
  'empty_string',
  'string_too_long',
  'too_many_items',
  'integer_out_of_range',
  'integer_not_exact',
  'unknown_field',
  'pattern_mismatch',
]);

const ajv = new Ajv({ allowUnionTypes: true, allErrors: false });
const structural = ajv.compile(CONVERSION_EVENT_JSON_SCHEMA);

/** Paths of the event and of its objects, with values that are right or wrong for them. */
const FIELDS = [
  '',
  'action_source',
  'event_id',
  'event_name',
  'event_time',
  'event_source_url',
  'opt_out',
  'partner_name',
  'user_data',
  'custom_data',
  'language',
  'wifi',
  'app_info',
  'device_info',
  'user_data.em',
  'user_data.client_ip_address',
  'user_data.unknown',
  'custom_data.value',
  'custom_data.num_items',
  'custom_data.opt_out_type',
  'custom_data.contents',
  'custom_data.content_ids',
  'custom_data.unknown',
  'app_info.window_width',
  'app_info.unknown',
  'device_info.form_factor',
  'device_info.languages',
  'device_info.battery_level',
];
const anyValue = fc.oneof(
  { weight: 4, arbitrary: fc.jsonValue({ maxDepth: 2 }) },
  fc.constantFrom(
    'web',
    'ldp',
    'LDP',
    'lDp',
    'cellphone',
    'checkout',
    '',
    'x'.repeat(300),
    -1,
    0,
    101,
    30721,
    1.5,
    null,
    true,
  ),
  fc.array(fc.constantFrom('a', sha256('a'), 1, null), { maxLength: 4 }),
  fc.array(
    fc.record(
      { id: fc.constantFrom('a', 1), quantity: fc.constantFrom(1, -1, 'x'), price: fc.constant(1) },
      { requiredKeys: [] },
    ),
    {
      maxLength: 2,
    },
  ),
);
const structuralMutation = fc.tuple(fc.constantFrom(...FIELDS), anyValue).map(([path, value]) => ({
  path,
  apply(e: Json) {
    if (path === '') return;
    const [parent, key] = path.includes('.') ? (path.split('.') as [string, string]) : ['', path];
    at(e, parent)[key] = value;
  },
}));

describe('ajv agrees on structural validity (fast-check)', () => {
  it('for valid events with up to three arbitrary changes', () => {
    fc.assert(
      fc.property(validEvent, fc.array(structuralMutation, { maxLength: 3 }), (e, ms) => {
        for (const m of ms) m.apply(e);
        const r = validateEvent(e, ctx);
        const ours = !r.errors.some((p) => STRUCTURAL.has(p.code));
        const theirs = structural(e);
        if (ours !== theirs)
          throw new Error(
            `disagree on ${JSON.stringify(e)}: ajv ${theirs} ${JSON.stringify(structural.errors)}, ours ${JSON.stringify(r.errors)}`,
          );
      }),
      { numRuns: 3000 },
    );
  });

  it('for arbitrary JSON values as the event', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 3 }), (e) => {
        const r = validateEvent(e, ctx);
        expect(!r.errors.some((p) => STRUCTURAL.has(p.code))).toBe(structural(e));
      }),
      { numRuns: 1000 },
    );
  });
});
