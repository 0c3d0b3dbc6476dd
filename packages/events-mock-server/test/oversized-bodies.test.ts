// C122 (issue 38 item 4): an oversized body's 413 is read by clients that read only once they have sent the
// request (Node's fetch, undici), not only by curl, which reads while it sends. Before, Node closed the socket
// as soon as the 413 was written: of ten 6 MiB bodies sent with fetch, 2-4 read the 413 and the others failed
// with EPIPE or a reset. The connection is now half-closed and the rest of the body discarded, for a bounded time.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LIMITS } from '@org/events-types';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type Child, spawnBin } from './support/child.js';
import { A, T, testConfig } from './support/fixtures.js';

const OVER = Buffer.alloc(6 * 1024 * 1024, 0x20);
const DRAIN_MS = LIMITS.oversized_body_drain_seconds.value * 1000;

// The server runs in a child process, as in production: in the test's own process the client and the
// server share one event loop, and the race that lost the answer does not happen.
const dir = mkdtempSync(join(tmpdir(), 'ems-oversized-'));
let child: Child;
let port: number;
beforeAll(async () => {
  const config = join(dir, 'config.json');
  writeFileSync(config, JSON.stringify(testConfig()));
  child = await spawnBin(['--port', '0', '--db', ':memory:', '--config', config, '--log-level', 'warn']);
  port = Number(new URL(child.url).port);
}, 60_000);
afterAll(() => {
  child?.proc.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

const url = () => `${child.url}/v5/ad_accounts/${A}/events`;
const headers = { authorization: `Bearer ${T.convA}`, 'content-type': 'application/json' };

/** What ten sends answered: statuses, or the connection error's code. */
async function tenTimes(send: () => Promise<Response>): Promise<Record<string, number>> {
  const seen: Record<string, number> = {};
  for (let i = 0; i < 10; i++) {
    let key: string;
    try {
      const r = await send();
      const body = (await r.json()) as { message?: string };
      key = `${r.status} ${body.message}`;
    } catch (e) {
      key = String((e as { cause?: { code?: string } }).cause?.code ?? (e as Error).message);
    }
    seen[key] = (seen[key] ?? 0) + 1;
  }
  return seen;
}

describe('C122 an oversized body is answered 413 where every client reads it', () => {
  test('ten 6 MiB bodies with a declared length, sent with fetch: ten 413s', async () => {
    const seen = await tenTimes(() => fetch(url(), { method: 'POST', headers, body: OVER }));
    expect(seen).toEqual({ '413 The request was invalid.': 10 });
  });

  test('ten 6 MiB bodies streamed without a length (chunked), sent with fetch: ten 413s', async () => {
    const stream = () =>
      new ReadableStream<Uint8Array>({
        start(c) {
          for (let at = 0; at < OVER.length; at += 256 * 1024) c.enqueue(OVER.subarray(at, at + 256 * 1024));
          c.close();
        },
      });
    const seen = await tenTimes(() =>
      fetch(url(), { method: 'POST', headers, body: stream(), duplex: 'half' } as RequestInit),
    );
    expect(seen).toEqual({ '413 The request was invalid.': 10 });
  });

  // curl runs beside the server, which lives in this process: spawned, never spawnSync (that would block it).
  test.skipIf(spawnSync('curl', ['--version']).status !== 0)('curl reads the 413 too', async () => {
    const curl = spawn('curl', [
      '-s',
      '-o',
      '/dev/null',
      '-w',
      '%{http_code}',
      '-X',
      'POST',
      '-H',
      `authorization: ${headers.authorization}`,
      '-H',
      'content-type: application/json',
      '--data-binary',
      '@-',
      url(),
    ]);
    let out = '';
    curl.stdout.on('data', (d) => {
      out += d;
    });
    curl.stdin.on('error', () => {});
    curl.stdin.end(OVER);
    await new Promise((resolve) => curl.once('close', resolve));
    expect(out).toBe('413');
  });

  test('a client that never stops sending is answered at once and closed at the bound', async () => {
    // Half-open allowed: the server's FIN after its answer does not end this side, which keeps sending.
    const socket = connect({ port, host: '127.0.0.1', allowHalfOpen: true });
    const started = Date.now();
    let answer = '';
    let answeredAt = 0;
    const closed = new Promise<number>((resolve) => socket.once('close', () => resolve(Date.now())));
    socket.on('error', () => {});
    socket.on('data', (d) => {
      if (!answeredAt) answeredAt = Date.now();
      answer += d.toString('latin1');
    });
    socket.write(
      `POST /v5/ad_accounts/${A}/events HTTP/1.1\r\nhost: x\r\nauthorization: Bearer ${T.convA}\r\ncontent-type: application/json\r\ncontent-length: ${100 * 1024 * 1024}\r\n\r\n`,
    );
    const chunk = Buffer.alloc(16 * 1024, 0x20);
    const writer = setInterval(() => socket.writable && socket.write(chunk), 20);
    const end = await closed;
    clearInterval(writer);
    expect(answer).toMatch(/^HTTP\/1\.1 413 /);
    expect(answer.toLowerCase()).toContain('connection: close');
    // Answered before the bound, closed by the server at it (not by this client, which kept sending).
    expect(answeredAt - started).toBeLessThan(DRAIN_MS);
    expect(end - started).toBeGreaterThanOrEqual(DRAIN_MS - 1000);
  }, 30_000);
});
