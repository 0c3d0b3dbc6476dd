/**
 * matchQuality (C67): identifiers present and well formed, recommended fields missing and the score, from
 * the spec's markings, over hand-made events, the integrator corpus and a fast-check property.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { hashUserData, matchQuality } from '../src/index.js';
import { type Json, readPayload, validEvent } from './helpers.js';

const IDENTIFIERS = [
  'em',
  'ph',
  'fn',
  'ln',
  'db',
  'ge',
  'ct',
  'st',
  'zp',
  'country',
  'external_id',
  'hashed_maids',
  'click_id',
  'client_ip_address',
  'client_user_agent',
  'partner_id',
];

/** The identifiers list with the given fields present, as [field, well_formed]. */
function identifiers(present: Record<string, boolean>) {
  return IDENTIFIERS.map((k) => {
    const field = `user_data.${k}`;
    const wf = present[k];
    return { field, present: wf !== undefined, well_formed: wf === true };
  });
}

const SECONDARY = [
  'user_data.fn',
  'user_data.ln',
  'user_data.db',
  'user_data.ge',
  'user_data.ct',
  'user_data.st',
  'user_data.zp',
  'user_data.country',
];

/** Fields recommended for every event that the hand-made events leave out (C88). */
const BASE_GAPS = ['opt_out', 'partner_name', 'user_data.ph', ...SECONDARY];
/** What an event carrying nothing misses of what applies to every action source and name. */
const EVERY_EVENT = [
  'opt_out',
  'partner_name',
  'user_data.em',
  'user_data.ph',
  ...SECONDARY,
  'user_data.external_id',
];

const firstEvent = (file: string) => (readPayload(file).data as Json[])[0];

