// Issue 20 asks for the batch to be written "with COPY into a staging table, or one multi-row statement,
// whichever measures faster". This measures the three shapes on the store's own `events` table (migrations
// applied, its month partition created), each batch in its own transaction, and prints the PostgreSQL
// backend's CPU and the wall time per event at 1, 100 and 1000 events per batch:
//
// - `arrays`: what events_commit_batches does: one INSERT ... SELECT FROM unnest(...) of typed arrays, the
//   event texts as one parameter joined by U+001E (C80). One round trip with the dedup claim in the same call.
// - `copy`: COPY straight into `events`. A floor, not a design: the dedup claim (C6, C81) must decide which
//   events are stored before they are written, so the store cannot COPY into `events` itself.
// - `copy + staging`: COPY into a temporary staging table, then one INSERT ... SELECT from it: the shape a
//   dedup function reading its input from a table would have (three round trips more than `arrays`).
//
// `node --import tsx bench/pg-write-shapes.ts` (in this package; PG_BENCH_URL or PG_TEST_URL, default
// postgres://postgres@127.0.0.1:5432/postgres). The database is made for the run and dropped after.
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { migrate } from '../src/store/pg/migrate.js';
import { backendCpu, createBenchDatabase, pgReachable } from './postgres.js';

const ADMIN_URL =
  process.env.PG_BENCH_URL ?? process.env.PG_TEST_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const SIZES = (process.env.BENCH_SIZES ?? '1,100,1000').split(',').map(Number);
/** Events written per shape and size: enough batches at 1 event for the per-commit cost to show. */
const EVENTS_PER_RUN = Number(process.env.BENCH_EVENTS ?? 20_000);
const ROUNDS = 2;

const COLUMNS =
  'seq, ad_account_id, event_name, event_id, event_time, received_at, request_id, usage, dedup_status, duplicates, event';

interface Row {
  seq: number;
  eventId: string;
  json: string;
}

const now = Date.now();
let nextSeq = 1;
function batchOf(n: number): Row[] {
  return Array.from({ length: n }, () => {
    const seq = nextSeq++;
    const eventId = `ev-${seq}`;
    const json = JSON.stringify({
      event_name: 'checkout',
      action_source: 'web',
      event_time: Math.floor(now / 1000),
      event_id: eventId,
      event_source_url: 'https://shop.example.com/checkout',
      user_data: {
        em: ['f1904cf1a9d73a55fa5de0ac823c4403ded71afd4c3248d00bdcd0866552bb79'],
        client_ip_address: '203.0.113.9',
        client_user_agent:
          'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36',
      },
      custom_data: { currency: 'USD', value: '42.00', order_id: `o-${seq}` },
    });
    return { seq, eventId, json };
  });
}

/** COPY's text format: backslash, tab and line breaks escaped. */
const copyField = (s: string) =>
  s.replace(/\\/g, '\\\\').replace(/\t/g, '\\t').replace(/\n/g, '\\n').replace(/\r/g, '\\r');
const copyText = (rows: readonly Row[]) =>
  rows
    .map(
      (r) =>
        `${r.seq}\tA1\tcheckout\t${copyField(r.eventId)}\t${Math.floor(now / 1000)}\t${now}\treq\t\tunique\t0\t${copyField(r.json)}\n`,
    )
    .join('');

type Shape = (c: pg.Client, rows: readonly Row[]) => Promise<void>;

const SHAPES: Record<string, Shape> = {
  arrays: async (c, rows) => {
    await c.query(
      `INSERT INTO events (${COLUMNS})
       SELECT t.s, 'A1', t.n, t.i, t.tm, $6, 'req', '', 'unique', 0, t.e
       FROM unnest($1::bigint[], $2::text[], $3::text[], $4::bigint[], string_to_array($5, E'\\x1e'))
         AS t(s, n, i, tm, e)`,
      [
        rows.map((r) => r.seq),
        rows.map(() => 'checkout'),
        rows.map((r) => r.eventId),
        rows.map(() => Math.floor(now / 1000)),
        rows.map((r) => r.json).join('\u001e'),
        now,
      ],
    );
  },
  copy: async (c, rows) => {
    await c.query('BEGIN');
    await pipeline(Readable.from([copyText(rows)]), c.query(copyFrom(`COPY events (${COLUMNS}) FROM STDIN`)));
    await c.query('COMMIT');
  },
  'copy + staging': async (c, rows) => {
    await c.query('BEGIN');
    await pipeline(
      Readable.from([copyText(rows)]),
      c.query(copyFrom(`COPY staging (${COLUMNS}) FROM STDIN`)),
    );
    await c.query(`INSERT INTO events (${COLUMNS}) SELECT ${COLUMNS} FROM staging`);
    await c.query('COMMIT');
  },
};

async function main(): Promise<void> {
  if (!(await pgReachable(ADMIN_URL))) process.exit(1);
  const db = await createBenchDatabase(ADMIN_URL);
  const pool = new pg.Pool({ connectionString: db.url, max: 1 });
  const c = new pg.Client({ connectionString: db.url });
  try {
    await migrate(pool);
    await pool.query('SELECT events_ensure_partitions($1::bigint[])', [[now]]);
    await c.connect();
    await c.query(`CREATE TEMP TABLE staging (LIKE events) ON COMMIT DELETE ROWS`);
    const cpu = await backendCpu(ADMIN_URL, db.name);
    process.stdout.write(
      `| events/batch | shape | PostgreSQL CPU µs/event | wall µs/event |\n|---:|---|---:|---:|\n`,
    );
    for (const size of SIZES) {
      const batches = Math.max(1, Math.round(EVENTS_PER_RUN / size));
      for (const [name, write] of Object.entries(SHAPES)) {
        // Best of the rounds: the box is shared, the least disturbed round is the closest to the cost.
        let best = { cpu: Number.POSITIVE_INFINITY, wall: Number.POSITIVE_INFINITY };
        for (let round = 0; round < ROUNDS; round++) {
          for (let i = 0; i < Math.min(5, batches); i++) await write(c, batchOf(size));
          const cpu0 = cpu ? await cpu() : 0;
          const t0 = performance.now();
          for (let i = 0; i < batches; i++) await write(c, batchOf(size));
          const wall = ((performance.now() - t0) * 1000) / (batches * size);
          const used = cpu ? ((await cpu()) - cpu0) / (batches * size) : Number.NaN;
          if (used < best.cpu || (Number.isNaN(used) && wall < best.wall)) best = { cpu: used, wall };
        }
        process.stdout.write(`| ${size} | ${name} | ${best.cpu.toFixed(1)} | ${best.wall.toFixed(1)} |\n`);
      }
    }
  } finally {
    await c.end().catch(() => {});
    await pool.end().catch(() => {});
    await db.drop();
  }
}

await main();
