// pnpm bench: loads the server and a bare node:http floor with autocannon at 1, 100 and 1000 events per
// request (10 connections), in test mode and with SQLite storage, and prints requests/s, events/s,
// p50/p99 latency, peak RSS and the ratios to the floor and to Prism. Each server runs in a child process so the load
// generator (this process) does not share its event loop. Every request carries fresh event_ids, so the
// stored run never turns into a dedup test.
//
// The floor and Prism run before each size's targets and again after them ("again" rows): this box's speed
// drifts by tens of percent within minutes, so every ratio is to the mean of the two runs of its base.
//
// Beside the floors, two peers: a reference (node:http + JSON.parse + ajv, validating every event against the
// generator's JSON Schema and answering one result per event: ajv-reference.mjs) and Stoplight Prism mocking
// the events operation of spec/openapi.yaml with request validation on (prism-server.mjs; checked at start:
// an invalid event must get 422).
//
// Each row also gives the server's event-loop delay p99 and CPU time per event over the measured run (read
// inside the server process, see probe.ts), and its RSS when idle after start.
//
// Env: BENCH_DURATION (seconds per run, default 10), BENCH_SIZES (default 1,100,1000); passed on to the
// server: BENCH_THREADS (validationThreads), BENCH_STORE_THREAD (1|0: storeThread). BENCH_THREAD_COUNTS (default
// 0,1,2): the validation threads of the extra test-mode rows at the largest size (C76). BENCH_TARGETS (default
// all): the rows to run, a comma list of floor, fastify, ajv, prism, test, sqlite, nats, pg, refs, gateway (the floor
// always runs, but with `stored`, below: every other ratio is to it). PostgreSQL rows add the database's own CPU per event: the CPU time of the server
// backends connected to the bench database over the measured run (postgres.ts).
//
// Issue 37: each store's rows run between two runs of its reference (`refs`: reference-store/, a plain
// durable store on node:http + ajv), and at 100 events per request and more also with the request log off;
// the table of stored rows after the main one gives each its ratio to the mean of its reference's two runs,
// the server's and the database's CPU per event, statements, round trips and transactions per request, and
// bytes per event (table, indexes, request log, WAL: stored.ts). PostgreSQL's statements come from a short
// pass of their own through a counting proxy (BENCH_COUNT_SECONDS, default 3; 0 leaves it out:
// pg-wire-count.ts); SQLite's are counted in the process (sqlite-statements.mjs). BENCH_TARGETS=stored runs
// only these rows (no floor, Prism, test mode, NATS or two-worker rows; `stored,pg` one store's).
// `--profile` writes V8 CPU profiles per target and size into bench-profiles/<target>-<size>/, one per
// thread (open them in Chrome DevTools; the largest is the main thread's), and prints after the table where
// each target's time goes by stage (profile-split.ts).
import { type ChildProcess, fork } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { availableParallelism, cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon, { type Result } from 'autocannon';
import { bodyParts, type UserDataForm } from './bench-body.js';
import { startWireCounter, type WireCounter } from './pg-wire-count.js';
import { createBenchDatabase, pgReachable } from './postgres.js';
import { staleDocuments } from './prism/extract.js';
import type { ProbeStats } from './probe-stats.js';
import { formatSplit, type ProfileWindow, splitProfiles } from './profile-split.js';
import {
  pgWindow,
  type StatementCounts,
  type StoredFigures,
  type StoredWindow,
  sqliteWindow,
  withWireCounts,
} from './stored.js';

const DURATION = Number(process.env.BENCH_DURATION ?? 10);
const SIZES = (process.env.BENCH_SIZES ?? '1,100,1000').split(',').map(Number);
const CONNECTIONS = 10;
/** Validation threads measured at the largest size (C76), beside the default row; BENCH_THREAD_COUNTS. */
const THREAD_COUNTS = (process.env.BENCH_THREAD_COUNTS ?? '0,1,2').split(',').filter(Boolean).map(Number);
/** Enough tokens that no one of them sees 10 test requests in a second (C7), even with 1-event batches. */
const TOKENS = 4000;
const ACCOUNT = '549755885175';
const LISTED = (
  process.env.BENCH_TARGETS ?? 'floor,fastify,ajv,prism,test,sqlite,nats,pg,refs,gateway'
).split(',');
/** C125: the rows of an account that hashes on arrival, raw user data and the same pre-hashed. */
const GATEWAY = 'mock server, SQLite, hash_user_data';
/**
 * `stored`: the stored rows and their references only (issue 37), without the floor; `stored,pg` or
 * `stored,sqlite` one store's.
 */
const STORED_ONLY = LISTED.includes('stored');
const STORES = LISTED.filter((t) => t === 'sqlite' || t === 'pg');
const TARGETS = new Set(
  STORED_ONLY ? ['refs', ...(STORES.length ? STORES : ['sqlite', 'pg'])] : LISTED.concat('floor'),
);
/** Seconds of the counting pass of each PostgreSQL stored row (statements, round trips); 0: none. */
const COUNT_SECONDS = Number(process.env.BENCH_COUNT_SECONDS ?? 3);
/** The preload that counts a SQLite child's statements. */
const COUNT_SQLITE = `--import=${fileURLToPath(new URL('./sqlite-statements.mjs', import.meta.url))}`;
/** NATS JetStream of the sink row (C100); the row is left out, and said so, when it does not answer. */
const NATS_URL = process.env.BENCH_NATS_URL ?? 'nats://127.0.0.1:4222';

/** Whether something accepts connections at a nats:// URL's host and port. */
function reachable(url: string): Promise<boolean> {
  const u = new URL(url);
  return new Promise((resolve) => {
    const socket = connect({ host: u.hostname, port: Number(u.port || 4222) });
    socket.setTimeout(2000);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
    socket.once('timeout', () => {
      socket.destroy();
      resolve(false);
    });
  });
}
const here = (f: string) => fileURLToPath(new URL(f, import.meta.url));

const PROFILE_DIR = process.argv.includes('--profile')
  ? fileURLToPath(new URL('../bench-profiles/', import.meta.url))
  : null;

interface Child {
  proc: ChildProcess;
  url: string;
  /** What the child said when ready besides its url (a reference's database or file). */
  info: Record<string, unknown>;
  /** Where its CPU profiles go (`--profile`). */
  profileDir: string | null;
  /** Starts the measured window (event-loop delay, CPU). */
  mark(): void;
  stats(): Promise<ProbeStats>;
  stop(): Promise<void>;
}

function start(
  script: string,
  env: Record<string, string> = {},
  profileName?: string,
  extra: { args?: string[]; execArgv?: string[] } = {},
): Promise<Child> {
  // One folder per target: every thread (the store thread, tsx's loader) writes its own profile there.
  const profileDir = PROFILE_DIR && profileName ? join(PROFILE_DIR, profileName) : null;
  if (profileDir) mkdirSync(profileDir, { recursive: true });
  const profile = profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [];
  const proc = fork(here(script), extra.args ?? [], {
    execArgv: [...profile, ...(extra.execArgv ?? [])],
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  return new Promise((resolve, reject) => {
    proc.once('error', reject);
    proc.once('exit', (code) => reject(new Error(`${script} exited ${code}`)));
    proc.once('message', ({ url, ...info }: { url: string }) =>
      resolve({
        proc,
        url,
        info,
        profileDir,
        mark: () => proc.send('start'),
        stats: () =>
          new Promise((r) => {
            proc.once('message', (x: ProbeStats) => r(x));
            proc.send('stats');
          }),
        // A clean exit (not a signal), so a CPU profile is written.
        stop: () =>
          new Promise((r) => {
            proc.removeAllListeners('exit');
            proc.once('exit', () => r());
            proc.send('stop');
          }),
      }),
    );
  });
}

interface Row {
  target: string;
  /** The folder of its CPU profiles (`--profile`). */
  profileDir: string | null;
  size: number;
  reqs: number;
  events: number;
  p50: number;
  p99: number;
  rss: number;
  idleRss: number;
  lagP99: number;
  cpuPerEvent: number;
  /** CPU µs of the database's backends per event (PostgreSQL rows), else null. */
  dbCpuPerEvent: number | null;
  errors: number;
  /** A stored row's store, whose reference its ratio is to (issue 37). */
  store: 'sqlite' | 'pg' | null;
  /** The figures of a stored row or reference (stored.ts). */
  stored: StoredFigures | null;
  /** Load average (1 min) when the row ended. */
  load: number;
}

/** The next message of `child` that holds `key`, after sending it `message`. */
function ask<T>(child: Child, message: string, key: string): Promise<T> {
  return new Promise((resolve) => {
    const on = (m: unknown) => {
      if (m && typeof m === 'object' && key in m) {
        child.proc.off('message', on);
        resolve((m as Record<string, T>)[key] as T);
      }
    };
    child.proc.on('message', on);
    child.proc.send(message);
  });
}

/** Requests sent so far, by every run: the warm-up's event_ids are never sent again by the measured run. */
let n = 0;

/**
 * Waits out what a timed load left in flight: autocannon stops at its deadline without waiting for the
 * answers, and the server still serves those requests, for at most the slowest latency the load saw. A
 * window opened after this holds only its own run's work.
 */
function settle(r: Result): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, Math.min(10_000, Math.max(200, r.latency.max))));
}

