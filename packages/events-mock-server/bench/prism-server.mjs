// The peer of the bench: Stoplight Prism (@stoplight/prism-cli, pinned to 5.14.2, the newest whose engines
// allow Node 20) mocking bench/prism/events-openapi.yaml, the events operation of spec/openapi.yaml. It runs
// `prism mock <file> --port N` in this process (its CLI, loaded here with those arguments) so that the same
// probe as the other targets measures its CPU, event-loop delay and RSS. Request validation is on (Prism's
// default), `--dynamic` off: every valid request gets the 200 example of the document as is, whatever its
// size. Prism's own log lines per request (about six at info) are kept to warnings (BENCH_PRISM_LOG).
import { createRequire } from 'node:module';
import { connect, createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { serveProbe } from './probe.mjs';

/** @returns {Promise<number>} */
const freePort = () =>
  new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const a = s.address();
      const port = typeof a === 'object' && a ? a.port : 0;
      s.close(() => resolve(port));
    });
  });

const port = await freePort();
const document = fileURLToPath(new URL('./prism/events-openapi.yaml', import.meta.url));
process.argv = [
  process.argv[0] ?? 'node',
  'prism',
  'mock',
  document,
  '--port',
  String(port),
  '--host',
  '127.0.0.1',
  '--multiprocess=false',
  '--dynamic=false',
  '--errors=false',
  '--verboseLevel',
  process.env.BENCH_PRISM_LOG ?? 'warn',
];
const require = createRequire(import.meta.url);
require('@stoplight/prism-cli/dist/index.js');

const url = `http://127.0.0.1:${port}`;
// Prism says nothing when it listens (its log is at warn): wait until the port takes a connection.
/** @returns {Promise<boolean>} */
const listening = () =>
  new Promise((resolve) => {
    const s = connect(port, '127.0.0.1');
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });
for (let i = 0; !(await listening()); i++) {
  if (i > 600) throw new Error('Prism did not start within a minute');
  await new Promise((r) => setTimeout(r, 100));
}
// Prism keeps no state worth a clean close; exiting writes the CPU profile of `--profile`.
serveProbe(url, async () => {});
