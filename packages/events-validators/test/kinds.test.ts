/** The runtime of the rule kinds (src/lib), against independent oracles where one exists. */
import { isIP } from 'node:net';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { validateBatch, validateEvent } from '../src/index.js';
import { codePoints } from '../src/lib/bounds.js';
import { isDecimal } from '../src/lib/decimal.js';
import { ipProblem, isIp } from '../src/lib/ip.js';
import { cut, joinMessages, type Problem, pathOf, received } from '../src/lib/problems.js';
import { digestState, forgetDigests, hexState } from '../src/lib/sha256-hex.js';
import { nearest, osaDistance } from '../src/lib/suggest.js';
import { duration, isoTime } from '../src/lib/unix-seconds.js';
import { urlMatcher } from '../src/lib/url.js';
import { sha256 } from './helpers.js';

describe('sha256-hex: hexState', () => {
  const oracle = (s: string) => (/^[0-9a-fA-F]{64}$/.test(s) ? (/[A-F]/.test(s) ? 2 : 1) : 0);

  it.each([
    [sha256('a'), 1],
    [sha256('a').toUpperCase(), 2],
    [sha256('a').slice(1), 0],
    [`${sha256('a')}0`, 0],
    [`${sha256('a').slice(1)}g`, 0],
    ['Buyer@Example.com', 0],
    ['é'.repeat(64), 0],
    ['', 0],
  ])('%j -> %i', (s, expected) => {
    expect(hexState(s)).toBe(expected);
  });

  it('agrees with a regular expression for every UTF-16 code unit at the first and last position', () => {
    const base = sha256('x');
    for (let c = 0; c < 65536; c += 1) {
      const ch = String.fromCharCode(c);
      for (const s of [ch + base.slice(1), base.slice(0, 63) + ch])
        if (hexState(s) !== oracle(s)) throw new Error(`code ${c}`);
    }
  });

  it('agrees with a regular expression on generated strings (fast-check)', () => {
    const near = fc.string({
      unit: fc.constantFrom(...'0123456789abcdefABCDEFgG@`/:\u0010\u0019 é'),
      minLength: 63,
      maxLength: 65,
    });
    fc.assert(
      fc.property(near, (s) => hexState(s) === oracle(s)),
      { numRuns: 2000 },
    );
  });

  it('digestState (with the digests of the batch kept) always answers as hexState', () => {
    const near = fc.string({
      unit: fc.constantFrom(...'0123456789abcdefABCDEFg'),
      minLength: 64,
      maxLength: 64,
    });
    // Strings sharing their first characters meet in the same slot of the table, good or not.
    const prefixed = fc.tuple(fc.constantFrom('000', 'abc', 'ABC'), near).map(([a, b]) => a + b.slice(3));
    fc.assert(
      fc.property(fc.array(fc.oneof(near, prefixed), { maxLength: 40 }), fc.boolean(), (xs, forget) => {
        if (forget) forgetDigests();
        // Each string twice, the second time as another string object with the same characters.
        for (const s of [...xs, ...xs.map((x) => [...x].join(''))])
          if (digestState(s) !== hexState(s)) return false;
        return true;
      }),
      { numRuns: 500 },
    );
  });
});

describe('ip-address: isIp and ipProblem', () => {
  it('agrees with node:net isIP, except zone ids, which a client IP never carries', () => {
    fc.assert(
      fc.property(fc.oneof(fc.ipV4(), fc.ipV4Extended(), fc.ipV6(), fc.string({ maxLength: 20 })), (s) => {
        const expected = isIP(s) !== 0 && !s.includes('%');
        expect(isIp(s)).toBe(expected);
      }),
      { numRuns: 2000 },
    );
  });

  it.each([
    ['198.51.100.10', undefined],
    ['2001:db8:85a3::8a2e:370:7334', undefined],
    ['::ffff:192.0.2.1', undefined],
    ['0.0.0.0', 'an all-zeros address is not a client IP'],
    ['0:0:0:0:0:0:0:0', 'an all-zeros address is not a client IP'],
    ['01.2.3.4', 'it is not a valid IPv4 or IPv6 address'],
    ['fe80::1%eth0', 'it is not a valid IPv4 or IPv6 address'],
    ['Mozilla/5.0 (X11)', 'it is a user agent, not an IP address'],
  ])('%j -> %j', (s, reason) => {
    expect(ipProblem(s)).toBe(reason);
  });
});

