import { Redis } from 'ioredis';
import pg from 'pg';
import { defineConfig } from 'vitest/config';
import { QUICK_RUN, withQuickRun } from '../../vitest.shared.js';

/**
 * The HTTP behaviour tests that run a second time with PostgreSQL as the store and the rate limits in Redis
 * (issue 10, C45-C52).
 */
const ON_POSTGRES_TOO = [
  'test/accounts-and-tokens.test.ts',
  'test/custom-event-types.test.ts',
  'test/dedup-and-test-mode.test.ts',
  'test/delivery-deletions.test.ts',
  'test/delivery-loop.test.ts',
  'test/faults.test.ts',
  'test/exports-and-sessions.test.ts',
  'test/integrator-corpus.test.ts',
  'test/operations.test.ts',
  'test/pinterest-parity.test.ts',
  'test/pinterest-sdk-shapes.test.ts',
  'test/rate-limits.test.ts',
  'test/request-log.test.ts',
  'test/request-outcomes.test.ts',
  'test/storage.test.ts',
];

/**
 * Left out of `pnpm test:quick` (issue 36): tests of load, memory, crashes and timing, and ones that start the
 * server's bin in child processes. `pnpm test` runs them.
 */
const SLOW: Record<string, string> = {
  'test/fuzz.test.ts': 'thousands of generated requests and an RSS bound',
  'test/durability.test.ts': 'SIGKILLs a child server under load',
  'test/shutdown-under-load.test.ts': 'stops a child server under load',
  'test/shutdown.test.ts': 'child servers and their signals',
  'test/slow-clients-memory.test.ts': 'hundreds of slow uploads and the memory after them',
  'test/native-memory.test.ts': 'memory given back after load',
  'test/heap-settle.test.ts': 'idle collections on timers',
  'test/export-bounded.test.ts': 'a large export and its memory bound',
  'test/outbox-model.test.ts': 'a stateful property test of the outbox, many runs',
  'test/delivery-chaos.test.ts': 'an upstream failing every way, the service killed',
  'test/config-and-bin.test.ts': 'starts the bin in child processes',
  'test/oversized-bodies.test.ts': 'starts the bin in a child process',
  'test/two-instances-example.test.ts': 'two child servers',
  'test/scale-out.test.ts': 'cluster workers in child processes',
  'test/concurrency.test.ts': 'many concurrent clients',
  'test/admin-auth-throttle.test.ts': 'thousands of failed logins',
  'test/first-contact.test.ts': 'starts the bin in child processes',
  'test/test-mode-file-store.test.ts': 'another process writing the same file',
  'test/delivery-upstream.test.ts': 'an upstream server stopped and started mid-run',
  'test/delivery-loop.test.ts': 'waits out delivery retries and backoff',
  'test/rate-limits.test.ts': 'waits out rate-limit windows',
};

async function servicesAnswer(): Promise<boolean> {
  if (QUICK_RUN) return false;
  const pgUrl = process.env.PG_TEST_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const c = new pg.Client({ connectionString: pgUrl, connectionTimeoutMillis: 3000 });
  const r = new Redis(process.env.REDIS_TEST_URL ?? 'redis://127.0.0.1:6379', {
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    connectTimeout: 3000,
  });
  r.on('error', () => {});
  try {
    await c.connect();
    await r.connect();
    await r.ping();
    return true;
  } catch (e) {
    const what = `PostgreSQL or Redis is unreachable (${(e as Error).message})`;
    // CI asks every test to run (test/support/services.ts): the project's tests are not left uncounted.
    if (process.env.EVENTS_TEST_REQUIRE_SERVICES === '1')
      throw new Error(
        `${what}: the "postgres" test project cannot run, and EVENTS_TEST_REQUIRE_SERVICES=1 asks every test to run`,
      );
    process.stderr.write(`\n*** ${what}: the "postgres" test project is SKIPPED ***\n\n`);
    return false;
  } finally {
    await c.end().catch(() => {});
    r.disconnect();
  }
}

// Two projects: every test on the embedded stores, then the HTTP behaviour tests again on PostgreSQL and
// Redis.
// (Projects are spelled out rather than `extends: true`, which would add the shared include to each.)
const { resolve, ssr, test } = withQuickRun(SLOW);
export default defineConfig(async () => ({
  resolve,
  ssr,
  test: {
    projects: [
      { resolve, ssr, test: { ...test, name: 'sqlite' } },
      ...((await servicesAnswer())
        ? [
            {
              resolve,
              ssr,
              test: {
                ...test,
                name: 'postgres',
                include: ON_POSTGRES_TOO,
                env: { EVENTS_TEST_STORE: 'postgres', EVENTS_TEST_LIMITS: 'redis' },
              },
            },
          ]
        : []),
    ],
  },
}));
