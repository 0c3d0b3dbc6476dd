// C125 (issue 39): an ad account with `hash_user_data: true` takes raw user data and hashes it on arrival, with
// the client's normalization (C5). Real servers over real HTTP: the gateway (SQLite file, every body logged, a
// Conversions API sink), its upstream (this server again, as in the delivery tests) and, for the worker path,
// a gateway whose every batch is prepared on a validation thread. The expected digests are computed here with
// node:crypto from literal normalized strings, not with the code under test. A raw value is then searched for
// in the gateway's files, every admin answer (exports included), its logs and the upstream's store.
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { PROBLEM_CODES } from '@org/events-types';
import { hashUserDataInPlace, normalize, validateBatch, validateEvent } from '@org/events-validators';
import fc from 'fast-check';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../src/config/config-error.js';
import { configFromObject } from '../src/config/load.js';
import { ManualClock, type RunningServer, startServer } from '../src/index.js';
import { type KeptBody, prepareBatch } from '../src/pipeline/prepare.js';
import { A, B, event, T, testConfig } from './support/fixtures.js';
import { type Harness, startHarness, T0 } from './support/server.js';

const hex = (s: string) => createHash('sha256').update(s, 'utf8').digest('hex');

/** What a sender that cannot hash sends, and what C5 makes of each (written out, not computed). */
const RAW = {
  em: '  Jane.Gateway@Example.COM ',
  ph: '+1 (415) 555-0142',
  // A decomposed ë: NFC makes it one code point.
  fn: ' Zoe\u0308 ',
  ln: 'MÜLLER-Gateway',
};
const NORMALIZED = {
  em: 'jane.gateway@example.com',
  ph: '14155550142',
  fn: 'zo\u00eb',
  ln: 'müller-gateway',
};
/** Values C5 cannot normalize: an e-mail address without @, a phone number without digits. */
const UNUSABLE = { em: 'nobody-at-gateway.example', ph: 'PHONE-NONE-GATEWAY' };
/** Everything that must be found nowhere (the trimmed forms too, and the normalized ones: only digests go on). */
const SECRETS = [
  ...Object.values(RAW).map((v) => v.trim()),
  ...Object.values(NORMALIZED),
  ...Object.values(UNUSABLE),
];

function expectNoSecret(where: string, text: string) {
  const lower = text.toLowerCase();
  const found = SECRETS.filter((s) => lower.includes(s.toLowerCase()));
  expect(found, `raw values in ${where}`).toEqual([]);
}

/** The gateway's account A hashes; B is as every account is by default. */
function gatewayConfig(extra: Record<string, unknown> = {}): Record<string, unknown> {
  const config = testConfig();
  const accounts = config.ad_accounts as Record<string, unknown>[];
  return {
    ...config,
    ad_accounts: accounts.map((a) => (a.id === A ? { ...a, hash_user_data: true } : a)),
    request_log: { bodies: 'all' },
    ...extra,
  };
}

const rawUserData = (over: Record<string, unknown> = {}) => ({
  ...(event(0).user_data as Record<string, unknown>),
  em: [RAW.em],
  ph: [RAW.ph],
  fn: [RAW.fn],
  ln: [RAW.ln],
  ...over,
});

async function until(done: () => Promise<boolean>): Promise<void> {
  while (!(await done())) await new Promise((r) => setTimeout(r, 50));
}

