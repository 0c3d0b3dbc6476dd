/**
 * One table per rule kind (C3, C4): each row changes one thing of an event that is otherwise processed with
 * no warning, and states the literal codes, paths and messages it must produce.
 */
import { LIMITS } from '@org/events-types';
import { describe, expect, it } from 'vitest';
import { type ValidationContext, validateEvent } from '../src/index.js';
import { EM, type Json, NOW, sha256, UA, validEvent } from './helpers.js';

// Caps come from the spec (limits.yaml), so editing one there keeps these tests true (issue 36).
const ID_MAX = LIMITS.event_id_max_length.value;
const SHORT_MAX = LIMITS.short_text_max_length.value;
const HASHES_MAX = LIMITS.hashed_values_max_items.value;

type Row = [
  label: string,
  change: (e: Json) => void,
  expected: { errors?: string[][]; warnings?: string[][] },
];

const ud = (e: Json) => e.user_data as Json;
const cd = (e: Json) => e.custom_data as Json;
const ctx: ValidationContext = { now: NOW, currency: 'EUR' };

function run(change: (e: Json) => void, context: ValidationContext = ctx) {
  const e = validEvent();
  change(e);
  const r = validateEvent(e, context);
  return {
    r,
    errors: r.errors.map((p) => [p.code, p.path, p.message]),
    warnings: r.warnings.map((p) => [p.code, p.path, p.message]),
  };
}

function table(rows: Row[]) {
  it.each(rows)('%s', (_label, change, expected) => {
    const { r, errors, warnings } = run(change);
    expect(errors).toEqual(expected.errors ?? []);
    expect(warnings).toEqual(expected.warnings ?? []);
    expect(r.status).toBe(errors.length > 0 ? 'failed' : 'processed');
    expect(r.accepted === null).toBe(errors.length > 0);
  });
}

describe('the base event', () => {
  it('is processed with no problem, and accepted as the very object sent (no copy on the happy path)', () => {
    const e = validEvent();
    const r = validateEvent(e, ctx);
    expect(r).toEqual({ status: 'processed', errors: [], warnings: [], accepted: e });
    expect(r.accepted).toBe(e);
  });
});

describe('required (C4)', () => {
  table([
    [
      'action_source',
      (e) => delete e.action_source,
      {
        errors: [
          [
            'missing_required',
            'action_source',
            'action_source is missing; send one of "web", "app_ios", "app_android", "offline".',
          ],
        ],
        warnings: [
          // Without an action source, only what the spec recommends for every source is asked for.
        ],
      },
    ],
    [
      'event_id',
      (e) => delete e.event_id,
      {
        errors: [
          [
            'missing_required',
            'event_id',
            'event_id is missing; send a unique non-empty string such as an order or transaction ID.',
          ],
        ],
      },
    ],
    [
      'event_name',
      (e) => delete e.event_name,
      {
        errors: [
          [
            'missing_required',
            'event_name',
            'event_name is missing; send a standard event name such as checkout, or a registered custom event name.',
          ],
        ],
      },
    ],
    [
      'event_time',
      (e) => delete e.event_time,
      {
        errors: [['missing_required', 'event_time', 'event_time is missing; send the Unix time in seconds.']],
      },
    ],
    [
      'user_data (its x-expected names the identifiers)',
      (e) => delete e.user_data,
      {
        errors: [
          [
            'missing_required',
            'user_data',
            'user_data is missing; send an object of user identifiers with em, hashed_maids, or both client_ip_address and client_user_agent.',
          ],
        ],
        // C88: a failed event gets no match-quality advice.
      },
    ],
  ]);
});

