// Issue 9 items 2 (transport) and 3 (C40, C41): the header rows of C2 answer before the body is read, a
// refused body is never buffered, timeouts and caps answer in the service's format, and bodies come in
// UTF-8 only, plain or gzip/deflate with the decoded size capped.
import { connect, type Socket } from 'node:net';
import { deflateSync, gzipSync } from 'node:zlib';
import { afterEach, describe, expect, test } from 'vitest';
import type { StartServerOptions } from '../src/index.js';
import { A, event, T } from './support/fixtures.js';
import { rawExchange } from './support/raw-http.js';
import { type Harness, startHarness } from './support/server.js';

const MiB = 1024 * 1024;
let h: Harness | undefined;
const open: Socket[] = [];
afterEach(async () => {
  for (const s of open.splice(0)) s.destroy();
  await h?.close();
  h = undefined;
});

async function start(options: StartServerOptions = {}): Promise<Harness> {
  h = await startHarness(options);
  return h;
}

function head(path: string, headers: Record<string, string | number>): string {
  const lines = Object.entries({ host: '127.0.0.1', ...headers }).map(([k, v]) => `${k}: ${v}`);
  return `POST ${path} HTTP/1.1\r\n${lines.join('\r\n')}\r\n\r\n`;
}

const EVENTS = `/v5/ad_accounts/${A}/events`;

/** A socket that sent some bytes and stays open, as a slow client's would. */
function hold(port: number, bytes: string | Buffer): Promise<Socket> {
  return new Promise((resolve) => {
    const s = connect(port, '127.0.0.1', () => {
      s.write(bytes);
      resolve(s);
    });
    s.on('error', () => {});
    open.push(s);
  });
}

describe('checked before the body (C40)', () => {
  test('no token and a 5 MiB body announced: 401 at once, without waiting for the body, then closed', async () => {
    const { server } = await start();
    // Only the headers are sent: before, the server waited for the 5 MiB and never answered.
    const r = await rawExchange(
      server.port,
      head(EVENTS, { 'content-type': 'application/json', 'content-length': 5 * MiB - 1 }),
    );
    expect(r.status).toBe(401);
    expect(r.body).toEqual({
      code: 2,
      message: 'Authentication failed.',
      details: [{ path: 'headers.authorization', problem: 'missing; send Authorization: Bearer <token>' }],
    });
    expect(r.text.toLowerCase()).toContain('connection: close');
    expect(r.end).toBe('closed');
  });

  test('a wrong content type and the other header rows answer before the body too, in C2 order', async () => {
    const { server } = await start();
    const announced = { 'content-length': 1000 };
    const ct = await rawExchange(server.port, head(EVENTS, { ...announced, 'content-type': 'text/plain' }));
    expect(ct.status).toBe(415);
    const other = await rawExchange(
      server.port,
      head('/v5/ad_accounts/222222222222/events', {
        ...announced,
        'content-type': 'application/json',
        authorization: `Bearer ${T.convA}`,
      }),
    );
    expect(other.status).toBe(403);
    const tooBig = await rawExchange(
      server.port,
      head(EVENTS, { 'content-length': 5 * MiB + 1, 'content-type': 'text/plain' }),
    );
    expect(tooBig.status).toBe(413);
  });

  test('a valid request still works, and is stored', async () => {
    const hh = await start();
    const r = await hh.send(A, T.convA, [event(hh.nowS(), { event_id: 'still-works' })]);
    expect(r.status).toBe(200);
    expect(r.body.num_events_processed).toBe(1);
  });
});

