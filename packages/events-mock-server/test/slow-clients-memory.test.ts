// Issue 9 item 3 (C40, C41): 200 sockets without a token announcing and sending 5 MiB bodies, and slow
// authenticated bodies, against the real bin in a child process. Before, RSS went from 77 MB to over 1 GB
// and stayed there, and slow bodies were never closed; now refused bodies are not read and slow ones time
// out, so RSS comes back within 20% of its baseline. (A relative bound, measured in the same run.)
// Issue 19 N7 (C59): 200 authenticated 5 MiB bodies sent slowly were all answered 408/503, but RSS stayed
// 280 MB above its start: each body held its thousands of small chunks in the malloc heap, whose holes glibc
// never gives back. Bodies past the mmap threshold now grow in one resizable buffer, given back at once.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, test } from 'vitest';
import { type Child, spawnBin } from './support/child.js';
import { A, event, T, testConfig } from './support/fixtures.js';

const MiB = 1024 * 1024;
const dir = mkdtempSync(join(tmpdir(), 'ems-slow-'));
let child: Child | undefined;
afterAll(async () => {
  child?.proc.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

function rssOf(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(m?.[1] ?? 0) * 1024;
}

/** One client: headers, then the body in 1 MiB writes; resolves when the server has closed the socket. */
function client(port: number, headers: string, bodyBytes: number, slow: boolean): Promise<'closed'> {
  return new Promise((resolve) => {
    const s: Socket = connect(port, '127.0.0.1');
    let timer: NodeJS.Timeout | undefined;
    const done = () => {
      clearInterval(timer);
      s.destroy();
      resolve('closed');
    };
    s.on('error', done);
    s.on('close', done);
    s.on('data', () => {});
    s.on('connect', () => {
      s.write(headers);
      if (slow) {
        // One byte every 200 ms: a 1 MiB body would take days.
        timer = setInterval(() => s.write(' '), 200);
        return;
      }
      const chunk = Buffer.alloc(MiB, 0x20);
      let left = bodyBytes;
      const pump = () => {
        while (left > 0 && !s.destroyed) {
          const n = Math.min(left, chunk.length);
          left -= n;
          if (!s.write(chunk.subarray(0, n))) return void s.once('drain', pump);
        }
      };
      pump();
    });
  });
}

async function post(url: string, id: string): Promise<number> {
  const r = await fetch(`${url}/v5/ad_accounts/${A}/events`, {
    method: 'POST',
    headers: { authorization: `Bearer ${T.convA}`, 'content-type': 'application/json' },
    body: JSON.stringify({ data: [event(Math.floor(Date.now() / 1000), { event_id: id })] }),
  });
  await r.arrayBuffer();
  return r.status;
}

test('200 unauthenticated 5 MiB sockets and 20 slow bodies: all closed, RSS back within 20%', async () => {
  const config = join(dir, 'config.json');
  writeFileSync(config, JSON.stringify({ ...testConfig(), server: { body_timeout_seconds: 2 } }));
  child = await spawnBin(['--port', '0', '--db', ':memory:', '--config', config, '--log-level', 'warn']);
  const pid = child.proc.pid as number;
  const port = Number(new URL(child.url).port);
  // Warm up: the code paths of a valid request are loaded before the baseline.
  for (let i = 0; i < 30; i++) expect(await post(child.url, `warm-${i}`)).toBe(200);
  await new Promise((r) => setTimeout(r, 500));
  const baseline = rssOf(pid);

  const big = `POST /v5/ad_accounts/${A}/events HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${5 * MiB - 1}\r\n\r\n`;
  const slowHead = `POST /v5/ad_accounts/${A}/events HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nAuthorization: Bearer ${T.convA}\r\nContent-Length: ${MiB}\r\n\r\n`;
  const clients = [
    ...Array.from({ length: 200 }, () => client(port, big, 5 * MiB - 1, false)),
    ...Array.from({ length: 20 }, () => client(port, slowHead, MiB, true)),
  ];
  let peak = 0;
  const sampler = setInterval(() => {
    peak = Math.max(peak, rssOf(pid));
  }, 50);
  // Every socket ends: the unauthenticated ones refused at once, the slow ones at the body timeout.
  expect(new Set(await Promise.all(clients))).toEqual(new Set(['closed']));
  clearInterval(sampler);

  // RSS settles back (the allocator returns freed pages lazily): sampled until within the bound or 20 s.
  let after = rssOf(pid);
  for (let i = 0; i < 40 && after > baseline * 1.2; i++) {
    await new Promise((r) => setTimeout(r, 500));
    after = rssOf(pid);
  }
  const mb = (n: number) => Math.round(n / MiB);
  process.stdout.write(`RSS baseline ${mb(baseline)} MB, peak ${mb(peak)} MB, after ${mb(after)} MB\n`);
  expect(after).toBeLessThanOrEqual(baseline * 1.2);
  // The server still answers and stores.
  expect(await post(child.url, 'after-the-load')).toBe(200);
}, 90_000);

/** One authenticated upload of a 5 MiB body sent in 32 KiB writes every 100 ms; resolves with its answer. */
function slowUpload(port: number): Promise<{ status: number | null; body: unknown }> {
  return new Promise((resolve) => {
    const s: Socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    let timer: NodeJS.Timeout | undefined;
    const done = () => {
      clearInterval(timer);
      s.destroy();
      const text = Buffer.concat(chunks).toString('utf8');
      const sep = text.indexOf('\r\n\r\n');
      let body: unknown = null;
      try {
        body = JSON.parse(text.slice(sep + 4));
      } catch {}
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? Number.NaN) || null, body });
    };
    s.on('data', (d) => chunks.push(d));
    s.on('error', done);
    s.on('close', done);
    s.on('connect', () => {
      s.write(
        `POST /v5/ad_accounts/${A}/events HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n` +
          `Authorization: Bearer ${T.convA}\r\nContent-Length: ${5 * MiB}\r\n\r\n`,
      );
      const chunk = Buffer.alloc(32 * 1024, 0x20);
      timer = setInterval(() => s.write(chunk), 100);
    });
  });
}

