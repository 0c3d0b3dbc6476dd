// The server under test, in its own process: startServer with conversion tokens (no rate limit on live
// events, seed 8 rule 2), SQLite in a fresh file with the default synchronous=FULL (or the PostgreSQL
// database of BENCH_STORE_URL), logs at info (BENCH_LOG_LEVEL) to /dev/null. Test requests are limited to 10 per second per
// token (C7), so the bench rotates over BENCH_TOKENS tokens: the limiter still runs on every request, it
// just never refuses. With BENCH_WORKERS > 1 this process is a node:cluster primary whose workers serve
// one port, as `--workers` does, and its probe answers the workers' figures summed.
// The built package (dist), as operators run it: `pnpm bench` builds first (turbo). Plain JavaScript, so no
// transpiler adds its memory to the RSS figures. BENCH_SERVER_MODULE: the entry of another build instead (a
// path or URL of its dist/index.js), e.g. of a commit exported with `git archive` while src/ is being edited.
import cluster from 'node:cluster';
import { pathToFileURL } from 'node:url';
import { serveClusterProbe, serveProbe } from './probe.mjs';

const entry = process.env.BENCH_SERVER_MODULE;
// fixMmapThreshold as the bin does at start (C59): large allocations mapped on their own, so the memory
// figures are the bin's.
/** @type {typeof import('@org/events-mock-server')} */
const { fixMmapThreshold, startServer } = await import(
  entry ? (entry.startsWith('file:') ? entry : pathToFileURL(entry).href) : '@org/events-mock-server'
);

fixMmapThreshold();

const workers = Number(process.env.BENCH_WORKERS ?? 1);

if (workers > 1 && cluster.isPrimary) {
  const forked = Array.from({ length: workers }, () => cluster.fork());
  serveClusterProbe(forked);
} else {
  const db = process.env.BENCH_DB ?? ':memory:';
  const tokens = Number(process.env.BENCH_TOKENS ?? 1);
  const accounts = Number(process.env.BENCH_ACCOUNTS ?? 1);
  const accountId = (/** @type {number} */ a) => String(549755885175 + a);
  const server = await startServer({
    ...(process.env.BENCH_STORE_URL ? { storeUrl: process.env.BENCH_STORE_URL } : { db }),
    ...(process.env.BENCH_LIMITS ? { limits: process.env.BENCH_LIMITS } : {}),
    ...(process.env.BENCH_LIMITS_PREFIX ? { limitsPrefix: process.env.BENCH_LIMITS_PREFIX } : {}),
    logLevel: process.env.BENCH_LOG_LEVEL ?? 'info',
    docs: false,
    ...(process.env.BENCH_STORE_THREAD ? { storeThread: process.env.BENCH_STORE_THREAD === '1' } : {}),
    // BENCH_COMMIT_CALLS: PostgreSQL batch calls at once (C83).
    ...(process.env.BENCH_COMMIT_CALLS ? { commitCalls: Number(process.env.BENCH_COMMIT_CALLS) } : {}),
    ...(process.env.BENCH_THREADS ? { validationThreads: Number(process.env.BENCH_THREADS) } : {}),
    port: Number(process.env.BENCH_PORT ?? 0),
    // BENCH_REQUEST_LOG=off: no request log (C60), to measure what it costs.
    ...(process.env.BENCH_REQUEST_LOG === 'off' ? { requestLog: { maxEntries: 0 } } : {}),
    config: {
      // BENCH_PUBLISH=nats://...: every stored event also goes to the outbox and on to JetStream (C100), to
      // set the stored rate with a sink beside the rate without.
      // BENCH_FORWARD=http://...: a Conversions API sink (C100) to the delivery bench's upstream; the token is
      // read from BENCH_FORWARD_TOKEN like any sink's. BENCH_ADMIN_TOKEN: the admin API, to read the outbox.
      ...(process.env.BENCH_ADMIN_TOKEN ? { admin_token: process.env.BENCH_ADMIN_TOKEN } : {}),
      ...(process.env.BENCH_FORWARD
        ? {
            delivery: {
              sinks: [
                {
                  name: 'forward',
                  kind: 'conversions_api',
                  url: process.env.BENCH_FORWARD,
                  token_env: 'BENCH_FORWARD_TOKEN',
                },
              ],
            },
          }
        : {}),
      ...(process.env.BENCH_PUBLISH
        ? {
            delivery: {
              sinks: [
                {
                  kind: 'nats',
                  url: process.env.BENCH_PUBLISH,
                  stream: 'EVENTS_BENCH',
                  subject_prefix: 'events-bench',
                  max_age_seconds: 3600,
                  max_bytes: 1073741824,
                },
              ],
            },
          }
        : {}),
      // BENCH_ACCOUNTS=N: N ad accounts, 549755885175 and the ids after it; token i is of account i mod N.
      // BENCH_HASH_USER_DATA=1: the accounts hash raw user data on arrival (C125, hash_user_data).
      ad_accounts: Array.from({ length: accounts }, (_, a) => ({
        id: accountId(a),
        currency: 'USD',
        ...(process.env.BENCH_HASH_USER_DATA === '1' ? { hash_user_data: true } : {}),
      })),
      tokens: Array.from({ length: Math.max(tokens, accounts) }, (_, i) => ({
        id: `bench-${i}`,
        kind: 'conversion',
        token: `bench-conversion-token-${i}`,
        ad_account: accountId(i % accounts),
      })),
    },
  });
  serveProbe(server.url, () => server.close());
}
