#!/usr/bin/env node
import cluster from 'node:cluster';
import { parseArgs } from 'node:util';
import { ConfigError } from './config/config-error.js';
import { type DemoCredentials, demoConfig } from './config/demo.js';
import { loadConfigFile } from './config/load.js';
import { fullCollector, settleHeapWhenIdle } from './core/heap-settle.js';
import { fixMmapThreshold, mallocTrimmer } from './core/native-memory.js';
import { packageVersion } from './core/package-version.js';
import {
  describeSink,
  FORWARD_TOKEN_ENV,
  forwardSink,
  publishSink,
  type SinkConfig,
} from './delivery/delivery-config.js';
import { credentialsProblem, hasCredentials, withoutCredentials } from './delivery/sink-url.js';
import { DEMO_REQUEST, JSON_CONTENT_TYPE, ROUTES } from './generated/routes.gen.js';
import { parseLimitsUrl } from './ratelimit/open-limiter.js';
import { type RunningServer, type StartServerOptions, startServer } from './server.js';
import { parseStoreUrl } from './store/store-url.js';

const usage = `Usage: events-mock-server [--port N] [--host H] [--config FILE] [--store URL | --db PATH]
                          [--limits memory|URL] [--workers N] [--log-level L]
                          [--forward URL [--forward-account ID]] [--publish nats://HOST:PORT]

  --port N        port to listen on (0 picks a free one; default: config server.port, else 8080)
  --host H        interface to listen on (default: config server.host, else 127.0.0.1)
  --config FILE   YAML config (accounts, apps, users, tokens; see README). Without it, a demo config
                  with fresh tokens, printed below.
  --store URL     where events are kept: sqlite:PATH, :memory: or postgres://user@host:5432/database
                  (default: $DATABASE_URL, else config storage.url or storage.path, else ./events.db)
  --db PATH       SQLite file, or :memory: to keep nothing (the same as --store sqlite:PATH)
  --limits V      where rate limits are counted: memory (this process) or redis://host:6379 (shared by
                  every instance; default: $REDIS_URL, else config limits.url, else memory)
  --workers N     N processes on one port (node:cluster; default 1). More than one needs a shared store
                  (--store postgres://...) and shared limits (--limits redis://...)
  --log-level L   fatal|error|warn|info|debug|trace|silent (default: config log_level, else info)
  --forward URL   deliver every accepted event to the Conversions API at URL (such as
                  https://api.pinterest.com), with the token in $${FORWARD_TOKEN_ENV} (C100)
  --forward-account ID
                  the upstream ad account of --forward (default: the same id as here)
  --publish URL   publish every accepted event to NATS JetStream at URL (nats://host:port), one subject
                  per ad account (C100)
  -v, --version   print the version and exit
`;

/**
 * A ready-to-paste request with one valid event that draws no warning (every recommended field is there);
 * event_time is the start time, so it passes the 7-day window (C4) for a week.
 */
/**
 * How long in-flight requests get to finish after the shutdown grace of C43 (which answers a body still
 * coming 503, C73) before the process exits anyway.
 */
const SHUTDOWN_MARGIN_MS = 10_000;

function curlLine(url: string, demo: DemoCredentials): string {
  const now = Math.floor(Date.now() / 1000);
  // The spec's demo request (x-demo), dated now, with ids of its own so a second run is no duplicate (C6).
  const body = {
    ...DEMO_REQUEST,
    data: DEMO_REQUEST.data.map((e) => ({
      ...e,
      event_time: now,
      event_id: `${e.event_id}-${now}`,
      custom_data: { ...e.custom_data, order_id: `${e.custom_data.order_id}-${now}` },
    })),
  };
  return (
    `curl -sS -X POST '${url}/v5/ad_accounts/${demo.adAccountId}/events' ` +
    `-H 'Authorization: Bearer ${demo.conversionToken}' -H 'Content-Type: ${JSON_CONTENT_TYPE}' ` +
    `-d '${JSON.stringify(body)}'`
  );
}

/** Most workers one box is given; beyond the cores they only add memory. */
const MAX_WORKERS = 64;
/** Env var that hands a worker the options its primary resolved (and the demo config, generated once). */
const WORKER_ENV = 'EVENTS_MOCK_WORKER';

interface Plan {
  options: StartServerOptions;
  workers: number;
  /** The demo credentials when no config file was given (the primary prints them). */
  demo: DemoCredentials | null;
  /** One line per sink (C100), printed at start; never a token. */
  sinkLines: string[];
}

