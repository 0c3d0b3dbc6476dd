// The validation pool: worker threads answer exactly what the event loop would.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, test } from 'vitest';
import { ValidationPool } from '../src/pipeline/pool.js';
import { prepareBatch } from '../src/pipeline/prepare.js';
import { event } from './support/fixtures.js';

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
    const inline = prepareBatch(Buffer.from(text), ctx, true);
    const threaded = await pool.prepare(Buffer.from(text), ctx, true);
    expect(threaded).toEqual(inline);
    expect(inline.kind).toBe('ok');
    const bad = await pool.prepare(Buffer.from('{"data": ['), ctx, true);
    expect(bad.kind).toBe('json_error');
  }, 30_000);
});
