// The SQLite reference of the bench (issue 37): a straightforward durable store to hold the service's SQLite
// rows against. node:http, JSON.parse, ajv over every event (the schema of ../ajv-reference.mjs), then one
// transaction per request: a prepared INSERT per valid event into the one table of schema.sql (keyed
// (ad account, event_name, event_id), one time index), ON CONFLICT DO NOTHING, so a repeat changes no row and
// is answered as a duplicate; one result per event. better-sqlite3 on the event loop, WAL, synchronous=FULL
// (a 200 means committed and synced), in a temporary file removed when it stops.
//
// node bench/reference-store/sqlite-reference.mjs [port] [file]   (or REFERENCE_PORT, REFERENCE_SQLITE_FILE;
// defaults a free port and a new temporary file). In the bench it is a probed child.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import Database from 'better-sqlite3';
import { serveProbe } from '../probe.mjs';

const read = (/** @type {string} */ f) => readFileSync(new URL(f, import.meta.url), 'utf8');
const port = Number(process.argv[2] ?? process.env.REFERENCE_PORT ?? 0);
const dir = mkdtempSync(join(tmpdir(), 'ems-reference-'));
const file = process.argv[3] ?? process.env.REFERENCE_SQLITE_FILE ?? join(dir, 'reference.db');
const ajv = new Ajv({ allowUnionTypes: true });
const validate = ajv.compile(JSON.parse(read('../conversion-event.schema.json')));

const db = new Database(file);
db.pragma('journal_mode = WAL');
db.pragma('synchronous = FULL');
db.exec(read('./schema.sql'));
const insert =
  db.prepare(`INSERT INTO events (ad_account_id, event_name, event_id, event_time, received_at, event)
  VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`);
/** Stores the valid events in one transaction; true for each event stored, false for a repeat. */
const store = db.transaction((/** @type {string} */ account, /** @type {any[]} */ events) => {
  const now = Date.now();
  return events.map(
    (e) => insert.run(account, e.event_name, e.event_id, e.event_time, now, JSON.stringify(e)).changes === 1,
  );
});
const DUPLICATE = 'Duplicate of an earlier event with the same event_name and event_id; it is stored once.';

/** @param {string} account @param {any[]} data */
function answerOf(account, data) {
  /** @type {({ status: string, error_message: string | null, warning_message: string | null } | null)[]} */
  const events = data.map((e) =>
    validate(e)
      ? null
      : { status: 'failed', error_message: ajv.errorsText(validate.errors), warning_message: null },
  );
  const valid = data.filter((_, i) => events[i] === null);
  const stored = store(account, valid);
  let v = 0;
  const answers = events.map(
    (a) => a ?? { status: 'processed', error_message: null, warning_message: stored[v++] ? null : DUPLICATE },
  );
  return JSON.stringify({
    num_events_received: data.length,
    num_events_processed: valid.length,
    events: answers,
  });
}

const server = createServer((req, res) => {
  /** @type {Buffer[]} */
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const account = /^\/v5\/ad_accounts\/(\d+)\/events(\?|$)/.exec(req.url ?? '')?.[1];
    let status = 200;
    let answer;
    try {
      const body = account ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : null;
      answer = account ? answerOf(account, Array.isArray(body?.data) ? body.data : []) : '{"code":404}';
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
  db.close();
  rmSync(dir, { recursive: true, force: true });
};
server.listen(port, '127.0.0.1', () => {
  const a = server.address();
  const at = `http://127.0.0.1:${typeof a === 'object' && a ? a.port : 0}`;
  if (process.send) serveProbe(at, close, { file });
  else {
    process.stdout.write(`SQLite reference on ${at}, file ${file}\n`);
    for (const s of ['SIGINT', 'SIGTERM']) process.once(s, () => void close().finally(() => process.exit(0)));
  }
});
