// The batch pipeline: raw JSON slices of accepted events (stored as sent, C11) and the validation pool
// (worker threads answer exactly what the event loop would).
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, test } from 'vitest';
import { dataElementSlices } from '../src/pipeline/json-slices.js';
import { ValidationPool } from '../src/pipeline/pool.js';
import { prepareBatch } from '../src/pipeline/prepare.js';
import { event } from './support/fixtures.js';

describe('dataElementSlices', () => {
  const roundTrip = (text: string) => {
    const slices = dataElementSlices(text);
    const data = (JSON.parse(text) as { data: unknown[] }).data;
    expect(slices).not.toBeNull();
    expect(slices!.map((s) => JSON.parse(s))).toEqual(data);
  };

  test('finds each element exactly, whatever the spacing, nesting and string content', () => {
    roundTrip('{"data":[{"a":1},{"b":[1,2,{"c":"]}"}]}]}');
    roundTrip(
      ' {\n "x" : {"data":[9]} ,\r\n\t"data" : [ 1 , "two" , null , true , -1.5e3 , {"q":"\\"}]"} , [ ] ] } ',
    );
    roundTrip('{"data":["\\\\","\\\\\\"","é🎉\\u00e9"]}');
    roundTrip('{"data":[]}');
  });

  test('the last data key wins, as in JSON.parse', () => {
    const s = dataElementSlices('{"data":[1],"other":2,"data":[{"z":3}]}');
    expect(s).toEqual(['{"z":3}']);
  });

  test('shapes it does not recognize give null (the caller serializes instead)', () => {
    expect(dataElementSlices('[1,2]')).toBeNull();
    expect(dataElementSlices('{"data":{"a":1}}')).toBeNull();
    expect(dataElementSlices('{"d\\u0061ta":[1]}')).toBeNull();
  });
});

describe('validation pool', () => {
  const pool = new ValidationPool({ threads: 1, minBytes: 0 });
  afterAll(() => pool.close());

  test('a worker thread prepares a batch exactly as the event loop does', async () => {
    const dir = fileURLToPath(new URL('../../../fixtures/integrator-payloads/', import.meta.url));
    const data = (
      JSON.parse(readFileSync(`${dir}17-mistakes-mixed-batch.json`, 'utf8')) as { data: unknown[] }
    ).data;
    const now = 1_753_257_700;
    const text = JSON.stringify(
      { data: [...data, event(now, { event_id: 'd' }), event(now, { event_id: 'd' })] },
      null,
      1,
    );
    const ctx = { now, currency: 'EUR', customEventNames: ['Quiz_Done'] };
    const inline = prepareBatch(text, ctx, true);
    const threaded = await pool.prepare(Buffer.from(text), ctx, true);
    expect(threaded).toEqual(inline);
    expect(inline.kind).toBe('ok');
    const bad = await pool.prepare(Buffer.from('{"data": ['), ctx, true);
    expect(bad.kind).toBe('json_error');
  }, 30_000);
});
