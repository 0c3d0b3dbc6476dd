// Fault injection (C65, C66) over real HTTP: a fault answers the next N matching requests (or a fraction of
// them, with a scripted random source) with 429 + Retry-After and the rate-limit headers, 503 + Retry-After
// storing nothing, or an added latency; faults match an ad account and/or a token id; the config's faults:
// apply at start; bad specs answer 400 naming each field.
import { afterEach, describe, expect, test } from 'vitest';
import { configFromObject } from '../src/config/load.js';
import { ConfigError } from '../src/index.js';
import { A, B, event, T, testConfig } from './support/fixtures.js';
import { type Harness, startHarness } from './support/server.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const RATE_LIMITED = {
  code: 8,
  message:
    'This request exceeded a rate limit. This can happen if the client exceeds one of the published rate limits within a short time window.',
};
const UNAVAILABLE = {
  code: 4197,
  message: 'The service is temporarily unavailable; nothing of this request was stored.',
};

async function addFault(harness: Harness, spec: Record<string, unknown>) {
  const r = await harness.call('POST', '/admin/faults', { token: T.admin, body: spec });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body as { id: string };
}

/** Statuses of `n` requests sent one after the other. */
async function statuses(harness: Harness, n: number, account = A, token: string = T.convA) {
  const out: number[] = [];
  for (let i = 0; i < n; i++) out.push((await harness.send(account, token, [event(harness.nowS())])).status);
  return out;
}

describe('C65 count faults', () => {
  test('the next 3 requests answer 429 with Retry-After and rate-limit headers, then requests pass', async () => {
    h = await startHarness();
    const created = await h.call('POST', '/admin/faults', {
      token: T.admin,
      body: { ad_account_id: A, kind: 'rate_limited', count: 3, retry_after_seconds: 2 },
    });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect(created.body).toEqual({
      ad_account_id: A,
      kind: 'rate_limited',
      count: 3,
      retry_after_seconds: 2,
      id,
      remaining: 3,
      matched: 0,
      created_at: h.clock.now(),
    });
    for (let i = 0; i < 3; i++) {
      const r = await h.send(A, T.convA, [event(h.nowS())]);
      expect(r.status).toBe(429);
      expect(r.body).toEqual({
        ...RATE_LIMITED,
        details: [
          {
            path: 'fault',
            problem: `fault ${id} answers this request 429 (injected, C65); retry in 2 seconds`,
          },
        ],
      });
      expect(r.headers.get('retry-after')).toBe('2');
      // A conversion token has no limit on live events: the endpoint's category limit is named (C66).
      expect(r.headers.get('x-ratelimit-limit')).toBe(
        '120000, 120000;w=60;name="ads_conversions_ad_account_id"',
      );
      expect(r.headers.get('x-ratelimit-remaining')).toBe('0');
      expect(r.headers.get('x-ratelimit-reset')).toBe('2');
    }
    const ok = await h.send(A, T.convA, [event(h.nowS())]);
    expect(ok.status).toBe(200);
    expect(ok.body.num_events_processed).toBe(1);
    const list = await h.call('GET', '/admin/faults', { token: T.admin });
    expect(list.body.items.map((f: Record<string, unknown>) => [f.id, f.remaining, f.matched])).toEqual([
      [id, 0, 3],
    ]);
    const stored = await h.call('GET', `/admin/events?ad_account_id=${A}`, { token: T.admin });
    expect(stored.body.items.length).toBe(1);
    const metrics = (await h.call('GET', '/metrics')).text;
    expect(metrics).toContain('events_rate_limited_total{limit="fault"} 3');
  });

  test('an OAuth caller sees its own tightest limit on an injected 429, uncounted', async () => {
    h = await startHarness();
    await addFault(h, { token_id: 'alice-std', kind: 'rate_limited', count: 1 });
    const r = await h.send(A, T.oauthStd, [event(h.nowS())]);
    expect(r.status).toBe(429);
    expect(r.headers.get('retry-after')).toBe('1');
    expect(r.headers.get('x-ratelimit-limit')).toBe('100, 100;w=1;name="universal"');
    expect(r.headers.get('x-ratelimit-remaining')).toBe('0');
    // The faulted request did not count: the next one sees 99 of 100 left after itself.
    const next = await h.send(A, T.oauthStd, [event(h.nowS())]);
    expect(next.status).toBe(200);
    expect(next.headers.get('x-ratelimit-remaining')).toBe('99');
  });

  test('unavailable answers 503 with Retry-After and stores nothing', async () => {
    h = await startHarness();
    const { id } = await addFault(h, { kind: 'unavailable', count: 1, retry_after_seconds: 3 });
    const e = event(h.nowS());
    const r = await h.send(A, T.convA, [e]);
    expect(r.status).toBe(503);
    expect(r.body).toEqual({
      ...UNAVAILABLE,
      details: [
        {
          path: 'fault',
          problem: `fault ${id} answers this request 503 (injected, C65); retry in 3 seconds`,
        },
      ],
    });
    expect(r.headers.get('retry-after')).toBe('3');
    expect((await h.call('GET', `/admin/events?ad_account_id=${A}`, { token: T.admin })).body.items).toEqual(
      [],
    );
    // The same event sent again is stored once, not as a duplicate of the refused request.
    const again = await h.send(A, T.convA, [e]);
    expect(again.status).toBe(200);
    expect(again.body.events[0].warning_message).toBeNull();
    const stored = await h.call('GET', `/admin/events?ad_account_id=${A}`, { token: T.admin });
    expect(stored.body.items.map((s: { event_id: string }) => s.event_id)).toEqual([e.event_id]);
  });

  test('a faulted request with a body is answered before the body is read, and the connection closes', async () => {
    h = await startHarness();
    await addFault(h, { kind: 'unavailable', count: 1 });
    const r = await h.send(A, T.convA, [event(h.nowS())]);
    expect(r.status).toBe(503);
    expect(r.headers.get('connection')).toBe('close');
  });

  test('latency delays the answer, then the request is processed', async () => {
    h = await startHarness();
    await addFault(h, { ad_account_id: A, kind: 'latency', count: 1, latency_ms: 400 });
    const order: string[] = [];
    const slow = h.send(A, T.convA, [event(h.nowS())]).then((r) => {
      order.push('delayed');
      return r;
    });
    // Sent after the first; the fault is spent, so this one is answered first.
    await new Promise((resolve) => setTimeout(resolve, 50));
    const fast = h.send(A, T.convA, [event(h.nowS())]).then((r) => {
      order.push('undelayed');
      return r;
    });
    const [a, b] = await Promise.all([slow, fast]);
    expect([a.status, b.status]).toEqual([200, 200]);
    expect(a.body.num_events_processed).toBe(1);
    expect(order).toEqual(['undelayed', 'delayed']);
  });
});

