// Issue point 1: graceful shutdown finishes the batches in flight (their 200 is sent after the commit),
// refuses new work, then closes the store.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, expect, test } from 'vitest';
import { type BatchWrite, SqliteStore, type Store } from '../src/index.js';
import { spawnBin } from './support/child.js';
import { A, event, T, testConfig } from './support/fixtures.js';
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

/** Opens a connection, writes `head` and then a byte every 200 ms (or nothing more); resolves with the answer. */
function unfinished(port: number, head: string, drip: boolean): Promise<{ text: string; body: unknown }> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    let timer: NodeJS.Timeout | undefined;
    const done = () => {
      clearInterval(timer);
      socket.destroy();
      const text = Buffer.concat(chunks).toString('utf8');
      const sep = text.indexOf('\r\n\r\n');
      let body: unknown = null;
      try {
        body = JSON.parse(text.slice(sep + 4));
      } catch {}
      resolve({ text, body });
    };
    socket.on('data', (d) => chunks.push(d));
    socket.on('end', done);
    socket.on('error', done);
    socket.write(head);
    if (drip) timer = setInterval(() => socket.write(' '), 200);
  });
}

test('SIGTERM while an upload never finishes: it gets 503 shutting_down at the end of the grace, exit 0 (N10, C73)', async () => {
  const config = join(dir, 'grace.json');
  writeFileSync(config, JSON.stringify({ ...testConfig(), server: { shutdown_grace_seconds: 1 } }));
  const bin = await spawnBin(['--port', '0', '--db', ':memory:', '--config', config, '--log-level', 'warn']);
  try {
    const port = Number(new URL(bin.url).port);
    // A body that never ends, and a request head that never ends.
    const upload = unfinished(
      port,
      `POST /v5/ad_accounts/${A}/events HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${T.convA}\r\n` +
        'Content-Type: application/json\r\nContent-Length: 100000\r\n\r\n{"data":',
      true,
    );
    const head = unfinished(port, 'GET /healthz HTTP/1.1\r\nHost: x\r\n', false);
    // Both requests have reached the server before the signal.
    await new Promise((r) => setTimeout(r, 500));
    bin.proc.kill('SIGTERM');
    const shuttingDown = {
      code: 4197,
      message: 'The service is temporarily unavailable; nothing of this request was stored.',
      details: [
        { path: 'request', problem: 'the server is shutting down; retry in 1 seconds on a new connection' },
      ],
    };
    for (const r of await Promise.all([upload, head])) {
      expect(r.text).toMatch(/^HTTP\/1\.1 503 /);
      expect(r.text.toLowerCase()).toContain('retry-after: 1');
      expect(r.text.toLowerCase()).toContain('connection: close');
      expect(r.body).toEqual(shuttingDown);
    }
    expect(await bin.exited).toBe(0);
    expect(bin.stderr()).not.toContain('exiting');
  } finally {
    bin.proc.kill('SIGKILL');
  }
}, 60_000);