describe('type (C4: wrong JSON types, with the value to send when it is obvious)', () => {
  table([
    [
      'value as a number',
      (e) => {
        cd(e).value = 42;
      },
      {
        errors: [
          [
            'invalid_type',
            'custom_data.value',
            'custom_data.value must be a string holding a decimal number greater than 0, such as "42.00"; received 42. Send "42".',
          ],
        ],
      },
    ],
    [
      'value 0 as a number: the type, then the converted value is checked too (one answer names both)',
      (e) => {
        cd(e).value = 0;
      },
      {
        errors: [
          [
            'invalid_type',
            'custom_data.value',
            'custom_data.value must be a string holding a decimal number greater than 0, such as "42.00"; received 0. Send "0".',
          ],
          [
            'zero_value_on_event',
            'custom_data.value',
            'custom_data.value must be greater than 0 on a checkout event; received "0".',
          ],
        ],
      },
    ],
    [
      'a hashed field as a scalar: never echoed (C21), its shape named; send it as an array',
      (e) => {
        ud(e).em = EM;
      },
      {
        errors: [
          [
            'invalid_type',
            'user_data.em',
            'user_data.em must be an array of SHA-256 hex digests; received a single SHA-256 hex digest. Send the value as a one-element array.',
          ],
        ],
      },
    ],
    [
      'a raw email as a scalar: the message names an unhashed e-mail address, never the address (C21)',
      (e) => {
        ud(e).em = 'jane.doe@example.com';
      },
      {
        errors: [
          [
            'invalid_type',
            'user_data.em',
            'user_data.em must be an array of SHA-256 hex digests; received an unhashed e-mail address. Send the value as a one-element array.',
          ],
        ],
        warnings: [
          [
            'hash_dropped',
            'user_data.em[0]',
            'user_data.em[0] is not a SHA-256 hex digest (64 hex characters) and was dropped; hash the normalized value before sending.',
          ],
        ],
      },
    ],
    [
      'a hash item that is not a string',
      (e) => {
        ud(e).em = [42];
      },
      {
        errors: [
          ['invalid_type', 'user_data.em[0]', 'user_data.em[0] must be a string; received an integer.'],
        ],
      },
    ],
    [
      'opt_out as a string',
      (e) => {
        e.opt_out = 'true';
      },
      { errors: [['invalid_type', 'opt_out', 'opt_out must be true or false; received "true". Send true.']] },
    ],
    [
      'wifi as a number',
      (e) => {
        e.wifi = 1;
      },
      { errors: [['invalid_type', 'wifi', 'wifi must be true or false; received 1.']] },
    ],
    [
      'num_items not an integer',
      (e) => {
        cd(e).num_items = 2.5;
      },
      {
        errors: [
          [
            'invalid_type',
            'custom_data.num_items',
            'custom_data.num_items must be a non-negative integer; received 2.5.',
          ],
        ],
      },
    ],
    [
      'num_items as a string of digits',
      (e) => {
        cd(e).num_items = '3';
      },
      {
        errors: [
          [
            'invalid_type',
            'custom_data.num_items',
            'custom_data.num_items must be a non-negative integer; received "3". Send 3.',
          ],
        ],
      },
    ],
    [
      'event_time as a string (payload 17, mix-8)',
      (e) => {
        e.event_time = String(NOW);
      },
      {
        errors: [
          [
            'invalid_type',
            'event_time',
            `event_time must be the Unix time in seconds; received "${NOW}". Send ${NOW}.`,
          ],
        ],
      },
    ],
    [
      'user_data as an array',
      (e) => {
        e.user_data = [];
      },
      {
        errors: [
          [
            'invalid_type',
            'user_data',
            'user_data must be an object of user identifiers with em, hashed_maids, or both client_ip_address and client_user_agent; received an array of 0 item(s).',
          ],
        ],
        // C88: a failed event gets no match-quality advice.
      },
    ],
    [
      'a contents item that is not an object',
      (e) => {
        cd(e).contents = [5];
      },
      {
        errors: [
          [
            'invalid_type',
            'custom_data.contents[0]',
            'custom_data.contents[0] must be an object; received 5.',
          ],
        ],
        // The failed item is not also cross-checked against content_ids: its error says it all.
        warnings: [],
      },
    ],
    [
      'null where the field is not nullable',
      (e) => {
        e.event_id = null;
      },
      {
        errors: [
          [
            'invalid_type',
            'event_id',
            'event_id must be a unique non-empty string such as an order or transaction ID; received null.',
          ],
        ],
      },
    ],
    [
      'null where the field is nullable is fine',
      (e) => {
        e.partner_name = null;
        e.language = null;
      },
      {},
    ],
  ]);

  it('names the event itself when it is not an object', () => {
    expect(validateEvent(5, ctx)).toEqual({
      status: 'failed',
      errors: [{ path: '', code: 'invalid_type', message: 'event must be an object; received an integer.' }],
      warnings: [],
      accepted: null,
    });
  });
});

describe('enum (C4)', () => {
  table([
    [
      'action_source "app" (payload 17, mix-6)',
      (e) => {
        e.action_source = 'app';
      },
      {
        errors: [
          [
            'invalid_enum',
            'action_source',
            'action_source must be one of "web", "app_ios", "app_android", "offline"; received "app".',
          ],
        ],
      },
    ],
    [
      'opt_out_type other than ldp',
      (e) => {
        cd(e).opt_out_type = 'gdpr';
      },
      {
        errors: [
          [
            'invalid_enum',
            'custom_data.opt_out_type',
            'custom_data.opt_out_type must be one of "ldp"; received "gdpr".',
          ],
        ],
      },
    ],
    [
      'a long enum (device_info.form_factor)',
      (e) => {
        e.device_info = { form_factor: 'phone' };
      },
      {
        errors: [
          [
            'invalid_enum',
            'device_info.form_factor',
            'device_info.form_factor must be one of "desktop", "laptop", "cellphone", "tablet", "smartwatch", "tv", "vr", "console", "other"; received "phone".',
          ],
        ],
      },
    ],
  ]);

  it('accepts opt_out_type in any case and stores ldp (C4)', () => {
    const e = validEvent();
    cd(e).opt_out_type = 'LDP';
    const r = validateEvent(e, ctx);
    expect(r.status).toBe('processed');
    expect(r.warnings).toEqual([]);
    expect((r.accepted!.custom_data as Json).opt_out_type).toBe('ldp');
    expect(cd(e).opt_out_type).toBe('LDP');
  });
});

