// Where the PostgreSQL store's time goes per request (issue 37): the service (bench/mock-server.mjs, a
// database of its own) under the bench's load at one size, with pg_stat_statements read over the measured
// run: every statement, nested ones inside functions included (pg_stat_statements.track = all), with its
// calls, time and planning time (with track_planning on) per request, rows and WAL bytes per call.
// `--reference` runs the PostgreSQL reference (reference-store/pg-reference.mjs) instead, for its one statement. `--profile` also writes V8 CPU profiles
// of the server into bench-profiles/pg-statements-<size>/ and prints their split by stage (profile-split.ts).
//
// Needs a server with pg_stat_statements loaded (shared_preload_libraries); the bench machine's own is not,
// so start one of your own beside it, e.g.:
//   su postgres -c "initdb -D /tmp/pgprof/data -A trust -U postgres"
//   su postgres -c "pg_ctl -D /tmp/pgprof/data -l /tmp/pgprof/log start -o '-p 5499
//     -c shared_preload_libraries=pg_stat_statements -c pg_stat_statements.track=all
//     -c pg_stat_statements.track_planning=on'"
//   psql -h 127.0.0.1 -p 5499 -U postgres -c 'CREATE EXTENSION pg_stat_statements'
// and run, in packages/events-mock-server:
//   BENCH_PG_URL=postgres://postgres@127.0.0.1:5499/postgres node --import tsx bench/experiments/pg-statements.ts
// Env: BENCH_SIZE (events per request, default 1000), BENCH_DURATION (s, default 10), BENCH_REQUEST_LOG=off,
// BENCH_SERVER_MODULE (see mock-server.mjs).
import { fork } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import pg from 'pg';
import { bodyParts } from '../bench-body.js';
import { createBenchDatabase } from '../postgres.js';
import type { ProbeStats } from '../probe-stats.js';
import { formatSplit, splitProfiles } from '../profile-split.js';

const ADMIN = process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5499/postgres';
const SIZE = Number(process.env.BENCH_SIZE ?? 1000);
const DURATION = Number(process.env.BENCH_DURATION ?? 10);
const TOKENS = 4000;
const path = '/v5/ad_accounts/549755885175/events';
const REFERENCE = process.argv.includes('--reference');
const profileDir = process.argv.includes('--profile')
  ? fileURLToPath(
      new URL(`../../bench-profiles/pg-statements-${REFERENCE ? 'reference-' : ''}${SIZE}/`, import.meta.url),
    )
  : null;
if (profileDir) {
  rmSync(profileDir, { recursive: true, force: true });
  mkdirSync(profileDir, { recursive: true });
}

const admin = new pg.Client({ connectionString: ADMIN });
await admin.connect();
// The reference makes a database of its own (named when ready); the service gets one made here.
const db = REFERENCE ? null : await createBenchDatabase(ADMIN);
let n = 0;
const load = (url: string, duration: number) => {
  const parts = bodyParts(SIZE);
  return autocannon({
    url,
    connections: 10,
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
            body: parts.join(`s${process.pid}x${k}`),
          };
        },
      },
    ],
  });
};

const script = REFERENCE ? '../reference-store/pg-reference.mjs' : '../mock-server.mjs';
const child = fork(fileURLToPath(new URL(script, import.meta.url)), REFERENCE ? [ADMIN] : [], {
  execArgv: profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [],
  env: { ...process.env, ...(db ? { BENCH_STORE_URL: db.url } : {}), BENCH_TOKENS: String(TOKENS) },
  stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
});
const next = <T>() => new Promise<T>((r) => child.once('message', (m) => r(m as T)));
try {
  const { url, database } = await next<{ url: string; database?: string }>();
  const name = db?.name ?? database;
  const warm = await load(url, 2);
  await new Promise((resolve) => setTimeout(resolve, Math.min(10_000, Math.max(500, warm.latency.max))));
  await admin.query('SELECT pg_stat_statements_reset()');
  child.send('start');
  const r = await load(url, DURATION);
  const stats = next<ProbeStats>();
  child.send('stats');
  const s = await stats;
  // The requests still in flight when the run ended are served, and counted, before the statements are read.
  await new Promise((resolve) => setTimeout(resolve, Math.min(10_000, Math.max(300, r.latency.max))));
  const requests = r['2xx'] + r.requests.sent - r.requests.total;
  const top = await admin.query<{
    toplevel: boolean;
    calls: string;
    ms: number;
    plan: number;
    rows: string;
    wal: string;
    query: string;
  }>(
    `SELECT toplevel, calls, total_exec_time AS ms, total_plan_time AS plan, rows, wal_bytes AS wal, query
     FROM pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid
     WHERE d.datname = $1 ORDER BY total_exec_time DESC LIMIT 25`,
    [name],
  );
  const events = requests * SIZE;
  process.stdout.write(
    `${SIZE} events/request, ${DURATION} s: ${requests} requests (${Math.round(events / DURATION)} events/s), server CPU ${(s.cpuMicros / events).toFixed(1)} µs/event\n\n` +
      '| top | calls/request | ms/request | planning ms/request | rows/call | WAL B/call | statement |\n|---|---:|---:|---:|---:|---:|---|\n',
  );
  for (const t of top.rows) {
    const calls = Number(t.calls);
    const text = t.query.replace(/\s+/g, ' ').slice(0, 140).replaceAll('|', '\\|');
    process.stdout.write(
      `| ${t.toplevel ? 'yes' : 'nested'} | ${(calls / requests).toFixed(2)} | ${(t.ms / requests).toFixed(3)} | ${(t.plan / requests).toFixed(3)} | ${(Number(t.rows) / calls).toFixed(0)} | ${(Number(t.wal) / calls).toFixed(0)} | ${text} |\n`,
    );
  }
  if (profileDir)
    writeFileSync(
      join(profileDir, 'window.json'),
      `${JSON.stringify({ startUs: s.startUs, endUs: s.endUs, requests, events })}\n`,
    );
} finally {
  const gone = new Promise((r) => child.once('exit', r));
  child.send('stop');
  await gone;
  await admin.end();
  await db?.drop();
}
if (profileDir) {
  const split = splitProfiles(profileDir);
  const label = `${SIZE} events/request, ${REFERENCE ? 'PostgreSQL reference' : 'PostgreSQL'}`;
  if (split) process.stdout.write(`\n${formatSplit(label, split)}\n`);
}