describe('an account with hash_user_data: true', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ems-gateway-'));
  const clock = new ManualClock(T0);
  const logs: string[] = [];
  let upstream: RunningServer;
  let gateway: Harness;
  const rid: Record<string, string> = {};
  const answers: Record<string, { status: number; body: unknown }> = {};

  beforeAll(async () => {
    writeFileSync(join(dir, 'token'), `${T.convA}\n`);
    upstream = await startServer({
      config: testConfig(),
      db: join(dir, 'upstream.db'),
      clock,
      docs: false,
      inspector: false,
      transport: { shutdownGraceSeconds: 0 },
    });
    const logger = pino(
      { level: 'trace' },
      new Writable({
        write(chunk, _enc, done) {
          logs.push(String(chunk));
          done();
        },
      }),
    );
    gateway = await startHarness({
      clock,
      db: join(dir, 'gateway.db'),
      logger,
      config: gatewayConfig({
        delivery: {
          sinks: [
            {
              name: 'pinterest',
              kind: 'conversions_api',
              url: upstream.url,
              ad_accounts: [A],
              token_file: join(dir, 'token'),
            },
          ],
          retry_base_ms: 20,
        },
      }),
    });
    const now = gateway.nowS();
    const send = async (name: string, account: string, token: string, data: unknown[]) => {
      const r = await gateway.send(account, token, data);
      rid[name] = r.headers.get('x-pinterest-rid') as string;
      answers[name] = { status: r.status, body: r.body };
    };
    await send('hashed', A, T.convA, [event(now, { event_id: 'g-hashed', user_data: rawUserData() })]);
    await send('plain', B, T.convB, [event(now, { event_id: 'g-plain', user_data: rawUserData() })]);
    await send('unusable', A, T.convA, [
      event(now, {
        event_id: 'g-unusable',
        user_data: rawUserData({ em: [UNUSABLE.em], ph: [UNUSABLE.ph, RAW.ph] }),
      }),
    ]);
    await send('prehashed', A, T.convA, [
      event(now, {
        event_id: 'g-prehashed',
        user_data: rawUserData({ em: [hex(NORMALIZED.em)], ph: [hex(NORMALIZED.ph).toUpperCase()] }),
      }),
    ]);
    const plainUserData = event(0).user_data as Record<string, unknown>;
    await send('batch', A, T.convA, [
      event(now, {
        event_id: 'g-b0',
        user_data: { ...plainUserData, em: ['a@gateway.test'], ph: ['+1 555 0100'] },
      }),
      event(now, {
        event_id: 'g-b1',
        user_data: { ...plainUserData, em: ['b@gateway.test'], ph: ['+1 555 0101'] },
      }),
      event(now, { event_id: 'g-b2', user_data: { ...plainUserData, fn: ['Ann'] } }),
    ]);
    const outbox = gateway.server.store as unknown as { outboxStats(): Promise<unknown[]> };
    await until(async () => (await outbox.outboxStats()).length === 0);
  }, 60_000);

  afterAll(async () => {
    await gateway?.close();
    await upstream?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const storedUserData = async (server: { url: string }, eventId: string) => {
    const r = await fetch(`${server.url}/admin/events?ad_account_id=${A}&event_id=${eventId}`, {
      headers: { authorization: `Bearer ${T.admin}` },
    });
    const body = (await r.json()) as { items: { event: { user_data: Record<string, unknown> } }[] };
    expect(body.items).toHaveLength(1);
    return body.items[0]?.event.user_data;
  };

  it('processes raw em, ph, fn and ln with no warning and stores the SHA-256 of the normalized values', async () => {
    expect(answers.hashed).toEqual({
      status: 200,
      body: {
        num_events_received: 1,
        num_events_processed: 1,
        events: [{ status: 'processed', error_message: null, warning_message: null }],
      },
    });
    expect(await storedUserData(gateway, 'g-hashed')).toMatchObject({
      em: [hex('jane.gateway@example.com')],
      ph: [hex('14155550142')],
      fn: [hex('zo\u00eb')],
      ln: [hex('müller-gateway')],
    });
  });

  it('forwards the digests: the upstream stores what the gateway stored', async () => {
    expect(await storedUserData(upstream, 'g-hashed')).toEqual(await storedUserData(gateway, 'g-hashed'));
    expect(await storedUserData(upstream, 'g-prehashed')).toMatchObject({
      em: [hex(NORMALIZED.em)],
      ph: [hex(NORMALIZED.ph)],
    });
  });

  it('passes digests through, and answers the same event on an account without the setting exactly as before', async () => {
    expect(answers.prehashed?.body).toEqual(answers.hashed?.body);
    const now = Math.floor(T0 / 1000);
    const expected = validateBatch(
      { data: [event(now, { event_id: 'g-plain', user_data: rawUserData() })] },
      { now, currency: 'EUR' },
    );
    expect(expected.ok).toBe(true);
    expect(answers.plain).toEqual({ status: 200, body: (expected as { response: unknown }).response });
    const plain = answers.plain as { body: { events: { warning_message: string }[] } };
    const warning = plain.body.events[0]?.warning_message;
    for (const f of ['em', 'ph', 'fn', 'ln'])
      expect(warning).toContain(`user_data.${f}[0] is not a SHA-256 hex digest`);
  });

  it('drops a value it cannot normalize with a warning that says why, and keeps nothing of it', async () => {
    const reasons = PROBLEM_CODES.not_normalizable_dropped.reasons;
    expect(answers.unusable).toEqual({
      status: 200,
      body: {
        num_events_received: 1,
        num_events_processed: 1,
        events: [
          {
            status: 'processed',
            error_message: null,
            warning_message: `user_data.em[0] could not be normalized for hashing and was dropped: ${reasons.email}. Nothing of it is kept.; user_data.ph[0] could not be normalized for hashing and was dropped: ${reasons.phone}. Nothing of it is kept.`,
          },
        ],
      },
    });
    const stored = await storedUserData(gateway, 'g-unusable');
    expect(stored?.em).toBeUndefined();
    expect(stored?.ph).toEqual([hex(NORMALIZED.ph)]);
  });

  it('the request log keeps the digests and says which fields the service hashed', async () => {
    const r = await gateway.call('GET', `/admin/requests/${rid.hashed}`, { token: T.admin });
    expect(r.status).toBe(200);
    expect(r.body.warned).toBe(0);
    const [item] = r.body.items;
    expect(item.event.user_data).toMatchObject({
      em: [hex(NORMALIZED.em)],
      ph: [hex(NORMALIZED.ph)],
      fn: [hex(NORMALIZED.fn)],
      ln: [hex(NORMALIZED.ln)],
    });
    expect(item.fields).toEqual(['user_data.em', 'user_data.ph', 'user_data.fn', 'user_data.ln']);
    expect(item.warning_message).toBe(
      'Normalized and hashed by this service on arrival (hash_user_data): user_data.em, user_data.ph, user_data.fn, user_data.ln, in this event. The raw values were not kept.',
    );
    const unusable = await gateway.call('GET', `/admin/requests/${rid.unusable}`, { token: T.admin });
    // The note first, then the answer's warning as the client received it.
    const answered = answers.unusable as { body: { events: { warning_message: string }[] } };
    expect(unusable.body.items[0].warning_message).toBe(
      `Normalized and hashed by this service on arrival (hash_user_data): user_data.ph, user_data.fn, user_data.ln, in this event. The raw values were not kept.; ${answered.body.events[0]?.warning_message}`,
    );
    expect(unusable.body.items[0].event.user_data.em).toEqual(['(not kept: a string of 25 character(s))']);
    expect(unusable.body.items[0].event.user_data.ph).toEqual([
      '(not kept: a string of 18 character(s))',
      hex(NORMALIZED.ph),
    ]);
    // A digest sent as such is nothing the service hashed: only ln and fn were raw.
    const prehashed = await gateway.call('GET', `/admin/requests/${rid.prehashed}`, { token: T.admin });
    expect(prehashed.body.items[0].fields).toEqual(['user_data.fn', 'user_data.ln']);
    // An account without the setting logs no note.
    const plain = await gateway.call('GET', `/admin/requests/${rid.plain}`, { token: T.admin });
    expect(plain.body.items[0].warning_message).not.toContain('hashed by this service');
  });

  it('one note per list of hashed fields in a request, on its first event, counting the others', async () => {
    const r = await gateway.call('GET', `/admin/requests/${rid.batch}`, { token: T.admin });
    expect(r.body.warned).toBe(0);
    expect(
      r.body.items.map((i: { index: number; warning_message: string | null; fields: string[] }) => [
        i.index,
        i.warning_message,
        i.fields,
      ]),
    ).toEqual([
      [
        0,
        'Normalized and hashed by this service on arrival (hash_user_data): user_data.em, user_data.ph, in this event and in 1 later event(s) of this request. The raw values were not kept.',
        ['user_data.em', 'user_data.ph'],
      ],
      [1, null, []],
      [
        2,
        'Normalized and hashed by this service on arrival (hash_user_data): user_data.fn, in this event. The raw values were not kept.',
        ['user_data.fn'],
      ],
    ]);
  });

  it('no raw value in the admin answers, the exports, the logs, the upstream or the files', async () => {
    const texts: [string, string][] = [];
    for (const path of [
      `/admin/events?ad_account_id=${A}`,
      '/admin/events/export?format=ndjson',
      '/admin/events/export?format=csv',
      '/admin/requests',
      '/admin/requests/export?format=ndjson',
      '/admin/requests/export?format=csv',
      ...Object.values(rid).map((id) => `/admin/requests/${id}`),
      '/admin/delivery',
    ]) {
      const r = await gateway.call('GET', path, { token: T.admin });
      expect(r.status, path).toBe(200);
      texts.push([path, r.text]);
    }
    // Each search reads what it must: the digest of the e-mail address is there.
    expect(texts.find(([p]) => p.includes('ndjson'))?.[1]).toContain(hex(NORMALIZED.em));
    for (const [where, text] of texts) expectNoSecret(where, text);
    expect(logs.join('')).toContain('"op":"events/create"');
    expectNoSecret('the logs', logs.join(''));
    const up = await fetch(`${upstream.url}/admin/events/export?format=ndjson`, {
      headers: { authorization: `Bearer ${T.admin}` },
    });
    const upText = await up.text();
    expect(upText).toContain(hex(NORMALIZED.em));
    expectNoSecret('the upstream', upText);
    const files = readdirSync(dir).filter((f) => f.startsWith('gateway.db'));
    expect(files).toContain('gateway.db-wal');
    const disk = files.map((f) => readFileSync(join(dir, f)).toString('latin1')).join('');
    expect(disk).toContain('g-hashed');
    expectNoSecret('the SQLite files', disk);
  });
});

describe('where the batch is prepared', () => {
  it('a validation thread hashes as the event loop does', async () => {
    const inline = await startHarness({ config: gatewayConfig(), validationThreads: 0 });
    const thread = await startHarness({
      config: gatewayConfig(),
      validationThreads: 1,
      validationMinBytes: 1,
    });
    try {
      const stored = [];
      for (const h of [inline, thread]) {
        const data = [event(h.nowS(), { event_id: 'w-1', user_data: rawUserData() })];
        const r = await h.send(A, T.convA, data);
        expect(r.body.events[0]).toEqual({ status: 'processed', error_message: null, warning_message: null });
        const list = await h.call('GET', `/admin/events?ad_account_id=${A}`, { token: T.admin });
        stored.push(list.body.items[0].event.user_data);
      }
      expect(stored[0]).toMatchObject({ em: [hex(NORMALIZED.em)], fn: [hex(NORMALIZED.fn)] });
      expect(stored[1]).toEqual(stored[0]);
    } finally {
      await inline.close();
      await thread.close();
    }
  });
});

describe('the config', () => {
  it('takes hash_user_data per ad account, false by default, and refuses a value that is no boolean', () => {
    expect(configFromObject(testConfig()).hashUserData).toEqual([]);
    expect(configFromObject(gatewayConfig()).hashUserData).toEqual([A]);
    const config = testConfig();
    (config.ad_accounts as Record<string, unknown>[])[1]!.hash_user_data = 'yes';
    expect(() => configFromObject(config)).toThrow(ConfigError);
    expect(() => configFromObject(config)).toThrow(
      'ad_accounts[1].hash_user_data: must be true or false; received "yes"',
    );
  });
});

// The property: whatever a sender puts in a hashed field, the answer, the stored event and the body the
// request log keeps hold no raw value; each value becomes the SHA-256 of its C5 normalization, or is dropped
// with `not_normalizable_dropped` when it has none. Every raw value carries `qzx`, which no digest can hold.
/** The body the request log would keep (C70): the source with its cleaned spans in place. */
function keptText(source: Buffer, kept: KeptBody): string {
  if (kept.kind === 'none') return '';
  if (kept.kind === 'as_sent') return source.toString('utf8');
  let out = '';
  let at = 0;
  for (const s of kept.spans) {
    out += source.toString('utf8', at, s.start) + s.text;
    at = s.end;
  }
  return out + source.toString('utf8', at);
}

describe('the digest in place of the raw value', () => {
  // The value is looked for as a substring first: the same text inside another field, or a whole string of a
  // field that is not hashed (before the hashed field or after it), must stay where it is, and only the hashed
  // field's string change.
  it('changes only the hashed field where the same text is elsewhere in the event', () => {
    const now = Math.floor(T0 / 1000);
    const value = 'x@y.co';
    const cases: [string, Record<string, unknown>, Record<string, unknown>][] = [
      ['inside another string', {}, { content_name: `about ${value} here` }],
      ['a whole string of a field not hashed, after it', {}, { content_name: value }],
      ['a whole string of a field not hashed, before it', { event_id: value }, {}],
      ['a longer value that starts with it', {}, { content_name: `${value}m` }],
    ];
    for (const [label, top, custom] of cases) {
      const e = event(now, { event_id: 'place-1', ...top, user_data: { em: [value] } });
      Object.assign(e.custom_data as Record<string, unknown>, custom);
      const body = { data: [event(now, { event_id: 'place-0' }), e] };
      const prepared = prepareBatch(Buffer.from(JSON.stringify(body)), { now, hashUserData: true }, true);
      if (prepared.kind !== 'ok') throw new Error(`prepared ${prepared.kind}`);
      const source = prepared.body ?? Buffer.alloc(0);
      const stored = prepared.events.map((p) =>
        JSON.parse(typeof p.json === 'string' ? p.json : source.toString('utf8', p.json.start, p.json.end)),
      );
      expect(stored[0], label).toEqual(body.data[0]);
      expect(stored[1], label).toEqual({ ...e, user_data: { em: [hex(value)] } });
    }
  });
});

describe('property', () => {
  const FIELDS = ['em', 'ph', 'fn', 'ln', 'ct', 'st', 'zp', 'country', 'db', 'ge', 'external_id'] as const;
  const rawValue = fc
    .oneof(
      fc.string(),
      fc.string({ unit: 'grapheme' }),
      fc.emailAddress(),
      fc.stringMatching(/^[+0-9 ()-]{0,20}$/),
      fc.constantFrom('California', 'United States', '07/04/1990', 'Female', ' x ', '@', 'a@b'),
    )
    .map((s) => `qzx${s}`);

  it('no raw value survives preparation; each is hashed as normalized, or dropped saying so', () => {
    const now = Math.floor(T0 / 1000);
    fc.assert(
      fc.property(
        // At most 6 values: every warning fits in one message (messages_max_per_event).
        fc.dictionary(fc.constantFrom(...FIELDS), fc.array(rawValue, { minLength: 1, maxLength: 2 }), {
          maxKeys: 3,
        }),
        (values) => {
          // A clean event before and after: each stored as its span of the body (moved by the digests put
          // in before it), whatever the event between holds. Fixed order ids: the fixture's random ones are
          // base 36 and could spell the marker.
          const body = {
            data: [
              event(now, { event_id: 'p-0' }),
              event(now, { event_id: 'p-1', user_data: rawUserData(values) }),
              event(now, { event_id: 'p-2' }),
            ].map((e) => {
              (e.custom_data as Record<string, unknown>).order_id = `order-${e.event_id}`;
              return e;
            }),
          };
          const sent = JSON.parse(JSON.stringify(body)) as typeof body;
          const raw = Buffer.from(JSON.stringify(body));
          const prepared = prepareBatch(raw, { now, hashUserData: true }, true);
          if (prepared.kind !== 'ok') throw new Error(`prepared ${prepared.kind}`);
          // The body from here on: the digests in place where they could be put there, else the bytes sent.
          const source = prepared.body ?? raw;
          const kept = keptText(source, prepared.kept);
          const json = new Map(
            prepared.events.map((e) => [
              e.index,
              typeof e.json === 'string' ? e.json : source.toString('utf8', e.json.start, e.json.end),
            ]),
          );
          expect(JSON.parse(json.get(0) as string)).toEqual(sent.data[0]);
          expect(JSON.parse(json.get(2) as string)).toEqual(sent.data[2]);
          const stored = json.get(1) ?? '';
          for (const text of [prepared.answer.json, kept, stored])
            expect(text.toLowerCase()).not.toContain('qzx');
          const userData = sent.data[1]?.user_data as Record<string, string[]>;
          const warning = JSON.parse(prepared.answer.json).events[1].warning_message ?? '';
          const accepted = stored ? (JSON.parse(stored).user_data as Record<string, string[]>) : null;
          // The stored JSON (the bytes sent with digests spliced in, or the event serialized again) is the
          // event the rules accepted once hashed.
          const hashedCopy = structuredClone(sent.data[1]);
          hashUserDataInPlace(hashedCopy, hex);
          const v = validateEvent(hashedCopy, { now });
          expect(stored ? JSON.parse(stored) : null).toEqual(v.accepted);
          for (const [field, list] of Object.entries(values)) {
            const expected: string[] = [];
            list.forEach((v, j) => {
              // The zip rule reads the country of the same user_data: compared only where none is sent.
              const n = field === 'zp' && userData.country ? undefined : normalize(field, v);
              if (n === null) expect(warning).toContain(`user_data.${field}[${j}] could not be normalized`);
              else if (n !== undefined) expected.push(hex(n));
            });
            if (accepted && field !== 'zp')
              expect(accepted[field] ?? [], field).toEqual(expect.arrayContaining(expected));
          }
        },
      ),
      { numRuns: 200 },
    );
  });
});