describe('C65 matching', () => {
  test('a token fault answers that token only; an account fault that account only; both need both', async () => {
    h = await startHarness();
    const token = await addFault(h, { token_id: 'conv-b', kind: 'unavailable', count: 100 });
    expect(await statuses(h, 2, A, T.convA)).toEqual([200, 200]);
    expect(await statuses(h, 2, B, T.convB)).toEqual([503, 503]);
    expect((await h.call('DELETE', `/admin/faults/${token.id}`, { token: T.admin })).status).toBe(204);

    await addFault(h, { ad_account_id: B, kind: 'unavailable', count: 100 });
    expect(await statuses(h, 1, B, T.oauthBob)).toEqual([503]);
    expect(await statuses(h, 1, A, T.oauthStd)).toEqual([200]);
    expect((await h.call('DELETE', '/admin/faults', { token: T.admin })).status).toBe(204);
    expect((await h.call('GET', '/admin/faults', { token: T.admin })).body).toEqual({ items: [] });

    await addFault(h, { ad_account_id: A, token_id: 'alice-std', kind: 'unavailable', count: 100 });
    expect(await statuses(h, 1, A, T.convA)).toEqual([200]);
    expect(await statuses(h, 1, B, T.oauthBob)).toEqual([200]);
    expect(await statuses(h, 1, A, T.oauthStd)).toEqual([503]);
  });

  test('a fraction fires when the random source draws below it (scripted source)', async () => {
    const draws = [0.1, 0.6, 0.49, 0.5, 0.0, 0.99];
    let i = 0;
    h = await startHarness({ faultRandom: () => draws[i++ % draws.length] as number });
    await addFault(h, { kind: 'rate_limited', fraction: 0.5 });
    expect(await statuses(h, 6)).toEqual([429, 200, 429, 200, 429, 200]);
    const list = await h.call('GET', '/admin/faults', { token: T.admin });
    expect(list.body.items[0]).toMatchObject({ fraction: 0.5, remaining: null, matched: 3 });
  });

  test('test-mode requests are matched too, and the oldest matching fault answers', async () => {
    h = await startHarness();
    await addFault(h, { kind: 'unavailable', count: 1 });
    await addFault(h, { kind: 'rate_limited', count: 1 });
    const first = await h.send(A, T.convA, [event(h.nowS())], '?test=true');
    const second = await h.send(A, T.convA, [event(h.nowS())], '?test=true');
    const third = await h.send(A, T.convA, [event(h.nowS())], '?test=true');
    expect([first.status, second.status, third.status]).toEqual([503, 429, 200]);
  });

  test('requests refused before the fault row (401, 403) do not spend it', async () => {
    h = await startHarness();
    await addFault(h, { kind: 'unavailable', count: 1 });
    expect((await h.send(A, 'not-a-token-0123456789', [event(h.nowS())])).status).toBe(401);
    expect((await h.send(B, T.convA, [event(h.nowS())])).status).toBe(403);
    expect(await statuses(h, 2)).toEqual([503, 200]);
  });
});

