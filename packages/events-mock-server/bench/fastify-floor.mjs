// A second floor: fastify with the body read as bytes, JSON.parse and a fixed answer, on the same route as
// the server. The distance between the two floors is the framework's; the rest of the distance to the mock
// server is the service's own work.
import Fastify from 'fastify';
import { serveProbe } from './probe.mjs';

const app = Fastify({ logger: false });
app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_req, body, done) => done(null, body));
app.post('/', async (req, reply) => {
  JSON.parse(/** @type {Buffer} */ (req.body).toString('utf8'));
  reply.type('application/json');
  return '{"ok":true}';
});
await app.listen({ port: 0, host: '127.0.0.1' });
const a = app.server.address();
serveProbe(`http://127.0.0.1:${typeof a === 'object' && a ? a.port : 0}`, () => app.close());