describe('url: urlMatcher', () => {
  const re = urlMatcher(['http', 'https']);
  it.each([
    ['https://shop.example.com/checkout/thank-you?epik=abc', true],
    ['http://a.b', true],
    ['HTTP://A.B/', true],
    ['https://user:pw@shop.example.com:8443/x#y', true],
    ['https://[2001:db8::1]/x', true],
    ['https://bücher.example/', true],
    ['https://a.example:65535/', true],
    ['https://a.example:65536/', false],
    ['https: //www.my-clothing-shop.org/', false],
    ['https:/a.example', false],
    ['https://', false],
    ['https://a b.example/', false],
    ['https://a.example/\tx', false],
    ['mailto:x@example.com', false],
    ['ftp://a.example', false],
    ['//a.example/x', false],
    ['httpx://a.example', false],
  ])('%j -> %s', (s, expected) => {
    expect(re.test(s)).toBe(expected);
  });

  it('accepts what fast-check calls a web URL, and what the URL parser then keeps as an http(s) URL', () => {
    fc.assert(
      fc.property(
        fc.webUrl({ validSchemes: ['http', 'https'], withQueryParameters: true, withFragments: true }),
        (u) => {
          expect(re.test(u)).toBe(true);
          expect(['http:', 'https:']).toContain(new URL(u).protocol);
        },
      ),
      { numRuns: 1000 },
    );
  });
});

describe('decimal-string: isDecimal', () => {
  it.each([
    ['42', true],
    ['42.00', true],
    ['.5', true],
    ['-5', true],
    ['+3', true],
    ['0', true],
    ['5.', false],
    ['.', false],
    ['-', false],
    ['', false],
    ['1e3', false],
    ['1,000', false],
    [' 42', false],
    ['NaN', false],
    ['Infinity', false],
    ['[27.5,123]', false],
  ])('%j -> %s', (s, expected) => {
    expect(isDecimal(s)).toBe(expected);
  });

  it('accepts exactly what a plain decimal regular expression accepts (fast-check)', () => {
    const plain = /^[+-]?(?:\d+(?:\.\d+)?|\.\d+)$/;
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom(...'0123456789.+-e '), maxLength: 8 }), (s) => {
        expect(isDecimal(s)).toBe(plain.test(s));
      }),
      { numRuns: 2000 },
    );
  });
});

describe('suggestions: osaDistance and nearest', () => {
  it.each([
    ['', '', 0],
    ['abc', '', 3],
    ['checkout', 'checkout', 0],
    ['chekcout', 'checkout', 1],
    ['subscription', 'subscribe', 5],
    ['subscript', 'subscribe', 2],
    ['ca', 'abc', 3],
  ])('osaDistance(%j, %j) = %i', (a, b, d) => {
    expect(osaDistance(a, b)).toBe(d);
  });

  it('is symmetric and stops early past a limit (fast-check)', () => {
    fc.assert(
      fc.property(
        fc.string({ maxLength: 12 }),
        fc.string({ maxLength: 12 }),
        fc.nat({ max: 4 }),
        (a, b, limit) => {
          const d = osaDistance(a, b);
          expect(osaDistance(b, a)).toBe(d);
          expect(osaDistance(a, b, limit)).toBe(d <= limit ? d : limit + 1);
        },
      ),
      { numRuns: 1000 },
    );
  });

  it.each([
    ['subscription', 'subscribe'],
    ['Checkout', 'checkout'],
    ['signed up', 'signup'],
    ['AddToCart', 'add_to_cart'],
    ['cart', 'add_to_cart'],
    ['purchase', undefined],
    ['Order Completed', undefined],
    ['custom', 'custom'],
    ['Custom', 'custom'],
  ])('nearest(%j) among standard names = %j', async (name, expected) => {
    const { STANDARD_EVENT_NAMES } = await import('@org/events-types');
    expect(nearest(name, STANDARD_EVENT_NAMES, 3)).toBe(expected);
  });

  it('does not suggest a two-letter key for another (fn is not near ln, seed 2.4)', () => {
    expect(nearest('fn', ['em', 'ln', 'ph'], 3)).toBeUndefined();
    expect(nearest('price', ['id', 'item_price', 'quantity'], 3)).toBe('item_price');
  });
});

