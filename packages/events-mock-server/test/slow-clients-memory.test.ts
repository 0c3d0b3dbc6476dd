// Issue 9 item 3 (C40, C41): 200 sockets without a token announcing and sending 5 MiB bodies, and slow
// authenticated bodies, against the real bin in a child process. Before, RSS went from 77 MB to over 1 GB
// and stayed there, and slow bodies were never closed; now refused bodies are not read and slow ones time
// out, so RSS comes back within 20% of its baseline. (A relative bound, measured in the same run.)
// Issue 19 N7 (C59): 200 authenticated 5 MiB bodies sent slowly were all answered 408/503, but RSS stayed
// 280 MB above its start: each body held its thousands of small chunks in the malloc heap, whose holes glibc
// never gives back. Bodies past the mmap threshold now grow in one resizable buffer, given back at once.
// Issue 35 item 4 (C116): that still left RSS 2.5 times its idle figure 30 s after 200 slow uploads ended.
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

/**
 * How an upload goes: `slow` sends its 5 MiB body in 16 KiB writes every 100 ms (it would take 33 s), until
 * answered; `stalled` sends 30 writes of 64 KiB (each body in a few large pieces, as a fast client's), then
 * nothing, and waits for the answer; `abandoned` sends 40 writes of 16 KiB, then destroys its socket.
 */
type UploadKind = 'slow' | 'stalled' | 'abandoned';

/** One authenticated 5 MiB upload; resolves with its answer (none for an abandoned one) once it has ended. */
function upload(port: number, kind: UploadKind): Promise<{ status: number | null; body: unknown }> {
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
      const chunk = Buffer.alloc((kind === 'stalled' ? 64 : 16) * 1024, 0x20);
      const last = kind === 'stalled' ? 30 : 40;
      let writes = 0;
      timer = setInterval(() => {
        if (kind !== 'slow' && writes === last) {
          clearInterval(timer);
          if (kind === 'abandoned') done();
          return;
        }
        writes++;
        s.write(chunk);
      }, 100);
    });
  });
}

// Issue 35 item 4 (C116): after 200 slow uploads had all ended, RSS stayed at 367 MB against 102 MB idle.
// The socket reads a slow body arrives in are small blocks of glibc's main heap, freed in its middle where
// `free` never gives pages back; and C110's collection, timed from the last request to arrive, ran while the
// uploads were still coming and never after they ended. Now a request ending counts as load too, and the
// collection is followed by malloc_trim. The uploads last longer than two idle times of C110 (25 s), as with
// the default 30 s body timeout. Before the fix: baseline 126 MB, peak 444 MB, 330 MB 30 s after the last
// socket ended (malloc_trim alone: 304 MB; counting ends alone: 339 MB); with both, 102 MB 14 s after.
test('200 slow, stalled and abandoned 5 MiB uploads: once they have ended, RSS is back within 20% of idle in 30 s', async () => {
  child?.proc.kill('SIGKILL');
  const config = join(dir, 'slow-uploads.json');
  writeFileSync(config, JSON.stringify({ ...testConfig(), server: { body_timeout_seconds: 25 } }));
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
  const kinds: UploadKind[] = ['slow', 'stalled', 'stalled', 'abandoned'];
  const uploads = Array.from({ length: 200 }, (_, i) => kinds[i % kinds.length] as UploadKind);
  const answers = await Promise.all(uploads.map((kind) => upload(port, kind)));
  clearInterval(sampler);
  // The slow and stalled ones are answered in the service's format: the body timeout, or the body budget
  // when it is full; the abandoned ones are not answered.
  for (const [i, a] of answers.entries()) {
    if (uploads[i] === 'abandoned') expect(a.status).toBeNull();
    else {
      expect([408, 503]).toContain(a.status);
      expect(a.body).toMatchObject({ code: expect.any(Number), message: expect.any(String) });
    }
  }

  // Sampled until RSS is within the bound, or 30 s after the last socket ended: no timing is asserted.
  const ended = Date.now();
  let after = rssOf(pid);
  for (let i = 0; i < 60 && after > baseline * 1.2; i++) {
    await new Promise((r) => setTimeout(r, 500));
    after = rssOf(pid);
  }
  const mb = (n: number) => Math.round(n / MiB);
  const s = Math.round((Date.now() - ended) / 1000);
  process.stdout.write(
    `slow uploads: RSS baseline ${mb(baseline)} MB, peak ${mb(peak)} MB, ${s} s after they ended ${mb(after)} MB\n`,
  );
  // The load was real (the bodies held well over 100 MB at once) ...
  expect(peak - baseline).toBeGreaterThan(100 * MiB);
  // ... and it all came back.
  expect(after).toBeLessThanOrEqual(baseline * 1.2);
  expect(await post(child.url, 'after-the-uploads')).toBe(200);
}, 120_000);
