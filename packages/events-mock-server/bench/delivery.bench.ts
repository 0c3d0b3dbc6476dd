// pnpm bench:delivery (and the end of pnpm bench): does the outbox drain as fast as it fills (C100, issue
// 34)? The service runs with a Conversions API sink to a healthy upstream on the same box (upstream-server.mjs,
// its own process: it parses each batch and answers a result per event, as Pinterest does). autocannon sends
// events at the store's full speed for BENCH_DELIVERY_DURATION seconds (default 15), 10 connections, in
// 100- and 1000-event requests, on SQLite and PostgreSQL. Every second the bench reads what was accepted
// (answers of 200) and what the upstream received; the outbox depth is their difference. After the load it
// waits for the depth to return to zero and reads the outbox's own count of pending entries.
//
// Printed per store and size: events/s accepted and delivered during the load, delivered/accepted, the
// depth at the load's end and at its highest, the seconds to drain after the load, and the depth second
// by second. Target: delivered >= accepted, so the depth stays flat while the load goes on. The ratio over the
// whole load counts the pipeline's fill in its first seconds (a lag of a few batches, not a rate); the one
// after 3 s is the steady part's.
//
// Env: BENCH_DELIVERY_DURATION, BENCH_DELIVERY_SIZES (default 100,1000), BENCH_DELIVERY_STORES (default
// sqlite,pg), BENCH_PG_URL (the PostgreSQL admin URL).
import { type ChildProcess, fork } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { bodyParts } from './bench-body.js';
import { createBenchDatabase, pgReachable } from './postgres.js';

const DURATION = Number(process.env.BENCH_DELIVERY_DURATION ?? 15);
const SIZES = (process.env.BENCH_DELIVERY_SIZES ?? '100,1000').split(',').map(Number);
const STORES = (process.env.BENCH_DELIVERY_STORES ?? 'sqlite,pg').split(',');
/**
 * Ad accounts the load is spread over, one row each (default 1,4): one account is the hardest case, since an
 * account's batches go out one after the other (C100 order); several are delivered side by side.
 */
const ACCOUNT_COUNTS = (process.env.BENCH_DELIVERY_ACCOUNTS ?? '1,4').split(',').map(Number);
const CONNECTIONS = 10;
const ACCOUNT = '549755885175';
const ADMIN = 'bench-admin-token-0123456789';
/** The longest wait for the outbox to drain after the load; a row that does not drain says so. */
const DRAIN_LIMIT_S = 180;
const here = (f: string) => fileURLToPath(new URL(f, import.meta.url));

interface Proc {
  proc: ChildProcess;
  url: string;
}

/** BENCH_DELIVERY_PROFILE=dir: V8 CPU profiles of the server (every thread) into dir/<store>-<size>/. */
const PROFILE = process.env.BENCH_DELIVERY_PROFILE;

