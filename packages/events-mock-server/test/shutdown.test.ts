// Issue point 1: graceful shutdown finishes the batches in flight (their 200 is sent after the commit),
// refuses new work, then closes the store.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, expect, test } from 'vitest';
import { type BatchWrite, SqliteStore, type Store } from '../src/index.js';
import { A, event, T } from './support/fixtures.js';
import { startHarness } from './support/server.js';

const dir = mkdtempSync(join(tmpdir(), 'ems-shutdown-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test('close() while a batch is being stored: the batch gets its 200 and is durable, close waits for it', async () => {
  const db = join(dir, 'slow.db');
  const inner = new SqliteStore({ path: db });
  let committing!: () => void;
  const started = new Promise<void>((r) => {
    committing = r;
  });
  // The same store, with a slow commit, so the batch is surely in flight when shutdown starts.
  const store = new Proxy(inner, {
    get(target, key) {
      if (key === 'commitBatch')
        return async (b: BatchWrite) => {
          committing();
          await new Promise((r) => setTimeout(r, 300));
          return target.commitBatch(b);
        };
      const v = Reflect.get(target, key, target);
      return typeof v === 'function' ? v.bind(target) : v;
    },
  }) as Store;
  const h = await startHarness({ store });
  const inFlight = h.send(A, T.convA, [
    event(h.nowS(), { event_id: 'in-flight-1' }),
    event(h.nowS(), { event_id: 'in-flight-2' }),
  ]);
  await started;
  let closed = false;
  const closing = h.close().then(() => {
    closed = true;
  });
  // The server stops accepting: a new request is refused (connection refused, or 503 on a kept-alive socket).
  const late = await fetch(`${h.url}/healthz`).then(
    (r) => r.status,
    () => 'refused',
  );
  expect([503, 'refused']).toContain(late);
  const r = await inFlight;
  expect(r.status).toBe(200);
  expect(r.body.num_events_processed).toBe(2);
  await closing;
  expect(closed).toBe(true);
  const conn = new Database(db, { readonly: true });
  expect((conn.prepare('SELECT count(*) AS n FROM events').get() as { n: number }).n).toBe(2);
  conn.close();
});