/** Loads `url` for `duration` seconds, or with `{ amount }` requests in all (each answered before it ends). */
async function load(
  url: string,
  path: string,
  size: number,
  duration: number | { amount: number },
  form: UserDataForm = 'default',
): Promise<Result> {
  const parts = bodyParts(size, form);
  return autocannon({
    url,
    connections: CONNECTIONS,
    ...(typeof duration === 'number' ? { duration } : duration),
    requests: [
      {
        method: 'POST',
        path,
        headers: { 'content-type': 'application/json' },
        setupRequest: (req) => {
          const k = n++;
          return {
            ...req,
            headers: { ...req.headers, authorization: `Bearer bench-conversion-token-${k % TOKENS}` },
            body: parts.join(`r${process.pid}x${k}`),
          };
        },
      },
    ],
  });
}

async function measure(
  target: string,
  child: Child,
  path: string,
  size: number,
  stored?: { store: 'sqlite' | 'pg'; window: () => Promise<StoredWindow> },
  form: UserDataForm = 'default',
): Promise<Row> {
  // Warm-up (JIT, SQLite cache), and what it left in flight served before the window opens.
  await settle(await load(child.url, path, size, 2, form));
  const window = stored ? await stored.window() : null;
  child.mark();
  const r = await load(child.url, path, size, DURATION, form);
  const s = await child.stats();
  // What was stored: the requests answered with 200 (a refused one stores nothing) and those still in flight
  // when the run ended, which the server serves before the window closes.
  let figures: StoredFigures | null = null;
  if (window) {
    await settle(r);
    const stored = r['2xx'] + r.requests.sent - r.requests.total;
    figures = await window.finish(stored, stored * size);
  }
  const events = r.requests.total * size;
  if (child.profileDir) {
    const window: ProfileWindow = { startUs: s.startUs, endUs: s.endUs, requests: r.requests.total, events };
    writeFileSync(join(child.profileDir, 'window.json'), `${JSON.stringify(window)}\n`);
  }
  return {
    target,
    profileDir: child.profileDir,
    size,
    reqs: r.requests.average,
    events: r.requests.average * size,
    p50: r.latency.p50,
    p99: r.latency.p99,
    rss: s.maxRSS,
    idleRss: s.idleRSS,
    lagP99: s.lagP99,
    cpuPerEvent: events > 0 ? s.cpuMicros / events : 0,
    dbCpuPerEvent: figures?.dbCpuPerEvent ?? null,
    errors: r.errors + r.timeouts + r.non2xx,
    store: stored?.store ?? null,
    stored: figures,
    load: loadavg()[0] ?? 0,
  };
}

