import { Server as NetServer } from 'node:net';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { buildApp } from './app/build-app.js';
import { Directory } from './auth/directory.js';
import { AdminSessions } from './auth/sessions.js';
import { type DemoCredentials, demoConfig } from './config/demo.js';
import { configFromObject, loadConfigFile } from './config/load.js';
import type { ServerConfig } from './config/validate.js';
import { type Clock, systemClock } from './core/clock.js';
import { createLogger } from './core/logger.js';
import { Deliverer } from './delivery/deliverer.js';
import type { SinkConfig } from './delivery/delivery-config.js';
import { registerDeliveryMetrics } from './delivery/delivery-metrics.js';
import { openSinks } from './delivery/open-sinks.js';
import { Faults } from './faults/faults.js';
import type { ServerContext } from './http/context.js';
import { DEFAULT_TRANSPORT, type TransportOptions } from './http/transport.js';
import { createMetrics } from './metrics/metrics.js';
import { ValidationPool } from './pipeline/pool.js';
import { AdminAuthThrottle, DEFAULT_ADMIN_AUTH_THROTTLE } from './ratelimit/admin-auth-throttle.js';
import type { Limiter } from './ratelimit/limiter.js';
import { openLimiter } from './ratelimit/open-limiter.js';
import { DEFAULT_REQUEST_LOG, RequestLog, type RequestLogOptions } from './requestlog/request-log.js';
import type { DocsSource } from './routes/docs.js';
import type { InspectorSource } from './routes/inspector.js';
import { CustomTypesCache } from './store/custom-types-cache.js';
import type { Outbox } from './store/interface/outbox.js';
import type { Store } from './store/interface/store.js';
import { openStore } from './store/open-store.js';
import type { SynchronousLevel } from './store/sqlite/sqlite-store.js';
import { parseStoreUrl, type StoreLocation } from './store/store-url.js';

export interface StartServerOptions {
  /** Port to listen on; 0 (the default) picks a free one. */
  port?: number;
  /** Interface to listen on; default 127.0.0.1. */
  host?: string;
  /**
   * A YAML config file path, or the same structure as an object. Without it, the demo config: one ad
   * account, a conversion token, an OAuth token with ads:write and an admin token (returned in `demo`).
   */
  config?: string | Record<string, unknown>;
  /**
   * Where to keep events (C47): `sqlite:PATH`, `:memory:` or `postgres://...`. Wins over `db` and the
   * config's `storage.url`/`storage.path`. Ignored with `store`.
   */
  storeUrl?: string;
  /** SQLite file, or `:memory:` (the default here; the bin defaults to ./events.db). Ignored with `store`. */
  db?: string;
  /** PostgreSQL connections of this process at most (default 10). */
  poolSize?: number;
  /** PostgreSQL batch calls this process runs at once (default 2); batches waiting meanwhile are grouped (C83). */
  commitCalls?: number;
  /**
   * Where rate limits are counted (C50, C52): `memory` (this process; the default) or `redis://...`,
   * shared by every instance. Wins over the config's `limits.url`. Ignored with `limiter`.
   */
  limits?: string;
  /** Prefix of the Redis keys of the limits (default: config limits.prefix, else `events:rl:`). */
  limitsPrefix?: string;
  /** Another limiter implementation (tests). */
  limiter?: Limiter;
  /** PRAGMA synchronous of the SQLite store; FULL by default (see README, Durability). */
  synchronous?: SynchronousLevel;
  /**
   * Run SQLite on a thread of its own, off the event loop (default: yes for a file, no for `:memory:`,
   * where a thread hop costs more than the work it moves).
   */
  storeThread?: boolean;
  /** Another store implementation (a server database, or a failing one in tests). */
  store?: Store;
  /** The clock of rate limits, event_time checks and dedup; tests pass a ManualClock. */
  clock?: Clock;
  /** pino level; `silent` by default here (the bin uses info). Ignored with `logger`. */
  logLevel?: string;
  logger?: Logger;
  /**
   * Worker threads that parse and validate large batches (default, C76: one per core for test-mode batches,
   * the available parallelism minus 2 for stored ones, so none on 2 cores; 0: all on the event loop; a
   * number given applies to every large batch), and the body size from which they are used (default
   * `validation_thread_min_bytes`, 64 KiB). A thread idle for `validation_thread_idle_seconds` exits.
   */
  validationThreads?: number;
  validationMinBytes?: number;
  /** Docs to serve at /docs and /openapi.yaml; by default loaded from @org/events-docs; false for none. */
  docs?: DocsSource | false;
  /** The inspector page to serve at /inspector/; by default from @org/events-inspector; false for none. */
  inspector?: InspectorSource | false;
  /**
   * Timeouts and caps of C41/C43 (headers and body timeouts, connections, body bytes in flight, shutdown
   * grace); each wins over the config's `server:` section, which wins over the spec's default.
   */
  transport?: Partial<TransportOptions>;
  /**
   * The random source of fraction faults (C65), uniform in [0, 1); Math.random by default. Tests pass a
   * scripted one to make a fraction exact.
   */
  faultRandom?: () => number;
  /** Sinks added to the config's `delivery.sinks` (C100; the bin's --forward and --publish). */
  sinks?: SinkConfig[];
  /** Retention of the request log (C60); each wins over the config's `request_log:` section. */
  requestLog?: Partial<RequestLogOptions>;
}

