/**
 * Every request body of the integrator corpus (fixtures/integrator-payloads, see its README)
 * through validateBatch, with each event's expected status and exact messages (C2-C6).
 *
 * Timestamps are historic (the corpus README: a test that wants a file to pass shifts event_time to its clock).
 * Every event_time that is a plausible Unix-seconds value (>= 1e9 and < 1e11) is shifted to NOW; the values
 * that are the file's point are kept as they are: 123 (file 12), 1700001 (files 13 and 28), milliseconds and a
 * string (file 17, mix-3 and mix-8). One test also runs the files as they are, for the stale-time path.
 */
import { describe, expect, it } from 'vitest';
import { validateBatch } from '../src/index.js';
import { type Json, NOW, payloadFiles, readPayload } from './helpers.js';

const files = payloadFiles();
const ctx = { now: NOW, currency: 'USD' };

function shifted(file: string): Json {
  const body = readPayload(file);
  if (Array.isArray(body.data))
    for (const e of body.data as Json[])
      if (typeof e.event_time === 'number' && e.event_time >= 1e9 && e.event_time < 1e11) e.event_time = NOW;
  return body;
}

// Messages that recur across files.
const UA_DROPPED = (reason: string) =>
  `user_data.client_user_agent was dropped: ${reason}. Send the full User-Agent header of the browser.`;
const CHROME = UA_DROPPED('it has no product/version token such as Mozilla/5.0');
const INVALID_NAME = (name: string, suggestion?: string) =>
  `Invalid event_name: ${name}. Use a supported conversion event_name (for example subscribe, checkout).${suggestion ? ` Did you mean ${suggestion}?` : ''}`;
const LANGUAGE_EN_US =
  'language must be a two-letter lower-case ISO-639-1 code such as "en"; received "en-US". The value was dropped. Send "en".';
const NEEDS_IDENTIFIER =
  'user_data needs an identifier: em, hashed_maids, or both client_ip_address and client_user_agent.';
const VALUE_TYPE = (received: string) =>
  `custom_data.value must be a string holding a decimal number greater than 0, such as "42.00"; received ${received}.`;
const HASH_DROPPED = (path: string) =>
  `${path} is not a SHA-256 hex digest (64 hex characters) and was dropped; hash the normalized value before sending.`;
const CURRENCY_USD =
  'custom_data.value was sent without custom_data.currency; the ad account currency USD was used. Send custom_data.currency with custom_data.value.';
const SWAPPED_IP = 'user_data.client_ip_address was dropped: it is a user agent, not an IP address.';
const SWAPPED_UA = UA_DROPPED('it is an IP address, not a user agent');
const NOT_AN_IP = 'user_data.client_ip_address was dropped: it is not a valid IPv4 or IPv6 address.';
const NO_CONTENT = (i: number, id: string) =>
  `custom_data.content_ids[${i}] "${id}" matches no custom_data.contents[].id.`;
const SCALAR_HASH = (field: string) =>
  `user_data.${field} must be an array of SHA-256 hex digests; received a single SHA-256 hex digest. Send the value as a one-element array.`;
const TOO_OLD_1700001 =
  'event_time 1700001 (1970-01-20T16:13:21Z) is more than 7 days in the past; only events of the last 7 days are accepted.';
const NOT_A_STRING = (path: string, n: number) => `${path} must be a string; received ${n}. Send "${n}".`;
const PARTNER_NAME = (received: string) =>
  `partner_name must be "direct" or "ss-" followed by the lower-case company name, such as "ss-shopify"; received "${received}". The value was dropped.`;
/** A later event of a batch with the event_name and event_id of data[i] (C6); times are shifted to NOW. */
const LOW_MATCH = (...fields: string[]) =>
  `Low match quality: send ${fields.map((f) => `user_data.${f}`).join(', ')} to raise it most.`;
const LOW_MATCH_APP = LOW_MATCH('hashed_maids', 'ph', 'external_id');
const LOW_MATCH_WEB = LOW_MATCH('ph', 'external_id', 'click_id');
const DUPLICATE = (i: number) =>
  `Duplicate of an earlier event with the same event_name and event_id (data[${i}] of this batch, event_time ${NOW}); it is stored once.`;

interface Expected {
  status: 'processed' | 'failed';
  errors: string[];
  warnings: string[];
}

