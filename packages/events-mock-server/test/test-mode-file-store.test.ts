// C7 with the SQLite file store on its thread: test mode's dedup lookup of a small batch is answered by a
// read-only connection on the event loop (issue 11), a larger one by the store thread. Both must see every
// committed sighting: this server's, a tag event's, and another process's writing the same file.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { SqliteStore } from '../src/store/sqlite/sqlite-store.js';
import { A, event, T } from './support/fixtures.js';
import { type Harness, startHarness, T0 } from './support/server.js';

let h: Harness;
let dir: string;
let db: string;
beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ems-test-mode-'));
  db = join(dir, 'events.db');
  h = await startHarness({ db, storeThread: true });
});
afterEach(async () => {
  await h.close();
  rmSync(dir, { recursive: true, force: true });
});

const warning = (r: { body: { events: { warning_message: string | null }[] } }, i = 0) =>
  r.body.events[i]?.warning_message ?? null;

describe('test mode on a file store', () => {
  test('a small test batch sees a stored event and an in-batch repeat; nothing is stored', async () => {
    expect(h.server.store.description).toContain('(thread)');
    const e = event(h.nowS(), { event_id: 'seen' });
    await h.send(A, T.convA, [e]);
    const r = await h.send(A, T.convA, [e, event(h.nowS(), { event_id: 'new' })], '?test=true');
    expect(warning(r, 0)).toContain('Duplicate');
    expect(warning(r, 1)).toBeNull();
    const live = await h.send(A, T.convA, [event(h.nowS(), { event_id: 'new' })]);
    expect(warning(live)).toBeNull();
  });

  test('a tag event recorded through the admin API is seen by a small test batch', async () => {
    const t = h.nowS() - 60;
    await h.call('POST', '/admin/tag_events', {
      token: T.admin,
      body: { data: [{ ad_account_id: A, event_name: 'Checkout', event_id: 'tag-9', event_time: t }] },
    });
    const r = await h.send(A, T.convA, [event(h.nowS(), { event_id: 'tag-9' })], '?test=true');
    expect(warning(r)).toContain('tag event');
  });

  test('a batch larger than one lookup statement (100 events) finds the stored ones', async () => {
    const seen = Array.from({ length: 3 }, (_, i) => event(h.nowS(), { event_id: `big-${i * 40}` }));
    await h.send(A, T.convA, seen);
    const batch = Array.from({ length: 100 }, (_, i) => event(h.nowS(), { event_id: `big-${i}` }));
    const r = await h.send(A, T.convA, batch, '?test=true');
    const warned = r.body.events
      .map((e: { warning_message: string | null }, i: number) => (e.warning_message ? i : -1))
      .filter((i: number) => i >= 0);
    expect(warned).toEqual([0, 40, 80]);
  });

  test('an event committed by another connection to the same file is seen at once', async () => {
    const other = new SqliteStore({ path: db });
    try {
      await other.commitBatch({
        adAccountId: A,
        requestId: 'other-process',
        receivedAt: T0,
        dedupSince: T0 - 1000,
        events: [
          {
            index: 0,
            eventName: 'checkout',
            eventId: 'elsewhere',
            eventTime: h.nowS(),
            usage: ['reporting'],
            json: '{}',
          },
        ],
        failures: [],
      });
    } finally {
      await other.close();
    }
    const r = await h.send(A, T.convA, [event(h.nowS(), { event_id: 'elsewhere' })], '?test=true');
    expect(warning(r)).toContain('Duplicate');
  });
});
