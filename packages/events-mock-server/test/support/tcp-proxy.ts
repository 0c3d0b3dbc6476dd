// A loopback TCP proxy that a test can cut and restore, to take a real service away from a server under
// test (and give it back) without stopping the service that other tests share.
import { createConnection, createServer, type Server, type Socket } from 'node:net';

export interface TcpProxy {
  port: number;
  /** Closes the listener and every connection through it: the target is unreachable. */
  cut(): Promise<void>;
  /** Listens again on the same port. */
  restore(): Promise<void>;
  close(): Promise<void>;
}

export async function startTcpProxy(targetHost: string, targetPort: number): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  let server: Server | undefined;
  let port = 0;
  const listen = () =>
    new Promise<void>((resolve, reject) => {
      server = createServer((client) => {
        const upstream = createConnection({ host: targetHost, port: targetPort });
        for (const s of [client, upstream]) {
          sockets.add(s);
          s.on('close', () => sockets.delete(s));
          s.on('error', () => {});
        }
        client.pipe(upstream).pipe(client);
        client.on('close', () => upstream.destroy());
        upstream.on('close', () => client.destroy());
      });
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        const a = server?.address();
        port = typeof a === 'object' && a ? a.port : 0;
        resolve();
      });
    });
  const cut = async () => {
    for (const s of sockets) s.destroy();
    sockets.clear();
    await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
    server = undefined;
  };
  await listen();
  return { port, cut, restore: listen, close: cut };
}