/**
 * The counting pass of a PostgreSQL row (issue 37): the child, started anew on the same database through
 * the counting proxy, under the same load (10 connections) for about COUNT_SECONDS of the measured run's
 * requests after a 1 s warm-up; what crossed, and the requests that made it.
 */
async function countPass(
  counter: WireCounter,
  child: Child,
  path: string,
  size: number,
  requestsPerSecond: number,
): Promise<{ counts: ReturnType<WireCounter['counts']>; requests: number }> {
  try {
    // What the warm-up left in flight is answered, and its request log entries written (C60), before the
    // count starts; a fixed number of requests then, every one answered before the count is read.
    await settle(await load(child.url, path, size, 1));
    await new Promise((r) => setTimeout(r, 300));
    counter.reset();
    const amount = Math.max(CONNECTIONS * 5, Math.round(requestsPerSecond * COUNT_SECONDS));
    const r = await load(child.url, path, size, { amount });
    // The request log writes the last requests' entries within 100 ms (C60).
    await new Promise((r) => setTimeout(r, 300));
    return { counts: counter.counts(), requests: r.requests.total };
  } finally {
    await child.stop();
  }
}

/**
 * Prism validates the request (else its row is only a mock's): a valid event must get 200 and the same
 * event with an unknown action_source 422. Null when it does, else what it answered.
 */
