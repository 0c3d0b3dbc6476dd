// The byte scanner of C35-C37: what it finds in request bodies before JSON.parse runs.
import { isUtf8 } from 'node:buffer';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { countMembers, scanLight } from '../src/pipeline/json-light-scan.js';
import { invalidUtf8Offset, type ScanResult, scanBody } from '../src/pipeline/json-scan.js';

const LIMITS = { maxDepth: 32, maxMembers: 1000 };
const scan = (s: string | Buffer): ScanResult => scanBody(typeof s === 'string' ? Buffer.from(s) : s, LIMITS);
const elements = (s: string) => {
  const r = scan(s);
  if (!r.ok) throw new Error(`not ok: ${r.kind}`);
  return r.elements;
};
/** The light scan (issue 25) of the same text: its verdict, and its elements as the full scan gives them. */
const light = (s: string | Buffer) => scanLight(typeof s === 'string' ? Buffer.from(s) : s, LIMITS);
const lightElements = (s: string) => {
  const r = light(s);
  if (!r.ok) throw new Error(`not ok: ${r.kind}`);
  return (
    r.elements?.map(({ start, end, exactNumbers }) => ({ start, end, duplicate: null, exactNumbers })) ?? null
  );
};

describe('data elements', () => {
  const roundTrip = (text: string) => {
    const els = elements(text);
    const b = Buffer.from(text);
    const data = (JSON.parse(text) as { data: unknown[] }).data;
    expect(els).not.toBeNull();
    expect(els?.map((e) => JSON.parse(b.toString('utf8', e.start, e.end)))).toEqual(data);
  };

  test('each element exactly, whatever the spacing, nesting and string content', () => {
    roundTrip('{"data":[{"a":1},{"b":[1,2,{"c":"]}"}]}]}');
    roundTrip(
      ' {\n "x" : {"data":[9]} ,\r\n\t"data" : [ 1 , "two" , null , true , -1.5e3 , {"q":"\\"}]"} , [ ] ] } ',
    );
    roundTrip('{"data":["\\\\","\\\\\\"","é🎉\\u00e9","\\ud83c\\udf89"]}');
    roundTrip('{"data":[]}');
    roundTrip('{"d\\u0061ta":[{"x":1}]}');
  });

  test('shapes that are not an object with a data array give null elements', () => {
    expect(elements('[1,2]')).toBeNull();
    expect(elements('{"data":{"a":1}}')).toBeNull();
    expect(elements('{"data":[1,}')).toBeNull();
    expect(elements('{"data":[1]} trailing')).toBeNull();
  });

  test('property: for any JSON array of values, the slices parse to the elements', () => {
    fc.assert(
      fc.property(fc.array(fc.jsonValue(), { maxLength: 8 }), fc.boolean(), (data, pretty) => {
        const text = JSON.stringify({ data }, null, pretty ? 2 : undefined);
        const els = elements(text);
        const b = Buffer.from(text);
        expect(els?.map((e) => JSON.parse(b.toString('utf8', e.start, e.end)))).toEqual(
          JSON.parse(text).data,
        );
        // The light scan finds the same spans, and as many member names as the parsed values hold keys.
        expect(lightElements(text)).toEqual(els);
        const l = light(text);
        expect(l.ok && l.elements?.map((e) => e.members)).toEqual(
          (JSON.parse(text).data as unknown[]).map(countMembers),
        );
      }),
      { numRuns: 300 },
    );
  });
  // Strings past the few bytes read in JavaScript are searched natively (issue 25): long names and values
  // with quotes, backslashes and \u escapes anywhere, including right at and after the switch.
  test('property: long strings with escapes anywhere give the same spans, counts and escape flag', () => {
    const piece = fc.constantFrom('a', 'é', '"', '\\', '\u0001', '🎉', 'abcdefghijklmnop', '\n');
    const long = fc.array(piece, { maxLength: 40 }).map((ps) => ps.join(''));
    const value = fc.oneof(long, fc.integer(), fc.array(long, { maxLength: 3 }));
    const event = fc.dictionary(long, value, { maxKeys: 6 });
    fc.assert(
      fc.property(fc.array(event, { maxLength: 5 }), fc.boolean(), (data, pretty) => {
        const text = JSON.stringify({ data }, null, pretty ? 2 : undefined);
        const l = light(text);
        expect(l.ok).toBe(true);
        if (!l.ok) return;
        const b = Buffer.from(text);
        expect(l.elements?.map((e) => JSON.parse(b.toString('utf8', e.start, e.end)))).toEqual(data);
        expect(l.elements?.map((e) => e.members)).toEqual(data.map(countMembers));
        expect(l.unicodeEscapes).toBe(text.includes('\\u'));
      }),
      { numRuns: 300 },
    );
  });
});

