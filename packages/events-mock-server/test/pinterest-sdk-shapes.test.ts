// Issue 38 item 2: the conversion deletion request answers pass the shapes Pinterest's generated SDKs check
// (C91, C121): a `request_id` of digits, at most 18, and `created_time`/`processed_time` as OpenAPI `date`s.
// Stoplight Prism runs as a proxy in front of the real server with the SDK-derived document
// fixtures/pinterest-openapi/v5.28-conversion-deletion-requests.yaml, checks every request and answer
// against it and names each violation in its `sl-violations` header; every answer here must have none.
import { type ChildProcess, spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { connect, createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { A, event, sha256, T } from './support/fixtures.js';
import { type Harness, startHarness } from './support/server.js';

const DOCUMENT = fileURLToPath(
  new URL('../../../fixtures/pinterest-openapi/v5.28-conversion-deletion-requests.yaml', import.meta.url),
);
const PRISM = createRequire(import.meta.url).resolve('@stoplight/prism-cli/dist/index.js');

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const a = s.address();
      const port = typeof a === 'object' && a ? a.port : 0;
      s.close(() => resolve(port));
    });
  });

const listening = (port: number) =>
  new Promise<boolean>((resolve) => {
    const s = connect(port, '127.0.0.1');
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });

let h: Harness;
let prism: ChildProcess;
let prismUrl: string;
let prismLog = '';

beforeAll(async () => {
  h = await startHarness();
  const port = await freePort();
  // `prism proxy <document> <upstream>`: Pinterest's paths (`/ad_accounts/...`) forwarded under the server's
  // `/v5`; answers are passed on as they are, with their violations in `sl-violations` (--errors=false).
  prism = spawn(
    process.execPath,
    [
      PRISM,
      'proxy',
      DOCUMENT,
      `${h.url}/v5`,
      '--port',
      String(port),
      '--host',
      '127.0.0.1',
      '--multiprocess=false',
      '--errors=false',
      '--verboseLevel',
      'warn',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  prism.stdout?.on('data', (d) => {
    prismLog += String(d);
  });
  prism.stderr?.on('data', (d) => {
    prismLog += String(d);
  });
  for (let i = 0; !(await listening(port)); i++) {
    if (i > 600 || prism.exitCode !== null) throw new Error(`Prism did not start:\n${prismLog}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  prismUrl = `http://127.0.0.1:${port}`;
}, 90_000);

afterAll(async () => {
  if (prism && prism.exitCode === null) {
    const exited = new Promise((r) => prism.once('exit', r));
    prism.kill('SIGTERM');
    await exited;
  }
  await h?.close();
});

/**
 * One call through Prism, as a client generated from Pinterest's document makes it: Pinterest's path, a
 * bearer token, a JSON body. Fails when Prism names a violation of the request or the answer.
 */
async function viaPrism(method: string, path: string, body?: unknown) {
  const res = await fetch(`${prismUrl}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${T.oauthStd}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  expect(res.headers.get('sl-violations'), `${method} ${path} -> ${res.status} ${text}`).toBeNull();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

const cdr = `/ad_accounts/${A}/conversion_deletion_requests`;
const DAY = /^\d{4}-\d{2}-\d{2}$/;

describe("conversion deletion requests through Prism with the shapes of Pinterest's SDKs (C121)", () => {
  test('create, list, get, cancel and an unknown id: every answer passes', async () => {
    const jane = event(h.nowS(), { event_id: 'prism-jane' });
    expect((await h.send(A, T.convA, [jane])).status).toBe(200);

    const first = await viaPrism('POST', cdr, { deletion_targets: { user_emails: ['jane@example.com'] } });
    expect(first.status).toBe(201);
    expect(first.body).toEqual({
      request_id: expect.stringMatching(/^\d{1,18}$/),
      status: 'SUBMITTED',
      created_time: '2026-03-02',
      processed_time: '2026-03-02',
    });
    const second = await viaPrism('POST', cdr, {
      deletion_targets: { user_emails: [sha256('kim@example.com')], epiks: ['epik-of-kim'] },
    });
    expect(second.status).toBe(201);
    expect(BigInt(second.body.request_id)).toBeGreaterThan(BigInt(first.body.request_id));

    const list = await viaPrism('GET', cdr);
    expect(list.status).toBe(200);
    expect(list.body).toEqual({ items: [second.body, first.body], bookmark: null });
    for (const r of list.body.items) {
      expect(r.created_time).toMatch(DAY);
      expect(r.processed_time).toMatch(DAY);
    }

    const one = await viaPrism('GET', `${cdr}/${first.body.request_id}`);
    expect(one).toEqual({ status: 200, body: first.body });

    // Pinterest's error shape for what its SDKs read as the default answer.
    const cancel = await viaPrism('DELETE', `${cdr}/${first.body.request_id}`);
    expect(cancel.status).toBe(409);
    expect(cancel.body).toMatchObject({ code: 4196 });
    const unknown = await viaPrism('GET', `${cdr}/1`);
    expect(unknown.status).toBe(404);
    expect(unknown.body.details).toEqual([
      { path: 'path.request_id', problem: 'no conversion deletion request "1"' },
    ]);
  });
});