async function prismValidates(url: string): Promise<string | null> {
  const valid = bodyParts(1).join('smoke');
  const body = JSON.parse(valid) as { data: Record<string, unknown>[] };
  const invalid = JSON.stringify({ data: [{ ...body.data[0], action_source: 'nowhere' }] });
  const post = async (payload: string) => {
    const r = await fetch(`${url}${eventsPath}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer bench-conversion-token-0' },
      body: payload,
    });
    await r.arrayBuffer();
    return r.status;
  };
  const ok = await post(valid);
  const bad = await post(invalid);
  return ok === 200 && bad === 422
    ? null
    : `Prism does not validate requests here: a valid event got ${ok}, an invalid one ${bad} (200 and 422 expected); its row measures a mock without validation.`;
}

const notes: string[] = [];
const stale = staleDocuments();
for (const s of stale)
  notes.push(`Stale: ${s}; run \`node --import tsx bench/prism/extract.ts\` in packages/events-mock-server.`);
for (const n of notes) process.stderr.write(`${n}\n`);

const rows: Row[] = [];
// PostgreSQL rows (issue 10): a fresh database per run on the machine's server; skipped, with a line that
// says so, when it does not answer.
const PG_ADMIN_URL = process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const REDIS_URL = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';
const pgAdmin = await pgReachable(PG_ADMIN_URL);
const natsUp = TARGETS.has('nats') && (await reachable(NATS_URL));
const loadBefore = loadavg()[0] ?? 0;
const dir = mkdtempSync(join(tmpdir(), 'ems-bench-'));
const eventsPath = `/v5/ad_accounts/${ACCOUNT}/events`;
const FLOOR = 'floor (node:http + JSON.parse)';
const PRISM = 'Prism mock (request validation)';
const SQLITE = 'mock server, SQLite (synchronous=FULL)';
const PG = 'mock server, PostgreSQL';
const SQLITE_REFERENCE = 'SQLite reference';
const PG_REFERENCE = 'PostgreSQL reference';
const LOG_OFF = ', request log off';
/** The counting proxy of the PostgreSQL stored rows' counting passes (issue 37). */
const counter =
  pgAdmin && TARGETS.has('pg') && TARGETS.has('refs') && COUNT_SECONDS > 0
    ? await startWireCounter(pgAdmin)
    : null;
let prismChecked = false;
try {
  for (const size of SIZES) {
    /** The floor, and Prism where it runs: before a size's targets and, as `again`, after them. */
    const peers = async (again: boolean) => {
      const suffix = again ? ', again' : '';
      const floor = await start('./floor-server.mjs', {}, `floor-${again ? 'again-' : ''}${size}`);
      rows.push(await measure(`${FLOOR}${suffix}`, floor, '/', size));
      await floor.stop();
      if (!TARGETS.has('prism')) return;
      const prism = await start('./prism-server.mjs', {}, `prism-${again ? 'again-' : ''}${size}`);
      const validates = await prismValidates(prism.url);
      if (validates) {
        process.stderr.write(`${validates}\n`);
        if (!notes.includes(validates)) notes.push(validates);
      } else prismChecked = true;
      rows.push(await measure(`${PRISM}${suffix}`, prism, eventsPath, size));
      await prism.stop();
    };
    if (TARGETS.has('floor')) await peers(false);
    if (TARGETS.has('fastify')) {
      const fastifyFloor = await start('./fastify-floor.mjs', {}, `fastify-floor-${size}`);
      rows.push(await measure('fastify + JSON.parse', fastifyFloor, '/', size));
      await fastifyFloor.stop();
    }
    if (TARGETS.has('ajv')) {
      const reference = await start('./ajv-reference.mjs', {}, `ajv-reference-${size}`);
      rows.push(await measure('node:http + JSON.parse + ajv', reference, eventsPath, size));
      await reference.stop();
    }
    /**
     * One row of the mock server on a SQLite file of its own; with `stored` (issue 37), with the figures of
     * stored.ts and its statements counted (sqlite-statements.mjs).
     */
    const sqliteRow = async (
      target: string,
      file: string,
      path: string,
      env: Record<string, string> = {},
      stored = false,
      form: UserDataForm = 'default',
    ) => {
      const dbFile = join(dir, `${file}.db`);
      const child = await start(
        './mock-server.mjs',
        { BENCH_DB: dbFile, BENCH_TOKENS: String(TOKENS), ...env },
        file,
        stored ? { execArgv: [COUNT_SQLITE] } : {},
      );
      const window = () =>
        sqliteWindow(dbFile, child.proc.pid as number, () =>
          ask<StatementCounts | null>(child, 'sqlite-statements', 'sqliteStatements'),
        );
      rows.push(
        await measure(target, child, path, size, stored ? { store: 'sqlite', window } : undefined, form),
      );
      await child.stop();
      // A row's file goes with it: a full run would otherwise keep every stored row's file (over a gigabyte
      // for SQLite at 1000 events) on disk and in the page cache until it ends.
      for (const suffix of ['', '-wal', '-shm']) rmSync(join(dir, `${file}.db${suffix}`), { force: true });
    };
    if (TARGETS.has('test')) {
      await sqliteRow('mock server, test mode', `test-mode-${size}`, `${eventsPath}?test=true`);
      // C76: what the validation threads buy, at the largest size (the default is the row above).
      if (size === Math.max(...SIZES) && size * 800 >= 64 * 1024)
        for (const threads of THREAD_COUNTS)
          await sqliteRow(
            `mock server, test mode, ${threads} validation thread(s)`,
            `test-mode-${threads}t-${size}`,
            `${eventsPath}?test=true`,
            { BENCH_THREADS: String(threads) },
          );
    }
    /** The request log's cost (issue 37): stored rows again with it off, where it is on by default. */
    const logOff = TARGETS.has('refs') && size >= 100 && process.env.BENCH_REQUEST_LOG !== 'off';
    /** A reference (issue 37), before a store's rows and, as `again`, after them. */
    const referenceRow = async (store: 'sqlite' | 'pg', again: boolean) => {
      if (!TARGETS.has('refs')) return;
      const suffix = again ? ', again' : '';
      const name = `${store}-reference-${again ? 'again-' : ''}${size}`;
      if (store === 'sqlite') {
        const child = await start('./reference-store/sqlite-reference.mjs', {}, name, {
          execArgv: [COUNT_SQLITE],
        });
        const file = String(child.info.file);
        const window = () =>
          sqliteWindow(file, child.proc.pid as number, () =>
            ask<StatementCounts | null>(child, 'sqlite-statements', 'sqliteStatements'),
          );
        rows.push(await measure(`${SQLITE_REFERENCE}${suffix}`, child, eventsPath, size, { store, window }));
        await child.stop();
        return;
      }
      const admin = pgAdmin as string;
      const child = await start('./reference-store/pg-reference.mjs', {}, name, { args: [admin] });
      const window = () => pgWindow(admin, String(child.info.database));
      const row = await measure(`${PG_REFERENCE}${suffix}`, child, eventsPath, size, { store, window });
      await child.stop();
      if (counter && row.stored) {
        const c = await countPass(
          counter,
          await start('./reference-store/pg-reference.mjs', {}, undefined, { args: [counter.via(admin)] }),
          eventsPath,
          size,
          row.reqs,
        );
        row.stored = withWireCounts(row.stored, c.counts, c.requests);
      }
      rows.push(row);
    };
    if (TARGETS.has('sqlite')) {
      await referenceRow('sqlite', false);
      await sqliteRow(SQLITE, `sqlite-${size}`, eventsPath, {}, true);
      if (logOff)
        await sqliteRow(
          `${SQLITE}${LOG_OFF}`,
          `sqlite-log-off-${size}`,
          eventsPath,
          { BENCH_REQUEST_LOG: 'off' },
          true,
        );
      await referenceRow('sqlite', true);
    }
    // C125 (`gateway`): an account with hash_user_data, on SQLite: its senders' raw user data (em, ph, fn, ln,
    // external_id) against the same events pre-hashed, which it passes as they are. The pre-hashed row runs
    // before and after the raw one, and the ratio printed after the table is to the mean of the two.
    if (TARGETS.has('gateway'))
      for (const [form, label] of [
        ['pre-hashed', 'pre-hashed user data'],
        ['raw', 'raw user data'],
        ['pre-hashed', 'pre-hashed user data, again'],
      ] as const)
        await sqliteRow(
          `${GATEWAY}, ${label}`,
          `gateway-${form}-${size}-${rows.length}`,
          eventsPath,
          { BENCH_HASH_USER_DATA: '1' },
          false,
          form,
        );
    // C100: the same with a NATS sink, so the outbox rows written in each batch's transaction (and the
    // deliverer sharing the store thread) show against the row above.
    if (natsUp)
      await sqliteRow('mock server, SQLite + NATS sink (outbox)', `sqlite-nats-${size}`, eventsPath, {
        BENCH_PUBLISH: NATS_URL,
      });
    if (pgAdmin && TARGETS.has('pg')) {
      await referenceRow('pg', false);
      /** One worker with the log on, then off (issue 37), then two workers with Redis limits (full runs). */
      const variants: { workers: number; env: Record<string, string>; suffix: string }[] = [
        { workers: 1, env: {}, suffix: '' },
        ...(logOff ? [{ workers: 1, env: { BENCH_REQUEST_LOG: 'off' }, suffix: LOG_OFF }] : []),
        ...(STORED_ONLY ? [] : [{ workers: 2, env: {}, suffix: '' }]),
      ];
      for (const { workers, env, suffix } of variants) {
        const db = await createBenchDatabase(pgAdmin);
        try {
          const serverEnv = {
            BENCH_STORE_URL: db.url,
            BENCH_TOKENS: String(TOKENS),
            BENCH_WORKERS: String(workers),
            ...(workers > 1 ? { BENCH_LIMITS: REDIS_URL, BENCH_LIMITS_PREFIX: `ems-bench:${db.name}:` } : {}),
            ...env,
          };
          const child = await start(
            './mock-server.mjs',
            serverEnv,
            `postgres-${workers}w${suffix ? '-log-off' : ''}-${size}`,
          );
          const target = workers === 1 ? `${PG}${suffix}` : `${PG} + Redis limits, ${workers} workers`;
          const window = () => pgWindow(pgAdmin, db.name);
          const row = await measure(target, child, eventsPath, size, { store: 'pg', window });
          await child.stop();
          // The statements of one worker (the two-worker row's differ only by the limiter, in Redis).
          if (counter && workers === 1 && row.stored) {
            const c = await countPass(
              counter,
              await start('./mock-server.mjs', { ...serverEnv, BENCH_STORE_URL: counter.via(db.url) }),
              eventsPath,
              size,
              row.reqs,
            );
            row.stored = withWireCounts(row.stored, c.counts, c.requests);
          }
          rows.push(row);
        } finally {
          await db.drop();
        }
      }
      await referenceRow('pg', true);
    }
    // This box's speed drifts by tens of percent within minutes: the peers again after the targets, and every
    // ratio is to the mean of the two runs of its base.
    if (
      TARGETS.has('floor') &&
      rows.some((r) => r.size === size && !r.target.startsWith(FLOOR) && !r.target.startsWith(PRISM))
    )
      await peers(true);
    process.stderr.write(`size ${size} done\n`);
  }
} finally {
  await counter?.close();
  rmSync(dir, { recursive: true, force: true });
}

const fmt = (n: number, d = 0) =>
  n.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d });