describe('bounds', () => {
  table([
    [
      'empty event_id (C4)',
      (e) => {
        e.event_id = '';
      },
      {
        errors: [
          [
            'empty_string',
            'event_id',
            'event_id must not be empty; send a unique non-empty string such as an order or transaction ID.',
          ],
        ],
      },
    ],
    [
      'event_id over its limit (C4, limits.event_id_max_length)',
      (e) => {
        e.event_id = 'x'.repeat(ID_MAX + 1);
      },
      {
        errors: [
          [
            'string_too_long',
            'event_id',
            `event_id is ${ID_MAX + 1} characters long; the most accepted is ${ID_MAX}.`,
          ],
        ],
      },
    ],
    [
      `event_id of ${ID_MAX} emoji: ${2 * ID_MAX} UTF-16 units but ${ID_MAX} characters, accepted`,
      (e) => {
        e.event_id = '🥾'.repeat(ID_MAX);
      },
      {},
    ],
    [
      'too many hashes',
      (e) => {
        ud(e).em = Array.from({ length: HASHES_MAX + 1 }, (_, k) => sha256(`u${k}`));
      },
      {
        errors: [
          [
            'too_many_items',
            'user_data.em',
            `user_data.em has ${HASHES_MAX + 1} entries; the most accepted is ${HASHES_MAX}.`,
          ],
        ],
      },
    ],
    [
      'quantity below 0 (C4)',
      (e) => {
        cd(e).contents = [{ id: 'sku-1', quantity: -1 }];
      },
      {
        errors: [
          [
            'integer_out_of_range',
            'custom_data.contents[0].quantity',
            'custom_data.contents[0].quantity must be at least 0; received -1.',
          ],
        ],
      },
    ],
    [
      'an integer above its maximum',
      (e) => {
        e.device_info = { battery_level: 101 };
      },
      {
        errors: [
          [
            'integer_out_of_range',
            'device_info.battery_level',
            'device_info.battery_level must be between 0 and 100; received 101.',
          ],
        ],
      },
    ],
  ]);
});

describe('pattern (C4: partner_name, a warning that drops the value)', () => {
  table([
    [
      'partner_name not direct or ss-<name>',
      (e) => {
        e.partner_name = 'Segment';
      },
      {
        warnings: [
          [
            'pattern_mismatch_dropped',
            'partner_name',
            'partner_name must be "direct" or "ss-" followed by the lower-case company name, such as "ss-shopify"; received "Segment". The value was dropped.',
          ],
        ],
      },
    ],
    [
      'direct',
      (e) => {
        e.partner_name = 'direct';
      },
      {},
    ],
    [
      'ss-woocommerce',
      (e) => {
        e.partner_name = 'ss-woocommerce';
      },
      {},
    ],
  ]);

  it('drops the value from the accepted event, never from the input', () => {
    const e = validEvent();
    e.partner_name = 'Segment';
    const r = validateEvent(e, ctx);
    expect(r.accepted).not.toHaveProperty('partner_name');
    expect(e.partner_name).toBe('Segment');
  });
});

describe('event-name (C4, C10)', () => {
  const invalid = (name: string, suggestion?: string) =>
    `Invalid event_name: ${name}. Use a supported conversion event_name (for example subscribe, checkout).${suggestion ? ` Did you mean ${suggestion}?` : ''}`;
  table([
    [
      'subscription -> subscribe (seed 2.2)',
      (e) => {
        e.event_name = 'subscription';
      },
      { errors: [['invalid_event_name', 'event_name', invalid('subscription', 'subscribe')]] },
    ],
    [
      'Checkout -> checkout (standard names are case-sensitive)',
      (e) => {
        e.event_name = 'Checkout';
      },
      { errors: [['invalid_event_name', 'event_name', invalid('Checkout', 'checkout')]] },
    ],
    [
      'add-to-cart -> add_to_cart',
      (e) => {
        e.event_name = 'add-to-cart';
      },
      { errors: [['invalid_event_name', 'event_name', invalid('add-to-cart', 'add_to_cart')]] },
    ],
    [
      'purchase: nothing near',
      (e) => {
        e.event_name = 'purchase';
      },
      { errors: [['invalid_event_name', 'event_name', invalid('purchase')]] },
    ],
    [
      'Order Completed: nothing near',
      (e) => {
        e.event_name = 'Order Completed';
      },
      { errors: [['invalid_event_name', 'event_name', invalid('Order Completed')]] },
    ],
  ]);

  it('accepts a registered custom name case-insensitively and stores it as registered (C10)', () => {
    const e = validEvent();
    e.event_name = 'Quote_Requested';
    const r = validateEvent(e, { ...ctx, customEventNames: ['quote_requested'] });
    expect(r.status).toBe('processed');
    expect(r.accepted?.event_name).toBe('quote_requested');
    expect(validateEvent(e, ctx).errors.map((p) => p.code)).toEqual(['invalid_event_name']);
  });
});

