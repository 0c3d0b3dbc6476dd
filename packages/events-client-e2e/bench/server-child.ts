// The server of the bench, in a process of its own: SQLite file storage (thread), demo config; sends its URL
// and credentials to the parent over IPC and stops on 'stop'.
import { startServer } from '@org/events-mock-server';

const db = process.env.BENCH_DB;
if (!db) throw new Error('BENCH_DB is required');
const server = await startServer({ port: 0, storeUrl: `sqlite:${db}`, docs: false });
process.send?.({ url: server.url, creds: server.demo });
process.on('message', async (m) => {
  if (m === 'stop') {
    await server.close();
    process.exit(0);
  }
});
