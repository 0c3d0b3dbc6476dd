// The PostgreSQL reference of the bench (issue 37): a straightforward durable store to hold the service's
// PostgreSQL rows against. node:http, JSON.parse, ajv over every event (the schema of ../ajv-reference.mjs),
// then one transaction per request: one INSERT of the valid events into the one table of schema.sql (keyed
// (ad account, event_name, event_id), one time index), ON CONFLICT DO NOTHING, so a repeat is not returned
// and is answered as a duplicate; one result per event. pg with a pool of 10, synchronous_commit on (a 200
// means committed and flushed). It makes a database of its own and drops it when it stops.
//
// node bench/reference-store/pg-reference.mjs [admin-url] [port]   (or REFERENCE_PG_URL, REFERENCE_PORT;
// defaults postgres://postgres@127.0.0.1:5432/postgres and a free port). In the bench it is a probed child.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { Ajv } from 'ajv';
import pg from 'pg';
import { serveProbe } from '../probe.mjs';

const read = (/** @type {string} */ f) => readFileSync(new URL(f, import.meta.url), 'utf8');
const adminUrl =
  process.argv[2] ?? process.env.REFERENCE_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const port = Number(process.argv[3] ?? process.env.REFERENCE_PORT ?? 0);
const ajv = new Ajv({ allowUnionTypes: true });
const validate = ajv.compile(JSON.parse(read('../conversion-event.schema.json')));

const database = `ems_reference_${randomBytes(5).toString('hex')}`;
const admin = async (/** @type {string} */ sql) => {
  const c = new pg.Client({ connectionString: adminUrl });
  await c.connect();
  await c.query(sql).finally(() => c.end());
};
await admin(`CREATE DATABASE ${database}`);
const url = new URL(adminUrl);
url.pathname = `/${database}`;
const pool = new pg.Pool({ connectionString: url.href, max: 10, options: '-c synchronous_commit=on' });
// pool.end() resolves before its connections have closed; the DROP below then ends them, which is no error.
pool.on('error', () => {});
await pool.query(read('./schema.sql'));

// One statement, so one round trip and its own transaction; the keys it returns are the events it stored.
const INSERT = `INSERT INTO events (ad_account_id, event_name, event_id, event_time, received_at, event)
  SELECT $1, n, i, t, $2, e FROM unnest($3::text[], $4::text[], $5::bigint[], $6::text[]) AS u(n, i, t, e)
  ON CONFLICT DO NOTHING RETURNING event_name, event_id`;
const DUPLICATE = 'Duplicate of an earlier event with the same event_name and event_id; it is stored once.';

/** @param {string} account @param {any[]} data */
async function answerOf(account, data) {
  /** @type {({ status: string, error_message: string | null, warning_message: string | null } | null)[]} */
  const events = data.map((e) =>
    validate(e)
      ? null
      : { status: 'failed', error_message: ajv.errorsText(validate.errors), warning_message: null },
  );
  const valid = data.filter((_, i) => events[i] === null);
  const stored = new Set();
  if (valid.length) {
    const columns = ['event_name', 'event_id', 'event_time'].map((k) => valid.map((e) => e[k]));
    const r = await pool.query(INSERT, [
      account,
      Date.now(),
      ...columns,
      valid.map((e) => JSON.stringify(e)),
    ]);
    for (const row of r.rows) stored.add(`${row.event_name}\n${row.event_id}`);
  }
  const answers = data.map((e, i) => {
    const key = `${e.event_name}\n${e.event_id}`;
    return (
      events[i] ?? {
        status: 'processed',
        error_message: null,
        warning_message: stored.delete(key) ? null : DUPLICATE,
      }
    );
  });
  const processed = valid.length;
  return JSON.stringify({
    num_events_received: data.length,
    num_events_processed: processed,
    events: answers,
  });
}

const server = createServer((req, res) => {
  /** @type {Buffer[]} */
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', async () => {
    const account = /^\/v5\/ad_accounts\/(\d+)\/events(\?|$)/.exec(req.url ?? '')?.[1];
    let status = 200;
    let answer;
    try {
      const body = account ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : null;
      answer = account ? await answerOf(account, Array.isArray(body?.data) ? body.data : []) : '{"code":404}';
      if (!account) status = 404;
    } catch (e) {
      [status, answer] = e instanceof SyntaxError ? [400, '{"code":1}'] : [503, '{"code":503}'];
    }
    res.writeHead(status, {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(answer),
    });
    res.end(answer);
  });
});
const close = async () => {
  await new Promise((r) => server.close(r));
  await pool.end();
  await admin(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
};
server.listen(port, '127.0.0.1', () => {
  const a = server.address();
  const at = `http://127.0.0.1:${typeof a === 'object' && a ? a.port : 0}`;
  if (process.send) serveProbe(at, close, { database });
  else {
    process.stdout.write(`PostgreSQL reference on ${at}, database ${database}\n`);
    for (const s of ['SIGINT', 'SIGTERM']) process.once(s, () => void close().finally(() => process.exit(0)));
  }
});