describe('matchQuality', () => {
  it('an event with every recommended field scores 1 and misses nothing', () => {
    const e = validEvent();
    const digest = (e.user_data as Json).external_id;
    Object.assign(e, { opt_out: false, partner_name: 'direct' });
    for (const k of ['ph', 'fn', 'ln', 'db', 'ge', 'ct', 'st', 'zp', 'country'])
      (e.user_data as Json)[k] = digest;
    Object.assign(e.custom_data as Json, {
      content_name: 'Trail shoe',
      content_category: 'Shoes',
      content_brand: 'Acme',
      search_string: 'trail shoe',
    });
    expect(matchQuality(e)).toEqual({
      identifiers: identifiers({
        em: true,
        ph: true,
        fn: true,
        ln: true,
        db: true,
        ge: true,
        ct: true,
        st: true,
        zp: true,
        country: true,
        external_id: true,
        click_id: true,
        client_ip_address: true,
        client_user_agent: true,
      }),
      missing_recommended: [],
      score: 1,
    });
  });

  it('the base event: every field the seed recommends is listed, the score weighs them (C88)', () => {
    // A web checkout: 28 fields of total weight 36 apply (fn among them, C119); it carries 20 of that weight.
    expect(matchQuality(validEvent())).toEqual({
      identifiers: identifiers({
        em: true,
        external_id: true,
        click_id: true,
        client_ip_address: true,
        client_user_agent: true,
      }),
      missing_recommended: [
        ...BASE_GAPS,
        'custom_data.content_name',
        'custom_data.content_category',
        'custom_data.content_brand',
        'custom_data.search_string',
      ],
      score: 20 / 36,
    });
  });

  it('an unhashed email is present but not well formed; missing fields are named', () => {
    const e = validEvent();
    (e.user_data as Json).em = ['Buyer@Example.com'];
    delete (e.user_data as Json).click_id;
    delete (e.custom_data as Json).order_id;
    // A web checkout (hashed_maids is for apps): em (weight 3) is not well formed, click_id (2) and order_id
    // (1) are missing besides the base event's gaps.
    expect(matchQuality(e)).toEqual({
      identifiers: identifiers({
        em: false,
        external_id: true,
        client_ip_address: true,
        client_user_agent: true,
      }),
      missing_recommended: [
        ...BASE_GAPS,
        'user_data.click_id',
        'custom_data.content_name',
        'custom_data.content_category',
        'custom_data.content_brand',
        'custom_data.order_id',
        'custom_data.search_string',
      ],
      score: 14 / 36,
    });
  });

  it('an app event needs hashed_maids; web-only fields do not apply', () => {
    expect(
      matchQuality({
        action_source: 'app_android',
        event_name: 'lead',
        user_data: {
          hashed_maids: ['not-a-digest'],
          client_user_agent: 'Dalvik/2.1.0 (Linux; U; Android 14)',
        },
      }),
    ).toEqual({
      identifiers: identifiers({ hashed_maids: false, client_user_agent: true }),
      missing_recommended: [...EVERY_EVENT],
      score: 2 / 22,
    });
  });

  it('what is not an event has no identifiers and misses what applies to every event', () => {
    for (const v of [null, 'x', [], { user_data: 'em' }])
      expect(matchQuality(v)).toEqual({
        identifiers: identifiers({}),
        missing_recommended: [...EVERY_EVENT],
        score: 0,
      });
  });

  it('integrator payloads: a bot-like User-Agent is not well formed; an iOS install lacks external_id', () => {
    // 01: the UA "chrome" has no product token (dropped by the validators), so it is present but not well
    // formed; a web event without URL, external_id, click_id or IP. Its fn counts (C119).
    expect(matchQuality(firstEvent('01-rudderstack-router-v5-batch-multiplexed.json'))).toEqual({
      identifiers: identifiers({
        em: true,
        ph: true,
        fn: true,
        ln: true,
        ct: true,
        st: true,
        zp: true,
        country: true,
        hashed_maids: true,
        client_user_agent: false,
      }),
      missing_recommended: [
        'event_source_url',
        'opt_out',
        'partner_name',
        'user_data.db',
        'user_data.ge',
        'user_data.external_id',
        'user_data.click_id',
        'user_data.client_ip_address',
      ],
      score: 11 / 24,
    });
    expect(matchQuality(firstEvent('06-segment-latest-app-ios-app-install.json'))).toEqual({
      identifiers: identifiers({
        em: true,
        hashed_maids: true,
        client_ip_address: true,
        client_user_agent: true,
      }),
      missing_recommended: ['user_data.ph', ...SECONDARY, 'user_data.external_id'],
      score: 10 / 22,
    });
  });

  it('property: user_data built by hashUserData has every present identifier well formed', async () => {
    const value = fc.oneof(
      fc.string({ minLength: 1, maxLength: 20 }),
      fc.emailAddress(),
      fc.constantFrom('+1 (555) 010-2000', '1990-04-01', 'Female', 'New York', 'CA', '94107', 'US'),
    );
    const hashed = [
      'em',
      'ph',
      'fn',
      'ln',
      'db',
      'ge',
      'ct',
      'st',
      'zp',
      'country',
      'external_id',
      'hashed_maids',
    ];
    await fc.assert(
      fc.asyncProperty(
        fc.dictionary(fc.constantFrom(...hashed), fc.array(value, { minLength: 1, maxLength: 3 })),
        async (raw) => {
          const user_data = await hashUserData(raw);
          const q = matchQuality({ ...validEvent(), user_data });
          const present = q.identifiers.filter((i) => i.present);
          expect(present.map((i) => i.field).sort()).toEqual(
            Object.keys(user_data)
              .map((k) => `user_data.${k}`)
              .sort(),
          );
          expect(present.every((i) => i.well_formed)).toBe(true);
          expect(q.score).toBeGreaterThanOrEqual(0);
          expect(q.score).toBeLessThanOrEqual(1);
        },
      ),
      { numRuns: 100 },
    );
  });
});

describe('the README example', () => {
  it('answers what the README shows', async () => {
    const q = matchQuality({
      event_name: 'checkout',
      action_source: 'web',
      event_time: Math.floor(Date.now() / 1000),
      event_id: 'order-1234',
      user_data: await hashUserData({ em: 'jane.doe@example.com', client_ip_address: '198.51.100.10' }),
      custom_data: { currency: 'USD', value: '42.00' },
    });
    expect(q.identifiers.filter((i) => i.present)).toEqual([
      { field: 'user_data.em', present: true, well_formed: true },
      { field: 'user_data.client_ip_address', present: true, well_formed: true },
    ]);
    expect(q.missing_recommended).toEqual([
      'event_source_url',
      ...BASE_GAPS,
      'user_data.external_id',
      'user_data.click_id',
      'user_data.client_user_agent',
      'custom_data.content_ids',
      'custom_data.content_name',
      'custom_data.content_category',
      'custom_data.content_brand',
      'custom_data.num_items',
      'custom_data.order_id',
      'custom_data.search_string',
      'custom_data.contents',
    ]);
    expect(q.score).toBe(9 / 36);
  });
});