describe('C65 config faults', () => {
  test('faults of the config apply from the start', async () => {
    h = await startHarness({
      config: {
        ...testConfig(),
        faults: [{ ad_account_id: Number(B), kind: 'rate_limited', count: 2, retry_after_seconds: 5 }],
      },
    });
    const list = await h.call('GET', '/admin/faults', { token: T.admin });
    expect(
      list.body.items.map((f: Record<string, unknown>) => [f.ad_account_id, f.kind, f.remaining]),
    ).toEqual([[B, 'rate_limited', 2]]);
    expect(await statuses(h, 1, A)).toEqual([200]);
    expect(await statuses(h, 3, B, T.convB)).toEqual([429, 429, 200]);
  });

  test('a bad faults: section names each problem with its path', () => {
    let err: unknown;
    try {
      configFromObject({
        ...testConfig(),
        faults: [
          { kind: 'rate_limited', count: 1, fraction: 0.5 },
          { kind: 'latency', count: 1, retry_after_seconds: 2, token_id: 'nobody' },
          'slow',
          { kind: 'explode', count: 0, colour: 'red' },
        ],
      });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).issues).toEqual([
      {
        path: ['faults', 0, 'fraction'],
        problem:
          'give exactly one of count (the next N matching requests) or fraction (each matching request with that probability)',
      },
      {
        path: ['faults', 1, 'latency_ms'],
        problem: 'is missing; a latency fault needs latency_ms from 1 to 60000',
      },
      {
        path: ['faults', 1, 'retry_after_seconds'],
        problem: 'applies to rate_limited and unavailable faults only; remove it or change kind',
      },
      { path: ['faults', 1, 'token_id'], problem: 'must be the id of a configured token; received "nobody"' },
      {
        path: ['faults', 2],
        problem:
          'must be a JSON object holding ad_account_id, token_id, kind, count, fraction, latency_ms, retry_after_seconds; received "slow"',
      },
      {
        path: ['faults', 3, 'colour'],
        problem:
          'is not a field of the request body; only ad_account_id, token_id, kind, count, fraction, latency_ms, retry_after_seconds is accepted',
      },
      {
        path: ['faults', 3, 'kind'],
        problem: 'must be rate_limited, unavailable or latency; received "explode"',
      },
      { path: ['faults', 3, 'count'], problem: 'must be an integer from 1 to 1000000; received 0' },
    ]);
  });
});

