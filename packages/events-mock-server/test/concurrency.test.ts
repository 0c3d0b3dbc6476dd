// C6 + C11: parallel batches that share event_ids store each (ad account, event_name, event_id) once, even
// across two server processes writing one SQLite file (BEGIN IMMEDIATE serializes the dedup check + insert).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, expect, test } from 'vitest';
import { startServer } from '../src/index.js';
import { spawnBin } from './support/child.js';
import { A, event, T, testConfig } from './support/fixtures.js';

const dir = mkdtempSync(join(tmpdir(), 'ems-concurrency-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const IDS = 200;
const BATCHES = 24;

test('parallel batches sharing event_ids, in two processes on one file: each key stored once', async () => {
  const db = join(dir, 'shared.db');
  const config = join(dir, 'config.yaml');
  writeFileSync(config, JSON.stringify(testConfig())); // JSON is YAML
  const local = await startServer({ config, db });
  const child = await spawnBin(['--port', '0', '--db', db, '--config', config, '--log-level', 'warn']);
  try {
    const now = Math.floor(Date.now() / 1000);
    const shared = Array.from({ length: IDS }, (_, i) => `shared-${i}`);
    const send = (url: string, k: number) => {
      // Each batch holds every shared id once, rotated to its own starting point, plus two ids of its own.
      const r = (k * 17) % IDS;
      const ids = [...shared.slice(r), ...shared.slice(0, r), `own-${k}-a`, `own-${k}-b`];
      return fetch(`${url}/v5/ad_accounts/${A}/events`, {
        method: 'POST',
        headers: { authorization: `Bearer ${T.convA}`, 'content-type': 'application/json' },
        body: JSON.stringify({ data: ids.map((id) => event(now, { event_id: id })) }),
      }).then(async (r) => ({
        status: r.status,
        body: (await r.json()) as { events: { warning_message: string | null }[] },
        ids,
      }));
    };
    const results = await Promise.all(
      Array.from({ length: BATCHES }, (_, k) => send(k % 2 ? child.url : local.url, k)),
    );
    for (const r of results) expect(r.status).toBe(200);

    // Exactly one response per shared id carries no duplicate warning: the one that stored it.
    const firsts = new Map<string, number>();
    for (const r of results)
      r.ids.forEach((id, i) => {
        if (!r.body.events[i]?.warning_message?.includes('Duplicate'))
          firsts.set(id, (firsts.get(id) ?? 0) + 1);
      });
    for (const id of shared) expect(firsts.get(id), id).toBe(1);

    const conn = new Database(db, { readonly: true });
    const rows = conn
      .prepare('SELECT event_id, count(*) AS n FROM events GROUP BY ad_account_id, event_name, event_id')
      .all() as {
      event_id: string;
      n: number;
    }[];
    const dupCount = conn
      .prepare("SELECT sum(duplicates) AS d FROM events WHERE event_id LIKE 'shared-%'")
      .get() as { d: number };
    conn.close();
    expect(rows).toHaveLength(IDS + 2 * BATCHES);
    for (const r of rows) expect(r.n, r.event_id).toBe(1);
    expect(dupCount.d).toBe(IDS * (BATCHES - 1));
  } finally {
    child.proc.kill('SIGTERM');
    await child.exited;
    await local.close();
  }
}, 60_000);