type Flags = {
  port?: string;
  host?: string;
  config?: string;
  db?: string;
  store?: string;
  limits?: string;
  workers?: string;
  'log-level'?: string;
  forward?: string;
  'forward-account'?: string;
  publish?: string;
  help?: boolean;
  version?: boolean;
};

/** The sinks of --forward and --publish (C100), added to the config's. */
function flagSinks(values: Flags): SinkConfig[] | { code: number; message: string } {
  const sinks: SinkConfig[] = [];
  const isUrl = (v: string, schemes: string[]) => {
    try {
      return schemes.includes(new URL(v).protocol);
    } catch {
      return false;
    }
  };
  if (values['forward-account'] !== undefined && values.forward === undefined)
    return fail('--forward-account needs --forward URL');
  if (values.forward !== undefined) {
    if (!isUrl(values.forward, ['http:', 'https:']))
      return fail(
        `--forward must be an http(s) URL such as https://api.pinterest.com; received ${withoutCredentials(values.forward)}`,
      );
    if (hasCredentials(values.forward))
      return fail(
        `--forward ${credentialsProblem(`the environment variable ${FORWARD_TOKEN_ENV}`)}; received ${withoutCredentials(values.forward)}`,
      );
    const account = values['forward-account'];
    const pattern = new RegExp(ROUTES['events/create'].pathParams.ad_account_id.pattern);
    if (account !== undefined && !pattern.test(account))
      return fail(`--forward-account must match ${pattern.source}; received ${account}`);
    if (!process.env[FORWARD_TOKEN_ENV])
      return fail(`--forward needs the upstream token in the environment variable ${FORWARD_TOKEN_ENV}`);
    sinks.push(forwardSink(values.forward, account ?? null));
  }
  if (values.publish !== undefined) {
    if (!isUrl(values.publish, ['nats:', 'tls:']))
      return fail(
        `--publish must be a NATS URL such as nats://127.0.0.1:4222; received ${withoutCredentials(values.publish)}`,
      );
    if (hasCredentials(values.publish))
      return fail(
        `--publish must not hold a user name or password; received ${withoutCredentials(values.publish)}`,
      );
    sinks.push(publishSink(values.publish));
  }
  return sinks;
}

function fail(message: string): { code: number; message: string } {
  return { code: 2, message };
}

/** Flags, environment and config file, resolved into startServer's options (C47, C52). */
function plan(values: Flags): Plan | { code: number; message: string } {
  const port = values.port === undefined ? undefined : Number(values.port);
  if (port !== undefined && !(Number.isInteger(port) && port >= 0 && port <= 65535))
    return fail(`--port must be an integer from 0 to 65535; received ${values.port}`);
  const workers = values.workers === undefined ? 1 : Number(values.workers);
  if (!(Number.isInteger(workers) && workers >= 1 && workers <= MAX_WORKERS))
    return fail(`--workers must be an integer from 1 to ${MAX_WORKERS}; received ${values.workers}`);
  if (values.store !== undefined && values.db !== undefined)
    return fail('--store and --db both name the store; give one');
  // C47: a flag, then DATABASE_URL, then the config file, then ./events.db.
  const storeUrl =
    values.store ?? (values.db === undefined ? process.env.DATABASE_URL || undefined : undefined);
  if (storeUrl !== undefined) {
    const parsed = parseStoreUrl(storeUrl);
    if ('error' in parsed)
      return fail(`${values.store !== undefined ? '--store' : 'DATABASE_URL'} ${parsed.error}`);
  }
  // C52: a flag, then REDIS_URL, then the config file, then memory.
  const limits = values.limits ?? (process.env.REDIS_URL || undefined);
  if (limits !== undefined) {
    const parsed = parseLimitsUrl(limits);
    if ('error' in parsed)
      return fail(`${values.limits !== undefined ? '--limits' : 'REDIS_URL'} ${parsed.error}`);
  }
  const sinks = flagSinks(values);
  if ('code' in sinks) return sinks;
  // The file is read here only for the defaults that differ from startServer's (port, db, log level) and
  // for what --workers needs to know.
  const fileConfig = values.config ? loadConfigFile(values.config) : undefined;
  const options: StartServerOptions = {
    port: port ?? fileConfig?.server.port ?? 8080,
    host: values.host ?? fileConfig?.server.host ?? '127.0.0.1',
    ...(values.config ? { config: values.config } : {}),
    ...(storeUrl !== undefined
      ? { storeUrl }
      : values.db !== undefined || (!fileConfig?.storage.url && !fileConfig?.storage.path)
        ? { db: values.db ?? './events.db' }
        : {}),
    ...(limits !== undefined ? { limits } : {}),
    logLevel: values['log-level'] ?? fileConfig?.logLevel ?? 'info',
    ...(sinks.length ? { sinks } : {}),
  };
  if (workers > 1) {
    const store = storeUrl ?? fileConfig?.storage.url;
    const sharedStore = store !== undefined && /^postgres(ql)?:/i.test(store);
    const limitsAt = limits ?? fileConfig?.limits.url ?? 'memory';
    if (!sharedStore || !/^rediss?:/i.test(limitsAt))
      return fail(
        `--workers ${workers} needs a store and rate limits that every worker shares: ` +
          `${sharedStore ? '' : 'give --store postgres://... (or DATABASE_URL) instead of SQLite'}` +
          `${!sharedStore && !/^rediss?:/i.test(limitsAt) ? ' and ' : ''}` +
          `${/^rediss?:/i.test(limitsAt) ? '' : 'give --limits redis://... (or REDIS_URL) instead of in-memory limits'}` +
          ' (C52: otherwise each worker would count the limits on its own)',
      );
  }
  let demo: DemoCredentials | null = null;
  if (!values.config && workers > 1) {
    // One demo config for all workers: each would otherwise make up tokens of its own.
    const d = demoConfig();
    options.config = d.raw;
    demo = d.credentials;
  }
  const lines = [...(fileConfig?.delivery.sinks ?? []), ...sinks].map(describeSink);
  return { options, workers, demo, sinkLines: lines };
}

