import { deflateSync, gzipSync } from 'node:zlib';

/**
 * Generated requests of every hostile category of issue 9 item 6 (C44), from a seeded PRNG so a run can be
 * replayed. `http` requests go through node:http on kept-alive sockets; `raw` ones are bytes written on a
 * connection of their own (what no HTTP client would send), `slow` ones trickle and `half` ones stop early.
 */
export type FuzzRequest =
  | {
      kind: 'http';
      category: string;
      method: string;
      path: string;
      headers: Record<string, string>;
      body?: Buffer;
      /** Event ids of a valid live batch: each must be stored if its answer says processed. */
      live?: boolean;
    }
  | {
      kind: 'raw';
      category: string;
      bytes: Buffer;
      /** `half`: the bytes, then nothing (the request stays open); `halfclose`: the bytes, then a FIN. */
      mode: RawMode;
      /** What the answer must be beyond the invariants of every request (C73). */
      expect?: RawExpectation;
    };

export type RawMode = 'whole' | 'slow' | 'half' | 'halfclose';

/**
 * `answer`: an answer must come (a close without one is a violation); `close`: the server closes the
 * connection after its answer.
 */
export interface RawExpectation {
  answer?: boolean;
  close?: boolean;
}

export interface Target {
  account: string;
  token: string;
  otherAccount: string;
  nowS: () => number;
}

const MiB = 1024 * 1024;
const BODY_MAX = 5 * MiB;

/** mulberry32: small, fast and good enough to pick cases. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export class Gen {
  #n = 0;
  constructor(
    readonly rnd: () => number,
    readonly t: Target,
    readonly runId: string,
  ) {}

  int(n: number): number {
    return Math.floor(this.rnd() * n);
  }
  pick<T>(xs: readonly T[]): T {
    return xs[this.int(xs.length)] as T;
  }
  id(): string {
    return `${this.runId}-${(this.#n++).toString(36)}`;
  }

  event(over: Record<string, unknown> = {}): Record<string, unknown> {
    return {
      event_name: 'checkout',
      action_source: 'web',
      event_time: this.t.nowS() - this.int(3600),
      event_id: this.id(),
      user_data: { em: ['a'.repeat(64)] },
      custom_data: { currency: 'USD', value: '12.50' },
      ...over,
    };
  }

  batch(n = 1 + this.int(5)): string {
    return JSON.stringify({ data: Array.from({ length: n }, () => this.event()) });
  }

  get eventsPath(): string {
    return `/v5/ad_accounts/${this.t.account}/events`;
  }

  json(
    body: string | Buffer,
    category: string,
    extra: Record<string, string> = {},
    live = false,
  ): FuzzRequest {
    return {
      kind: 'http',
      category,
      method: 'POST',
      path: this.eventsPath,
      headers: {
        authorization: `Bearer ${this.t.token}`,
        'content-type': 'application/json',
        ...extra,
      },
      body: typeof body === 'string' ? Buffer.from(body) : body,
      live,
    };
  }

  raw(
    bytes: string | Buffer,
    category: string,
    mode: RawMode = 'whole',
    expect?: RawExpectation,
  ): FuzzRequest {
    return {
      kind: 'raw',
      category,
      bytes: typeof bytes === 'string' ? Buffer.from(bytes, 'latin1') : bytes,
      mode,
      ...(expect ? { expect } : {}),
    };
  }

  rawPost(path: string, headers: Record<string, string | number>, body: Buffer | string): Buffer {
    const lines = Object.entries({ host: '127.0.0.1', ...headers }).map(([k, v]) => `${k}: ${v}`);
    return Buffer.concat([
      Buffer.from(`POST ${path} HTTP/1.1\r\n${lines.join('\r\n')}\r\n\r\n`, 'latin1'),
      typeof body === 'string' ? Buffer.from(body) : body,
    ]);
  }
}

type Case = (g: Gen) => FuzzRequest;

/** Big bodies are built once per key: building them per request would measure the client. */
const cache = new Map<string, Buffer>();
function once(key: string, make: () => string | Buffer): Buffer {
  let b = cache.get(key);
  if (!b) {
    const v = make();
    b = typeof v === 'string' ? Buffer.from(v) : v;
    cache.set(key, b);
  }
  return b;
}
const HEAVY = new Set<Case>();
function heavy(c: Case): Case {
  HEAVY.add(c);
  return c;
}

