// C11 durability: a child-process server under a stream of batches is killed with SIGKILL. After a restart,
// every event whose batch got a 200 is in the store and no batch is half stored. Also the bin's graceful
// shutdown (SIGTERM finishes in-flight batches, issue point 1).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, test } from 'vitest';
import { startServer } from '../src/index.js';
import { type Child, spawnBin } from './support/child.js';
import { A, event, T, testConfig } from './support/fixtures.js';

const dir = mkdtempSync(join(tmpdir(), 'ems-durability-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const config = join(dir, 'config.yaml');
writeFileSync(
  config,
  `admin_token: ${T.admin}
ad_accounts:
  - { id: "${A}", name: Shop A, currency: USD }
tokens:
  - { kind: conversion, token: ${T.convA}, ad_account: "${A}" }
`,
);

const BATCH = 50;
const CLIENTS = 4;

function batchBody(batch: number): string {
  const now = Math.floor(Date.now() / 1000);
  return JSON.stringify({
    data: Array.from({ length: BATCH }, (_, i) => event(now, { event_id: `b${batch}-e${i}` })),
  });
}

/** Sends batches from CLIENTS loops until stopped; returns the ids of batches answered 200. */
function stream(child: Child) {
  const acked = new Set<number>();
  let next = 0;
  let stopped = false;
  const loops = Array.from({ length: CLIENTS }, async () => {
    while (!stopped) {
      const id = next++;
      try {
        const r = await fetch(`${child.url}/v5/ad_accounts/${A}/events`, {
          method: 'POST',
          headers: { authorization: `Bearer ${T.convA}`, 'content-type': 'application/json' },
          body: batchBody(id),
        });
        if (r.status === 200) {
          const body = (await r.json()) as { num_events_processed: number };
          if (body.num_events_processed === BATCH) acked.add(id);
        } else await r.arrayBuffer();
      } catch {
        // The server died under us: this batch was not acknowledged.
      }
    }
  });
  return {
    acked,
    sent: () => next,
    stop: async () => {
      stopped = true;
      await Promise.all(loops);
    },
  };
}

async function storedBatches(url: string): Promise<Map<number, number>> {
  const counts = new Map<number, number>();
  let cursor: string | null = null;
  do {
    const r = await fetch(`${url}/admin/events?limit=1000${cursor ? `&cursor=${cursor}` : ''}`, {
      headers: { authorization: `Bearer ${T.admin}` },
    });
    const page = (await r.json()) as { items: { event_id: string }[]; next_cursor: string | null };
    for (const it of page.items) {
      const b = Number(/^b(\d+)-/.exec(it.event_id)?.[1]);
      counts.set(b, (counts.get(b) ?? 0) + 1);
    }
    cursor = page.next_cursor;
  } while (cursor);
  return counts;
}

test('SIGKILL under load: every acknowledged batch is stored whole, no batch is half stored', async () => {
  const db = join(dir, 'events.db');
  const first = await spawnBin(['--port', '0', '--db', db, '--config', config, '--log-level', 'warn']);
  const s = stream(first);
  // Let a fair number of batches through, then kill mid-stream.
  const started = Date.now();
  while (s.acked.size < 40 && Date.now() - started < 15_000) await new Promise((r) => setTimeout(r, 20));
  first.proc.kill('SIGKILL');
  expect(await first.exited).toBe('SIGKILL');
  await s.stop();
  expect(s.acked.size).toBeGreaterThanOrEqual(40);

  const second = await spawnBin(['--port', '0', '--db', db, '--config', config, '--log-level', 'warn']);
  try {
    const counts = await storedBatches(second.url);
    for (const id of s.acked) expect(counts.get(id), `acknowledged batch ${id}`).toBe(BATCH);
    for (const [id, n] of counts) expect(n, `batch ${id} is whole or absent`).toBe(BATCH);
    // Batches in flight at the kill may or may not be there; nothing else is.
    expect(counts.size).toBeLessThanOrEqual(s.sent());
  } finally {
    // Graceful shutdown of the bin: SIGTERM exits 0 after closing the server and the store.
    second.proc.kill('SIGTERM');
    expect(await second.exited).toBe(0);
  }
}, 60_000);

test('SIGTERM during a stream: batches in flight are answered, acknowledged ones are stored, exit code 0', async () => {
  const db = join(dir, 'graceful.db');
  const child = await spawnBin(['--port', '0', '--db', db, '--config', config, '--log-level', 'info']);
  const s = stream(child);
  const started = Date.now();
  while (s.acked.size < 10 && Date.now() - started < 15_000) await new Promise((r) => setTimeout(r, 20));
  child.proc.kill('SIGTERM');
  expect(await child.exited).toBe(0);
  await s.stop();
  expect(child.stdout()).toContain('shutting down');

  const again = await spawnBin(['--port', '0', '--db', db, '--config', config, '--log-level', 'warn']);
  try {
    const counts = await storedBatches(again.url);
    for (const id of s.acked) expect(counts.get(id)).toBe(BATCH);
    for (const [, n] of counts) expect(n).toBe(BATCH);
  } finally {
    again.proc.kill('SIGTERM');
    await again.exited;
  }
}, 60_000);

/** Polls until `done` holds; the test's own timeout ends a wait that never does. */
async function until(done: () => Promise<boolean>): Promise<void> {
  while (!(await done())) await new Promise((r) => setTimeout(r, 50));
}

test('C100: SIGKILL during delivery loses nothing and, after dedup, duplicates nothing at the upstream', async () => {
  // The upstream: this server in-process, on the real clock as the bin is.
  const upstream = await startServer({
    config: testConfig(),
    docs: false,
    inspector: false,
    transport: { shutdownGraceSeconds: 0 },
  });
  const db = join(dir, 'forward.db');
  const forwardConfig = join(dir, 'forward.yaml');
  // Short leases: the restarted process claims the dead one's batches again soon.
  writeFileSync(
    forwardConfig,
    `${readFileSync(config, 'utf8')}delivery:\n  lease_seconds: 1\n  retry_max_seconds: 1\n`,
  );
  const args = [
    '--port',
    '0',
    '--db',
    db,
    '--config',
    forwardConfig,
    '--log-level',
    'warn',
    '--forward',
    upstream.url,
  ];
  const env = { EVENTS_FORWARD_TOKEN: T.convA };
  try {
    const first = await spawnBin(args, env);
    const s = stream(first);
    // Killed once the upstream has received some of what was acknowledged, with deliveries still going.
    await until(async () => s.acked.size >= 40 && (await upstream.store.report(A)).stored.length > 0);
    first.proc.kill('SIGKILL');
    expect(await first.exited).toBe('SIGKILL');
    await s.stop();
    // One line at start names the sink, never the token.
    expect(first.stdout()).toContain(
      `delivery: forward forwards all ad accounts to ${upstream.url} (token from $EVENTS_FORWARD_TOKEN)`,
    );
    expect(first.stdout()).not.toContain(T.convA);

    const second = await spawnBin(args, env);
    try {
      const status = async () =>
        (
          (await (
            await fetch(`${second.url}/admin/delivery`, { headers: { authorization: `Bearer ${T.admin}` } })
          ).json()) as { sinks: { pending: number; dead: number }[] }
        ).sinks[0];
      await until(async () => (await status())?.pending === 0);
      expect((await status())?.dead).toBe(0);
      const stored = await storedBatches(second.url);
      const received = await storedBatches(upstream.url);
      // Every event stored here (every acknowledged one among them) arrived upstream, each stored once.
      for (const id of s.acked) expect(received.get(id), `acknowledged batch ${id}`).toBe(BATCH);
      expect([...received].sort()).toEqual([...stored].sort());
    } finally {
      second.proc.kill('SIGTERM');
      expect(await second.exited).toBe(0);
    }
  } finally {
    await upstream.close();
  }
}, 120_000);