describe('messages (C3)', () => {
  const p = (message: string): Problem => ({ path: '', code: 'hash_dropped', message });

  it('joins with "; ", null when empty, at most 10 then "and N more"', () => {
    expect(joinMessages([])).toBeNull();
    expect(joinMessages([p('a.')])).toBe('a.');
    expect(joinMessages([p('a.'), p('b.')])).toBe('a.; b.');
    const twelve = Array.from({ length: 12 }, (_, k) => p(`m${k}`));
    expect(joinMessages(twelve)).toBe('m0; m1; m2; m3; m4; m5; m6; m7; m8; m9; and 2 more');
    expect(joinMessages(twelve.slice(0, 10))).toBe('m0; m1; m2; m3; m4; m5; m6; m7; m8; m9');
  });

  it('quotes what was received as JSON cut to 60 characters, never inside a surrogate pair', () => {
    expect(received('usd')).toBe('"usd"');
    expect(received(42)).toBe('42');
    expect(received(null)).toBe('null');
    expect(received({ a: [1] })).toBe('{"a":[1]}');
    expect(received('x'.repeat(100))).toBe(`"${'x'.repeat(58)}…`);
    expect(received('x'.repeat(100))).toHaveLength(60);
    expect(cut(`${'x'.repeat(57)}🥾🥾`)).toBe(`${'x'.repeat(57)}🥾…`);
    expect(cut(`${'x'.repeat(58)}🥾🥾`)).toBe(`${'x'.repeat(58)}…`);
    expect(received(undefined)).toBe('undefined');
  });

  it('builds paths only when a problem is reported', () => {
    expect(pathOf('', -1, 'event_id', -1)).toBe('event_id');
    expect(pathOf('user_data', -1, 'em', 0)).toBe('user_data.em[0]');
    expect(pathOf('custom_data.contents', 1, 'item_price', -1)).toBe('custom_data.contents[1].item_price');
    expect(pathOf('user_data', -1, '', -1)).toBe('user_data');
  });

  it('counts characters as code points, as JSON Schema does', () => {
    expect(codePoints('🥾🥾')).toBe(2);
    expect(codePoints('\ud83e')).toBe(1);
    expect(codePoints('abc')).toBe(3);
  });

  it('says limits in words and times in UTC', () => {
    expect(duration(604800)).toBe('7 days');
    expect(duration(300)).toBe('5 minutes');
    expect(duration(3600)).toBe('1 hour');
    expect(duration(90)).toBe('90 seconds');
    expect(isoTime(1753257600)).toBe('2025-07-23T08:00:00Z');
    expect(isoTime(-1e300)).toBe('out of range');
  });
});

