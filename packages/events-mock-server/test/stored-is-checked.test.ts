// Issue 9 item 1 and the JSON part of item 2 (C35-C38): what is stored is exactly what the rules checked.
// The reproductions of the hostile-input campaign, over real HTTP, and a property test over random bodies:
// every stored event reads back, through JSON.parse and through SQLite's json_tree, as the value the
// validators accepted.

import { validateBatch } from '@org/events-validators';
import Database from 'better-sqlite3';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { prepareBatch } from '../src/pipeline/prepare.js';
import { eventJsonOf } from '../src/store/interface/events.js';
import { A, event, sha256, T } from './support/fixtures.js';
import { type Harness, startHarness } from './support/server.js';

let h: Harness;
beforeEach(async () => {
  h = await startHarness();
});
afterEach(() => h.close());

const post = (raw: string | Buffer, query = '') =>
  h.call('POST', `/v5/ad_accounts/${A}/events${query}`, { token: T.convA, raw });
const storedIds = async () =>
  ((await h.call('GET', '/admin/events', { token: T.admin })).body.items as { event_id: string }[]).map(
    (e) => e.event_id,
  );
/** An event as JSON text without its closing brace, so members can be appended (repeated) by hand. */
const open = (e: Record<string, unknown>) => JSON.stringify(e).slice(0, -1);

describe('repeated member names (C35)', () => {
  test('the campaign body: repeated user_data and custom_data fail the event, nothing is stored', async () => {
    const e = event(h.nowS(), { event_id: 'dup-1' });
    const { user_data: _u, custom_data: _c, ...rest } = e;
    const raw = `{"data":[${open(rest)},"user_data":{"em":["jane.doe@example.com"]},"user_data":{"em":["${sha256('jane.doe@example.com')}"]},"custom_data":{"value":"-5","currency":"XXX"},"custom_data":{"value":"1.00","currency":"USD"}}]}`;
    const r = await post(raw);
    expect(r.status).toBe(200);
    expect(r.body.num_events_processed).toBe(0);
    expect(r.body.events[0].status).toBe('failed');
    expect(r.body.events[0].error_message).toBe(
      'user_data is given more than once in this event; send each member once (I-JSON, RFC 7493).',
    );
    expect(r.text).not.toContain('jane.doe@example.com');
    expect(await storedIds()).toEqual([]);
  });

  test('a repeated event_id fails only its event, naming the path; the rest of the batch is stored', async () => {
    const bad = `${open(event(h.nowS(), { event_id: 'first' }))},"event_id":"second"}`;
    const nested = `${open(event(h.nowS(), { event_id: 'n1', custom_data: undefined }))},"custom_data":{"currency":"USD","value":"1.00","contents":[{"id":"a","quantity":1,"id":"b"}]}}`;
    const good = JSON.stringify(event(h.nowS(), { event_id: 'fine' }));
    const r = await post(`{"data":[${bad},${good},${nested}]}`);
    expect(r.body.events.map((e: { status: string }) => e.status)).toEqual(['failed', 'processed', 'failed']);
    expect(r.body.events[0].error_message).toMatch(/^event_id is given more than once in this event/);
    expect(r.body.events[2].error_message).toMatch(/^custom_data\.contents\[0\]\.id is given more than once/);
    expect(await storedIds()).toEqual(['fine']);
  });

  test('a repeated top-level name is a 400 naming it', async () => {
    const r = await post(`{"data":[],"data":[${JSON.stringify(event(h.nowS()))}]}`);
    expect(r.status).toBe(400);
    expect(r.body.details).toEqual([
      { path: 'data', problem: 'is given more than once; send each member once (I-JSON, RFC 7493)' },
    ]);
  });
});

describe('bytes in, precisely (C36, C37)', () => {
  test('invalid UTF-8 is a 400 with the byte offset; two event_ids no longer collapse into one', async () => {
    const { event_id: _, ...rest } = event(h.nowS());
    const head = Buffer.from(`{"data":[${open(rest)},"event_id":"u8-`);
    const body = (b: number) => Buffer.concat([head, Buffer.from([b]), Buffer.from('"}]}')]);
    const at = body(0xff).indexOf(0xff);
    for (const b of [0xff, 0xfe]) {
      const r = await post(body(b));
      expect(r.status).toBe(400);
      expect(r.body.details).toEqual([
        {
          path: 'body',
          problem: `is not valid UTF-8: the byte at offset ${at} does not belong to a UTF-8 sequence`,
        },
      ]);
    }
    expect(await storedIds()).toEqual([]);
  });

  test('an unpaired surrogate escape is a 400', async () => {
    const r = await post(
      `{"data":[${JSON.stringify(event(h.nowS(), { event_id: 'SURROGATE' })).replace('SURROGATE', '\\ud800')}]}`,
    );
    expect(r.status).toBe(400);
    expect(r.body.details[0].problem).toMatch(/^holds an unpaired surrogate escape at byte offset \d+/);
  });

  test('a million-deep body and 100,000 keys are refused before parsing', async () => {
    const deep = await post(`{"data":[${'['.repeat(1_000_000)}${']'.repeat(1_000_000)}]}`);
    expect(deep.status).toBe(400);
    expect(deep.body.details[0].problem).toBe(
      'nests objects and arrays more than 32 deep (at byte offset 39)',
    );
    const keys = Array.from({ length: 100_000 }, (_, i) => `"k${i}":1`).join(',');
    const wide = await post(`{"data":[${open(event(h.nowS()))},${keys}}]}`);
    expect(wide.status).toBe(400);
    expect(wide.body.details[0].problem).toMatch(
      /^has an object with more than 1000 members \(at byte offset \d+\)$/,
    );
  });

  test('integers beyond 2^53 fail with a message (C38)', async () => {
    const e1 = event(h.nowS(), { event_id: 'big-q' });
    (e1.custom_data as { contents: { quantity: number }[] }).contents[0]!.quantity = 1e308;
    const raw = `{"data":[${JSON.stringify(e1)},${JSON.stringify(event(h.nowS(), { event_id: 'big-n' })).replace('"num_items":1', '"num_items":9007199254740993')}]}`;
    const r = await post(raw);
    expect(r.body.events.map((e: { error_message: string }) => e.error_message)).toEqual([
      'custom_data.contents[0].quantity must be an integer from -9007199254740991 to 9007199254740991, which every JSON reader holds exactly; received 1e+308.',
      'custom_data.num_items must be an integer from -9007199254740991 to 9007199254740991, which every JSON reader holds exactly; received 9007199254740992.',
    ]);
    expect(await storedIds()).toEqual([]);
  });
});