const ok = (...warnings: string[]): Expected => ({ status: 'processed', errors: [], warnings });
const failed = (errors: string[], warnings: string[]): Expected => ({ status: 'failed', errors, warnings });

/** file -> expected per event, in order. Comments give the README's row for the file. */
const EXPECTED: Record<string, Expected[]> = {
  // 01: web batch of 4 sharing one event_id under four names (no duplicate: the key includes event_name, C6);
  // fn, a digest, is kept (C119); UA "chrome" has no product token (dropped); no event_source_url,
  // no IP; the 4th is "custom", Pinterest's generic name (C20), processed; opt_out_type "LDP" is accepted.
  '01-rudderstack-router-v5-batch-multiplexed.json': [
    ...Array.from({ length: 3 }, () => ok(CHROME)),
    // C20: `custom` is Pinterest's generic custom event name, processed like the others.
    ok(CHROME),
  ],
  // 02: "custom event" (space, not a name; `custom` is near, C20); value "[27.5,123]" is not a decimal.
  '02-rudderstack-v5-unmapped-event-name-array-value.json': [
    failed([VALUE_TYPE('"[27.5,123]"'), INVALID_NAME('custom event', 'custom')], [CHROME]),
  ],
  // 03: Googlebot UA (seed: no bots) is dropped, which leaves only the IP: no usable identifier (C4);
  // language "en-US" is dropped with "en" suggested.
  '03-rudderstack-page-visit-bot-ua-locale.json': [
    failed(
      [`${NEEDS_IDENTIFIER} Dropped: user_data.client_user_agent.`],
      [LANGUAGE_EN_US, UA_DROPPED('it is a bot or automated client (it contains "bot")')],
    ),
  ],
  // 05: value "undefined"; value without currency (the account's USD is named, C4); IP and UA swapped
  // (both dropped, each message says so); fn kept (C119). db/phone normalization mistakes cannot be seen in a hash.
  '05-segment-legacy-signup-value-undefined-string.json': [
    failed([VALUE_TYPE('"undefined"')], [CURRENCY_USD, SWAPPED_IP, SWAPPED_UA]),
  ],
  // 06: a clean app_ios app_install (opt_out true from Segment's default is a valid boolean).
  '06-segment-latest-app-ios-app-install.json': [ok()],
  // 07: "https: //www..." (space) is not an absolute URL (C4) and fails the event; its fn is a field (C119).
  '07-pinterest-openapi-example-app-ios-full.json': [
    failed(
      [
        'event_source_url must be an absolute http or https URL; received "https: //www.my-clothing-shop.org/".',
      ],
      [],
    ),
  ],
  // 08: em hashed without lower-casing is still a digest (C5: the service checks shape, not normalization).
  '08-woocommerce-checkout-web-raw-email-hash.json': [ok()],
  // 09: custom_data.category_name: Pinterest answered 400 for the whole request; here only the event fails.
  '09-woocommerce-issue967-view-category-unknown-custom-key.json': [
    failed(['custom_data.category_name is not a known field; remove it.'], []),
  ],
  // 10: a GA4 purchase mapped to checkout; phone/external_id normalization cannot be seen in a hash.
  '10-stape-sgtm-ga4-purchase-web.json': [ok()],
  // 11: emoji and quotes in contents are fine (UTF-8); the user agent "Mozilla/5.0 (Macintosh)" names one system
  // detail where seed 2.4 asks for two (C22): dropped with a warning, the event keeps its e-mail.
  '11-posthog-product-viewed-web-unicode-contents.json': [
    ok(
      UA_DROPPED(
        'it names 1 system detail(s); a user agent names at least 2 in parentheses, such as (Windows NT 10.0; Win64)',
      ),
    ),
  ],
  // 12: "custom" (accepted, C20); event_time 123 (1970); contents keys "price" (item_price suggested);
  // hashed_maids ["a","b"] unhashed (dropped); UA "Chrome"; content_ids match no contents[].id.
  '12-adobe-edge-custom-unhashed-maids-wrong-content-keys.json': [
    failed(
      [
        'event_time 123 (1970-01-01T00:02:03Z) is more than 7 days in the past; only events of the last 7 days are accepted.',
        'custom_data.contents[0].price is not a known field; remove it. Did you mean item_price?',
        'custom_data.contents[1].price is not a known field; remove it. Did you mean item_price?',
      ],
      [
        UA_DROPPED('it has no product/version token such as Mozilla/5.0'),
        HASH_DROPPED('user_data.hashed_maids[0]'),
        HASH_DROPPED('user_data.hashed_maids[1]'),
        NO_CONTENT(0, 'a'),
        NO_CONTENT(1, 'b'),
      ],
    ),
  ],
  // 13: seconds divided by 1000 (1970); user_data {} has no identifier; value 249.99 as a number.
  '13-walkeros-checkout-seconds-divided-by-1000-empty-user-data.json': [
    failed([TOO_OLD_1700001, NEEDS_IDENTIFIER, `${VALUE_TYPE('249.99')} Send "249.99".`], []),
  ],
  // 14: every hashed field a scalar (never echoed, C4), fn among them now that it is a field (C119); three
  // unknown custom_data keys; value 0 as a number, whose zero on a page_visit is named in a warning (C120).
  // Eleven errors: ten shown, then "and 1 more" (C3).
  '14-edgee-page-visit-scalar-hashes-extra-custom-keys.json': [
    failed(
      [
        ...['em', 'ph', 'fn', 'ln', 'ct', 'country', 'external_id'].map(SCALAR_HASH),
        'custom_data.page_name is not a known field; remove it.',
        'custom_data.page_title is not a known field; remove it.',
        'custom_data.page_category is not a known field; remove it.',
        `${VALUE_TYPE('0')} Send "0".`,
      ],
      [
        'custom_data.value should not be zero; received "0" on a page_visit event. Leave custom_data.value out when the event has no monetary value.',
      ],
    ),
  ],
  // 15: offline checkout; ZIP+4 and accent handling are normalization mistakes a hash cannot show.
  '15-activepieces-offline-checkout-store-sale.json': [ok()],
  // 16: app_android add_to_cart; language "en-US" from the locale is dropped.
  '16-rudderstack-v5-app-android-add-to-cart.json': [ok(LANGUAGE_EN_US)],
  // 17: one documented mistake per event (README table "17-mistakes-mixed-batch.json, event by event").
  '17-mistakes-mixed-batch.json': [
    // mix-0: control.
    ok(),
    // mix-1: "purchase" (GA4 name): invalid, nothing near.
    failed([INVALID_NAME('purchase')], []),
    // mix-2: "subscription" means subscribe (seed 2.2).
    failed([INVALID_NAME('subscription', 'subscribe')], []),
    // mix-3: milliseconds.
    failed(['event_time 1753257600512 is in milliseconds; send Unix seconds (1753257600).'], []),
    // mix-4: value as a number.
    failed([`${VALUE_TYPE('42')} Send "42".`], []),
    // mix-5: em unhashed and no IP/UA: the raw email is dropped (never echoed), leaving no identifier (C4).
    failed([`${NEEDS_IDENTIFIER} Dropped: user_data.em[0].`], [HASH_DROPPED('user_data.em[0]')]),
    // mix-6: action_source "app".
    failed(['action_source must be one of "web", "app_ios", "app_android", "offline"; received "app".'], []),
    // mix-7: "Order Completed", currency "usd", value "-5".
    failed(
      [
        INVALID_NAME('Order Completed'),
        'custom_data.currency must be an ISO-4217 currency code such as "USD"; received "usd". Send "USD".',
        'custom_data.value must be at least 0; received "-5".',
      ],
      [],
    ),
    // mix-8: event_time as a string.
    failed(['event_time must be the Unix time in seconds; received "1753257600". Send 1753257600.'], []),
  ],
  // 18: opt_out_type "LDP" is accepted and stored as "ldp" (C4); IPv6 client IP.
  '18-lead-ldp-opt-out-california.json': [ok()],

  // 19-33: real senders' bodies as their own tests and snapshots produce them (README rows 19-33).
  // 19: RudderStack v5 processor Tests 21 and 22 (one event each, the same messageId: C6 makes the second a
  // duplicate only because the two tests' bodies share this file); user agent "chrome" as in file 01.
  '19-rudderstack-v5-processor-custom-events-multi-value-arrays.json': [ok(CHROME), ok(CHROME, DUPLICATE(0))],
  // 20: RudderStack router Test 0 (v3), events 3-6 (0-2 are file 01's); "WatchVideo", the eventsMapping target
  // in Tag style, is not a name (watch_video suggested), and its contents have no ids.
  '20-rudderstack-router-v3-batch-search-signup-watchvideo.json': [
    ok(CHROME),
    ok(CHROME),
    ok(CHROME),
    failed(
      [INVALID_NAME('WatchVideo', 'watch_video')],
      [CHROME, NO_CONTENT(0, '507f1f77bcf86cd799439011'), NO_CONTENT(1, '505bd76785ebb509fc183733')],
    ),
  ],
  // 21: RudderStack processor v3 web tests, one event each (all share one messageId: the duplicates are of this
  // grouping); partner_name "testPartner" is not ss-<company> (dropped); Test 19 "custom event" as in file 02.
  '21-rudderstack-v3-processor-web-events.json': [
    ok(PARTNER_NAME('testPartner'), CHROME),
    ok(CHROME),
    ok(CHROME, DUPLICATE(0)),
    ok(CHROME),
    ok(CHROME),
    ok(CHROME),
    ok(CHROME, DUPLICATE(3)),
    ok(CHROME, DUPLICATE(3)),
    failed([INVALID_NAME('custom event', 'custom')], [CHROME]),
    ok(PARTNER_NAME('testPartner'), CHROME, DUPLICATE(0)),
  ],
  // 22: RudderStack processor v3 Tests 12-15 (adTrackingEnabled): 13 has no e-mail and UA "chrome", so no
  // identifier is left; 14 and 15 send placeholders ("Hashed phone", ...) as hashes, all dropped (C4).
  '22-rudderstack-v3-processor-ad-tracking-view-category.json': [
    ok(CHROME),
    failed([`${NEEDS_IDENTIFIER} Dropped: user_data.client_user_agent.`], [CHROME]),
    failed(
      [`${NEEDS_IDENTIFIER} Dropped: user_data.hashed_maids[0], user_data.client_user_agent.`],
      [
        ...['ph', 'db', 'ln', 'fn', 'ct', 'st', 'zp', 'country', 'hashed_maids', 'ge'].map((f) =>
          HASH_DROPPED(`user_data.${f}[0]`),
        ),
        CHROME,
      ],
    ),
    failed(
      [`${NEEDS_IDENTIFIER} Dropped: user_data.hashed_maids[0], user_data.client_user_agent.`],
      [
        ...['ph', 'db', 'ln', 'fn', 'ct', 'st', 'zp', 'country'].flatMap((f) =>
          [0, 1].map((i) => HASH_DROPPED(`user_data.${f}[${i}]`)),
        ),
        HASH_DROPPED('user_data.hashed_maids[0]'),
        HASH_DROPPED('user_data.ge[0]'),
        HASH_DROPPED('user_data.ge[1]'),
        CHROME,
      ],
    ),
  ],
  // 23-27: Segment's snapshot through its history: IP and user agent swapped in every one (file 05); their fn
  // is kept (C119).
  '23-segment-snapshot-2023-04-checkout-signup-empty-custom-data.json': [
    ok(SWAPPED_IP, SWAPPED_UA),
    ok(SWAPPED_IP, SWAPPED_UA),
  ],
  '24-segment-snapshot-2023-07-checkout-value-undefined-string.json': [
    failed([VALUE_TYPE('"undefined"')], [CURRENCY_USD, SWAPPED_IP, SWAPPED_UA]),
  ],
  '25-segment-snapshot-2023-10-checkout-value-string-num-items-integer.json': [
    ok(CURRENCY_USD, SWAPPED_IP, SWAPPED_UA),
  ],
  '26-segment-snapshot-2024-06-checkout-signup-click-id-partner-id.json': [
    ok(CURRENCY_USD, SWAPPED_IP, SWAPPED_UA),
    failed([VALUE_TYPE('"undefined"')], [CURRENCY_USD, SWAPPED_IP, SWAPPED_UA]),
  ],
  '27-segment-snapshot-2025-06-signup-empty-custom-data.json': [ok(SWAPPED_IP, SWAPPED_UA)],
  // 28: walkerOS's other step examples: 1970 times (file 13) and, but for signup, an empty user_data.
  '28-walkeros-step-examples-add-to-cart-page-visit-search-signup.json': [
    ...Array.from({ length: 3 }, () => failed([TOO_OLD_1700001, NEEDS_IDENTIFIER], [])),
    failed([TOO_OLD_1700001], []),
  ],
  // 29: WooCommerce's unit-test placeholders "Some IP address." and "Some user agent string." are both dropped,
  // which leaves no identifier; product ids are integers.
  '29-woocommerce-conversions-test-six-events.json': ((): Expected[] => {
    const noId = `${NEEDS_IDENTIFIER} Dropped: user_data.client_ip_address, user_data.client_user_agent.`;
    const dropped = [NOT_AN_IP, CHROME];
    const ids = (n: number) => [
      ...Array.from({ length: n }, (_, i) => NOT_A_STRING(`custom_data.content_ids[${i}]`, i + 1)),
      ...Array.from({ length: n }, (_, i) => NOT_A_STRING(`custom_data.contents[${i}].id`, i + 1)),
    ];
    // The integer ids fail (errors above) and are not also cross-checked against each other.
    return [
      failed([noId], dropped),
      failed([noId, ...ids(3)], dropped),
      failed([noId, ...ids(1)], dropped),
      failed([noId], dropped),
      failed([noId, ...ids(1)], dropped),
      failed([noId], dropped),
    ];
  })(),
  // 30: Pinterest's python-sdk integration test: two identical app_ios events, an e-mail only (C88 advice; the
  // second is a duplicate, C6). Pinterest answered both processed without a warning.
  '30-pinterest-python-sdk-test-success-two-identical-events.json': [
    ok(LOW_MATCH_APP),
    ok(LOW_MATCH_APP, DUPLICATE(0)),
  ],
  // 31: the same test with an unhashed e-mail: dropped, no identifier left (file 17 mix-5). Pinterest processed
  // both with a warning.
  '31-pinterest-python-sdk-test-fail-unhashed-email.json': Array.from({ length: 2 }, () =>
    failed([`${NEEDS_IDENTIFIER} Dropped: user_data.em[0].`], [HASH_DROPPED('user_data.em[0]')]),
  ),
  // 32: Cloudflare Zaraz's managed component: action_source "brie", every hash a scalar, "bd" for db,
  // opt_out_type "marketing", partner_name "Me" and np without an agreed partner (C23).
  '32-cloudflare-zaraz-lead-invalid-action-source-scalar-hashes.json': [
    failed(
      [
        'action_source must be one of "web", "app_ios", "app_android", "offline"; received "brie".',
        ...['em', 'hashed_maids', 'ph', 'ge', 'ln', 'fn', 'ct', 'st', 'zp', 'country', 'external_id'].map(
          SCALAR_HASH,
        ),
        'custom_data.opt_out_type must be one of "ldp"; received "marketing".',
      ],
      [
        PARTNER_NAME('Me'),
        'user_data.bd is not a known field and was dropped.',
        "custom_data.np was dropped: it is sent only by a partner, equal to the partner's partner_name (ss-<company>), and partner_name was dropped too (its own warning says why). Leave it out unless Pinterest agreed it with you.",
      ],
    ),
  ],
  // 33: Segment's current unit tests run through its own code (one body per test, grouped: the tests share
  // event_ids, hence the duplicates). User agent "5.5.5.5"; IP and user agent swapped where the test maps them so.
  '33-segment-unit-tests-latest-and-legacy-fifteen-bodies.json': [
    ok(SWAPPED_IP, SWAPPED_UA, CURRENCY_USD),
    ok(SWAPPED_IP, SWAPPED_UA),
    ok(SWAPPED_IP, SWAPPED_UA, CURRENCY_USD, DUPLICATE(0)),
    ok(SWAPPED_UA, LOW_MATCH_WEB, DUPLICATE(0)),
    ok(SWAPPED_IP, SWAPPED_UA, DUPLICATE(0)),
    ok(SWAPPED_IP, SWAPPED_UA, CURRENCY_USD, DUPLICATE(0)),
    ok(SWAPPED_UA),
    ok(SWAPPED_UA, DUPLICATE(6)),
    ok(SWAPPED_UA, DUPLICATE(6)),
    ok(SWAPPED_UA, CURRENCY_USD, LOW_MATCH_WEB, DUPLICATE(0)),
    ok(SWAPPED_UA, LOW_MATCH_WEB),
    ok(SWAPPED_UA),
    ok(SWAPPED_UA, LOW_MATCH_WEB),
    ok(SWAPPED_UA, LOW_MATCH_WEB, DUPLICATE(12)),
    ok(SWAPPED_UA, LOW_MATCH_WEB),
  ],
};