describe('unix-seconds (C4)', () => {
  table([
    [
      'milliseconds (payload 17, mix-3)',
      (e) => {
        e.event_time = NOW * 1000 + 512;
      },
      {
        errors: [
          [
            'event_time_milliseconds',
            'event_time',
            `event_time ${NOW * 1000 + 512} is in milliseconds; send Unix seconds (${NOW}).`,
          ],
        ],
      },
    ],
    [
      'one second older than 7 days',
      (e) => {
        e.event_time = NOW - 604801;
      },
      {
        errors: [
          [
            'event_time_too_old',
            'event_time',
            'event_time 1752656399 (2025-07-16T08:59:59Z) is more than 7 days in the past; only events of the last 7 days are accepted.',
          ],
        ],
      },
    ],
    [
      'exactly 7 days old',
      (e) => {
        e.event_time = NOW - 604800;
      },
      {},
    ],
    [
      'one second more than 5 minutes ahead',
      (e) => {
        e.event_time = NOW + 301;
      },
      {
        errors: [
          [
            'event_time_in_future',
            'event_time',
            'event_time 1753261501 (2025-07-23T09:05:01Z) is more than 5 minutes ahead of the server clock; send the time the event happened.',
          ],
        ],
      },
    ],
    [
      'exactly 5 minutes ahead',
      (e) => {
        e.event_time = NOW + 300;
      },
      {},
    ],
    [
      'a fraction',
      (e) => {
        e.event_time = NOW + 0.5;
      },
      {
        errors: [
          [
            'invalid_type',
            'event_time',
            `event_time must be the Unix time in seconds; received ${NOW + 0.5}.`,
          ],
        ],
      },
    ],
  ]);
});

describe('url (C4)', () => {
  const bad = (url: string) => [
    [
      'invalid_url',
      'event_source_url',
      `event_source_url must be an absolute http or https URL; received ${JSON.stringify(url)}.`,
    ],
  ];
  table([
    [
      '"https: //www..." (payload 07)',
      (e) => {
        e.event_source_url = 'https: //www.my-clothing-shop.org/';
      },
      { errors: bad('https: //www.my-clothing-shop.org/') },
    ],
    [
      'relative',
      (e) => {
        e.event_source_url = '/checkout';
      },
      { errors: bad('/checkout') },
    ],
    [
      'ftp',
      (e) => {
        e.event_source_url = 'ftp://files.example.com/x';
      },
      { errors: bad('ftp://files.example.com/x') },
    ],
    [
      'no host',
      (e) => {
        e.event_source_url = 'https:///path';
      },
      { errors: bad('https:///path') },
    ],
    [
      'a port over 65535',
      (e) => {
        e.event_source_url = 'http://a.example:65536/';
      },
      { errors: bad('http://a.example:65536/') },
    ],
    [
      'a space in the path',
      (e) => {
        e.event_source_url = 'https://a.example/x y';
      },
      { errors: bad('https://a.example/x y') },
    ],
    [
      'upper-case scheme',
      (e) => {
        e.event_source_url = 'HTTPS://Shop.Example.com/';
      },
      {},
    ],
    [
      'IPv6 host and port',
      (e) => {
        e.event_source_url = 'http://[2001:db8::1]:8080/x?y=1#z';
      },
      {},
    ],
    [
      'user info',
      (e) => {
        e.event_source_url = 'https://user:pw@shop.example.com/';
      },
      {},
    ],
    [
      'an IDN host',
      (e) => {
        e.event_source_url = 'https://bücher.example/';
      },
      {},
    ],
    [
      'null (nullable): fine; recommended for web events, but one missing field alone draws no advice (C88)',
      (e) => {
        e.event_source_url = null;
      },
      {},
    ],
  ]);
});

describe('code-list (C4)', () => {
  table([
    [
      'currency in lower case (payload 17, mix-7): suggest the code',
      (e) => {
        cd(e).currency = 'usd';
      },
      {
        errors: [
          [
            'invalid_code',
            'custom_data.currency',
            'custom_data.currency must be an ISO-4217 currency code such as "USD"; received "usd". Send "USD".',
          ],
        ],
      },
    ],
    [
      'an unknown currency',
      (e) => {
        cd(e).currency = 'XYZ';
      },
      {
        errors: [
          [
            'invalid_code',
            'custom_data.currency',
            'custom_data.currency must be an ISO-4217 currency code such as "USD"; received "XYZ".',
          ],
        ],
      },
    ],
    [
      'language "en-US" (payloads 03, 16): dropped, suggest "en"',
      (e) => {
        e.language = 'en-US';
      },
      {
        warnings: [
          [
            'invalid_code_dropped',
            'language',
            'language must be a two-letter lower-case ISO-639-1 code such as "en"; received "en-US". The value was dropped. Send "en".',
          ],
        ],
      },
    ],
    [
      'language "EN"',
      (e) => {
        e.language = 'EN';
      },
      {
        warnings: [
          [
            'invalid_code_dropped',
            'language',
            'language must be a two-letter lower-case ISO-639-1 code such as "en"; received "EN". The value was dropped. Send "en".',
          ],
        ],
      },
    ],
    [
      'language "de"',
      (e) => {
        e.language = 'de';
      },
      {},
    ],
  ]);
});

