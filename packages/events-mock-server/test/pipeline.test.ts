// The validation pool: worker threads answer exactly what the event loop would.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, test, vi } from 'vitest';
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

  test('a thread idle for the pool idle time exits; the next large body starts one again', async () => {
    const idlePool = new ValidationPool({ threads: 2, minBytes: 0, idleMs: 200 });
    try {
      const ctx = { now: 1_753_257_700, currency: 'EUR' };
      const body = Buffer.from(JSON.stringify({ data: [event(ctx.now, { event_id: 'i1' })] }));
      // Two at once: the second finds the first thread busy and starts another (counted as they are posted:
      // on a loaded machine the first may already have been idle for 200 ms when the second answers).
      const both = Promise.all([idlePool.prepare(body, ctx, false), idlePool.prepare(body, ctx, false)]);
      expect(idlePool.running).toBe(2);
      expect((await both).map((p) => p.kind)).toEqual(['ok', 'ok']);
      await vi.waitFor(() => expect(idlePool.running).toBe(0), { timeout: 10_000, interval: 50 });
      expect((await idlePool.prepare(body, ctx, false)).kind).toBe('ok');
      expect(idlePool.running).toBe(1);
    } finally {
      await idlePool.close();
    }
  }, 30_000);

  test('by default small bodies stay on the event loop, and large ones go to a thread', () => {
    const byDefault = new ValidationPool();
    expect(byDefault.threadFor(1024, false)).toBe('inline');
    expect(byDefault.threadFor(1 << 20, false)).toBe('worker');
    const none = new ValidationPool({ threads: 0 });
    expect(none.threadFor(1 << 20, false)).toBe('inline');
    expect(none.threadFor(1 << 20, true)).toBe('inline');
    const given = new ValidationPool({ threads: 1 });
    expect(given.threadFor(1 << 20, true)).toBe('worker');
  });

  test('by default (C76) test batches get a thread per core; stored ones leave two cores free', async () => {
    const twoCores = new ValidationPool({ cores: 2, minBytes: 0 });
    expect(twoCores.threadFor(1 << 20, true)).toBe('inline');
    expect(twoCores.threadFor(1 << 20, false)).toBe('worker');
    const threeCores = new ValidationPool({ cores: 3 });
    expect(threeCores.threadFor(1 << 20, true)).toBe('worker');
    const oneCore = new ValidationPool({ cores: 1 });
    expect(oneCore.threadFor(1 << 20, true)).toBe('inline');
    expect(oneCore.threadFor(1 << 20, false)).toBe('worker');
    try {
      const ctx = { now: 1_753_257_700, currency: 'EUR' };
      const body = Buffer.from(JSON.stringify({ data: [event(ctx.now, { event_id: 't1' })] }));
      // Three at once on two cores: two threads start, the third batch waits for one of them.
      const three = await Promise.all([0, 1, 2].map(() => twoCores.prepare(body, ctx, false)));
      expect(three.map((p) => p.kind)).toEqual(['ok', 'ok', 'ok']);
      expect(twoCores.running).toBe(2);
    } finally {
      await Promise.all([twoCores.close(), threeCores.close(), oneCore.close()]);
    }
  }, 30_000);
});