describe('stored = checked, for random bodies (C36)', () => {
  const NOW = 1_772_452_800;
  const ctx = { now: NOW, currency: 'USD', customEventNames: [] };
  const db = new Database(':memory:');
  db.exec('CREATE TABLE t (j TEXT)');
  const put = db.prepare('INSERT INTO t (j) VALUES (?)');
  const tree = db
    .prepare(
      "SELECT fullkey, type, atom FROM json_tree((SELECT j FROM t)) WHERE type NOT IN ('object', 'array')",
    )
    .safeIntegers(true);

  /** Every leaf of a parsed value as SQLite's json_tree names it: $.a.b[0] -> value. */
  const leaves = (v: unknown, at = '$', out = new Map<string, unknown>()) => {
    if (Array.isArray(v)) for (let i = 0; i < v.length; i++) leaves(v[i], `${at}[${i}]`, out);
    else if (v !== null && typeof v === 'object')
      // json_tree quotes a key unless it is letters and digits only.
      for (const [k, x] of Object.entries(v))
        leaves(x, /^[A-Za-z][A-Za-z0-9]*$/.test(k) ? `${at}.${k}` : `${at}."${k}"`, out);
    else out.set(at, v);
    return out;
  };

  const text = fc.string({ unit: 'grapheme', maxLength: 12 });
  const eventArb = fc.record({
    id: fc.stringMatching(/^[a-z0-9-]{1,12}$/),
    name: text,
    numItems: fc.oneof(fc.integer({ min: 0, max: 1000 }), fc.constantFrom(123456789012345, 9007199254740991)),
    quantity: fc.integer({ min: 1, max: 99 }),
    price: fc.constantFrom('1', '0.5', '19.99', '100000'),
    repeat: fc.constantFrom('none', 'custom_data', 'event_id', 'nested'),
    pretty: fc.boolean(),
  });

  test('JSON.parse and SQLite json_tree read each stored event as the validators accepted it', () => {
    fc.assert(
      fc.property(fc.array(eventArb, { minLength: 1, maxLength: 6 }), (specs) => {
        const parts = specs.map((s, i) => {
          const e = event(NOW, {
            event_id: `${s.id}-${i}`,
            custom_data: {
              currency: 'USD',
              value: s.price,
              content_name: s.name,
              num_items: s.numItems,
              contents: [{ id: `sku-${i}`, item_price: s.price, quantity: s.quantity }],
            },
          });
          const json = JSON.stringify(e, null, s.pretty ? 2 : undefined);
          if (s.repeat === 'none') return json;
          const body = json.replace(/\s*}$/, '');
          if (s.repeat === 'custom_data') return `${body},"custom_data":{"currency":"XXX","value":"-5"}}`;
          if (s.repeat === 'event_id') return `${body},"event_id":"other"}`;
          return json.replace('"currency":', '"currency":"EUR","currency":');
        });
        const raw = Buffer.from(`{"data":[${parts.join(',')}]}`);
        const prepared = prepareBatch(raw, ctx, true);
        expect(prepared.kind).toBe('ok');
        if (prepared.kind !== 'ok') return;
        const lastWins = validateBatch(JSON.parse(raw.toString('utf8')), ctx);
        if (!lastWins.ok) throw new Error('the body should be well-formed');
        const storedAt = new Set(prepared.events.map((e) => e.index));
        specs.forEach((s, i) => {
          if (s.repeat !== 'none') expect(storedAt.has(i), `event ${i} repeats ${s.repeat}`).toBe(false);
        });
        for (const stored of prepared.events) {
          const accepted = lastWins.accepted[stored.index];
          // What the store writes: the event's own text, or its span of the body.
          const text = eventJsonOf({ source: raw })({ ...stored, usage: [] });
          expect(JSON.parse(text)).toEqual(accepted);
          put.run(text);
          const fromSqlite = new Map(
            (tree.all() as { fullkey: string; type: string; atom: unknown }[]).map((r) => [
              r.fullkey,
              r.atom,
            ]),
          );
          db.exec('DELETE FROM t');
          const expected = leaves(accepted);
          expect([...fromSqlite.keys()].sort()).toEqual([...expected.keys()].sort());
          for (const [k, v] of expected) {
            const got = fromSqlite.get(k);
            if (typeof v === 'number' && Number.isInteger(v)) expect(got, k).toBe(BigInt(v));
            else if (typeof v === 'boolean') expect(got, k).toBe(v ? 1n : 0n);
            else expect(got, k).toEqual(v);
          }
        }
      }),
      { numRuns: 150 },
    );
  });
});