describe('ip-address (C4: dropped with a warning; the dropped value is never quoted, C70)', () => {
  const dropped = (reason: string) => [
    [
      'invalid_ip_dropped',
      'user_data.client_ip_address',
      `user_data.client_ip_address was dropped: ${reason}.`,
    ],
  ];
  table([
    [
      'all zeros',
      (e) => {
        ud(e).client_ip_address = '0.0.0.0';
      },
      { warnings: dropped('an all-zeros address is not a client IP') },
    ],
    [
      'IPv6 all zeros',
      (e) => {
        ud(e).client_ip_address = '::';
      },
      { warnings: dropped('an all-zeros address is not a client IP') },
    ],
    [
      'not an address',
      (e) => {
        ud(e).client_ip_address = '256.1.1.1';
      },
      { warnings: dropped('it is not a valid IPv4 or IPv6 address') },
    ],
    [
      'a user agent in its place (payload 05): named, not quoted',
      (e) => {
        ud(e).client_ip_address = UA;
      },
      {
        warnings: [
          [
            'invalid_ip_dropped',
            'user_data.client_ip_address',
            'user_data.client_ip_address was dropped: it is a user agent, not an IP address.',
          ],
        ],
      },
    ],
    [
      'IPv6',
      (e) => {
        ud(e).client_ip_address = '2001:db8:85a3::8a2e:370:7334';
      },
      {},
    ],
  ]);
});

describe('user-agent (C4, seed 2.4: dropped with a warning)', () => {
  const dropped = (reason: string) => [
    [
      'invalid_user_agent_dropped',
      'user_data.client_user_agent',
      `user_data.client_user_agent was dropped: ${reason}. Send the full User-Agent header of the browser.`,
    ],
  ];
  table([
    [
      'empty',
      (e) => {
        ud(e).client_user_agent = ' ';
      },
      { warnings: dropped('it is empty') },
    ],
    [
      'Other',
      (e) => {
        ud(e).client_user_agent = 'Other';
      },
      { warnings: dropped('"Other" is a placeholder, not a user agent') },
    ],
    [
      'Googlebot (payload 03)',
      (e) => {
        ud(e).client_user_agent =
          'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; Googlebot/2.1; +http://www.google.com/bot.html) Chrome/109.0.5414.101 Safari/537.36';
      },
      { warnings: dropped('it is a bot or automated client (it contains "bot")') },
    ],
    [
      'curl',
      (e) => {
        ud(e).client_user_agent = 'curl/8.4.0';
      },
      { warnings: dropped('it is a bot or automated client (it contains "curl/")') },
    ],
    [
      'no product token (payload 01 "chrome")',
      (e) => {
        ud(e).client_user_agent = 'chrome';
      },
      { warnings: dropped('it has no product/version token such as Mozilla/5.0') },
    ],
    [
      'an IP address in its place (payload 05)',
      (e) => {
        ud(e).client_user_agent = '5.5.5.5';
      },
      { warnings: dropped('it is an IP address, not a user agent') },
    ],
    [
      'an Android app (payload 16)',
      (e) => {
        ud(e).client_user_agent = 'Dalvik/2.1.0 (Linux; U; Android 14; SM-S918B)';
      },
      {},
    ],
  ]);
});

describe('sha256-hex (C4, C5: never echoed, dropped)', () => {
  table([
    [
      'a raw email in em (payload 17, mix-5), next to a digest',
      (e) => {
        ud(e).em = ['Buyer@Example.com', EM];
      },
      {
        warnings: [
          [
            'hash_dropped',
            'user_data.em[0]',
            'user_data.em[0] is not a SHA-256 hex digest (64 hex characters) and was dropped; hash the normalized value before sending.',
          ],
        ],
      },
    ],
    [
      '63 hex characters',
      (e) => {
        ud(e).external_id = [EM.slice(1)];
      },
      {
        warnings: [
          [
            'hash_dropped',
            'user_data.external_id[0]',
            'user_data.external_id[0] is not a SHA-256 hex digest (64 hex characters) and was dropped; hash the normalized value before sending.',
          ],
        ],
      },
    ],
  ]);

  it('keeps the other values, drops an emptied field, and lower-cases upper-case digests', () => {
    const e = validEvent();
    ud(e).em = ['Buyer@Example.com', EM.toUpperCase()];
    ud(e).ph = ['+1 555 0100'];
    const r = validateEvent(e, ctx);
    expect(r.status).toBe('processed');
    const u = r.accepted?.user_data as Json;
    expect(u.em).toEqual([EM]);
    expect(u).not.toHaveProperty('ph');
    expect(JSON.stringify(r.warnings)).not.toMatch(/Buyer|555/);
  });
});