describe('C65 admin API', () => {
  test('bad fault specs answer 400 with the path of each problem', async () => {
    h = await startHarness();
    const bad = async (body: unknown) => {
      const r = await h!.call('POST', '/admin/faults', { token: T.admin, body });
      expect(r.status).toBe(400);
      expect(r.body.code).toBe(4196);
      return r.body.details.map((d: { path: string; problem: string }) => [d.path, d.problem]);
    };
    expect(await bad({ kind: 'slow', count: 0, fraction: 2, latency_ms: 'x', extra: 1 })).toEqual([
      [
        'extra',
        'is not a field of the request body; only ad_account_id, token_id, kind, count, fraction, latency_ms, retry_after_seconds is accepted',
      ],
      ['kind', 'must be rate_limited, unavailable or latency; received "slow"'],
      ['count', 'must be an integer from 1 to 1000000; received 0'],
      ['fraction', 'must be a number from 0 to 1; received 2'],
      ['latency_ms', 'must be milliseconds (an integer); received "x"'],
    ]);
    expect(await bad({ kind: 'unavailable' })).toEqual([
      [
        'count',
        'give exactly one of count (the next N matching requests) or fraction (each matching request with that probability)',
      ],
    ]);
    expect(await bad({ kind: 'latency', fraction: 1, latency_ms: 60001 })).toEqual([
      ['latency_ms', 'must be an integer from 1 to 60000; received 60001'],
    ]);
    expect(await bad({ kind: 'rate_limited', count: 1, latency_ms: 5, ad_account_id: '999' })).toEqual([
      ['latency_ms', 'applies to latency faults only; remove it or change kind'],
      ['ad_account_id', 'must be the id of a configured ad account; received "999"'],
    ]);
    expect(await bad([])).toEqual([
      [
        'body',
        'must be a JSON object holding ad_account_id, token_id, kind, count, fraction, latency_ms, retry_after_seconds; received []',
      ],
    ]);
    expect((await h.call('GET', '/admin/faults', { token: T.admin })).body).toEqual({ items: [] });
  });

  test('the admin token is required; an unknown id answers 404', async () => {
    h = await startHarness();
    expect((await h.call('GET', '/admin/faults', { token: T.convA })).status).toBe(401);
    expect((await h.call('POST', '/admin/faults', { body: { kind: 'unavailable', count: 1 } })).status).toBe(
      401,
    );
    expect((await h.call('DELETE', '/admin/faults', { token: T.oauthStd })).status).toBe(401);
    const r = await h.call('DELETE', '/admin/faults/no-such-fault', { token: T.admin });
    expect(r.status).toBe(404);
    expect(r.body).toEqual({
      code: 2,
      message: 'Not found.',
      details: [{ path: 'path.fault_id', problem: 'no fault "no-such-fault"' }],
    });
  });

  test('at most faults_max faults are held; spent ones make room for new ones', async () => {
    h = await startHarness();
    for (let i = 0; i < 100; i++) await addFault(h, { ad_account_id: B, kind: 'unavailable', count: 1 });
    const full = await h.call('POST', '/admin/faults', {
      token: T.admin,
      body: { kind: 'latency', count: 1, latency_ms: 1 },
    });
    expect(full.status).toBe(409);
    expect(full.body.details).toEqual([
      {
        path: 'body',
        problem: 'the server holds 100 active faults already, the most allowed; delete one first',
      },
    ]);
    // One request spends the oldest fault; a new one takes its place.
    expect(await statuses(h, 1, B, T.convB)).toEqual([503]);
    const added = await addFault(h, { kind: 'latency', count: 1, latency_ms: 1 });
    const items = (await h.call('GET', '/admin/faults', { token: T.admin })).body.items;
    expect(items.length).toBe(100);
    expect(items.at(-1).id).toBe(added.id);
    expect(items.every((f: { remaining: number }) => f.remaining === 1)).toBe(true);
  });
});

describe('C65 with the request log (C60)', () => {
  test('injected 429 and 503 answers are logged like any other, with the fault named', async () => {
    h = await startHarness();
    await addFault(h, { token_id: 'conv-a', kind: 'rate_limited', count: 1 });
    await addFault(h, { ad_account_id: B, kind: 'unavailable', count: 1 });
    expect((await h.send(A, T.convA, [event(h.nowS())])).status).toBe(429);
    expect((await h.send(B, T.convB, [event(h.nowS())])).status).toBe(503);
    const list = await h.call('GET', '/admin/requests', { token: T.admin });
    expect(list.status).toBe(200);
    const items = list.body.items as { ad_account_id: string; status: number; error: unknown }[];
    expect(items.map((i) => [i.ad_account_id, i.status, i.error])).toEqual([
      [B, 503, { code: UNAVAILABLE.code, message: UNAVAILABLE.message }],
      [A, 429, { code: RATE_LIMITED.code, message: RATE_LIMITED.message }],
    ]);
  });
});
