// The floor of the bench: a bare node:http server that reads the body, runs JSON.parse and answers a fixed
// body. Nothing can ingest a batch faster than this on the same machine.
import { createServer } from 'node:http';
import { serveProbe } from './probe.mjs';

const answer = Buffer.from('{"ok":true}');
const server = createServer((req, res) => {
  /** @type {Buffer[]} */
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    JSON.parse(Buffer.concat(chunks).toString('utf8'));
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': answer.length });
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