describe('decimal-string (C4)', () => {
  table([
    [
      'value "undefined" (payload 05)',
      (e) => {
        cd(e).value = 'undefined';
      },
      {
        errors: [
          [
            'invalid_decimal',
            'custom_data.value',
            'custom_data.value must be a string holding a decimal number greater than 0, such as "42.00"; received "undefined".',
          ],
        ],
      },
    ],
    [
      'value "[27.5,123]" (payload 02)',
      (e) => {
        cd(e).value = '[27.5,123]';
      },
      {
        errors: [
          [
            'invalid_decimal',
            'custom_data.value',
            'custom_data.value must be a string holding a decimal number greater than 0, such as "42.00"; received "[27.5,123]".',
          ],
        ],
      },
    ],
    [
      'value "-5" (payload 17, mix-7)',
      (e) => {
        cd(e).value = '-5';
      },
      {
        errors: [
          ['decimal_too_small', 'custom_data.value', 'custom_data.value must be at least 0; received "-5".'],
        ],
      },
    ],
    [
      'value "0.00" on a purchase event (C86)',
      (e) => {
        cd(e).value = '0.00';
      },
      {
        errors: [
          [
            'zero_value_on_event',
            'custom_data.value',
            'custom_data.value must be greater than 0 on a checkout event; received "0.00".',
          ],
        ],
      },
    ],
    [
      'value "0" on a lead: processed, with a warning that names it (C120; Segment\'s Generate Lead sends it)',
      (e) => {
        e.event_name = 'lead';
        cd(e).value = '0';
      },
      {
        warnings: [
          [
            'zero_value_kept',
            'custom_data.value',
            'custom_data.value should not be zero; received "0" on a lead event. Leave custom_data.value out when the event has no monetary value.',
          ],
        ],
      },
    ],
    [
      'value "0.00" on a page_visit and on a custom event: the same warning, naming the event (C120)',
      (e) => {
        e.event_name = 'page_visit';
        cd(e).value = '0.00';
      },
      {
        warnings: [
          [
            'zero_value_kept',
            'custom_data.value',
            'custom_data.value should not be zero; received "0.00" on a page_visit event. Leave custom_data.value out when the event has no monetary value.',
          ],
        ],
      },
    ],
    [
      'value 0 as a number on a signup: fails on its type, and the zero is named too (C4, C120)',
      (e) => {
        e.event_name = 'signup';
        cd(e).value = 0;
      },
      {
        errors: [
          [
            'invalid_type',
            'custom_data.value',
            'custom_data.value must be a string holding a decimal number greater than 0, such as "42.00"; received 0. Send "0".',
          ],
        ],
        warnings: [
          [
            'zero_value_kept',
            'custom_data.value',
            'custom_data.value should not be zero; received "0" on a signup event. Leave custom_data.value out when the event has no monetary value.',
          ],
        ],
      },
    ],
    [
      'value "0.01" on a lead: no warning (only a zero is named, C120)',
      (e) => {
        e.event_name = 'lead';
        cd(e).value = '0.01';
      },
      {},
    ],
    [
      'an item_name over 1024 characters: only that value is dropped, with a warning (C87)',
      (e) => {
        (cd(e).contents as Json[])[0]!.item_name = 'x'.repeat(1025);
      },
      {
        warnings: [
          [
            'string_too_long_dropped',
            'custom_data.contents[0].item_name',
            'custom_data.contents[0].item_name is 1025 characters long; the most kept is 1024. The value was dropped.',
          ],
        ],
      },
    ],
    [
      `an event_id over ${ID_MAX} characters fails: the cap has a source (Pinterest 5.23, C87)`,
      (e) => {
        e.event_id = 'e'.repeat(ID_MAX + 1);
      },
      {
        errors: [
          [
            'string_too_long',
            'event_id',
            `event_id is ${ID_MAX + 1} characters long; the most accepted is ${ID_MAX}.`,
          ],
        ],
      },
    ],
    [
      'value unusually high (limits.value_max)',
      (e) => {
        cd(e).value = '100000000.01';
      },
      {
        errors: [
          [
            'decimal_too_large',
            'custom_data.value',
            'custom_data.value is unusually high: "100000000.01"; the most accepted is 100000000.',
          ],
        ],
      },
    ],
    [
      'value at the limit',
      (e) => {
        cd(e).value = '100000000';
      },
      {},
    ],
    [
      'value "0.01"',
      (e) => {
        cd(e).value = '0.01';
      },
      {},
    ],
    [
      'an exponent',
      (e) => {
        cd(e).value = '1e3';
      },
      {
        errors: [
          [
            'invalid_decimal',
            'custom_data.value',
            'custom_data.value must be a string holding a decimal number greater than 0, such as "42.00"; received "1e3".',
          ],
        ],
      },
    ],
    [
      'item_price below 0',
      (e) => {
        cd(e).contents = [{ id: 'sku-1', item_price: '-1' }];
      },
      {
        errors: [
          [
            'decimal_too_small',
            'custom_data.contents[0].item_price',
            'custom_data.contents[0].item_price must be at least 0; received "-1".',
          ],
        ],
      },
    ],
    [
      'item_price "0"',
      (e) => {
        cd(e).contents = [{ id: 'sku-1', item_price: '0' }];
      },
      {},
    ],
  ]);
});

