// Redis away (C51): requests that need a rate-limit decision answer 503 with Retry-After and nothing is
// stored; requests that meet no limit go on; /readyz names the limiter; once Redis is back, the same server
// decides again without a restart. A server whose Redis is unreachable does not start.
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { startServer } from '../src/index.js';
import { A, event, T, testConfig } from './support/fixtures.js';
import { redisReachable, testPrefix } from './support/redis.js';
import { type Harness, startHarness } from './support/server.js';
import { startTcpProxy, type TcpProxy } from './support/tcp-proxy.js';

describe.skipIf(!(await redisReachable()))('Redis away (C51)', () => {
  let proxy: TcpProxy;
  let h: Harness;
  let keys: ReturnType<typeof testPrefix>;
  beforeEach(async () => {
    proxy = await startTcpProxy('127.0.0.1', 6379);
    keys = testPrefix();
    h = await startHarness({ limits: `redis://127.0.0.1:${proxy.port}`, limitsPrefix: keys.prefix });
  });
  afterEach(async () => {
    await h.close();
    await proxy.close();
    await keys.drop();
  });

  test('fail closed: 503 with Retry-After for limited requests, the rest go on, and it recovers', async () => {
    const test1 = await h.send(A, T.convA, [event(h.nowS(), { event_id: 'x1' })], '?test=true');
    expect(test1.status).toBe(200);
    expect(test1.headers.get('x-ratelimit-remaining')).toBe('9');
    expect((await h.call('GET', '/readyz')).body.dependencies[1]).toEqual({
      name: 'limits',
      status: 'ok',
      target: `redis://127.0.0.1:${proxy.port}`,
    });

    await proxy.cut();
    const refused = await h.send(A, T.convA, [event(h.nowS(), { event_id: 'x2' })], '?test=true');
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(refused.body.details[0].path).toBe('ratelimit');
    expect(refused.body.details[0].problem).toMatch(/^the shared rate-limit store is unavailable: /);
    // An OAuth token meets the universal and category limits: refused as well, nothing stored.
    const oauth = await h.send(A, T.oauthStd, [event(h.nowS(), { event_id: 'x3' })]);
    expect(oauth.status).toBe(503);
    // A conversion token outside test mode meets no limit (seed 8 rule 2): stored as usual.
    const live = await h.send(A, T.convA, [event(h.nowS(), { event_id: 'x4' })]);
    expect(live.status).toBe(200);
    const ready = await h.call('GET', '/readyz');
    expect(ready.status).toBe(503);
    expect(ready.body.dependencies[1]).toMatchObject({ name: 'limits', status: 'unavailable' });
    const stored = (await h.call('GET', '/admin/events', { token: T.admin })).body.items.map(
      (e: { event_id: string }) => e.event_id,
    );
    expect(stored).toEqual(['x4']);

    await proxy.restore();
    let back = 0;
    for (let i = 0; i < 50 && back !== 200; i++) {
      await new Promise((r) => setTimeout(r, 100));
      back = (await h.send(A, T.convA, [event(h.nowS(), { event_id: 'x5' })], '?test=true')).status;
    }
    expect(back).toBe(200);
    expect((await h.call('GET', '/readyz')).status).toBe(200);
  }, 30_000);

  test('a server whose Redis is unreachable does not start, and says why', async () => {
    await expect(
      startServer({ config: testConfig(), docs: false, limits: 'redis://127.0.0.1:1' }),
    ).rejects.toThrow(/^cannot reach Redis at redis:\/\/127\.0\.0\.1:1: /);
  });
});
