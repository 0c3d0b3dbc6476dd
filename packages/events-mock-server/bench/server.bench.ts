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
// all): the rows to run, a comma list of floor, fastify, ajv, prism, test, sqlite, nats, pg (the floor always runs:
// every ratio is to it). PostgreSQL rows add the database's own CPU per event: the CPU time of the server
// backends connected to the bench database over the measured run (pg-cpu.ts).
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
import { bodyParts } from './bench-body.js';
import { backendCpu, createBenchDatabase, pgReachable } from './postgres.js';
import { staleDocuments } from './prism/extract.js';
import type { ProbeStats } from './probe-stats.js';
import { formatSplit, type ProfileWindow, splitProfiles } from './profile-split.js';

const DURATION = Number(process.env.BENCH_DURATION ?? 10);
const SIZES = (process.env.BENCH_SIZES ?? '1,100,1000').split(',').map(Number);
const CONNECTIONS = 10;
/** Validation threads measured at the largest size (C76), beside the default row; BENCH_THREAD_COUNTS. */
const THREAD_COUNTS = (process.env.BENCH_THREAD_COUNTS ?? '0,1,2').split(',').filter(Boolean).map(Number);
/** Enough tokens that no one of them sees 10 test requests in a second (C7), even with 1-event batches. */
const TOKENS = 4000;
const ACCOUNT = '549755885175';
const TARGETS = new Set(
  (process.env.BENCH_TARGETS ?? 'floor,fastify,ajv,prism,test,sqlite,nats,pg').split(',').concat('floor'),
);
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
  /** Where its CPU profiles go (`--profile`). */
  profileDir: string | null;
  /** Starts the measured window (event-loop delay, CPU). */
  mark(): void;
  stats(): Promise<ProbeStats>;
  stop(): Promise<void>;
}

function start(script: string, env: Record<string, string> = {}, profileName?: string): Promise<Child> {
  // One folder per target: every thread (the store thread, tsx's loader) writes its own profile there.
  const profileDir = PROFILE_DIR && profileName ? join(PROFILE_DIR, profileName) : null;
  if (profileDir) mkdirSync(profileDir, { recursive: true });
  const profile = profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [];
  const proc = fork(here(script), [], {
    execArgv: profile,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  return new Promise((resolve, reject) => {
    proc.once('error', reject);
    proc.once('exit', (code) => reject(new Error(`${script} exited ${code}`)));
    proc.once('message', (m: { url: string }) =>
      resolve({
        proc,
        url: m.url,
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
}

/** Requests sent so far, by every run: the warm-up's event_ids are never sent again by the measured run. */
let n = 0;

async function load(url: string, path: string, size: number, duration: number): Promise<Result> {
  const parts = bodyParts(size);
  return autocannon({
    url,
    connections: CONNECTIONS,
    duration,
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
  db?: { adminUrl: string; name: string },
): Promise<Row> {
  await load(child.url, path, size, 2); // warm-up: JIT, SQLite cache
  const dbCpu = db ? await backendCpu(db.adminUrl, db.name) : null;
  child.mark();
  const r = await load(child.url, path, size, DURATION);
  const s = await child.stats();
  const dbMicros = dbCpu ? await dbCpu() : null;
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
    dbCpuPerEvent: dbMicros !== null && events > 0 ? dbMicros / events : null,
    errors: r.errors + r.timeouts + r.non2xx,
  };
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
    await peers(false);
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
    /** One row of the mock server on a SQLite file of its own. */
    const sqliteRow = async (
      target: string,
      file: string,
      path: string,
      env: Record<string, string> = {},
    ) => {
      const child = await start(
        './mock-server.mjs',
        { BENCH_DB: join(dir, `${file}.db`), BENCH_TOKENS: String(TOKENS), ...env },
        file,
      );
      rows.push(await measure(target, child, path, size));
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
    if (TARGETS.has('sqlite'))
      await sqliteRow('mock server, SQLite (synchronous=FULL)', `sqlite-${size}`, eventsPath);
    // C100: the same with a NATS sink, so the outbox rows written in each batch's transaction (and the
    // deliverer sharing the store thread) show against the row above.
    if (natsUp)
      await sqliteRow('mock server, SQLite + NATS sink (outbox)', `sqlite-nats-${size}`, eventsPath, {
        BENCH_PUBLISH: NATS_URL,
      });
    if (pgAdmin && TARGETS.has('pg')) {
      for (const workers of [1, 2]) {
        const db = await createBenchDatabase(pgAdmin);
        try {
          const child = await start(
            './mock-server.mjs',
            {
              BENCH_STORE_URL: db.url,
              BENCH_TOKENS: String(TOKENS),
              BENCH_WORKERS: String(workers),
              ...(workers > 1
                ? { BENCH_LIMITS: REDIS_URL, BENCH_LIMITS_PREFIX: `ems-bench:${db.name}:` }
                : {}),
            },
            `postgres-${workers}w-${size}`,
          );
          const target =
            workers === 1
              ? 'mock server, PostgreSQL'
              : `mock server, PostgreSQL + Redis limits, ${workers} workers`;
          rows.push(await measure(target, child, eventsPath, size, { adminUrl: pgAdmin, name: db.name }));
          await child.stop();
        } finally {
          await db.drop();
        }
      }
    }
    // This box's speed drifts by tens of percent within minutes: the peers again after the targets, and every
    // ratio is to the mean of the two runs of its base.
    if (rows.some((r) => r.size === size && !r.target.startsWith(FLOOR) && !r.target.startsWith(PRISM)))
      await peers(true);
    process.stderr.write(`size ${size} done\n`);
  }
} finally {
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