describe('unknown-keys (C4)', () => {
  table([
    [
      'on the event: fails it and names the key',
      (e) => {
        e.eventname = 'checkout';
      },
      {
        errors: [
          [
            'unknown_field',
            'eventname',
            'eventname is not a known field; remove it. Did you mean event_name?',
          ],
        ],
      },
    ],
    [
      'in custom_data (payload 09)',
      (e) => {
        cd(e).category_name = 'Uncategorized';
      },
      {
        errors: [
          [
            'unknown_field',
            'custom_data.category_name',
            'custom_data.category_name is not a known field; remove it.',
          ],
        ],
      },
    ],
    [
      'in a contents item (payload 12)',
      (e) => {
        cd(e).contents = [{ id: 'sku-1' }, { id: 'sku-2', price: 100 }];
      },
      {
        errors: [
          [
            'unknown_field',
            'custom_data.contents[1].price',
            'custom_data.contents[1].price is not a known field; remove it. Did you mean item_price?',
          ],
        ],
      },
    ],
    [
      'a hashed fn in user_data: a field like ln, processed with no warning (C119)',
      (e) => {
        ud(e).fn = [sha256('jane')];
      },
      {},
    ],
    [
      'a raw fn: dropped like a raw ln, never quoted (C119, C21)',
      (e) => {
        ud(e).fn = ['Jane'];
      },
      {
        warnings: [
          [
            'hash_dropped',
            'user_data.fn[0]',
            'user_data.fn[0] is not a SHA-256 hex digest (64 hex characters) and was dropped; hash the normalized value before sending.',
          ],
        ],
      },
    ],
    [
      'an unknown key in user_data (first_name): dropped with a warning (C4)',
      (e) => {
        ud(e).first_name = [sha256('jane')];
      },
      {
        warnings: [
          [
            'unknown_field_dropped',
            'user_data.first_name',
            'user_data.first_name is not a known field and was dropped.',
          ],
        ],
      },
    ],
    [
      'a near key in user_data',
      (e) => {
        ud(e).emails = [EM];
      },
      {
        warnings: [
          [
            'unknown_field_dropped',
            'user_data.emails',
            'user_data.emails is not a known field and was dropped. Did you mean em?',
          ],
        ],
      },
    ],
  ]);

  it('drops the unknown user_data key from the accepted copy, and keeps a hashed fn (C119)', () => {
    const e = validEvent();
    ud(e).first_name = [sha256('jane')];
    ud(e).fn = [sha256('jane')];
    const r = validateEvent(e, ctx);
    expect(r.accepted?.user_data).toEqual({ ...ud(validEvent()), fn: [sha256('jane')] });
    expect(ud(e)).toHaveProperty('first_name');
  });
});

describe('require-any-of (C4: an identifier left after the warnings)', () => {
  const needs =
    'user_data needs an identifier: em, hashed_maids, or both client_ip_address and client_user_agent.';
  it.each([
    ['nothing (payload 13)', {}, needs],
    ['an IP alone', { client_ip_address: '198.51.100.10' }, needs],
    [
      'a raw email (payload 17, mix-5): names what was dropped',
      { em: ['Buyer@Example.com'] },
      `${needs} Dropped: user_data.em[0].`,
    ],
    [
      'an IP and a bot user agent',
      { client_ip_address: '198.51.100.10', client_user_agent: 'Googlebot/2.1' },
      `${needs} Dropped: user_data.client_user_agent.`,
    ],
  ])('%s', (_label, userData, message) => {
    const e = validEvent();
    e.user_data = userData;
    const r = validateEvent(e, ctx);
    expect(r.status).toBe('failed');
    expect(r.errors).toEqual([{ code: 'missing_identifier', path: 'user_data', message }]);
  });

  it.each([
    ['em', { em: [EM] }],
    ['hashed_maids', { hashed_maids: [sha256('maid')] }],
    [
      'client_ip_address and client_user_agent',
      { client_ip_address: '198.51.100.10', client_user_agent: UA },
    ],
  ])('is satisfied by %s', (_label, userData) => {
    const e = validEvent();
    e.user_data = userData;
    expect(validateEvent(e, ctx).errors).toEqual([]);
  });
});

describe('default-from-context (C4: value without currency)', () => {
  it('names the ad account currency and stores it in the accepted event', () => {
    const { r, warnings } = run((e) => delete cd(e).currency);
    expect(warnings).toEqual([
      [
        'currency_defaulted',
        'custom_data.currency',
        'custom_data.value was sent without custom_data.currency; the ad account currency EUR was used. Send custom_data.currency with custom_data.value.',
      ],
    ]);
    expect((r.accepted!.custom_data as Json).currency).toBe('EUR');
  });

  it('says "the ad account currency" when the caller does not know it', () => {
    const { r, warnings } = run(
      (e) => {
        cd(e).currency = null;
      },
      { now: NOW },
    );
    expect(warnings).toEqual([
      [
        'currency_defaulted',
        'custom_data.currency',
        'custom_data.value was sent without custom_data.currency; the ad account currency was used. Send custom_data.currency with custom_data.value.',
      ],
    ]);
    expect((r.accepted!.custom_data as Json).currency).toBeNull();
  });
});

describe('ids-in-items (C4: content_ids entries carried by contents)', () => {
  table([
    [
      'an id no item carries',
      (e) => {
        cd(e).content_ids = ['sku-1', 'sku-9'];
      },
      {
        warnings: [
          [
            'content_id_not_in_contents',
            'custom_data.content_ids[1]',
            'custom_data.content_ids[1] "sku-9" matches no custom_data.contents[].id.',
          ],
        ],
      },
    ],
    [
      'without contents nothing is compared (payload 15)',
      (e) => {
        cd(e).content_ids = ['sku-9'];
        delete cd(e).contents;
      },
      {},
    ],
  ]);

  it('drops the entry, and the field when none is left', () => {
    const one = run((e) => {
      cd(e).content_ids = ['sku-1', 'sku-9'];
    });
    expect((one.r.accepted!.custom_data as Json).content_ids).toEqual(['sku-1']);
    const none = run((e) => {
      cd(e).content_ids = ['sku-9'];
    });
    expect(none.r.accepted?.custom_data).not.toHaveProperty('content_ids');
  });
});

