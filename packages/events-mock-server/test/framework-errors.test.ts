// Issue 9 item 4 (C42): the HTTP parser's and the router's own errors answer in the service's format (C2),
// echo nothing of the request and close the connection; static paths never answer 500.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { A, T } from './support/fixtures.js';
import { rawExchange } from './support/raw-http.js';
import { type Harness, startHarness } from './support/server.js';

const dir = mkdtempSync(join(tmpdir(), 'ems-docs-'));
let h: Harness;
let port: number;
beforeAll(async () => {
  mkdirSync(join(dir, 'site', 'sub'), { recursive: true });
  writeFileSync(join(dir, 'site', 'index.html'), '<h1>docs</h1>');
  writeFileSync(join(dir, 'site', 'sub', 'a b.txt'), 'spaced');
  h = await startHarness({ docs: { docsRoot: join(dir, 'site') } });
  port = h.server.port;
});
afterAll(async () => {
  await h.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The body of C2: a code, the row's message, details naming the problem. */
function expectServiceError(body: unknown, status: number, problem: RegExp) {
  expect(body).toMatchObject({ code: expect.any(Number), message: expect.any(String) });
  const b = body as { details: { problem: string }[] };
  expect(b.details[0]?.problem).toMatch(problem);
  expect(status).toBeGreaterThanOrEqual(400);
}

describe('parser errors', () => {
  test('a malformed header line: 400 in the service format, closed (it was a bare "Client Error")', async () => {
    const r = await rawExchange(port, 'GET /healthz HTTP/1.1\r\nHost: x\r\nBad Header Line\r\n\r\n');
    expect(r.status).toBe(400);
    expectServiceError(r.body, 400, /^is not a valid HTTP\/1\.1 request/);
    expect(r.text).not.toContain('Client Error');
    expect(r.text.toLowerCase()).toContain('connection: close');
    expect(r.end).toBe('closed');
  });

  test('a request line that is not HTTP: 400, closed', async () => {
    const r = await rawExchange(port, 'GARBAGE\r\n\r\n');
    expect(r.status).toBe(400);
    expect(r.body.code).toBe(4196);
    expect(r.end).toBe('closed');
  });

  test('an unknown method: 400 method_unknown, the method not echoed (it read "the method this method")', async () => {
    const r = await rawExchange(port, 'FROBNICATE / HTTP/1.1\r\nHost: x\r\n\r\n');
    expect(r.status).toBe(400);
    expect(r.body.details).toEqual([
      { path: 'method', problem: 'is not a method this service supports; the connection is closed' },
    ]);
    expect(r.text).not.toContain('FROBNICATE');
    expect(r.end).toBe('closed');
  });

  test('a request line "GARBAGE": 400 in the service format with a sentence that reads (N9, C73)', async () => {
    const r = await rawExchange(port, 'GARBAGE\r\n\r\n');
    expect(r.body).toEqual({
      code: 4196,
      message: 'The request was invalid.',
      details: [
        { path: 'method', problem: 'is not a method this service supports; the connection is closed' },
      ],
    });
    expect(r.text).not.toContain('GARBAGE');
  });

  test('no Host header: 400 in the service format, closed (it was an empty 400 of Node) (N9, C73)', async () => {
    const r = await rawExchange(port, 'GET /healthz HTTP/1.1\r\n\r\n');
    expect(r.status).toBe(400);
    expect(r.body).toEqual({
      code: 4196,
      message: 'The request was invalid.',
      details: [
        {
          path: 'headers.host',
          problem: 'is missing; an HTTP/1.1 request must send Host; the connection is closed',
        },
      ],
    });
    expect(r.text.toLowerCase()).toContain('connection: close');
    expect(r.end).toBe('closed');
    // HTTP/1.0 has no Host: answered as usual.
    const old = await rawExchange(port, 'GET /healthz HTTP/1.0\r\n\r\n');
    expect(old.status).toBe(200);
  });

  test('CONNECT is answered (it was closed without an answer)', async () => {
    const r = await rawExchange(port, 'CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n');
    expect(r.status).toBe(400);
    expect(r.body.details[0]).toEqual({
      path: 'method',
      problem: 'the method CONNECT is not supported; the connection is closed',
    });
    expect(r.text).not.toContain('example.com');
  });

  test('headers over the limit: 431 in the service format, nothing echoed', async () => {
    const big = 'x'.repeat(20_000);
    const r = await rawExchange(port, `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${big}\r\n\r\n`);
    expect(r.status).toBe(431);
    expect(r.body).toEqual({
      code: 4196,
      message: 'The request headers are too large.',
      details: [{ path: 'headers', problem: 'the request line and headers are over 16384 bytes' }],
    });
    expect(r.text).not.toContain('xxxxxxxx');
  });

  test('a URL over the header limit: 431, the URL not echoed', async () => {
    const r = await rawExchange(port, `GET /${'u'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`);
    expect(r.status).toBe(431);
    expect(r.text).not.toContain('uuuuuuuu');
  });
});

describe('bodies the parser cannot finish (N4, C73)', () => {
  const head = (framing: string) =>
    `POST /v5/ad_accounts/${A}/events HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${T.convA}\r\n` +
    `Content-Type: application/json\r\n${framing}\r\n\r\n`;

  test('a bad chunk size: 400 body_chunks_invalid, closed (it was closed with no answer)', async () => {
    const r = await rawExchange(port, `${head('Transfer-Encoding: chunked')}zz\r\n{"data":[]}\r\n0\r\n\r\n`);
    expect(r.status).toBe(400);
    expect(r.body).toEqual({
      code: 4196,
      message: 'The request was invalid.',
      details: [
        {
          path: 'body',
          problem: 'is not valid chunked encoding (invalid chunk size); the connection is closed',
        },
      ],
    });
    expect(r.text.toLowerCase()).toContain('connection: close');
    expect(r.end).toBe('closed');
  });

  test('a body shorter than its Content-Length, then a half-close: 400 body_short (it was no answer)', async () => {
    const r = await rawExchange(port, `${head('Content-Length: 100')}{"data":`, 5_000, { halfClose: true });
    expect(r.status).toBe(400);
    expect(r.body.details).toEqual([
      {
        path: 'body',
        problem: 'ended before the length its Content-Length announced; the connection is closed',
      },
    ]);
    expect(r.end).toBe('closed');
  });

  test('a chunked body cut before its last chunk, then a half-close: 400 body_chunks_unfinished', async () => {
    const r = await rawExchange(port, `${head('Transfer-Encoding: chunked')}3\r\n{"d\r\n`, 5_000, {
      halfClose: true,
    });
    expect(r.status).toBe(400);
    expect(r.body.details[0]).toEqual({
      path: 'body',
      problem: 'ended before its last chunk (the chunk of size 0); the connection is closed',
    });
  });

  test('the refused request is answered by its route, so the request log keeps it (C60)', async () => {
    await rawExchange(port, `${head('X-Request-Id: bad-chunks-1\r\nTransfer-Encoding: chunked')}zz\r\n\r\n`);
    // Found by the client's own id, kept beside the server's (C118).
    const list = await h.call('GET', '/admin/requests?client_request_id=bad-chunks-1', { token: T.admin });
    expect(list.body.items).toHaveLength(1);
    const logged = await h.call('GET', `/admin/requests/${list.body.items[0].request_id}`, {
      token: T.admin,
    });
    expect(logged.status).toBe(200);
    expect(logged.body).toMatchObject({
      status: 400,
      error: { code: 4196, message: 'The request was invalid.' },
    });
  });
});

describe('router errors', () => {
  test('a path parameter over its length: 414 in the service format, the URL not echoed', async () => {
    const id = '9'.repeat(8000);
    const r = await h.call('POST', `/v5/ad_accounts/${id}/events`, { token: T.convA, body: { data: [] } });
    expect(r.status).toBe(414);
    expect(r.body).toEqual({
      code: 4196,
      message: 'The request URL is too long.',
      details: [{ path: 'url', problem: 'a path parameter is over 100 characters' }],
    });
    expect(r.text).not.toContain('99999999');
    expect(r.text).not.toContain('FST_ERR');
  });

  test('a 414 closes the connection; its unread body is not parsed as another request (N9, C73)', async () => {
    const body = '{"data":[]}';
    const r = await rawExchange(
      port,
      `POST /v5/ad_accounts/${'9'.repeat(8000)}/events HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${T.convA}\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
    );
    expect(r.status).toBe(414);
    expect(r.text.toLowerCase()).toContain('connection: close');
    expect(r.text.match(/HTTP\/1\.1 \d{3}/g)).toHaveLength(1);
    expect(r.end).toBe('closed');
  });

  test('a malformed percent-encoding in a path: 400 in the service format', async () => {
    const r = await h.call('GET', `/v5/ad_accounts/${A}%zz/custom_event_types`, { token: T.oauthStd });
    expect(r.status).toBeLessThan(500);
    expect(r.body).toMatchObject({ code: expect.any(Number), message: expect.any(String) });
  });
});

describe('static paths', () => {
  test('/docs/%25 answers 404 (it was a 500: the path was decoded twice)', async () => {
    const r = await h.call('GET', '/docs/%25');
    expect(r.status).toBe(404);
    expect(r.body).toEqual({ code: 2, message: 'Not found.' });
  });

  test('a file whose name needs encoding is served once decoded', async () => {
    const r = await h.call('GET', '/docs/sub/a%20b.txt');
    expect(r.status).toBe(200);
    expect(r.text).toBe('spaced');
  });

  test('any path under /docs/ answers 200, 3xx or 404, never a 5xx (fast-check)', async () => {
    const segment = fc.oneof(
      fc.string({ unit: 'binary', maxLength: 12 }).map((s) => encodeURIComponent(s)),
      fc.constantFrom(
        '%',
        '%25',
        '%zz',
        '%00',
        '..',
        '%2e%2e',
        '%2f',
        '%c0%af',
        '%ff',
        '.',
        '',
        'index.html',
      ),
      fc.stringMatching(/^[%0-9a-fA-F./\\]{0,12}$/),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(segment, { minLength: 1, maxLength: 5 }), async (parts) => {
        const r = await rawExchange(
          port,
          `GET /docs/${parts.join('/')} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`,
        );
        expect(r.status).not.toBeNull();
        expect(r.status as number).toBeLessThan(500);
        if ((r.status as number) >= 400) expect(r.body).toMatchObject({ code: expect.any(Number) });
      }),
      { numRuns: 200 },
    );
  });
});