const lines = [
  `Node ${process.version}, ${availableParallelism()} × ${cpus()[0]?.model.trim() ?? 'CPU'}; ${CONNECTIONS} connections, ` +
    `${DURATION} s per run after a 2 s warm-up; load average ${loadBefore.toFixed(1)} before, ${(loadavg()[0] ?? 0).toFixed(1)} after.`,
  '',
  '| events/request | target | requests/s | events/s | p50 ms | p99 ms | loop lag p99 ms | CPU µs/event | PostgreSQL CPU µs/event | idle / peak RSS MB | vs floor (events/s) | vs Prism (events/s) | errors |',
  '|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
];
/**
 * events/s of `r` over the mean events/s of the rows of `target` at the same size, its runs before and after
 * the size's targets ('–' without one).
 */
const ratio = (r: Row, target: (t: string) => boolean) => {
  const bases = rows.filter((b) => b.size === r.size && target(b.target));
  const mean = bases.reduce((sum, b) => sum + b.events, 0) / bases.length;
  return bases.length && mean > 0 ? fmt(r.events / mean, 2) : '–';
};
for (const r of rows) {
  lines.push(
    `| ${r.size} | ${r.target} | ${fmt(r.reqs)} | ${fmt(r.events)} | ${fmt(r.p50)} | ${fmt(r.p99)} | ${fmt(r.lagP99, 1)} | ${fmt(r.cpuPerEvent, 1)} | ${r.dbCpuPerEvent === null ? '–' : fmt(r.dbCpuPerEvent, 1)} | ${fmt(r.idleRss / 2 ** 20)} / ${fmt(r.rss / 2 ** 20)} | ${ratio(r, (t) => t.startsWith(FLOOR))} | ${ratio(r, (t) => t.startsWith(PRISM))} | ${r.errors} |`,
  );
}
// Issue 37: the stored rows against their references, and what the request log costs.
const storedRows = rows.filter((r) => r.store && r.stored);
if (storedRows.length) {
  const opt = (n: number | null | undefined, d = 0) => (n === null || n === undefined ? '–' : fmt(n, d));
  const referenceOf = (r: Row) => (r.store === 'pg' ? PG_REFERENCE : SQLITE_REFERENCE);
  lines.push(
    '',
    'Stored rows against their references (issue 37; bench/stored.ts says how each figure is read):',
    '',
    '| events/request | target | events/s | vs reference | server CPU µs/event | DB CPU µs/event | statements/request | round trips/request | transactions/request | KB to DB/request | table B/event | indexes B/event | request log B/event | WAL B/event | load |',
    '|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  );
  for (const r of storedRows) {
    const f = r.stored as StoredFigures;
    lines.push(
      `| ${r.size} | ${r.target} | ${fmt(r.events)} | ${ratio(r, (t) => t.startsWith(referenceOf(r)))} | ${fmt(r.cpuPerEvent, 1)} | ${opt(f.dbCpuPerEvent, 1)} | ${opt(f.statementsPerRequest, 1)} | ${opt(f.roundTripsPerRequest, 1)} | ${opt(f.transactionsPerRequest, 2)} | ${f.bytesToDbPerRequest === null ? '–' : fmt(f.bytesToDbPerRequest / 1024, 1)} | ${opt(f.tableBytesPerEvent)} | ${opt(f.indexBytesPerEvent)} | ${opt(f.logBytesPerEvent)} | ${opt(f.walBytesPerEvent)}${(f.otherWrites ?? 0) > 0 ? ' *' : ''} | ${fmt(r.load, 1)} |`,
    );
  }
  const cost: string[] = [];
  for (const on of storedRows) {
    const off = storedRows.find((r) => r.size === on.size && r.target === `${on.target}${LOG_OFF}`);
    if (!off) continue;
    const wal = (r: Row) => opt(r.stored?.walBytesPerEvent);
    cost.push(
      `- ${on.size} events/request, ${on.target}: ${fmt(on.events)} events/s with the log, ${fmt(off.events)} without (${fmt(on.events / off.events, 2)}); server CPU ${fmt(on.cpuPerEvent, 1)} and ${fmt(off.cpuPerEvent, 1)} µs/event` +
        (on.store === 'pg'
          ? `, database CPU ${opt(on.stored?.dbCpuPerEvent, 1)} and ${opt(off.stored?.dbCpuPerEvent, 1)} µs/event, statements ${opt(on.stored?.statementsPerRequest, 1)} and ${opt(off.stored?.statementsPerRequest, 1)} per request`
          : '') +
        `, WAL ${wal(on)} and ${wal(off)} B/event.`,
    );
  }
  if (cost.length) lines.push('', 'What the request log costs (on, then off):', '', ...cost);
  const others = storedRows.filter((r) => (r.stored?.otherWrites ?? 0) > 0);
  if (others.length)
    notes.push(
      `* Other databases of the PostgreSQL server wrote during ${others.length} of the PostgreSQL rows (up to ${fmt(Math.max(...others.map((r) => r.stored?.otherWrites ?? 0)))} rows): their WAL is in those rows' WAL column.`,
    );
}
// C125: what hashing on arrival costs: the raw row over the mean of the two pre-hashed rows of its size.
const gateway = rows.filter((r) => r.target === `${GATEWAY}, raw user data`);
if (gateway.length) {
  lines.push('', 'Hashing on arrival (C125, raw user data over the same events pre-hashed):', '');
  for (const r of gateway) {
    const pre = rows.filter((b) => b.size === r.size && b.target.startsWith(`${GATEWAY}, pre-hashed`));
    const events = pre.reduce((n, b) => n + b.events, 0) / pre.length;
    const cpu = pre.reduce((n, b) => n + b.cpuPerEvent, 0) / pre.length;
    lines.push(
      `- ${r.size} events/request: ${fmt(r.events)} events/s raw, ${fmt(events)} pre-hashed (${fmt(r.events / events, 2)}×); CPU ${fmt(r.cpuPerEvent, 1)} and ${fmt(cpu, 1)} µs/event.`,
    );
  }
}
if (TARGETS.has('nats') && !natsUp)
  notes.push(`NATS did not answer at ${NATS_URL}: the row with a NATS sink (C100) is left out.`);
if (prismChecked)
  notes.push(
    'Prism validated requests (a valid event got 200, one with an unknown action_source 422); it answers its static 200 example whatever the batch size.',
  );
process.stdout.write(`${[...lines, '', ...notes].join('\n')}\n`);
if (PROFILE_DIR) {
  process.stdout.write(
    `CPU profiles: ${PROFILE_DIR}\n\nWhere the time goes, by stage (bench/profile-split.ts):\n\n`,
  );
  for (const r of rows) {
    const split = r.profileDir ? splitProfiles(r.profileDir) : null;
    if (split) process.stdout.write(`${formatSplit(`${r.size} events/request, ${r.target}`, split)}\n\n`);
  }
}