describe('recommended-fields (C4, C88: advice only when match quality is low)', () => {
  const advice = (fields: string) => [
    'recommended_missing',
    '',
    `Low match quality: send ${fields} to raise it most.`,
  ];
  table([
    [
      'a web event without external_id and click_id still matches well: no advice',
      (e) => {
        delete ud(e).external_id;
        delete ud(e).click_id;
      },
      {},
    ],
    [
      'a web lead with only an e-mail: the three missing fields of highest weight, spec order on ties',
      (e) => {
        e.event_name = 'lead';
        delete e.custom_data;
        e.user_data = { em: ud(e).em };
      },
      { warnings: [advice('user_data.ph, user_data.external_id, user_data.click_id')] },
    ],
    [
      'an app event without hashed_maids: hashed_maids first (weight 3), not the web fields',
      (e) => {
        e.action_source = 'app_ios';
        e.event_name = 'lead';
        delete e.event_source_url;
        delete e.custom_data;
        delete ud(e).click_id;
        delete ud(e).client_ip_address;
      },
      { warnings: [advice('user_data.hashed_maids, user_data.ph, opt_out')] },
    ],
    [
      'not a purchase event: custom_data is not asked for',
      (e) => {
        e.event_name = 'lead';
        delete e.custom_data;
      },
      {},
    ],
    [
      'a purchase event without custom_data falls below the threshold',
      (e) => void delete e.custom_data,
      { warnings: [advice('user_data.ph, custom_data.currency, custom_data.value')] },
    ],
    [
      'a failed event gets no advice, however little it carries',
      (e) => {
        e.event_name = 'lead';
        e.action_source = 'app';
        delete e.custom_data;
        e.user_data = { em: ud(e).em };
      },
      {
        errors: [
          [
            'invalid_enum',
            'action_source',
            'action_source must be one of "web", "app_ios", "app_android", "offline"; received "app".',
          ],
        ],
      },
    ],
  ]);
});

describe('C3: several problems of one kind in one message', () => {
  it('counts every problem in `errors`; the batch message shows 10 and says how many more', async () => {
    const { validateBatch } = await import('../src/index.js');
    const e = validEvent();
    for (let k = 0; k < 12; k++) e[`extra_${k}`] = k;
    const r = validateEvent(e, ctx);
    expect(r.errors).toHaveLength(12);
    const b = validateBatch({ data: [e] }, ctx);
    if (!b.ok) throw new Error('refused');
    const shown = r.errors.slice(0, 10).map((p) => p.message);
    expect(b.response.events[0]!.error_message).toBe(`${shown.join('; ')}; and 2 more`);
    expect(b.response.events[0]!.warning_message).toBeNull();
  });
});

describe('copy-on-write', () => {
  it('keeps the very object when nothing changes, empty arrays included', () => {
    const e = validEvent();
    cd(e).content_ids = [];
    e.opt_out = false;
    const r = validateEvent(e, ctx);
    expect(r.accepted).toBe(e);
  });
});

describe("Pinterest's newer fields (issue 21, C17): validated and kept", () => {
  it('customer_type, app_info, device_info and contents[].item_brand_id are accepted as sent', () => {
    const e = validEvent();
    (e.user_data as Json).customer_type = 'returning';
    e.app_info = { app_id: '429047995', app_version: '7.9', install_time: NOW - 86_400 };
    e.device_info = {
      form_factor: 'cellphone',
      network_type: 'cellular_5g',
      os_family: 'ios',
      battery_level: 80,
    };
    (cd(e).contents as Json[])[0]!.item_brand_id = 'brand-42';
    const r = validateEvent(e, ctx);
    expect([r.status, r.errors, r.warnings]).toEqual(['processed', [], []]);
    expect((r.accepted!.user_data as Json).customer_type).toBe('returning');
    expect(r.accepted!.app_info).toEqual(e.app_info);
    expect(r.accepted!.device_info).toEqual(e.device_info);
    expect(((r.accepted!.custom_data as Json).contents as Json[])[0]!.item_brand_id).toBe('brand-42');
  });

  it("Pinterest's enums and caps hold: an unknown customer_type or form_factor fails the event", () => {
    const e = validEvent();
    (e.user_data as Json).customer_type = 'vip';
    e.device_info = { form_factor: 'phone' };
    expect(validateEvent(e, ctx).errors.map((p) => [p.code, p.path])).toEqual([
      ['invalid_enum', 'user_data.customer_type'],
      ['invalid_enum', 'device_info.form_factor'],
    ]);
  });
});

describe('C87: an array item over a cap with no source is dropped from the accepted array', () => {
  it('a content_ids entry over its cap goes, the others stay', () => {
    const long = 's'.repeat(SHORT_MAX + 1);
    const { r, warnings } = run((e) => {
      cd(e).content_ids = ['sku-1', long];
    });
    expect(r.status).toBe('processed');
    expect(warnings[0]).toEqual([
      'string_too_long_dropped',
      'custom_data.content_ids[1]',
      `custom_data.content_ids[1] is ${SHORT_MAX + 1} characters long; the most kept is ${SHORT_MAX}. The value was dropped.`,
    ]);
    expect((r.accepted!.custom_data as Json).content_ids).toEqual(['sku-1']);
  });
});
