// Issue 9 item 5 (C43): SIGTERM to the real bin under load on kept-alive connections. Requests in flight
// finish; requests arriving on kept-alive sockets get 503 with Retry-After and Connection: close, never a
// reset; once the listener is closed new connections are refused; every acknowledged event is stored.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, expect, test } from 'vitest';
import { type Child, spawnBin } from './support/child.js';
import { A, event, T, testConfig } from './support/fixtures.js';

const dir = mkdtempSync(join(tmpdir(), 'ems-sigterm-'));
let child: Child | undefined;
afterAll(() => {
  child?.proc.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

interface Outcome {
  status?: number;
  retryAfter?: string;
  connection?: string;
  error?: string;
}

function post(agent: Agent, port: number, id: string): Promise<Outcome> {
  const body = JSON.stringify({ data: [event(Math.floor(Date.now() / 1000), { event_id: id })] });
  return new Promise((resolve) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: `/v5/ad_accounts/${A}/events`,
        agent,
        headers: {
          authorization: `Bearer ${T.convA}`,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
        },
      },
      (res) => {
        res.resume();
        res.on('end', () =>
          resolve({
            status: res.statusCode as number,
            retryAfter: res.headers['retry-after'],
            connection: res.headers.connection,
          }),
        );
        res.on('error', (e: NodeJS.ErrnoException) => resolve({ error: e.code ?? e.message }));
      },
    );
    req.on('error', (e: NodeJS.ErrnoException) => resolve({ error: e.code ?? e.message }));
    req.end(body);
  });
}

test('SIGTERM under load: 200 or 503 + Retry-After + close, never a reset; acknowledged = stored', async () => {
  const db = join(dir, 'events.db');
  const config = join(dir, 'config.json');
  writeFileSync(config, JSON.stringify({ ...testConfig(), server: { shutdown_grace_seconds: 2 } }));
  child = await spawnBin(['--port', '0', '--db', db, '--config', config, '--log-level', 'warn']);
  const port = Number(new URL(child.url).port);
  const agent = new Agent({ keepAlive: true, maxSockets: 16 });
  const acknowledged = new Set<string>();
  const outcomes: Outcome[] = [];
  let n = 0;
  let signalled = false;
  // 16 kept-alive connections, each sending one batch after another until the server refuses them.
  const worker = async (w: number) => {
    for (;;) {
      const id = `w${w}-${n++}`;
      const o = await post(agent, port, id);
      outcomes.push(o);
      if (o.status === 200) acknowledged.add(id);
      if (o.error === 'ECONNREFUSED' || (signalled && o.error)) return;
      if (o.status === 503) {
      }
    }
  };
  const workers = Array.from({ length: 16 }, (_, w) => worker(w));
  await new Promise((r) => setTimeout(r, 1500));
  signalled = true;
  child.proc.kill('SIGTERM');
  await Promise.all(workers);
  expect(await child.exited).toBe(0);
  agent.destroy();

  const errors = outcomes.filter((o) => o.error).map((o) => o.error);
  const statuses = outcomes.filter((o) => o.status).map((o) => o.status);
  const refusals = outcomes.filter((o) => o.status === 503);
  process.stdout.write(
    `SIGTERM under load: ${acknowledged.size} acknowledged, ${refusals.length} answered 503, errors ${JSON.stringify(
      [...new Set(errors)],
    )}\n`,
  );
  // Every answer is a 200 or the shutdown 503; the only connection error is a refused new connection.
  expect(new Set(statuses.filter((s) => s !== 200 && s !== 503))).toEqual(new Set());
  expect(new Set(errors.filter((e) => e !== 'ECONNREFUSED'))).toEqual(new Set());
  for (const r of refusals) {
    expect(r.retryAfter).toBe('1');
    expect(r.connection).toBe('close');
  }
  expect(acknowledged.size).toBeGreaterThan(0);
  const conn = new Database(db, { readonly: true });
  const stored = new Set(
    (conn.prepare('SELECT event_id FROM events').all() as { event_id: string }[]).map((r) => r.event_id),
  );
  conn.close();
  for (const id of acknowledged) expect(stored.has(id), id).toBe(true);
}, 60_000);