describe('timeouts and caps (C41)', () => {
  test('a body that does not arrive in time: 408 in the service format, closed (it was never closed)', async () => {
    const { server } = await start({ transport: { bodyTimeoutSeconds: 1 } });
    const r = await rawExchange(
      server.port,
      `${head(EVENTS, { 'content-type': 'application/json', 'content-length': 100, authorization: `Bearer ${T.convA}` })}{"data":`,
    );
    expect(r.status).toBe(408);
    expect(r.body).toEqual({
      code: 4196,
      message: 'The request was not received in time.',
      details: [{ path: 'body', problem: 'the body was not received within 1 seconds' }],
    });
    expect(r.end).toBe('closed');
  });

  test('headers that do not arrive in time: 408 in the service format, closed', async () => {
    const { server } = await start({ transport: { headersTimeoutSeconds: 1 } });
    const r = await rawExchange(server.port, 'POST /v5/ad_accounts/1/events HTTP/1.1\r\nHost: x\r\n', 8_000);
    expect(r.status).toBe(408);
    expect(r.body.details).toEqual([
      { path: 'headers', problem: 'the headers were not received within 1 seconds' },
    ]);
    expect(r.end).toBe('closed');
  });

  test('a connection over the cap: 503 with Retry-After, closed', async () => {
    const { server } = await start({ transport: { maxConnections: 2 } });
    await hold(server.port, '');
    await hold(server.port, '');
    const r = await rawExchange(server.port, 'GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
    expect(r.status).toBe(503);
    expect(r.text).toMatch(/\r\nretry-after: 1\r\n/i);
    expect(r.body.details).toEqual([
      {
        path: 'request',
        problem: 'the number of open connections is at its limit of 2; retry in 1 seconds',
      },
    ]);
  });

  test('bodies over the global in-flight cap: 503 with Retry-After; the bytes come back after', async () => {
    const hh = await start({ transport: { maxBodyBytesInFlight: 100_000 } });
    const auth = { 'content-type': 'application/json', authorization: `Bearer ${T.convA}` };
    // One slow body holds 60 kB of the 100 kB ...
    const first = await hold(
      hh.server.port,
      `${head(EVENTS, { ...auth, 'content-length': 90_000 })}${' '.repeat(60_000)}`,
    );
    await new Promise((r) => setTimeout(r, 300));
    // ... so a second one of 60 kB would pass the cap.
    const r = await rawExchange(
      hh.server.port,
      `${head(EVENTS, { ...auth, 'content-length': 60_000 })}${' '.repeat(60_000)}`,
    );
    expect(r.status).toBe(503);
    expect(r.text).toMatch(/\r\nretry-after: 1\r\n/i);
    expect(r.body.details[0].problem).toBe(
      'the body memory of the server is at its limit of 100000 bytes; retry in 1 seconds',
    );
    first.destroy();
    await new Promise((r2) => setTimeout(r2, 300));
    const ok = await hh.send(A, T.convA, [event(hh.nowS(), { event_id: 'after-the-cap' })]);
    expect(ok.status).toBe(200);
  });
});

describe('bytes in (item 2, transport)', () => {
  const body = (id: string, now: number) => JSON.stringify({ data: [event(now, { event_id: id })] });

  test('a charset other than UTF-8: 415 charset_unsupported (it was decoded as UTF-8)', async () => {
    const hh = await start();
    const r = await hh.call('POST', EVENTS, {
      token: T.convA,
      raw: body('latin', hh.nowS()),
      contentType: 'application/json; charset=iso-8859-1',
    });
    expect(r.status).toBe(415);
    expect(r.body.details).toEqual([
      { path: 'headers.content-type', problem: 'charset must be utf-8; received "iso-8859-1"' },
    ]);
    const utf8 = await hh.call('POST', EVENTS, {
      token: T.convA,
      raw: body('utf8', hh.nowS()),
      contentType: 'application/json; charset="UTF-8"',
    });
    expect(utf8.status).toBe(200);
  });

  test('gzip and deflate bodies are decoded (gzip was "not valid JSON")', async () => {
    const hh = await start();
    for (const [enc, fn] of [
      ['gzip', gzipSync],
      ['deflate', deflateSync],
    ] as const) {
      const r = await hh.call('POST', EVENTS, {
        token: T.convA,
        raw: fn(Buffer.from(body(`enc-${enc}`, hh.nowS()))),
        headers: { 'content-encoding': enc },
      });
      expect(r.status).toBe(200);
      expect(r.body.num_events_processed).toBe(1);
    }
  });

  test('an unknown encoding: 415 encoding_unsupported (it was accepted)', async () => {
    const hh = await start();
    const r = await hh.call('POST', EVENTS, {
      token: T.convA,
      raw: body('br', hh.nowS()),
      headers: { 'content-encoding': 'br' },
    });
    expect(r.status).toBe(415);
    expect(r.body.details).toEqual([
      {
        path: 'headers.content-encoding',
        problem: 'Content-Encoding must be gzip, deflate or identity; received "br"',
      },
    ]);
  });

  test('a gzip bomb stops at the body limit: 413', async () => {
    const hh = await start();
    const bomb = gzipSync(Buffer.alloc(64 * MiB, 0x20));
    expect(bomb.length).toBeLessThan(MiB);
    const r = await hh.call('POST', EVENTS, {
      token: T.convA,
      raw: bomb,
      headers: { 'content-encoding': 'gzip' },
    });
    expect(r.status).toBe(413);
    expect(r.body.details).toEqual([{ path: 'body', problem: 'the body is over 5242880 bytes' }]);
  });

  test('a body that is not what its encoding says: 400 encoding_invalid', async () => {
    const hh = await start();
    const r = await hh.call('POST', EVENTS, {
      token: T.convA,
      raw: body('not-gzip', hh.nowS()),
      headers: { 'content-encoding': 'gzip' },
    });
    expect(r.status).toBe(400);
    expect(r.body.details[0].problem).toMatch(/^the body is not valid gzip: /);
  });
});