describe('bytes that are not JSON', () => {
  // Found by the long fuzz run: `"\alue"` as a key reached a JSON.parse of the key and answered 500.
  test('an escape JSON does not have, in a key or a value, leaves the verdict to the parse', () => {
    expect(elements('{"data":[{"custom_data":{"\\alue":"1"}}]}')).toBeNull();
    expect(elements('{"data":[{"event_id":"a\\xb"}]}')).toBeNull();
    expect(elements('{"d\\ata":[1]}')).toBeNull();
    expect(elements('{"data":[{"k":"\\/\\b\\f\\n\\r\\t\\"\\\\"}]}')).toHaveLength(1);
  });

  // Found by the property below (seed -1034956368): a digit turned into `-` still gave elements.
  test('a number or literal outside the grammar of JSON gives no elements', () => {
    for (const v of ['-', '1.', '--1', '01', '1e', '.5', 'tru', 'nulx', 'fals'])
      expect(elements(`{"data":[{"quantity":${v}}]}`)).toBeNull();
    for (const v of ['-0', '0.5', '-1.5e+3', '10', 'true', 'null', 'false'])
      expect(elements(`{"data":[{"quantity":${v}}]}`)).toHaveLength(1);
  });

  test('property: any bytes of a valid body changed never throw, and non-JSON never yields elements', () => {
    const body = Buffer.from(
      JSON.stringify({
        data: [
          { event_name: 'checkout', user_data: { em: ['a'.repeat(64)] }, custom_data: { value: '1.50' } },
          { event_name: 'lead', custom_data: { contents: [{ id: 'x\\y', quantity: 2 }] } },
        ],
      }),
    );
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.nat(body.length - 1), fc.integer({ min: 0, max: 255 })), {
          minLength: 1,
          maxLength: 4,
        }),
        (edits) => {
          const b = Buffer.from(body);
          for (const [at, byte] of edits) b[at] = byte;
          const r = scan(b);
          // The light scan never throws either, and refuses what the full scan refuses (surrogates aside:
          // it hands every body with a \u escape to the full scan).
          const l = light(b);
          if (!r.ok && r.kind !== 'surrogate') expect(l).toEqual(r);
          if (l.ok && !l.unicodeEscapes && r.ok) expect(r.ok).toBe(true);
          let parses = true;
          try {
            JSON.parse(b.toString('utf8'));
          } catch {
            parses = false;
          }
          if (!parses) expect(r.ok && r.elements !== null && invalidUtf8Offset(b) === -1).toBe(false);
        },
      ),
      { numRuns: 2000 },
    );
  });
});