function banner(
  url: string,
  store: string,
  limits: string,
  workers: number,
  demo: DemoCredentials | null,
): string {
  const out = [
    `events-mock-server listening on ${url} (store: ${store}; limits: ${limits}${workers > 1 ? `; workers: ${workers}` : ''})`,
  ];
  if (demo) {
    const d = demo;
    out.push(
      '',
      'Demo config (no --config); the tokens change at every start:',
      `  ad account        ${d.adAccountId}`,
      `  conversion token  ${d.conversionToken}`,
      `  OAuth token       ${d.oauthToken}   (scopes ads:read ads:write, standard tier)`,
      `  admin token       ${d.adminToken}`,
      '',
      'Send one valid event:',
      `  ${curlLine(url, d)}`,
      '',
      `Docs: ${url}/docs/   Health: ${url}/healthz   Metrics: ${url}/metrics`,
      `Inspector: ${url}/inspector/   (sign in with the admin token above)`,
    );
  }
  return `${out.join('\n')}\n`;
}

/** Graceful shutdown of one server process: stop accepting, finish in-flight batches, close the store. */
function stopOnSignals(server: RunningServer): void {
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) {
      process.stderr.write(`${signal} again: exiting now\n`);
      process.exit(1);
    }
    stopping = true;
    server.app.log.info({ signal }, 'shutting down');
    // Safety net: a client that never finishes its request must not keep the process alive forever.
    // Every commit is durable when it returns, so exiting late loses nothing acknowledged.
    const limitMs = server.shutdownGraceSeconds * 1000 + SHUTDOWN_MARGIN_MS;
    setTimeout(() => {
      process.stderr.write(`shutdown took over ${limitMs} ms: exiting\n`);
      process.exit(1);
    }, limitMs).unref();
    server.close().then(
      () => process.exit(0),
      (e) => {
        process.stderr.write(`shutdown failed: ${(e as Error).message}\n`);
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

async function start(options: StartServerOptions): Promise<RunningServer | number> {
  // Before any body is allocated (C59); the outcome is logged once the logger exists.
  const mmap = fixMmapThreshold();
  try {
    const server = await startServer(options);
    // C110: after a load, the heap gives back what the load grew it to; then (C116) the allocator gives the
    // system every page the load freed, the holes in the middle of its heaps included.
    const gc = fullCollector();
    const trim = mallocTrimmer();
    if (gc.ok || trim.ok)
      settleHeapWhenIdle(server.app.server, {
        collect: () => {
          if (gc.ok) gc.collect();
          if (!trim.ok) return;
          // V8 frees the memory of the array buffers it collected on a thread of its own, after the
          // collection; the next collection first finishes that, so the trim finds it all free.
          if (gc.ok) gc.collect();
          trim.trim();
        },
      });
    server.app.log.debug(
      {
        mmapThreshold: mmap,
        heapSettle: gc.ok ? 'on' : `off: ${gc.reason}`,
        mallocTrim: trim.ok ? 'on' : `off: ${trim.reason}`,
      },
      'native memory',
    );
    return server;
  } catch (e) {
    process.stderr.write(
      e instanceof ConfigError ? `${e.message}\n` : `cannot start: ${(e as Error).message}\n`,
    );
    return 1;
  }
}

/** A worker of --workers: the primary resolved its options; it reports when it listens. */
async function worker(): Promise<number> {
  const options = JSON.parse(process.env[WORKER_ENV] as string) as StartServerOptions;
  const server = await start(options);
  if (typeof server === 'number') return server;
  stopOnSignals(server);
  process.send?.({
    listening: server.url,
    store: server.store.description,
    limits: server.limiter.description,
  });
  return -1;
}

/** The primary of --workers: forks, prints one banner, forwards signals, replaces a worker that dies. */
function primary(p: Plan): number {
  cluster.setupPrimary({ silent: false });
  let stopping = false;
  let ready = 0;
  const env = { [WORKER_ENV]: JSON.stringify(p.options) };
  const fork = () => {
    const w = cluster.fork(env);
    w.on('message', (m: { listening?: string; store?: string; limits?: string }) => {
      if (!m.listening || ++ready !== p.workers) return;
      process.stdout.write(banner(m.listening, m.store ?? '', m.limits ?? '', p.workers, p.demo));
      for (const line of p.sinkLines) process.stdout.write(`${line}\n`);
    });
    w.on('exit', (code, signal) => {
      if (stopping) return;
      if (ready < p.workers) {
        // A worker that cannot start (bad config, database away) stops the whole server.
        process.stderr.write(`a worker exited (${signal ?? code}) before listening: stopping\n`);
        stopping = true;
        for (const o of Object.values(cluster.workers ?? {})) o?.process.kill('SIGTERM');
        process.exitCode = 1;
        return;
      }
      process.stderr.write(`worker ${w.process.pid} exited (${signal ?? code}); starting another\n`);
      fork();
    });
  };
  for (let i = 0; i < p.workers; i++) fork();
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) {
      for (const o of Object.values(cluster.workers ?? {})) o?.process.kill('SIGKILL');
      process.exit(1);
    }
    stopping = true;
    for (const o of Object.values(cluster.workers ?? {})) o?.process.kill(signal);
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
  // Exits once every worker has (each finishes its in-flight requests first).
  cluster.on('exit', () => {
    if (stopping && Object.keys(cluster.workers ?? {}).length === 0) process.exit(process.exitCode ?? 0);
  });
  return -1;
}

async function main(): Promise<number> {
  if (cluster.isWorker) return worker();
  let values: Flags;
  try {
    // `pnpm start -- --port 9000` hands the separator on; take it off.
    const argv = process.argv.slice(2);
    if (argv[0] === '--') argv.shift();
    ({ values } = parseArgs({
      args: argv,
      options: {
        port: { type: 'string' },
        host: { type: 'string' },
        config: { type: 'string' },
        db: { type: 'string' },
        store: { type: 'string' },
        limits: { type: 'string' },
        workers: { type: 'string' },
        'log-level': { type: 'string' },
        forward: { type: 'string' },
        'forward-account': { type: 'string' },
        publish: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
        version: { type: 'boolean', short: 'v' },
      },
      strict: true,
    }));
  } catch (e) {
    process.stderr.write(`${(e as Error).message}\n\n${usage}`);
    return 2;
  }
  if (values.version) {
    process.stdout.write(`${packageVersion}\n`);
    return 0;
  }
  if (values.help) {
    process.stdout.write(usage);
    return 0;
  }
  let p: Plan | { code: number; message: string };
  try {
    p = plan(values);
  } catch (e) {
    process.stderr.write(
      e instanceof ConfigError ? `${e.message}\n` : `cannot start: ${(e as Error).message}\n`,
    );
    return 1;
  }
  if ('code' in p) {
    process.stderr.write(`${p.message}\n`);
    return p.code;
  }
  if (p.workers > 1) return primary(p);
  const server = await start(p.options);
  if (typeof server === 'number') return server;
  process.stdout.write(
    banner(server.url, server.store.description, server.limiter.description, 1, server.demo),
  );
  for (const line of p.sinkLines) process.stdout.write(`${line}\n`);
  stopOnSignals(server);
  return -1;
}

const code = await main();
if (code >= 0) process.exit(code);
