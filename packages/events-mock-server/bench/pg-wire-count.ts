// A counting proxy on the PostgreSQL wire protocol (issue 37): a bench child connects to the database through
// it for a short pass of its own, and it counts what crosses: round trips (a simple Query, or a Sync closing
// an extended-protocol Parse/Bind/Execute sequence: what one `pg` query with parameters sends), statements
// (a simple Query counts one, whatever it holds; each Execute one), transactions (ReadyForQuery answering
// "idle": an implicit single-statement transaction or an explicit COMMIT/ROLLBACK) and bytes each way. Only
// the message headers are read; the bytes go through untouched. Not for measured runs: it adds a hop per
// round trip and its CPU is the bench process's.
import { connect, createServer, type Server, type Socket } from 'node:net';

export interface WireCounts {
  roundTrips: number;
  statements: number;
  transactions: number;
  bytesToDb: number;
  bytesFromDb: number;
}

const zero = (): WireCounts => ({
  roundTrips: 0,
  statements: 0,
  transactions: 0,
  bytesToDb: 0,
  bytesFromDb: 0,
});
/** StartupMessage's protocol version 3.0; other untyped messages (SSLRequest, GSSENCRequest) precede it. */
const PROTOCOL_3 = 196608;

/**
 * A parser of one direction of a connection: calls `message(type, firstBodyByte)` for every message. The
 * client's first messages carry no type byte (`untypedFirst`); a StartupMessage ends them.
 */
function messages(untypedFirst: boolean, message: (type: number, first: number) => void) {
  let untyped = untypedFirst;
  let skip = 0;
  const head: number[] = [];
  let peek = false;
  let type = 0;
  return (chunk: Buffer) => {
    for (let i = 0; i < chunk.length; ) {
      if (peek) {
        peek = false;
        message(type, chunk[i] as number);
      }
      if (skip > 0) {
        const n = Math.min(skip, chunk.length - i);
        skip -= n;
        i += n;
        continue;
      }
      head.push(chunk[i++] as number);
      const size = untyped ? 8 : 5;
      if (head.length < size) continue;
      const int32 = (at: number) =>
        (((head[at] as number) << 24) | ((head[at + 1] as number) << 16) | ((head[at + 2] as number) << 8)) +
        (head[at + 3] as number);
      if (untyped) {
        skip = int32(0) - 8;
        if (int32(4) === PROTOCOL_3) untyped = false;
      } else {
        type = head[0] as number;
        skip = int32(1) - 4;
        if (skip > 0) peek = true;
        else message(type, -1);
      }
      head.length = 0;
    }
  };
}

const Q = 'Q'.charCodeAt(0);
const E = 'E'.charCodeAt(0);
const S = 'S'.charCodeAt(0);
const Z = 'Z'.charCodeAt(0);
const IDLE = 'I'.charCodeAt(0);

export interface WireCounter {
  /** `url` (a postgres:// URL) with the proxy's host and port instead of the server's. */
  via(url: string): string;
  /** What crossed since the last reset. */
  counts(): WireCounts;
  reset(): void;
  close(): Promise<void>;
}

/** Starts a counting proxy in front of the server of `serverUrl` (its host and port). */
export async function startWireCounter(serverUrl: string): Promise<WireCounter> {
  const target = new URL(serverUrl);
  let c = zero();
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = connect(Number(target.port || 5432), target.hostname);
    sockets.add(client);
    sockets.add(upstream);
    const fromClient = messages(true, (type) => {
      if (type === Q) {
        c.roundTrips++;
        c.statements++;
      } else if (type === E) c.statements++;
      else if (type === S) c.roundTrips++;
    });
    const fromServer = messages(false, (type, first) => {
      if (type === Z && first === IDLE) c.transactions++;
    });
    client.on('data', (b: Buffer) => {
      c.bytesToDb += b.length;
      fromClient(b);
    });
    upstream.on('data', (b: Buffer) => {
      c.bytesFromDb += b.length;
      fromServer(b);
    });
    client.pipe(upstream);
    upstream.pipe(client);
    const end = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    via: (url) => {
      const u = new URL(url);
      u.hostname = '127.0.0.1';
      u.port = String(port);
      return u.toString();
    },
    counts: () => ({ ...c }),
    reset: () => {
      c = zero();
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