describe('repeated member names (C35)', () => {
  test('at the top level: the request is refused, escaped spellings included', () => {
    expect(scan('{"data":[],"data":[{"a":1}]}')).toEqual({ ok: false, kind: 'duplicate_top', key: 'data' });
    expect(scan('{"data":[1],"d\\u0061ta":[2]}')).toEqual({ ok: false, kind: 'duplicate_top', key: 'data' });
  });

  test('inside an event: the first repeated path, per event', () => {
    const els = elements(
      '{"data":[{"user_data":{"em":["a"]},"user_data":{"em":["b"]}},{"ok":1},' +
        '{"custom_data":{"contents":[{"id":"1","quantity":1,"id":"2"}]}},{"a":{"b":1,"\\u0062":2}}]}',
    );
    expect(els?.map((e) => e.duplicate)).toEqual(['user_data', null, 'custom_data.contents[0].id', 'a.b']);
  });

  test('an escaped name of a path is named decoded; names differing in one byte are no repeat', () => {
    expect(elements('{"data":[{"\\u0061":{"x":1,"x":2}}]}')?.[0]?.duplicate).toBe('a.x');
    expect(elements('{"data":[{"ab":1,"ac":2,"a":3,"b":{"ab":4}}]}')?.[0]?.duplicate).toBeNull();
  });

  // The model: member names decoded one by one (JSON.parse of each quoted name), compared as strings; the
  // scanner compares raw bytes unless a name is escaped or the object is large.
  test('property: the first repeated path is the one decoded names give, plain or escaped', () => {
    type Obj = { kind: 'obj'; members: [string, boolean, Node][] };
    type Node = Obj | { kind: 'arr'; items: Node[] } | { kind: 'num' };
    const name = fc.constantFrom('a', 'b', 'ab', 'ba', 'é', 'a"', 'k1', 'k10');
    const node: fc.Arbitrary<Node> = fc.letrec<{ node: Node }>((tie) => ({
      node: fc.oneof(
        { depthSize: 'small', withCrossShrink: true },
        fc.constant<Node>({ kind: 'num' }),
        fc.record({ kind: fc.constant('arr' as const), items: fc.array(tie('node'), { maxLength: 3 }) }),
        fc.record({
          kind: fc.constant('obj' as const),
          members: fc.array(fc.tuple(name, fc.boolean(), tie('node')), { maxLength: 20 }),
        }),
      ),
    })).node;
    const quote = (n: string, escaped: boolean) =>
      escaped
        ? `"${[...n].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join('')}"`
        : JSON.stringify(n);
    const text = (v: Node): string =>
      v.kind === 'num'
        ? '1'
        : v.kind === 'arr'
          ? `[${v.items.map(text).join(',')}]`
          : `{${v.members.map(([n, e, c]) => `${quote(n, e)}:${text(c)}`).join(',')}}`;
    // Depth first, in document order, as the scanner reads: the first name seen twice in its object.
    const firstRepeat = (v: Node, path: string): string | null => {
      if (v.kind === 'arr') {
        for (let i = 0; i < v.items.length; i++) {
          const r = firstRepeat(v.items[i] as Node, `${path}[${i}]`);
          if (r !== null) return r;
        }
        return null;
      }
      if (v.kind !== 'obj') return null;
      const seen = new Set<string>();
      for (const [n, , child] of v.members) {
        const here = path === '' ? n : `${path}.${n}`;
        if (seen.has(n)) return here;
        seen.add(n);
        const r = firstRepeat(child, here);
        if (r !== null) return r;
      }
      return null;
    };
    fc.assert(
      fc.property(fc.array(node, { minLength: 1, maxLength: 3 }), (events) => {
        const body = `{"data":[${events.map(text).join(',')}]}`;
        const els = elements(body);
        expect(els?.map((e) => e.duplicate)).toEqual(events.map((e) => firstRepeat(e, '')));
        // Issue 25: an element has a repeated name exactly when its parsed value holds fewer keys than the
        // light scan counted member names (the light scan does not compare names itself).
        const l = light(body);
        if (!l.ok || l.elements === null) throw new Error('the light scan refused a valid body');
        const parsed = JSON.parse(body).data as unknown[];
        expect(l.elements.map((e, i) => e.members !== countMembers(parsed[i]))).toEqual(
          events.map((e) => firstRepeat(e, '') !== null),
        );
      }),
      { numRuns: 500 },
    );
  });

  test('objects with many members use a set and still find the repeat', () => {
    const members = Array.from({ length: 40 }, (_, i) => `"k${i}":${i}`).join(',');
    expect(elements(`{"data":[{${members},"k7":0}]}`)?.[0]?.duplicate).toBe('k7');
  });
});

