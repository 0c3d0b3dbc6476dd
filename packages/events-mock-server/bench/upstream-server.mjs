// The healthy upstream of the delivery bench: a Conversions API stand-in on node:http that parses each
// batch (as any receiver must) and answers one `processed` result per event, as Pinterest does. It counts
// the events it received, per request, and answers the count to its parent over IPC, so the bench reads
// delivery from the receiving end. Plain JavaScript in its own process: its CPU is not the server's.
import { createServer } from 'node:http';

let received = 0;
let requests = 0;
const server = createServer((req, res) => {
  /** @type {Buffer[]} */
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    let n = 0;
    try {
      n = JSON.parse(Buffer.concat(chunks).toString('utf8')).data.length;
    } catch {
      res.writeHead(400, { 'content-type': 'application/json' }).end('{"code":1,"message":"bad body"}');
      return;
    }
    received += n;
    requests++;
    const one = '{"status":"processed","error_message":null,"warning_message":null}';
    const body = `{"num_events_received":${n},"num_events_processed":${n},"events":[${Array(n).fill(one).join(',')}]}`;
    res.writeHead(200, { 'content-type': 'application/json' }).end(body);
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => {
  const { port } = /** @type {import('node:net').AddressInfo} */ (server.address());
  process.send?.({ url: `http://127.0.0.1:${port}` });
});
process.on('message', (m) => {
  if (m === 'count') process.send?.({ received, requests });
  else if (m === 'stop') server.close(() => process.exit(0));
});