describe('user-agent: two items from each information category (seed 2.4, C22)', () => {
  const event = (ua: string) => ({
    event_name: 'lead',
    action_source: 'web',
    event_time: 1_800_000_000,
    event_id: 'ua-1',
    user_data: { em: ['a'.repeat(64)], client_user_agent: ua },
  });
  const dropped = (ua: string) =>
    validateEvent(event(ua), { now: 1_800_000_000, currency: 'USD' }).warnings.find(
      (w) => w.code === 'invalid_user_agent_dropped',
    )?.message;
  it.each([
    [
      'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36',
      undefined,
    ],
    [
      'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148',
      undefined,
    ],
    ['Dalvik/2.1.0 (Linux; U; Android 14; SM-S918B Build/UP1A.231005.007)', undefined],
    ['MyShop/3.2 (iPad; iOS 17.4)', undefined],
    [
      'Mozilla/5.0 (Macintosh)',
      'it names 1 system detail(s); a user agent names at least 2 in parentheses, such as (Windows NT 10.0; Win64)',
    ],
    [
      'Mozilla/5.0 (X11; ) Firefox/128.0',
      'it names 1 system detail(s); a user agent names at least 2 in parentheses, such as (Windows NT 10.0; Win64)',
    ],
    [
      'Mozilla/5.0',
      'it names 0 system detail(s); a user agent names at least 2 in parentheses, such as (Windows NT 10.0; Win64)',
    ],
    ['chrome', 'it has no product/version token such as Mozilla/5.0'],
    // C85: the software category names the browser or app, not only the compatibility token.
    [
      'Mozilla/5.0 (X11; Linux x86_64)',
      'it names no browser or app, only Mozilla/5.0; a user agent names its browser with its version, such as Chrome/126.0',
    ],
    [
      'mozilla/5.0 (Windows NT 10.0; Win64) Mozilla/4.0',
      'it names no browser or app, only mozilla/5.0, Mozilla/4.0; a user agent names its browser with its version, such as Chrome/126.0',
    ],
    ['Mozilla/5.0 (X11; Linux x86_64) Firefox/128.0', undefined],
  ])('%j', (ua, reason) => {
    expect(dropped(ua)).toBe(
      reason === undefined
        ? undefined
        : `user_data.client_user_agent was dropped: ${reason}. Send the full User-Agent header of the browser.`,
    );
  });
});

describe('agrees-with: np only with a value agreed for partner_name (seed 2.5, C23)', () => {
  const now = 1_800_000_000;
  const run = (partner: string | undefined, np: unknown) => {
    const r = validateBatch(
      {
        data: [
          {
            event_name: 'lead',
            action_source: 'web',
            event_time: now,
            event_id: 'np-1',
            user_data: { em: ['a'.repeat(64)] },
            ...(partner === undefined ? {} : { partner_name: partner }),
            custom_data: { np, num_items: 1 },
          },
        ],
      },
      { now, currency: 'USD' },
    );
    if (!r.ok) throw new Error('refused');
    const event = r.accepted[0] as { custom_data?: Record<string, unknown> } | null;
    const warning = r.problems[0]?.warnings.find((w) => w.code === 'disagreeing_field_dropped');
    return { kept: event?.custom_data?.np, status: r.response.events[0]?.status, message: warning?.message };
  };
  const why = (agreed: string) =>
    `custom_data.np was dropped: it is sent only by a partner, equal to the partner's partner_name (ss-<company>), and partner_name ${agreed}. Leave it out unless Pinterest agreed it with you.`;
  it.each([
    ['ss-shopify', 'ss-shopify', 'ss-shopify', undefined],
    ['ss-shopify', 'SS-Shopify', 'SS-Shopify', undefined],
    [undefined, 'ss-shopify', undefined, why('is absent')],
    ['direct', 'direct', undefined, why('is "direct"')],
    ['ss-a', 'ss-b', undefined, why('is "ss-a"')],
    // Sent, but not a partner name: dropped by its own warning, which this one points to rather than call it absent.
    ['Me', 'ss-b', undefined, why('was dropped too (its own warning says why)')],
  ])('partner_name %j, np %j: np kept as %j', (partner, np, kept, message) => {
    expect(run(partner, np)).toEqual({ kept, status: 'processed', message });
  });
  it('an np of the wrong type fails on its type alone', () => {
    expect(run('ss-a', 5)).toMatchObject({ status: 'failed', message: undefined });
  });
});
