#!/usr/bin/env node
import { parseArgs } from 'node:util';
import { ConfigError } from './config/config-error.js';
import type { DemoCredentials } from './config/demo.js';
import { loadConfigFile } from './config/load.js';
import { DEMO_REQUEST, JSON_CONTENT_TYPE } from './generated/routes.gen.js';
import { type RunningServer, startServer } from './server.js';
import { parseStoreUrl } from './store/store-url.js';

const usage = `Usage: events-mock-server [--port N] [--host H] [--config FILE] [--store URL | --db PATH] [--log-level L]

  --port N        port to listen on (0 picks a free one; default: config server.port, else 8080)
  --host H        interface to listen on (default: config server.host, else 127.0.0.1)
  --config FILE   YAML config (accounts, apps, users, tokens; see README). Without it, a demo config
                  with fresh tokens, printed below.
  --store URL     where events are kept: sqlite:PATH, :memory: or postgres://user@host:5432/database
                  (default: $DATABASE_URL, else config storage.url or storage.path, else ./events.db)
  --db PATH       SQLite file, or :memory: to keep nothing (the same as --store sqlite:PATH)
  --log-level L   fatal|error|warn|info|debug|trace|silent (default: config log_level, else info)
`;

/**
 * A ready-to-paste request with one valid event that draws no warning (every recommended field is there);
 * event_time is the start time, so it passes the 7-day window (C4) for a week.
 */
/** How long in-flight requests get to finish after SIGTERM/SIGINT. */
const SHUTDOWN_GRACE_MS = 15_000;

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

async function main(): Promise<number> {
  let values: {
    port?: string;
    host?: string;
    config?: string;
    db?: string;
    store?: string;
    'log-level'?: string;
    help?: boolean;
  };
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
        'log-level': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
    }));
  } catch (e) {
    process.stderr.write(`${(e as Error).message}\n\n${usage}`);
    return 2;
  }
  if (values.help) {
    process.stdout.write(usage);
    return 0;
  }
  const port = values.port === undefined ? undefined : Number(values.port);
  if (port !== undefined && !(Number.isInteger(port) && port >= 0 && port <= 65535)) {
    process.stderr.write(`--port must be an integer from 0 to 65535; received ${values.port}\n`);
    return 2;
  }

  if (values.store !== undefined && values.db !== undefined) {
    process.stderr.write('--store and --db both name the store; give one\n');
    return 2;
  }
  // C47: a flag, then DATABASE_URL, then the config file, then ./events.db.
  const storeUrl =
    values.store ?? (values.db === undefined ? process.env.DATABASE_URL || undefined : undefined);
  if (storeUrl !== undefined) {
    const parsed = parseStoreUrl(storeUrl);
    if ('error' in parsed) {
      process.stderr.write(`${values.store !== undefined ? '--store' : 'DATABASE_URL'} ${parsed.error}\n`);
      return 2;
    }
  }

  let server: RunningServer;
  try {
    // The file is read here only for the defaults that differ from startServer's (port, db, log level).
    const fileConfig = values.config ? loadConfigFile(values.config) : undefined;
    server = await startServer({
      port: port ?? fileConfig?.server.port ?? 8080,
      host: values.host ?? fileConfig?.server.host ?? '127.0.0.1',
      ...(values.config ? { config: values.config } : {}),
      ...(storeUrl !== undefined
        ? { storeUrl }
        : values.db !== undefined || (!fileConfig?.storage.url && !fileConfig?.storage.path)
          ? { db: values.db ?? './events.db' }
          : {}),
      logLevel: values['log-level'] ?? fileConfig?.logLevel ?? 'info',
    });
  } catch (e) {
    if (e instanceof ConfigError) {
      process.stderr.write(`${e.message}\n`);
      return 1;
    }
    process.stderr.write(`cannot start: ${(e as Error).message}\n`);
    return 1;
  }

  const out = [`events-mock-server listening on ${server.url} (store: ${server.store.description})`];
  if (server.demo) {
    const d = server.demo;
    out.push(
      '',
      'Demo config (no --config); the tokens change at every start:',
      `  ad account        ${d.adAccountId}`,
      `  conversion token  ${d.conversionToken}`,
      `  OAuth token       ${d.oauthToken}   (scopes ads:read ads:write, standard tier)`,
      `  admin token       ${d.adminToken}`,
      '',
      'Send one valid event:',
      `  ${curlLine(server.url, d)}`,
      '',
      `Docs: ${server.url}/docs/   Health: ${server.url}/healthz   Metrics: ${server.url}/metrics`,
    );
  }
  process.stdout.write(`${out.join('\n')}\n`);

  // Graceful shutdown: stop accepting, finish in-flight batches, close the store. A second signal forces.
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
    setTimeout(() => {
      process.stderr.write(`shutdown took over ${SHUTDOWN_GRACE_MS} ms: exiting\n`);
      process.exit(1);
    }, SHUTDOWN_GRACE_MS).unref();
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
  return -1;
}

const code = await main();
if (code >= 0) process.exit(code);