export interface RunningServer {
  /** Base URL, such as http://127.0.0.1:39201. */
  url: string;
  port: number;
  /** The demo tokens when no config was given, else null. */
  demo: DemoCredentials | null;
  store: Store;
  /** Where rate limits are counted: this process's memory, or Redis. */
  limiter: Limiter;
  /** C100: the deliverer of accepted events, when a sink is configured; else null. */
  delivery: Deliverer | null;
  clock: Clock;
  app: FastifyInstance;
  /** The grace of C43 that close() gives open connections before it stops waiting for them. */
  shutdownGraceSeconds: number;
  /**
   * Stops accepting requests, finishes the ones in flight, then closes the store. Idempotent. A body still
   * being received at the end of the grace is answered 503 `shutting_down` (C73).
   */
  close(): Promise<void>;
}

function resolveConfig(config: StartServerOptions['config']): {
  config: ServerConfig;
  demo: DemoCredentials | null;
} {
  if (config === undefined) {
    const d = demoConfig();
    return { config: configFromObject(d.raw, 'demo config'), demo: d.credentials };
  }
  return {
    config: typeof config === 'string' ? loadConfigFile(config) : configFromObject(config),
    demo: null,
  };
}

/** The store the options and the config name: storeUrl, then db, then storage.url, then storage.path. */
function storeLocation(options: StartServerOptions, config: ServerConfig): StoreLocation {
  const url = options.storeUrl ?? (options.db === undefined ? config.storage.url : undefined);
  if (url !== undefined) {
    const parsed = parseStoreUrl(url);
    if ('error' in parsed) throw new Error(`store URL ${parsed.error}`);
    return parsed;
  }
  return { kind: 'sqlite', path: options.db ?? config.storage.path ?? ':memory:' };
}

/** The keys of an object whose value is not undefined (so they do not override defaults). */
function definedOnly<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/**
 * C100: routes the outbox to the configured sinks and starts delivering; null without a sink, and then the
 * store writes no outbox entry at all.
 */
async function startDelivery(
  store: Store,
  config: ServerConfig,
  options: StartServerOptions,
  logger: Logger,
): Promise<{ deliverer: Deliverer; outbox: Outbox } | null> {
  const sinks = [...config.delivery.sinks, ...(options.sinks ?? [])];
  if (sinks.length === 0) return null;
  const opened = await openSinks(sinks, Date.now, config.delivery.timeoutSeconds);
  // C127: a Conversions API sink also takes the conversion deletion requests of its accounts.
  await store.routeOutbox(
    sinks.map((s) => ({ sink: s.name, adAccounts: s.adAccounts, deletions: s.kind === 'conversions_api' })),
  );
  const deliverer = new Deliverer(store, opened, config.delivery, logger);
  deliverer.start();
  return { deliverer, outbox: store };
}

