/**
 * C5: normalize per user_data field kind (NORMALIZATION.fields) and hashUserData, with SHA-256 vectors
 * computed by node:crypto as the oracle (the package itself hashes with Web Crypto).
 */
import { NORMALIZATION } from '@org/events-types';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CONVERSION_EVENT_JSON_SCHEMA } from '../src/generated/json-schema.gen.js';
import { hashUserData, hashUserDataInPlace, normalize, sha256Hex, validateEvent } from '../src/index.js';
import { type Json, NOW, sha256, validEvent } from './helpers.js';

describe('normalize (C5), one table per kind', () => {
  const rows: [field: string, raw: string, expected: string | null][] = [
    // em (email): trim + lower
    ['em', '  Jane.Doe@Example.COM ', 'jane.doe@example.com'],
    ['em', '   ', null],
    // C126: an address has an @ with something on each side; anything else is not hashed.
    ['em', ' Jane Doe ', null],
    ['em', 'jane@', null],
    ['em', '@example.com', null],
    ['em', ' A@B ', 'a@b'],
    // ph (phone): digits only, leading zeros removed
    ['ph', '+1 (555) 010-0100', '15550100100'],
    ['ph', '0044 20 7946 0958', '442079460958'],
    ['ph', 'n/a', null],
    // fn and ln (name, C119): trim, lower, NFC, accents kept
    ['fn', '  Zoë ', 'zoë'],
    ['fn', 'Jose\u0301', 'jos\u00e9'],
    ['fn', 'ANNE-MARIE', 'anne-marie'],
    ['fn', '  ', null],
    ['ln', '  González ', 'gonzález'],
    ['ln', 'Gonza\u0301lez', 'gonz\u00e1lez'],
    ['ln', 'MÜLLER', 'müller'],
    // ct (city): lower, whitespace and punctuation removed, accented letters kept
    ['ct', 'Miami Beach', 'miamibeach'],
    ['ct', 'São Paulo', 'sãopaulo'],
    ['ct', 'St. Louis', 'stlouis'],
    ['ct', "L'Île-d'Yeu", 'lîledyeu'],
    // st (state): two-letter code; US state and CA province names mapped (REGIONS)
    ['st', 'California', 'ca'],
    ['st', ' CA ', 'ca'],
    ['st', 'new york', 'ny'],
    ['st', 'Québec', 'qc'],
    ['st', 'B.C.', 'bc'],
    ['st', 'Bavaria', null],
    // zp (zip): US first 5 digits (a US-shaped value without a country), others lower without spaces
    ['zp', '33139-4512', '33139'],
    ['zp', '331394512', '33139'],
    ['zp', 'SW1A 1AA', 'sw1a1aa'],
    // country: ISO-3166 alpha-2 lower, names mapped (COUNTRIES)
    ['country', 'United States', 'us'],
    ['country', 'U.S.A.', 'us'],
    ['country', 'DE', 'de'],
    ['country', 'Deutschland', 'de'],
    ['country', 'Atlantis', null],
    // db (date): YYYYMMDD from YYYY-MM-DD, MM/DD/YYYY, DD.MM.YYYY (month first when ambiguous)
    ['db', '1996-02-01', '19960201'],
    ['db', '1996-2-1', '19960201'],
    ['db', '02/01/1996', '19960201'],
    ['db', '01.02.1996', '19960201'],
    ['db', '19960201', '19960201'],
    ['db', '02/30/1996', null],
    ['db', '13/01/1996', null],
    ['db', '2000-02-29', '20000229'],
    ['db', '1900-02-29', null],
    ['db', 'Feb 1, 1996', null],
    // ge (gender): m / f / n from words
    ['ge', 'Male', 'm'],
    ['ge', ' female ', 'f'],
    ['ge', 'Non-Binary', 'n'],
    ['ge', 'x', 'n'],
    ['ge', 'unknown', null],
    // external_id: trimmed, case kept
    ['external_id', '  Cust-001 ', 'Cust-001'],
    // hashed_maids (maid): trim + lower
    ['hashed_maids', ' 6D92078A-8246-4BA4-AE5B-76104861E7DC ', '6d92078a-8246-4ba4-ae5b-76104861e7dc'],
    // a value already 64-hex passes through, lower-cased, whatever the kind
    ['ph', sha256('15550100100').toUpperCase(), sha256('15550100100')],
    ['db', ` ${sha256('19960201')} `, sha256('19960201')],
    // unhashed fields are left as they are
    ['client_ip_address', ' 198.51.100.10 ', ' 198.51.100.10 '],
    ['click_id', 'dj0yJnU9', 'dj0yJnU9'],
  ];

  it.each(rows)('%s %j -> %j', (field, raw, expected) => {
    expect(normalize(field, raw)).toBe(expected);
  });

  it('covers every field of NORMALIZATION.fields and every unhashed field', () => {
    const covered = new Set(rows.map(([f]) => f));
    for (const f of Object.keys(NORMALIZATION.fields)) expect(covered).toContain(f);
    expect(normalize('partner_id', 'Ab C')).toBe('Ab C');
    expect(normalize('client_user_agent', 'Mozilla/5.0')).toBe('Mozilla/5.0');
    expect(normalize('customer_type', 'returning')).toBe('returning');
  });

  it('refuses a name that is not a user_data field, naming every field', () => {
    expect(() => normalize('first_name', 'Jane')).toThrow(
      /^first_name is not a user_data field; known fields: em, ph, fn, ln, .*, partner_id, customer_type$/,
    );
  });
});