const join = (messages: string[]) =>
  messages.length === 0
    ? null
    : messages.length <= 10
      ? messages.join('; ')
      : `${messages.slice(0, 10).join('; ')}; and ${messages.length - 10} more`;

describe('integrator payloads (fixtures/integrator-payloads)', () => {
  it('the corpus is there: 33 bodies', () => {
    expect(files).toHaveLength(33);
  });

  it('has an expectation for every file of the corpus, and the corpus for every expectation', () => {
    const withEvents = files.filter((f) => Array.isArray(readPayload(f).data));
    expect(Object.keys(EXPECTED).sort()).toEqual(withEvents);
  });

  it.each(Object.entries(EXPECTED))('%s', (file, expected) => {
    const r = validateBatch(shifted(file), ctx);
    if (!r.ok) throw new Error(`${file} was refused: ${JSON.stringify(r.error)}`);
    expect(r.response).toEqual({
      num_events_received: expected.length,
      num_events_processed: expected.filter((e) => e.status === 'processed').length,
      events: expected.map((e) => ({
        status: e.status,
        error_message: join(e.errors),
        warning_message: join(e.warnings),
      })),
    });
    expect(
      r.problems.map((p) => ({
        errors: p.errors.map((x) => x.message),
        warnings: p.warnings.map((x) => x.message),
      })),
    ).toEqual(expected.map((e) => ({ errors: e.errors, warnings: e.warnings })));
    r.accepted.forEach((a, i) => {
      expect(a === null).toBe(expected[i]!.status === 'failed');
    });
  });

  it('04: a bare event without the data wrapper is refused as a request (C2)', () => {
    expect(
      validateBatch(readPayload('04-rudderstack-v5-processor-bare-event-no-data-wrapper.json'), ctx),
    ).toEqual({
      ok: false,
      status: 400,
      error: {
        code: 4196,
        message: 'The request was invalid.',
        details: [
          { path: 'data', problem: 'is missing; send the events as data: [ ... ]' },
          ...[
            'action_source',
            'advertiser_tracking_enabled',
            'opt_out',
            'event_name',
            'event_time',
            'event_id',
            'app_id',
            'user_data',
            'custom_data',
          ].map((path) => ({ path, problem: 'is not a field of the request body; only data is accepted' })),
        ],
      },
    });
  });

  it('what is accepted: values dropped by warnings are gone, normalized values replaced', () => {
    const r01 = validateBatch(shifted('01-rudderstack-router-v5-batch-multiplexed.json'), ctx);
    if (!r01.ok) throw new Error('refused');
    const u = r01.accepted[0]!.user_data as Json;
    // fn is a hashed field (C119): its digest is kept as sent.
    const sent = (readPayload('01-rudderstack-router-v5-batch-multiplexed.json').data as Json[])[0]!;
    expect(u.fn).toEqual((sent.user_data as Json).fn);
    expect(u.fn).toHaveLength(1);
    expect(u).not.toHaveProperty('client_user_agent');
    expect((r01.accepted[0]!.custom_data as Json).opt_out_type).toBe('ldp');
    const r18 = validateBatch(shifted('18-lead-ldp-opt-out-california.json'), ctx);
    if (!r18.ok) throw new Error('refused');
    expect((r18.accepted[0]!.custom_data as Json).opt_out_type).toBe('ldp');
    const r05 = validateBatch(shifted('05-segment-legacy-signup-value-undefined-string.json'), ctx);
    if (!r05.ok) throw new Error('refused');
    expect(r05.accepted).toEqual([null]);
  });

  it('01: "custom" is accepted without a registration and kept as sent (C20)', () => {
    const r = validateBatch(shifted('01-rudderstack-router-v5-batch-multiplexed.json'), ctx);
    if (!r.ok) throw new Error('refused');
    expect(r.response.num_events_processed).toBe(4);
    expect(r.accepted[3]!.event_name).toBe('custom');
  });

  // A clock after every file of the corpus (2027-01-15), so no test depends on the machine's clock.
  const LATER = 1_800_000_000;
  it.each(files.filter((f) => Array.isArray(readPayload(f).data)))(
    '%s as it is: historic times are too old',
    (file) => {
      const r = validateBatch(readPayload(file), { ...ctx, now: LATER });
      if (!r.ok) throw new Error('refused');
      const body = readPayload(file);
      (body.data as Json[]).forEach((e, i) => {
        const t = e.event_time;
        if (typeof t === 'number' && t >= 1e9 && t < 1e11)
          expect(r.problems[i]!.errors.map((p) => p.code)).toContain('event_time_too_old');
      });
    },
  );
});