/** The categories of issue 9 item 6, each a list of cases picked at random. */
export const CATEGORIES: Record<string, Case[]> = {
  valid: [(g) => g.json(g.batch(), 'valid', {}, true)],

  malformed_json: [
    (g) => g.json(g.batch().slice(0, g.int(60)), 'malformed_json'),
    (g) => {
      const b = Buffer.from(g.batch());
      for (let i = 0; i < 1 + g.int(4); i++) b[g.int(b.length)] = g.int(256);
      return g.json(b, 'malformed_json');
    },
    (g) =>
      g.json(
        g.pick(['', ' ', 'null', '[]', '"x"', '{', '}', '{"data":', 'NaN', '{"data":[1,]}', '\u0000']),
        'malformed_json',
      ),
  ],

  deep_nesting: [
    (g) => {
      const d = g.pick([10, 100, 1000]);
      return g.json(
        once(`arr${d}`, () => `{"data":[${'['.repeat(d)}${']'.repeat(d)}]}`),
        'deep_nesting',
      );
    },
    heavy((g) => {
      const d = g.pick([100_000, 1_000_000]);
      return g.json(
        once(`arr${d}`, () => `{"data":[${'['.repeat(d)}${']'.repeat(d)}]}`),
        'deep_nesting',
      );
    }),
    (g) => {
      const d = g.pick([100, 1000]);
      return g.json(
        once(`obj${d}`, () => `{"data":[{"custom_data":${'{"a":'.repeat(d)}1${'}'.repeat(d)}}]}`),
        'deep_nesting',
      );
    },
    heavy((g) => {
      const d = g.pick([200_000, 500_000]);
      return g.json(
        once(`obj${d}`, () => `{"data":[{"custom_data":${'{"a":'.repeat(d)}1${'}'.repeat(d)}}]}`),
        'deep_nesting',
      );
    }),
    heavy((g) => {
      const n = g.pick([1000, 100_000]);
      return g.json(
        once(
          `keys${n}`,
          () => `{"data":[{${Array.from({ length: n }, (_, i) => `"k${i}":${i}`).join(',')}}]}`,
        ),
        'deep_nesting',
      );
    }),
  ],

  huge_values: [
    (g) =>
      g.json(
        JSON.stringify({ data: [g.event({ event_id: 'x'.repeat(g.pick([257, 10_000])) })] }),
        'huge_values',
      ),
    heavy((g) =>
      g.json(JSON.stringify({ data: [g.event({ event_id: 'x'.repeat(2 * MiB) })] }), 'huge_values'),
    ),
    (g) =>
      g.json(
        `{"data":[${JSON.stringify(g.event()).replace('"12.50"', g.pick(['1e308', '-1e308', '1e-400', '9007199254740993', '-0', '0.0000000000000000001', '1'.repeat(5000), '"NaN"', '"Infinity"', '"1e5"']))}]}`,
        'huge_values',
      ),
    (g) =>
      g.json(
        JSON.stringify({
          data: [
            g.event({
              custom_data: {
                num_items: g.pick([1e308, 2 ** 53 + 2, -1, 2 ** 53, 0.5]),
                value: '1',
                currency: 'USD',
              },
            }),
          ],
        }),
        'huge_values',
      ),
  ],

  unicode: [
    (g) =>
      g.json(
        JSON.stringify({
          data: [
            g.event({
              event_id: `${g.id()}${g.pick(['\u0000', '\u202e', '\ufeff', '\u{1f600}', 'é', '\u2028'])}`,
            }),
          ],
        }),
        'unicode',
      ),
    (g) =>
      g.json(
        `{"data":[${JSON.stringify(g.event()).replace(/"event_id":"([^"]*)"/, `"event_id":"$1${g.pick(['\\ud800', '\\udfff', '\\ud800\\u0041'])}"`)}]}`,
        'unicode',
      ),
    (g) => {
      const b = Buffer.from(JSON.stringify({ data: [g.event({ event_id: `${g.id()}-Z` })] }));
      const at = b.indexOf('-Z');
      const bad = g.pick([[0xff], [0xfe], [0xc0, 0xaf], [0xed, 0xa0, 0x80], [0xf4, 0x90, 0x80, 0x80]]);
      return g.json(Buffer.concat([b.subarray(0, at), Buffer.from(bad), b.subarray(at + 2)]), 'unicode');
    },
    (g) => g.json(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(g.batch())]), 'unicode'),
  ],

  prototype_keys: [
    (g) => g.json(`{"__proto__":{"admin":true},"data":[${JSON.stringify(g.event())}]}`, 'prototype_keys'),
    (g) =>
      g.json(
        `{"data":[${JSON.stringify(g.event()).replace('{', `{"${g.pick(['__proto__', 'constructor', 'prototype'])}":{"polluted":1},`)}]}`,
        'prototype_keys',
      ),
    (g) =>
      g.json(
        `{"data":[${JSON.stringify(g.event({ custom_data: { currency: 'USD', value: '1' } })).replace('"currency"', '"__proto__":{"value":"-5"},"currency"')}]}`,
        'prototype_keys',
      ),
  ],

  duplicate_keys: [
    (g) => g.json(`{"data":[],"data":[${JSON.stringify(g.event())}]}`, 'duplicate_keys'),
    (g) => {
      const e = JSON.stringify(g.event()).slice(0, -1);
      return g.json(
        `{"data":[${e},"user_data":{"em":["jane.doe@example.com"]},"event_id":"${g.id()}","custom_data":{"value":"-5","currency":"XXX"}}]}`,
        'duplicate_keys',
      );
    },
  ],

  encodings: [
    (g) => g.json(gzipSync(g.batch()), 'encodings', { 'content-encoding': 'gzip' }, true),
    (g) => g.json(deflateSync(g.batch()), 'encodings', { 'content-encoding': 'deflate' }, true),
    (g) =>
      g.json(g.batch(), 'encodings', {
        'content-encoding': g.pick(['br', 'zstd', 'gzip, gzip', 'compress', '*', 'identity;q=0']),
      }),
    (g) => g.json(g.batch(), 'encodings', { 'content-encoding': g.pick(['gzip', 'deflate']) }),
    heavy((g) => {
      const n = g.pick([BODY_MAX + 1, 20 * MiB]);
      return g.json(
        once(`bomb${n}`, () => gzipSync(Buffer.alloc(n, 0x20))),
        'encodings',
        { 'content-encoding': 'gzip' },
      );
    }),
    (g) => g.json(gzipSync(g.batch()).subarray(0, 20), 'encodings', { 'content-encoding': 'gzip' }),
  ],

  content_types: [
    (g) => {
      const r = g.json(g.batch(), 'content_types');
      const ct = g.pick([
        'text/plain',
        'application/json; charset=iso-8859-1',
        'application/json;charset=utf-16',
        'multipart/form-data; boundary=x',
        'application/jsonx',
        'application/json; charset="utf-8"',
        'APPLICATION/JSON',
        '',
        'application/x-www-form-urlencoded',
      ]);
      if (ct === '' && r.kind === 'http') delete r.headers['content-type'];
      else if (r.kind === 'http') r.headers['content-type'] = ct;
      return r;
    },
  ],

  sizes: [
    heavy((g) => {
      // A body of exactly the limit, or one byte past: padding after the JSON is whitespace.
      const b = g.batch(1);
      const size = g.pick([BODY_MAX, BODY_MAX + 1, BODY_MAX - 1]);
      return g.json(b + ' '.repeat(Math.max(0, size - b.length)), 'sizes');
    }),
    heavy((g) =>
      g.json(
        JSON.stringify({ data: Array.from({ length: g.pick([1000, 1001]) }, () => g.event()) }),
        'sizes',
        {},
        true,
      ),
    ),
    (g) =>
      g.json(
        JSON.stringify({ data: Array.from({ length: g.pick([20, 100]) }, () => g.event()) }),
        'sizes',
        {},
        true,
      ),
    (g) =>
      g.json(
        JSON.stringify({ data: [g.event({ event_id: 'i'.repeat(g.pick([256, 257])) + g.id() })] }),
        'sizes',
      ),
    (g) =>
      g.raw(
        g.rawPost(
          g.eventsPath,
          {
            authorization: `Bearer ${g.t.token}`,
            'content-type': 'application/json',
            'content-length': BODY_MAX + 1,
          },
          '',
        ),
        'sizes',
        'half',
      ),
  ],

  slow_and_half_sent: [
    (g) =>
      g.raw(
        g.rawPost(
          g.eventsPath,
          {
            authorization: `Bearer ${g.t.token}`,
            'content-type': 'application/json',
            'content-length': 1000,
          },
          '{"data":[',
        ),
        'slow_and_half_sent',
        'half',
      ),
    (g) =>
      g.raw(
        g.rawPost(
          g.eventsPath,
          { 'content-type': 'application/json', 'content-length': 3 * MiB },
          ' '.repeat(1000),
        ),
        'slow_and_half_sent',
        'half',
      ),
    (g) =>
      g.raw(
        g.rawPost(
          g.eventsPath,
          { authorization: `Bearer ${g.t.token}`, 'content-type': 'application/json', 'content-length': 200 },
          ' '.repeat(20),
        ),
        'slow_and_half_sent',
        'slow',
      ),
    (g) => g.raw(`POST ${g.eventsPath} HTTP/1.1\r\nHost: x\r\nContent-Le`, 'slow_and_half_sent', 'slow'),
    // Issue 19 N4 (C73): a body shorter than its Content-Length, then a half-close; a chunked body cut
    // before its last chunk, then a half-close; a bad chunk size. Each is answered 400, then closed.
    (g) =>
      g.raw(
        g.rawPost(
          g.eventsPath,
          {
            authorization: `Bearer ${g.t.token}`,
            'content-type': 'application/json',
            'content-length': g.pick([10, 1000, 100_000]),
          },
          '{"data":[',
        ),
        'slow_and_half_sent',
        'halfclose',
        { answer: true, close: true },
      ),
    (g) =>
      g.raw(
        g.rawPost(
          g.eventsPath,
          {
            authorization: `Bearer ${g.t.token}`,
            'content-type': 'application/json',
            'transfer-encoding': 'chunked',
          },
          g.pick(['5\r\n{"dat', '5\r\n{"dat\r\n', '9\r\n{"data":[\r\n3\r\n']),
        ),
        'slow_and_half_sent',
        'halfclose',
        { answer: true, close: true },
      ),
    (g) =>
      g.raw(
        g.rawPost(
          g.eventsPath,
          {
            authorization: `Bearer ${g.t.token}`,
            'content-type': 'application/json',
            'transfer-encoding': 'chunked',
          },
          g.pick([
            'zz\r\n{}\r\n0\r\n\r\n',
            '-1\r\n{}\r\n0\r\n\r\n',
            '2\r\n{}XX0\r\n\r\n',
            `${'f'.repeat(20)}\r\n`,
          ]),
        ),
        'slow_and_half_sent',
        'whole',
        { answer: true, close: true },
      ),
    (g) =>
      g.raw(
        g.rawPost(
          g.eventsPath,
          {
            authorization: `Bearer ${g.t.token}`,
            'content-type': 'application/json',
            'transfer-encoding': 'chunked',
          },
          '5\r\n{"dat',
        ),
        'slow_and_half_sent',
        'half',
      ),
  ],

  header_and_url_abuse: [
    (g) =>
      g.raw(`GET /${'u'.repeat(g.pick([9000, 20_000]))} HTTP/1.1\r\nHost: x\r\n\r\n`, 'header_and_url_abuse'),
    (g) =>
      g.raw(
        `POST /v5/ad_accounts/${'9'.repeat(g.pick([101, 8000]))}/events HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n`,
        'header_and_url_abuse',
        'whole',
        { answer: true, close: true },
      ),
    // Issue 19 N9 (C73): a 414 with a body behind it closes (the body is not read as a next request); no
    // Host; a request line that is no request.
    (g) =>
      g.raw(
        g.rawPost(
          `/v5/ad_accounts/${'9'.repeat(g.pick([101, 8000]))}/events`,
          { authorization: `Bearer ${g.t.token}`, 'content-type': 'application/json', 'content-length': 11 },
          '{"data":[]}',
        ),
        'header_and_url_abuse',
        'whole',
        { answer: true, close: true },
      ),
    (g) =>
      g.raw(
        g.pick([
          'GET /healthz HTTP/1.1\r\n\r\n',
          `POST ${g.eventsPath} HTTP/1.1\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}`,
          'GARBAGE\r\n\r\n',
          'GARBAGE',
          'G\r\n\r\n',
          `${'A'.repeat(40)} / HTTP/1.1\r\nHost: x\r\n\r\n`,
        ]),
        'header_and_url_abuse',
        'halfclose',
        { answer: true, close: true },
      ),
    (g) =>
      g.raw(
        `GET /healthz HTTP/1.1\r\nHost: x\r\n${Array.from({ length: g.pick([100, 2000]) }, (_, i) => `X-H${i}: v`).join('\r\n')}\r\n\r\n`,
        'header_and_url_abuse',
      ),
    (g) =>
      g.raw(
        g.pick([
          'GARBAGE\r\n\r\n',
          'GET / HTTP/9.9\r\n\r\n',
          'FROB / HTTP/1.1\r\nHost: x\r\n\r\n',
          'CONNECT a:443 HTTP/1.1\r\nHost: a:443\r\n\r\n',
          'GET /healthz HTTP/1.1\r\nBad Header\r\n\r\n',
          'GET /\x00 HTTP/1.1\r\n\r\n',
          '\r\n\r\n\r\n',
        ]),
        'header_and_url_abuse',
      ),
    (g) =>
      g.raw(
        g.rawPost(
          g.eventsPath,
          {
            authorization: `Bearer ${g.t.token}`,
            'content-type': 'application/json',
            'content-length': g.pick(['abc', '-1', '1, 2', '99999999999999999999']),
          },
          '{}',
        ),
        'header_and_url_abuse',
      ),
    (g) =>
      g.raw(
        `POST ${g.eventsPath} HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n{}`,
        'header_and_url_abuse',
      ),
    (g) =>
      g.raw(
        `GET ${g.pick(['/docs/%25', '/docs/%', '/docs/..%2f..%2fetc/passwd', '/docs/%00', '/docs/%c0%af', '/docs/' + '%2e'.repeat(50), '/openapi.yaml?x=%zz', '/healthz?%zz=1', '/v5/ad_accounts/%zz/events'])} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`,
        'header_and_url_abuse',
      ),
    (g) => {
      const r = g.json(g.batch(), 'header_and_url_abuse');
      if (r.kind === 'http')
        r.headers.authorization = g.pick([
          'Bearer',
          'Bearer  x',
          'Basic abc',
          `Bearer ${'t'.repeat(8000)}`,
          `bearer ${g.t.token}`,
          '',
        ]);
      return r;
    },
    (g) => {
      const r = g.json(g.batch(), 'header_and_url_abuse');
      if (r.kind === 'http')
        r.path = `/v5/ad_accounts/${g.t.otherAccount}/events?${g.pick(['test=maybe', 'test=true&test=false', 'is_test=1', `x=${'q'.repeat(3000)}`])}`;
      return r;
    },
  ],
};

/** Picks a category (valid requests are a fifth of the mix, so acknowledged rows are many) and a case. */
export function nextRequest(g: Gen, heavy = true): FuzzRequest {
  const names = Object.keys(CATEGORIES);
  const category = g.rnd() < 0.2 ? 'valid' : g.pick(names);
  const cases = CATEGORIES[category] as Case[];
  // Heavy cases cost the client as much as the server: one request in ten of their category.
  const light = cases.filter((c) => !HEAVY.has(c));
  return g.pick(heavy && g.rnd() < 0.1 ? cases : light.length ? light : cases)(g);
}
