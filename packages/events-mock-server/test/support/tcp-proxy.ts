// A loopback TCP proxy that a test can cut and restore, to take a real service away from a server under
// test (and give it back) without stopping the service that other tests share.
import { createConnection, createServer, type Server, type Socket } from 'node:net';

export interface TcpProxy {
  port: number;
  /** Closes the listener and every connection through it: the target is unreachable. */
  cut(): Promise<void>;
  /** Listens again on the same port. */
  restore(): Promise<void>;
  /**
   * Arms a cut after a PostgreSQL request went through: the client's bytes from the next ones holding
   * `pattern` up to the request's Sync are forwarded to the target, then the client's connection is dropped
   * at once, so the target's answer never reaches it; the target's side is closed once the target has
   * answered (it did all its work: the database has committed). Resolves when the client was cut.
   */
  cutAfterSending(pattern: string): Promise<void>;
  close(): Promise<void>;
}

/** PostgreSQL's Sync message: the end of an extended-protocol request, where an implicit transaction commits. */
const SYNC = Buffer.from([0x53, 0, 0, 0, 4]);

export async function startTcpProxy(targetHost: string, targetPort: number): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  let server: Server | undefined;
  let port = 0;
  let armed: { pattern: Buffer; cut: () => void } | undefined;
  const listen = () =>
    new Promise<void>((resolve, reject) => {
      server = createServer((client) => {
        const upstream = createConnection({ host: targetHost, port: targetPort });
        for (const s of [client, upstream]) {
          sockets.add(s);
          s.on('close', () => sockets.delete(s));
          s.on('error', () => {});
        }
        // Once the armed pattern is seen, the request is forwarded up to its end (for PostgreSQL, the Sync
        // message that commits an implicit transaction), then the client is cut.
        let sending: (() => void) | undefined;
        let draining = false;
        upstream.pipe(client);
        client.on('data', (d: Buffer) => {
          if (!sending && armed && d.includes(armed.pattern)) {
            sending = armed.cut;
            armed = undefined;
          }
          upstream.write(d);
          if (!sending || !d.subarray(-SYNC.length).equals(SYNC)) return;
          draining = true;
          // The request has reached the target; its answer does not reach the client.
          upstream.unpipe(client);
          client.destroy();
          upstream.once('data', () => upstream.destroy());
          upstream.resume();
          sending();
        });
        client.on('close', () => {
          if (!draining) upstream.destroy();
        });
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
  const cutAfterSending = (pattern: string) =>
    new Promise<void>((cut) => {
      armed = { pattern: Buffer.from(pattern), cut };
    });
  await listen();
  return { port, cut, restore: listen, close: cut, cutAfterSending };
}