/** Stops the listener and waits until every connection has closed, or `graceMs` has passed (C43). */
async function drainConnections(app: FastifyInstance, graceMs: number): Promise<void> {
  const server = app.server;
  if (!server.listening) return;
  await new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, graceMs);
    timer.unref();
    // net.Server's close: no new connections, the open ones kept (http.Server's would end idle ones).
    NetServer.prototype.close.call(server, () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

/**
 * Starts the service in this process (issue point 5): for integrators' own tests, and used by the bin.
 * The config seeds accounts, apps, users and tokens into the store (C8) before the port opens.
 */
export async function startServer(options: StartServerOptions = {}): Promise<RunningServer> {
  const { config, demo } = resolveConfig(options.config);
  const logger = options.logger ?? createLogger(options.logLevel ?? config.logLevel ?? 'silent');
  const clock = options.clock ?? systemClock;
  const store =
    options.store ??
    (await openStore(storeLocation(options, config), {
      synchronous: options.synchronous ?? config.storage.synchronous ?? 'FULL',
      ...(options.storeThread !== undefined ? { storeThread: options.storeThread } : {}),
      ...(options.poolSize !== undefined ? { poolSize: options.poolSize } : {}),
      ...(options.commitCalls !== undefined ? { commitCalls: options.commitCalls } : {}),
      onIdleError: (e) => logger.warn({ err: e }, 'store connection lost'),
    }));
  let app: FastifyInstance | undefined;
  let validation: ValidationPool | undefined;
  let limiter: Limiter | undefined;
  let deliverer: Deliverer | undefined;
  try {
    const prefix = options.limitsPrefix ?? config.limits.prefix;
    limiter =
      options.limiter ?? (await openLimiter(options.limits ?? config.limits.url ?? 'memory', clock, prefix));
    await store.replaceDirectory(config.directory);
    const delivery = await startDelivery(store, config, options, logger);
    deliverer = delivery?.deliverer;
    const metrics = createMetrics();
    if (delivery) registerDeliveryMetrics(metrics.registry, delivery.deliverer, delivery.outbox);
    const requestLog = new RequestLog(store, clock, metrics, logger, {
      ...DEFAULT_REQUEST_LOG,
      ...definedOnly(config.requestLog),
      ...definedOnly(options.requestLog ?? {}),
    });
    const ctx: ServerContext = {
      store,
      customTypes: new CustomTypesCache(store, clock),
      directory: new Directory(await store.loadDirectory()),
      limiter,
      clock,
      faults: new Faults({ clock, ...(options.faultRandom ? { random: options.faultRandom } : {}) }),
      metrics,
      requestLog,
      sessions: new AdminSessions(clock),
      authThrottle: new AdminAuthThrottle(clock, {
        ...DEFAULT_ADMIN_AUTH_THROTTLE,
        ...definedOnly({
          windowSeconds: config.admin.loginWindowSeconds,
          failuresPerClient: config.admin.loginFailuresPerClient,
          failuresOverall: config.admin.loginFailuresOverall,
        }),
      }),
      publicOrigin: config.admin.publicOrigin,
      validation: new ValidationPool({
        ...(options.validationThreads !== undefined ? { threads: options.validationThreads } : {}),
        ...(options.validationMinBytes !== undefined ? { minBytes: options.validationMinBytes } : {}),
      }),
      closing: false,
      delivery,
      hashUserData: new Set(config.hashUserData),
    };
    validation = ctx.validation;
    // C65: the config's faults, checked with the config; at most faults_max of them, so each one fits.
    for (const f of config.faults) ctx.faults.add(f);
    const transport: TransportOptions = {
      ...DEFAULT_TRANSPORT,
      ...definedOnly({
        headersTimeoutSeconds: config.server.headersTimeoutSeconds,
        bodyTimeoutSeconds: config.server.bodyTimeoutSeconds,
        maxConnections: config.server.maxConnections,
        maxBodyBytesInFlight: config.server.maxBodyBytesInFlight,
        shutdownGraceSeconds: config.server.shutdownGraceSeconds,
      }),
      ...definedOnly(options.transport ?? {}),
    };
    app = await buildApp(ctx, {
      logger,
      transport,
      trustedProxies: config.server.trustedProxies ?? [],
      ...(options.docs !== undefined ? { docs: options.docs } : {}),
      ...(options.inspector !== undefined ? { inspector: options.inspector } : {}),
    });
    const host = options.host ?? config.server.host ?? '127.0.0.1';
    // fastify logs its address at info once listening; the bin's banner says it to a person, and a JSON
    // line before the banner read as noise (issue 23): that line is held back, and logged at debug below.
    // A logger the embedder gave is left alone.
    const level = logger.level;
    const quiet = options.logger === undefined && logger.isLevelEnabled('info');
    if (quiet) logger.level = 'warn';
    try {
      await app.listen({ port: options.port ?? config.server.port ?? 0, host });
    } finally {
      if (quiet) logger.level = level;
    }
    const address = app.server.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    const urlHost = host.includes(':') ? `[${host}]` : host === '0.0.0.0' ? '127.0.0.1' : host;
    logger.debug({ url: `http://${urlHost}:${port}` }, 'listening');
    const running = app;
    let closing: Promise<void> | undefined;
    return {
      url: `http://${urlHost}:${port}`,
      port,
      demo,
      store,
      limiter: ctx.limiter,
      delivery: deliverer ?? null,
      clock,
      app: running,
      shutdownGraceSeconds: transport.shutdownGraceSeconds,
      close() {
        closing ??= (async () => {
          ctx.closing = true;
          // Live streams end, so their sockets do not hold the shutdown.
          ctx.requestLog.endStreams();
          // C43: stop accepting, but leave kept-alive sockets open for the grace: a request a client is
          // sending on one gets a 503 with Connection: close instead of a reset (Node's server.close()
          // would destroy idle sockets at once). Every answer now closes its socket; once none is left,
          // or the grace is over, fastify.close waits for the requests in flight and closes the rest; a body
          // still coming then is answered 503 rather than waited for (the body reader's preClose, C73).
          await drainConnections(running, transport.shutdownGraceSeconds * 1000);
          await running.close();
          // The log entries of every answered request are written before the store closes.
          await ctx.requestLog.flushed();
          // Deliveries in flight are dropped; their entries stay leased and are claimed again (C100).
          await deliverer?.close();
          await ctx.validation.close();
          await ctx.limiter.close();
          await store.close();
        })();
        return closing;
      },
    };
  } catch (e) {
    await app?.close().catch(() => {});
    await deliverer?.close().catch(() => {});
    await validation?.close().catch(() => {});
    await limiter?.close().catch(() => {});
    await store.close().catch(() => {});
    throw e;
  }
}
