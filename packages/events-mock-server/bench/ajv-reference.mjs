// The reference of the bench: node:http, JSON.parse and ajv compiled from the JSON Schema of the event that
// the generator emits (bench/conversion-event.schema.json, a copy of CONVERSION_EVENT_JSON_SCHEMA: see
// bench/prism/extract.ts). Every event is validated on its own and answered one result per event, as the
// service answers (C3): what a plain structural validator costs, with no byte checks, rules, dedup or store.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { Ajv } from 'ajv';
import { serveProbe } from './probe.mjs';

const schema = JSON.parse(readFileSync(new URL('./conversion-event.schema.json', import.meta.url), 'utf8'));
const ajv = new Ajv({ allowUnionTypes: true });
const validate = ajv.compile(schema);
/**
 * One result per event, as the service answers (C3); named so that a CPU profile tells it from JSON.parse.
 * @param {unknown[]} data
 */
function answerOf(data) {
  let processed = 0;
  const events = data.map((e) => {
    if (validate(e)) {
      processed++;
      return { status: 'processed', error_message: null, warning_message: null };
    }
    return { status: 'failed', error_message: ajv.errorsText(validate.errors), warning_message: null };
  });
  return JSON.stringify({ num_events_received: data.length, num_events_processed: processed, events });
}

const server = createServer((req, res) => {
  /** @type {Buffer[]} */
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    const data = Array.isArray(body?.data) ? body.data : [];
    const answer = answerOf(data);
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(answer) });
    res.end(answer);
  });
});
server.listen(0, '127.0.0.1', () => {
  const a = server.address();
  serveProbe(
    `http://127.0.0.1:${typeof a === 'object' && a ? a.port : 0}`,
    () => new Promise((r) => server.close(() => r(undefined))),
  );
});
