// C2: request-level outcomes, checked in the order of the table; the first that applies answers.
import { LIMITS, REQUEST_ERRORS } from '@org/events-types';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { A, B, C, event, T } from './support/fixtures.js';
import { type Harness, type Reply, startHarness } from './support/server.js';

const row = (key: (typeof REQUEST_ERRORS)[number]['key']) => REQUEST_ERRORS.find((r) => r.key === key)!;

/** The body of a C2 row: its code and message from the spec, and details naming the problem. */
function expectRow(r: Reply, key: (typeof REQUEST_ERRORS)[number]['key'], path?: string) {
  const e = row(key);
  expect(r.status, r.text).toBe(e.status);
  expect(r.body.code).toBe(e.code);
  expect(r.body.message).toBe(e.message);
  expect(Array.isArray(r.body.details) && r.body.details.length).toBeTruthy();
  for (const d of r.body.details) {
    expect(typeof d.path).toBe('string');
    expect(typeof d.problem).toBe('string');
  }
  if (path) expect(r.body.details.map((d: { path: string }) => d.path)).toContain(path);
}

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

const events = (account = A) => `/v5/ad_accounts/${account}/events`;

describe('C2 row order', () => {
  test('413: a body over the limit wins over a wrong content type and a missing token', async () => {
    const big = Buffer.alloc(LIMITS.body_max_bytes.value + 1, 0x20);
    const r = await h.call('POST', events(C), { raw: big, contentType: 'text/plain' });
    expectRow(r, 'payload_too_large', 'body');
    expect(r.body.details[0].problem).toContain(String(LIMITS.body_max_bytes.value));
  });

  test('413 also with a valid token and content type (the body is not parsed)', async () => {
    const big = Buffer.alloc(LIMITS.body_max_bytes.value + 10, 0x20);
    const r = await h.call('POST', events(A), { raw: big, token: T.convA });
    expectRow(r, 'payload_too_large');
  });

  test('a body of exactly the limit is read (and then judged on its content)', async () => {
    const pad = LIMITS.body_max_bytes.value - 20;
    const raw = `{"data":[],"x":"${' '.repeat(pad - 12)}"}`;
    const r = await h.call('POST', events(A), { raw, token: T.convA });
    expect(r.status).toBe(400);
  });

  test('415: a wrong content type wins over a missing token', async () => {
    const r = await h.call('POST', events(C), { raw: '{"data":[]}', contentType: 'text/plain' });
    expectRow(r, 'unsupported_media_type', 'headers.content-type');
  });

  test('415: no content type at all', async () => {
    const r = await h.call('POST', events(A), { raw: '{"data":[]}', contentType: null, token: T.convA });
    expectRow(r, 'unsupported_media_type');
  });

  test('application/json with a charset parameter is fine (C1)', async () => {
    const r = await h.call('POST', events(A), {
      body: { data: [event(h.nowS())] },
      contentType: 'Application/JSON; charset=utf-8',
      token: T.convA,
    });
    expect(r.status).toBe(200);
  });

  test('401: missing, malformed, unknown and revoked tokens; before 404', async () => {
    expectRow(
      await h.call('POST', events('999'), { body: { data: [] } }),
      'unauthorized',
      'headers.authorization',
    );
    const malformed = await h.call('POST', events(A), {
      body: { data: [] },
      headers: { authorization: `Token ${T.convA}` },
    });
    expectRow(malformed, 'unauthorized');
    expect(malformed.body.details[0].problem).toContain('Bearer');
    expectRow(
      await h.call('POST', events('999'), { body: { data: [] }, token: 'not-a-token-of-this-server' }),
      'unauthorized',
    );
    expectRow(
      await h.call('POST', events(A), { body: { data: [event(h.nowS())] }, token: T.revoked }),
      'unauthorized',
    );
    // The admin token is not a token of the API.
    expectRow(await h.call('POST', events(A), { body: { data: [] }, token: T.admin }), 'unauthorized');
  });

  test('a 401 never echoes the token', async () => {
    const r = await h.call('POST', events(A), {
      body: { data: [] },
      token: 'secret-looking-token-value-123',
    });
    expect(r.text).not.toContain('secret-looking-token-value-123');
  });

  test('404: valid token, unknown or malformed ad account; before 403', async () => {
    const r = await h.call('POST', events('999999999999'), { body: { data: [] }, token: T.convA });
    expectRow(r, 'ad_account_not_found', 'path.ad_account_id');
    expectRow(
      await h.call('POST', events('12ab'), { body: { data: [] }, token: T.oauthStd }),
      'ad_account_not_found',
    );
    expectRow(
      await h.call('POST', events('1234567890123456789'), { body: { data: [] }, token: T.oauthStd }),
      'ad_account_not_found',
    );
  });

  test('403: a conversion token of another account, an OAuth token without ads:write, a user without a role', async () => {
    const other = await h.call('POST', events(B), { body: { data: [event(h.nowS())] }, token: T.convA });
    expectRow(other, 'forbidden', 'path.ad_account_id');
    const scope = await h.call('POST', events(A), {
      body: { data: [event(h.nowS())] },
      token: T.oauthReadOnly,
    });
    expectRow(scope, 'forbidden');
    expect(scope.body.details[0].problem).toContain('ads:write');
    expectRow(
      await h.call('POST', events(A), { body: { data: [event(h.nowS())] }, token: T.oauthBob }),
      'forbidden',
    );
    expectRow(
      await h.call('POST', events(C), { body: { data: [event(h.nowS())] }, token: T.oauthStd }),
      'forbidden',
    );
  });

  test('403 comes before 429 and 400', async () => {
    expectRow(await h.call('POST', events(B), { raw: '{not json', token: T.convA }), 'forbidden');
  });

  test('400: every malformed request shape, with details', async () => {
    const send = (raw: string, query = '') => h.call('POST', events(A) + query, { raw, token: T.convA });
    expectRow(await send('{"data": ['), 'invalid_request', 'body');
    expectRow(await send(''), 'invalid_request', 'body');
    expectRow(await send('[]'), 'invalid_request');
    expectRow(await send('"data"'), 'invalid_request');
    expectRow(await send('{}'), 'invalid_request', 'data');
    expectRow(await send('{"data": {}}'), 'invalid_request', 'data');
    expectRow(await send('{"data": []}'), 'invalid_request', 'data');
    const tooMany = JSON.stringify({
      data: Array.from({ length: LIMITS.batch_max_events.value + 1 }, () => event(h.nowS())),
    });
    expectRow(await send(tooMany), 'invalid_request', 'data');
    expectRow(await send(JSON.stringify({ data: [event(h.nowS())], extra: 1 })), 'invalid_request');
    const good = JSON.stringify({ data: [event(h.nowS())] });
    expectRow(await send(good, '?test=yes'), 'invalid_request', 'query.test');
    expectRow(await send(good, '?is_test=1'), 'invalid_request', 'query.is_test');
    expectRow(await send(good, '?test=true&test=false'), 'invalid_request', 'query.test');
    expectRow(await send(good, '?test=true&is_test=false'), 'invalid_request');
  });

  test('a well-formed request is never 400 because of its events (C3)', async () => {
    const r = await h.send(A, T.convA, [{ nonsense: true }, 42, null]);
    expect(r.status).toBe(200);
    expect(r.body.num_events_processed).toBe(0);
  });

  test('unknown paths answer 404 with a body of the same shape', async () => {
    const r = await h.call('GET', '/v5/nothing');
    expect(r.status).toBe(404);
    expect(r.body.code).toBe(row('not_found').code);
  });
});

describe('429 before 400 (C2 row 6 before row 7)', () => {
  test('a spent limit answers 429 even to a malformed request, with Retry-After', async () => {
    const hh = await startHarness();
    try {
      // Test requests: 10 per second per app; a conversion token is an app of its own (C7).
      for (let i = 0; i < 10; i++)
        expect((await hh.send(A, T.convA, [event(hh.nowS())], '?test=true')).status).toBe(200);
      const r = await hh.call('POST', `${events(A)}?test=true`, { raw: '{broken', token: T.convA });
      expectRow(r, 'rate_limited');
      expect(Number(r.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    } finally {
      await hh.close();
    }
  });
});
