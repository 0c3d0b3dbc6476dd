import { ManualClock, type RunningServer, type StartServerOptions, startServer } from '../../src/index.js';
import { testConfig } from './fixtures.js';
import { createTestDatabase, type TestDatabase } from './postgres.js';
import { REDIS_TEST_URL, testPrefix } from './redis.js';

/** 2026-03-02T12:00:00.000Z: a whole second, so window-edge tests read naturally. */
export const T0 = Date.UTC(2026, 2, 2, 12, 0, 0);

export interface Harness {
  server: RunningServer;
  clock: ManualClock;
  url: string;
  /** Unix seconds of the fake clock. */
  nowS(): number;
  call(method: string, path: string, opts?: CallOptions): Promise<Reply>;
  /** POST a batch of events for an ad account. */
  send(account: string, token: string, data: unknown[], query?: string): Promise<Reply>;
  close(): Promise<void>;
}

export interface CallOptions {
  token?: string;
  /** A value is sent as JSON unless `raw` is given. */
  body?: unknown;
  raw?: string | Buffer;
  contentType?: string | null;
  headers?: Record<string, string>;
}

export interface Reply {
  status: number;
  headers: Headers;
  // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON bodies
  body: any;
  text: string;
}

/**
 * The store of the `postgres` test project (vitest.config.ts): the HTTP behaviour tests run once more with
 * every server on a PostgreSQL database of its own (C45-C47).
 */
const ON_POSTGRES = process.env.EVENTS_TEST_STORE === 'postgres';
/** ... and, in the same project, with the rate limits counted in Redis under a key prefix of its own. */
const ON_REDIS = process.env.EVENTS_TEST_LIMITS === 'redis';

/**
 * Starts a real server on a free port with the test config, an in-memory store (or, in the postgres
 * project, a fresh PostgreSQL database) and a fake clock.
 */
export async function startHarness(options: StartServerOptions = {}): Promise<Harness> {
  const clock = (options.clock as ManualClock | undefined) ?? new ManualClock(T0);
  const ownStore = options.store === undefined && options.db === undefined && options.storeUrl === undefined;
  const pg: TestDatabase | undefined = ON_POSTGRES && ownStore ? await createTestDatabase() : undefined;
  const ownLimits = options.limiter === undefined && options.limits === undefined;
  const redisKeys = ON_REDIS && ownLimits ? testPrefix() : undefined;
  let server: RunningServer;
  try {
    server = await startServer({
      config: testConfig(),
      docs: false,
      ...options,
      // Tests close many servers: no shutdown grace unless a test asks for one (C43).
      transport: { shutdownGraceSeconds: 0, ...options.transport },
      ...(pg ? { storeUrl: pg.url } : {}),
      ...(redisKeys ? { limits: REDIS_TEST_URL, limitsPrefix: redisKeys.prefix } : {}),
      clock,
    });
  } catch (e) {
    await pg?.drop();
    await redisKeys?.drop();
    throw e;
  }
  const call = async (method: string, path: string, o: CallOptions = {}): Promise<Reply> => {
    const headers: Record<string, string> = { ...o.headers };
    if (o.token !== undefined) headers.authorization = `Bearer ${o.token}`;
    let body: string | Uint8Array | undefined;
    if (o.raw !== undefined) body = typeof o.raw === 'string' ? o.raw : new Uint8Array(o.raw);
    else if (o.body !== undefined) body = JSON.stringify(o.body);
    const ct = o.contentType === undefined ? (body !== undefined ? 'application/json' : null) : o.contentType;
    if (ct !== null) headers['content-type'] = ct;
    const res = await fetch(server.url + path, {
      method,
      headers,
      ...(body !== undefined ? { body: body as BodyInit } : {}),
    });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {}
    return { status: res.status, headers: res.headers, body: parsed, text };
  };
  return {
    server,
    clock,
    url: server.url,
    nowS: () => Math.floor(clock.now() / 1000),
    call,
    send: (account, token, data, query = '') =>
      call('POST', `/v5/ad_accounts/${account}/events${query}`, { token, body: { data } }),
    close: async () => {
      await server.close();
      await pg?.drop();
      await redisKeys?.drop();
    },
  };
}