describe('bytes (C36)', () => {
  test('invalid UTF-8 is refused with the offset of the first bad byte', () => {
    const b = Buffer.concat([
      Buffer.from('{"data":[{"event_id":"u8-'),
      Buffer.from([0xff]),
      Buffer.from('"}]}'),
    ]);
    expect(scan(b)).toEqual({ ok: false, kind: 'utf8', offset: 25 });
    // Overlong, truncated and surrogate (CESU-8) encodings.
    expect(invalidUtf8Offset(Buffer.from([0x41, 0xc0, 0xaf]))).toBe(1);
    expect(invalidUtf8Offset(Buffer.from([0x41, 0x42, 0xe2, 0x82]))).toBe(2);
    expect(invalidUtf8Offset(Buffer.from([0xed, 0xa0, 0x80]))).toBe(0);
    expect(invalidUtf8Offset(Buffer.from('é🎉'))).toBe(-1);
  });

  test('property: invalidUtf8Offset agrees with Node, and the prefix before it is valid', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), (bytes) => {
        const b = Buffer.from(bytes);
        const at = invalidUtf8Offset(b);
        expect(at === -1).toBe(isUtf8(b));
        if (at >= 0) expect(isUtf8(b.subarray(0, at))).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });

  test('unpaired surrogate escapes are refused with their offset; pairs are fine', () => {
    expect(scan('{"data":[{"event_id":"\\ud800"}]}')).toEqual({ ok: false, kind: 'surrogate', offset: 22 });
    expect(scan('{"data":[{"event_id":"\\udc00x"}]}')).toEqual({ ok: false, kind: 'surrogate', offset: 22 });
    expect(scan('{"data":[{"event_id":"\\ud800\\u0041"}]}')).toEqual({
      ok: false,
      kind: 'surrogate',
      offset: 22,
    });
    expect(scan('{"data":[{"event_id":"\\ud83c\\udf89"}]}').ok).toBe(true);
  });

  test('numbers: exact when every reader holds them alike', () => {
    const exact = (v: string) => elements(`{"data":[{"n":${v}}]}`)?.[0]?.exactNumbers;
    expect(exact('1.5')).toBe(true);
    expect(exact('123456789012345')).toBe(true);
    expect(exact('0.000001')).toBe(true);
    expect(exact('-2.5e10')).toBe(true);
    expect(exact('9007199254740993')).toBe(false);
    expect(exact('0.30000000000000004')).toBe(false);
    expect(exact('1e308')).toBe(false);
  });
});

describe('limits (C37)', () => {
  test('nesting deeper than the limit is refused before parsing, with the offset', () => {
    const nested = (n: number) => `{"data":[${'['.repeat(n)}${']'.repeat(n)}]}`;
    expect(scan(nested(29)).ok).toBe(true); // body 1 + data 2 + 29 arrays = 31
    expect(scan(nested(31))).toEqual({ ok: false, kind: 'depth', offset: 39, max: 32 });
    const million = Buffer.from(`{"data":[${'['.repeat(1_000_000)}`);
    expect(scan(million)).toMatchObject({ ok: false, kind: 'depth', max: 32 });
  });

  test('more members in one object than the limit is refused', () => {
    const keys = (n: number) => Array.from({ length: n }, (_, i) => `"k${i}":1`).join(',');
    expect(scan(`{"data":[{${keys(1000)}}]}`).ok).toBe(true);
    expect(scan(`{"data":[{${keys(1001)}}]}`)).toMatchObject({ ok: false, kind: 'members', max: 1000 });
  });
});

describe('the light scan (issue 25) gives the full scan its verdicts', () => {
  const keys = (n: number) => Array.from({ length: n }, (_, i) => `"k${i}":1`).join(',');
  const nested = (n: number) => `{"data":[${'['.repeat(n)}${']'.repeat(n)}]}`;
  test.each([
    [
      'UTF-8',
      Buffer.concat([Buffer.from('{"data":[{"event_id":"u8-'), Buffer.from([0xff]), Buffer.from('"}]}')]),
    ],
    ['depth within', nested(29)],
    ['depth over', nested(31)],
    ['a million deep', `{"data":[${'['.repeat(1_000_000)}`],
    ['members within', `{"data":[{${keys(1000)}}]}`],
    ['members over', `{"data":[{${keys(1001)}}]}`],
    ['top-level repeat', '{"data":[],"data":[{"a":1}]}'],
    ['escaped top-level repeat', '{"data":[1],"d\\u0061ta":[2]}'],
  ])('%s', (_, body) => {
    const full = scan(body);
    const l = light(body);
    if (full.ok) expect(l).toMatchObject({ ok: true });
    else expect(l).toEqual(full);
  });

  test('a body with a \\u escape is handed to the full scan, which checks surrogates', () => {
    expect(light('{"data":[{"event_id":"\\ud800"}]}')).toMatchObject({ ok: true, unicodeEscapes: true });
    expect(light('{"data":[{"event_id":"\\n"}]}')).toMatchObject({ ok: true, unicodeEscapes: false });
  });

  test('numbers are exact as the full scan says', () => {
    for (const v of ['1.5', '123456789012345', '-2.5e10', '9007199254740993', '0.30000000000000004', '1e308'])
      expect(lightElements(`{"data":[{"n":${v}}]}`)).toEqual(elements(`{"data":[{"n":${v}}]}`));
  });
});