describe('sha256Hex (Web Crypto)', () => {
  it.each(['', 'abc', 'jane.doe@example.com', 'gonzález', '🥾'])('%j matches node:crypto', async (s) => {
    expect(await sha256Hex(s)).toBe(sha256(s));
  });

  it('gives the known vector of "abc"', async () => {
    expect(await sha256Hex('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });
});

describe('hashUserData (C5)', () => {
  it('normalizes and hashes every hashed field, always as arrays; copies unhashed fields', async () => {
    const digest = sha256('already@example.com');
    const out = await hashUserData({
      em: ['  Jane.Doe@Example.COM ', digest.toUpperCase()],
      ph: '+1 (555) 010-0100',
      fn: ' Zoë ',
      ln: 'González',
      ct: 'Miami Beach',
      st: 'California',
      zp: '33139-4512',
      country: 'United States',
      db: '02/01/1996',
      ge: 'Female',
      external_id: ' Cust-001 ',
      hashed_maids: '6D92078A-8246-4BA4-AE5B-76104861E7DC',
      client_ip_address: '198.51.100.10',
      client_user_agent: 'Mozilla/5.0 (X11; Linux x86_64) Firefox/128.0',
      click_id: 'dj0yJnU9',
      partner_id: undefined,
      customer_type: 'returning',
    });
    expect(out).toEqual({
      em: [sha256('jane.doe@example.com'), digest],
      ph: [sha256('15550100100')],
      fn: [sha256('zoë')],
      ln: [sha256('gonzález')],
      ct: [sha256('miamibeach')],
      st: [sha256('ca')],
      zp: [sha256('33139')],
      country: [sha256('us')],
      db: [sha256('19960201')],
      ge: [sha256('f')],
      external_id: [sha256('Cust-001')],
      hashed_maids: [sha256('6d92078a-8246-4ba4-ae5b-76104861e7dc')],
      client_ip_address: '198.51.100.10',
      client_user_agent: 'Mozilla/5.0 (X11; Linux x86_64) Firefox/128.0',
      click_id: 'dj0yJnU9',
      customer_type: 'returning',
    });
  });

  it('lets the country choose the zip rule (US: first 5 digits; elsewhere spaces removed)', async () => {
    expect(await hashUserData({ zp: '12345 6789', country: 'us' })).toEqual({
      zp: [sha256('12345')],
      country: [sha256('us')],
    });
    expect(await hashUserData({ zp: '75008', country: 'France' })).toEqual({
      zp: [sha256('75008')],
      country: [sha256('fr')],
    });
    expect(await hashUserData({ zp: 'K1A 0B1', country: 'Canada' })).toEqual({
      zp: [sha256('k1a0b1')],
      country: [sha256('ca')],
    });
  });

  it('leaves out values that cannot be normalized, and a field left with none', async () => {
    expect(await hashUserData({ db: ['1996-02-30', '1996-02-01'], ge: 'unknown', st: 'Bavaria' })).toEqual({
      db: [sha256('19960201')],
    });
  });

  it('produces what the validators accept: every hash is 64 lower-case hex', async () => {
    const out = await hashUserData({
      em: 'a@b.c',
      ph: '1',
      ln: 'x',
      ct: 'y',
      st: 'ny',
      zp: '1',
      country: 'de',
      db: '2000-01-01',
      ge: 'm',
    });
    for (const v of Object.values(out)) for (const h of v as string[]) expect(h).toMatch(/^[0-9a-f]{64}$/);
  });

  it('refuses an unknown field and an unhashed field given as an array', async () => {
    await expect(hashUserData({ first_name: 'Jane' })).rejects.toThrow(TypeError);
    await expect(hashUserData({ client_ip_address: ['1.2.3.4'] })).rejects.toThrow(
      'client_ip_address is sent as is: give one string, not an array',
    );
  });
});

describe('fn and every other field of user_data (C119)', () => {
  const ctx = { now: NOW, currency: 'USD' };
  it("property: a raw first name is hashed with ln's rule (trim, lower-case, NFC), and the result is kept", async () => {
    const name = fc.oneof(
      fc.string({ maxLength: 24 }),
      fc.string({ unit: fc.constantFrom(..."aAeEzZ \t-'ÀéÉëñÑøßİ\u0301\u0308"), maxLength: 24 }),
    );
    await fc.assert(
      fc.asyncProperty(name, async (raw) => {
        const out = await hashUserData({ fn: raw, ln: raw });
        expect(out.fn).toEqual(out.ln);
        const t = raw.trim();
        const n = /^[0-9a-f]{64}$/i.test(t) ? t.toLowerCase() : t.toLowerCase().normalize('NFC');
        if (n === '') {
          expect(out).toEqual({});
          return;
        }
        expect(out.fn).toEqual([/^[0-9a-f]{64}$/i.test(t) ? n : sha256(n)]);
        const v = validateEvent(
          { ...validEvent(), user_data: { ...(validEvent().user_data as Json), fn: out.fn } },
          ctx,
        );
        expect([v.status, v.warnings]).toEqual(['processed', []]);
        expect((v.accepted?.user_data as Json | undefined)?.fn).toEqual(out.fn);
      }),
      { numRuns: 300 },
    );
  });

  it('hashUserData takes every user_data field of the spec (its JSON Schema), none refused', async () => {
    const defs = CONVERSION_EVENT_JSON_SCHEMA.definitions as Record<string, Json>;
    const props = (defs.UserData as { properties: Record<string, Json> }).properties;
    const customerTypes = (defs.CustomerType as { enum: string[] }).enum;
    // A raw value for each hashed field kind (C5); a kind the spec adds needs one here, or the test fails.
    const raw: Record<string, string> = {
      email: 'Jane@Example.com',
      phone: '+1 (555) 010-0100',
      name: 'Zoë',
      date: '1996-02-01',
      gender: 'female',
      city: 'Miami Beach',
      state: 'California',
      zip: '33139',
      country: 'United States',
      external_id: 'cust-1',
      maid: '6D92078A-8246-4BA4-AE5B-76104861E7DC',
    };
    const plain: Record<string, string> = {
      click_id: 'dj0yJnU9aEtxZ0xRbGZuVDJ3',
      client_ip_address: '198.51.100.10',
      client_user_agent: (validEvent().user_data as Json).client_user_agent as string,
      partner_id: 'partner-1',
      customer_type: customerTypes[0]!,
    };
    const kinds = NORMALIZATION.fields as Record<string, string>;
    for (const field of Object.keys(props)) {
      const kind = kinds[field];
      const value = kind === undefined ? plain[field] : raw[kind];
      expect(value, `a sample for ${field}${kind ? ` (kind ${kind})` : ''}`).toBeDefined();
      const user_data = await hashUserData({ em: 'buyer@example.com', [field]: value });
      const v = validateEvent(
        { ...validEvent(), user_data: { ...(validEvent().user_data as Json), ...user_data } },
        ctx,
      );
      expect([field, v.status, v.warnings]).toEqual([field, 'processed', []]);
      expect(Object.keys((v.accepted?.user_data as Json) ?? {})).toContain(field);
    }
    // Null, where the field may be null, is sent as is; a hashed field's null is left out like undefined.
    expect(await hashUserData({ customer_type: null, click_id: null, fn: null })).toEqual({
      customer_type: null,
      click_id: null,
    });
  });
});

describe('hashUserDataInPlace (C125)', () => {
  const hex = (s: string) => sha256(s);

  it("hashes, in place, the raw strings of hashed fields' arrays as hashUserData does, and says which", async () => {
    const event = {
      event_name: 'checkout',
      user_data: {
        em: ['  Jane.Doe@Example.COM ', sha256('x')],
        ph: ['+1 (555) 010-0100', 'call me'],
        zp: ['94107-1234'],
        country: ['United States'],
        external_id: 'CRM-1',
        ge: [7],
        client_ip_address: '203.0.113.9',
        first_name: ['Jane'],
      },
    };
    const done = hashUserDataInPlace(event, hex);
    expect(done).toMatchObject({
      hashed: ['user_data.em', 'user_data.ph', 'user_data.zp', 'user_data.country'],
      unusable: [{ path: 'user_data.ph[1]', kind: 'phone' }],
    });
    expect(done?.replaced.map(([raw]) => raw)).toEqual([
      '  Jane.Doe@Example.COM ',
      '+1 (555) 010-0100',
      '94107-1234',
      'United States',
    ]);
    const expected = await hashUserData({
      em: '  Jane.Doe@Example.COM ',
      ph: '+1 (555) 010-0100',
      zp: '94107-1234',
      country: 'United States',
    });
    expect(event.user_data).toEqual({
      em: [expected.em?.[0], sha256('x')],
      ph: [expected.ph?.[0], 'call me'],
      // The country read before it was hashed: a US zip keeps its first 5 digits.
      zp: [sha256('94107')],
      country: expected.country,
      external_id: 'CRM-1',
      ge: [7],
      client_ip_address: '203.0.113.9',
      first_name: ['Jane'],
    });
  });

  it('does nothing to digests, to what is not an event, nor to an event without user_data', () => {
    const digest = { user_data: { em: [sha256('a@b')] } };
    expect(hashUserDataInPlace(digest, hex)).toBeNull();
    expect(digest.user_data.em).toEqual([sha256('a@b')]);
    for (const v of [null, 1, 'em', [], {}, { user_data: 'x' }, { user_data: [] }])
      expect(hashUserDataInPlace(v, hex)).toBeNull();
  });

  it('property: every string left in a hashed array is a digest or reported unusable', () => {
    fc.assert(
      fc.property(
        fc.dictionary(
          fc.constantFrom(...Object.keys(NORMALIZATION.fields)),
          fc.array(fc.oneof(fc.string(), fc.emailAddress(), fc.integer())),
        ),
        (userData) => {
          const event = { user_data: structuredClone(userData) as Record<string, unknown[]> };
          const done = hashUserDataInPlace(event, hex);
          const unusable = new Set(done?.unusable.map((u) => u.path));
          for (const [field, values] of Object.entries(event.user_data))
            for (const [j, v] of values.entries()) {
              if (typeof v !== 'string') expect(v).toBe(userData[field]?.[j]);
              else {
                const digest = /^[0-9a-fA-F]{64}$/.test(v.trim());
                expect(digest || unusable.has(`user_data.${field}[${j}]`), `${field}[${j}]`).toBe(true);
              }
            }
        },
      ),
    );
  });
});