function spawn(script: string, env: Record<string, string>, profileDir?: string): Promise<Proc> {
  const proc = fork(here(script), [], {
    execArgv: profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [],
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  return new Promise((resolve, reject) => {
    proc.once('error', reject);
    proc.once('exit', (code) => reject(new Error(`${script} exited ${code}`)));
    proc.once('message', (m: { url: string }) => resolve({ proc, url: m.url }));
  });
}

function stop(p: Proc): Promise<void> {
  return new Promise((r) => {
    p.proc.removeAllListeners('exit');
    p.proc.once('exit', () => r());
    p.proc.send('stop');
  });
}

function received(upstream: Proc): Promise<number> {
  return new Promise((r) => {
    upstream.proc.once('message', (m: { received: number }) => r(m.received));
    upstream.proc.send('count');
  });
}

async function pendingInOutbox(url: string): Promise<number> {
  const r = await fetch(`${url}/admin/delivery`, { headers: { authorization: `Bearer ${ADMIN}` } });
  const body = (await r.json()) as { sinks: { pending: number; dead: number }[] };
  return body.sinks.reduce((n, s) => n + s.pending + s.dead, 0);
}

interface Row {
  store: string;
  accounts: number;
  size: number;
  accepted: number;
  delivered: number;
  endDepth: number;
  maxDepth: number;
  drainS: number | null;
  pendingAfter: number;
  depths: number[];
  errors: number;
  /** Delivered over accepted from STEADY_AFTER_S seconds into the load to its end; null for a short load. */
  steady: number | null;
}

/** Seconds of load after which the steady part starts. */
const STEADY_AFTER_S = 3;

function steadyRatio(
  from: { accepted: number; delivered: number } | null,
  accepted: number,
  delivered: number,
): number | null {
  if (from === null || accepted === from.accepted) return null;
  return (delivered - from.delivered) / (accepted - from.accepted);
}

let n = 0;
async function row(
  store: string,
  size: number,
  accounts: number,
  storeEnv: Record<string, string>,
): Promise<Row> {
  const upstream = await spawn('./upstream-server.mjs', {});
  const server = await spawn(
    './mock-server.mjs',
    {
      ...storeEnv,
      BENCH_TOKENS: String(accounts),
      BENCH_ACCOUNTS: String(accounts),
      BENCH_FORWARD: upstream.url,
      BENCH_FORWARD_TOKEN: 'bench-upstream-token-0123456789',
      BENCH_ADMIN_TOKEN: ADMIN,
    },
    PROFILE ? join(PROFILE, `${store.split(' ')[0]}-${size}-${accounts}a`) : undefined,
  );
  try {
    const parts = bodyParts(size);
    let accepted = 0;
    let errors = 0;
    let done!: () => void;
    const finished = new Promise<void>((r) => (done = r));
    const load = autocannon(
      {
        url: server.url,
        connections: CONNECTIONS,
        duration: DURATION,
        requests: [
          {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            // Request k goes to account k mod N, with that account's token.
            setupRequest: (req) => {
              const k = n++;
              const a = k % accounts;
              return {
                ...req,
                path: `/v5/ad_accounts/${Number(ACCOUNT) + a}/events`,
                headers: { ...req.headers, authorization: `Bearer bench-conversion-token-${a}` },
                body: parts.join(`d${process.pid}x${k}`),
              };
            },
          },
        ],
      },
      () => done(),
    );
    load.on('response', (_client, status) => {
      if (status === 200) accepted += size;
      else errors++;
    });
    const depths: number[] = [];
    // Accepted and received at the start of the steady part: the pipeline (requests in flight, batches
    // being claimed and sent) fills in the first seconds, and its fill is a lag, not a rate.
    let steadyFrom: { accepted: number; delivered: number } | null = null;
    const t0 = Date.now();
    const sampler = setInterval(async () => {
      const a = accepted;
      const d = await received(upstream);
      depths.push(a - d);
      if (depths.length === STEADY_AFTER_S) steadyFrom = { accepted: a, delivered: d };
    }, 1000);
    await finished;
    clearInterval(sampler);
    const seconds = (Date.now() - t0) / 1000;
    const deliveredAtEnd = await received(upstream);
    const acceptedAtEnd = accepted;
    const endDepth = acceptedAtEnd - deliveredAtEnd;
    const drainStart = Date.now();
    let drainS: number | null = null;
    while ((Date.now() - drainStart) / 1000 < DRAIN_LIMIT_S) {
      if ((await received(upstream)) >= acceptedAtEnd) {
        drainS = (Date.now() - drainStart) / 1000;
        break;
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    // The outbox's own count, after its deliverer settled the last batch.
    await new Promise((r) => setTimeout(r, 500));
    const pendingAfter = await pendingInOutbox(server.url);
    return {
      store,
      size,
      accounts,
      accepted: acceptedAtEnd / seconds,
      delivered: deliveredAtEnd / seconds,
      steady: steadyRatio(steadyFrom, acceptedAtEnd, deliveredAtEnd),
      endDepth,
      maxDepth: Math.max(endDepth, ...depths),
      drainS,
      pendingAfter,
      depths,
      errors,
    };
  } finally {
    await stop(server);
    await stop(upstream);
  }
}

const rows: Row[] = [];
const dir = mkdtempSync(join(tmpdir(), 'ems-bench-delivery-'));
const pgAdmin = STORES.includes('pg')
  ? await pgReachable(process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres')
  : null;
try {
  for (const size of SIZES)
    for (const accounts of ACCOUNT_COUNTS)
      for (const store of STORES) {
        if (store === 'sqlite') {
          const file = join(dir, `delivery-${size}-${accounts}.db`);
          rows.push(await row('SQLite (synchronous=FULL)', size, accounts, { BENCH_DB: file }));
          for (const suffix of ['', '-wal', '-shm']) rmSync(`${file}${suffix}`, { force: true });
        } else if (store === 'pg' && pgAdmin) {
          const db = await createBenchDatabase(pgAdmin);
          try {
            rows.push(await row('PostgreSQL', size, accounts, { BENCH_STORE_URL: db.url }));
          } finally {
            await db.drop();
          }
        }
        process.stderr.write(`delivery: ${store} at ${size} events/request, ${accounts} account(s) done\n`);
      }
} finally {
  rmSync(dir, { recursive: true, force: true });
}

const fmt = (v: number, d = 0) =>
  v.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d });
const out = [
  `Node ${process.version}, ${availableParallelism()} × ${cpus()[0]?.model.trim() ?? 'CPU'}; ${CONNECTIONS} connections, ${DURATION} s of load per row; the upstream on the same box.`,
  '',
  `| events/request | accounts | store | accepted events/s | delivered events/s | delivered / accepted | after ${STEADY_AFTER_S} s | depth at end of load | highest depth | s to drain after load | outbox pending after | errors |`,
  '|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  ...rows.map(
    (r) =>
      `| ${r.size} | ${r.accounts} | ${r.store} | ${fmt(r.accepted)} | ${fmt(r.delivered)} | ${fmt(r.delivered / r.accepted, 2)} | ${r.steady === null ? '–' : fmt(r.steady, 2)} | ${fmt(r.endDepth)} | ${fmt(r.maxDepth)} | ${r.drainS === null ? `not in ${DRAIN_LIMIT_S}` : fmt(r.drainS, 1)} | ${fmt(r.pendingAfter)} | ${r.errors} |`,
  ),
  '',
  'Outbox depth (accepted - received by the upstream) each second of the load:',
  '',
  ...rows.map(
    (r) =>
      `- ${r.store}, ${r.size} events/request, ${r.accounts} account(s): ${r.depths.map((d) => fmt(d)).join(' ')}`,
  ),
];
if (STORES.includes('pg') && !pgAdmin) out.push('', 'PostgreSQL did not answer: its rows are left out.');
process.stdout.write(`${out.join('\n')}\n`);