test('200 slow authenticated 5 MiB uploads: all answered 408 or 503, then RSS returns toward its baseline (N7)', async () => {
  child?.proc.kill('SIGKILL');
  const config = join(dir, 'slow-uploads.json');
  writeFileSync(config, JSON.stringify({ ...testConfig(), server: { body_timeout_seconds: 5 } }));
  child = await spawnBin(['--port', '0', '--db', ':memory:', '--config', config, '--log-level', 'warn']);
  const pid = child.proc.pid as number;
  const port = Number(new URL(child.url).port);
  for (let i = 0; i < 30; i++) expect(await post(child.url, `warm-${i}`)).toBe(200);
  await new Promise((r) => setTimeout(r, 500));
  const baseline = rssOf(pid);

  let peak = 0;
  const sampler = setInterval(() => {
    peak = Math.max(peak, rssOf(pid));
  }, 50);
  const answers = await Promise.all(Array.from({ length: 200 }, () => slowUpload(port)));
  clearInterval(sampler);
  // Each is answered in the service's format: the body timeout, or the body budget when it is full.
  for (const a of answers) {
    expect([408, 503]).toContain(a.status);
    expect(a.body).toMatchObject({ code: expect.any(Number), message: expect.any(String) });
  }

  // Sampled until the memory is back, or 10 s: no timing is asserted, only where RSS ends.
  let after = rssOf(pid);
  for (let i = 0; i < 20 && after - baseline > (peak - baseline) / 4; i++) {
    await new Promise((r) => setTimeout(r, 500));
    after = rssOf(pid);
  }
  const mb = (n: number) => Math.round(n / MiB);
  process.stdout.write(
    `slow uploads: RSS baseline ${mb(baseline)} MB, peak ${mb(peak)} MB, after ${mb(after)} MB\n`,
  );
  // The load was real (the bodies held well over 100 MB at once) ...
  expect(peak - baseline).toBeGreaterThan(100 * MiB);
  // ... and most of it came back (before: after = peak, 280 MB above the baseline).
  expect(after - baseline).toBeLessThan((peak - baseline) / 2);
  expect(await post(child.url, 'after-the-uploads')).toBe(200);
}, 90_000);
