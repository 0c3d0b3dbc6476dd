// C119: with `hash: true` the client takes every user_data field the server accepts: the hashed ones are
// normalized and hashed (fn, the first name, with ln's rule), the others (customer_type, partner_id, ...) are
// sent as they are. The field list comes from the spec as it is served (@org/events-docs' openapi.json,
// generated from spec/openapi.yaml), not from the helpers' own tables, so the two cannot drift: a field the
// spec adds is sent by the client or this test fails.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { EventsClient } from '@org/events-client';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { demoClient, event, type Seen } from './support/server.js';

type Obj = Record<string, unknown>;
const sha256 = (s: string) => createHash('sha256').update(s, 'utf8').digest('hex');

const served = JSON.parse(
  readFileSync(new URL('../../events-docs/public/openapi.json', import.meta.url), 'utf8'),
) as { components: { schemas: Record<string, Obj> } };
const schemas = served.components.schemas;
const userData = schemas.UserData!.properties as Record<string, Obj>;

/** A raw value of each normalization kind (C5) and what it is hashed from; a kind the spec adds needs a row. */
const RAW: Record<string, [raw: string, normalized: string]> = {
  email: [' Jane.Doe@Example.com ', 'jane.doe@example.com'],
  phone: ['+1 (555) 010-0100', '15550100100'],
  name: [' Zoë ', 'zoë'],
  date: ['02/01/1996', '19960201'],
  gender: ['Female', 'f'],
  city: ['Miami Beach', 'miamibeach'],
  state: ['California', 'ca'],
  zip: ['33139-4512', '33139'],
  country: ['United States', 'us'],
  external_id: [' Cust-001 ', 'Cust-001'],
  maid: ['6D92078A-8246-4BA4-AE5B-76104861E7DC', '6d92078a-8246-4ba4-ae5b-76104861e7dc'],
};

/** A value the spec accepts for a field sent as is: its example, else the first value of its enum. */
function plainValue(field: string, p: Obj): string {
  if (typeof p.example === 'string') return p.example;
  const ref = ((p.oneOf as Obj[] | undefined) ?? [p]).map((o) => o.$ref).find((r) => typeof r === 'string');
  const target = typeof ref === 'string' ? schemas[ref.split('/').pop()!] : undefined;
  const values = (target?.enum ?? p.enum) as string[] | undefined;
  return values?.[0] ?? `${field}-1`;
}

/** Every user_data field of the spec, with the raw value sent and what the service must receive. */
const FIELDS = Object.entries(userData).map(([field, p]) => {
  const kind = p['x-normalize'];
  if (typeof kind !== 'string') {
    const v = plainValue(field, p);
    return { field, kind: undefined, raw: v, sent: v as unknown };
  }
  const row = RAW[kind];
  if (!row) throw new Error(`no raw sample of normalization kind ${kind} (field ${field}); add one to RAW`);
  return { field, kind, raw: row[0], sent: [sha256(row[1])] as unknown };
});

let close: (() => Promise<void>) | undefined;
let client: EventsClient;
let seen: Seen[];
beforeAll(async () => {
  const c = await demoClient();
  close = c.server.close;
  client = c.client;
  seen = c.seen;
});
afterAll(() => close?.());

// Live requests (a conversion token's events are not rate limited, seed 8), each event id used once.
let ids = 0;
const id = (what: string) => `${what}-${ids++}`;
const lastBody = () => JSON.parse(seen.at(-1)!.body!) as { data: { user_data: Obj }[] };

describe('hash: true takes every user_data field of the spec (C119)', () => {
  test('the spec has fn (a name, hashed) and customer_type (sent as is)', () => {
    expect(FIELDS.find((f) => f.field === 'fn')?.kind).toBe('name');
    expect(FIELDS.find((f) => f.field === 'customer_type')).toMatchObject({ kind: undefined, raw: 'new' });
  });

  test.each(FIELDS)('$field: hashed or passed, sent, and processed without a word about it', async (f) => {
    const raw = { em: 'buyer@example.com', [f.field]: f.raw };
    const [r] = await client.sendEvents([event(id(f.field), { user_data: raw })], { hash: true });
    expect([r!.status, r!.errorMessage]).toEqual(['processed', null]);
    expect(r!.warningMessage ?? '').not.toContain(`user_data.${f.field}`);
    expect(lastBody().data[0]!.user_data[f.field]).toEqual(f.sent);
  });

  test('an event carrying every field at once: one request, processed', async () => {
    const raw = Object.fromEntries(FIELDS.map((f) => [f.field, f.raw]));
    const [r] = await client.sendEvents([event(id('every-field'), { user_data: raw })], { hash: true });
    expect([r!.status, r!.errorMessage, r!.warningMessage]).toEqual(['processed', null, null]);
    expect(lastBody().data[0]!.user_data).toEqual(Object.fromEntries(FIELDS.map((f) => [f.field, f.sent])));
  });

  test('property: any raw first name is sent as the SHA-256 of its trimmed, lower-case NFC form', async () => {
    const name = fc.string({
      unit: fc.constantFrom(..."aAbBzZ '-ÉéëÑñØøßİ\u0301\u0308"),
      minLength: 1,
      maxLength: 16,
    });
    await fc.assert(
      fc.asyncProperty(fc.array(name, { minLength: 1, maxLength: 5 }), async (names) => {
        const events = names.map((n) => event(id('fn'), { user_data: { em: 'buyer@example.com', fn: n } }));
        const results = await client.sendEvents(events, { hash: true });
        expect(results.map((r) => r.status)).toEqual(names.map(() => 'processed'));
        const sent = lastBody().data.map((e) => e.user_data.fn);
        expect(sent).toEqual(
          names.map((n) => {
            const v = n.trim().toLowerCase().normalize('NFC');
            return v === '' ? undefined : [sha256(v)];
          }),
        );
      }),
      { numRuns: 25 },
    );
  });
});
