import { connect } from 'node:net';

export interface RawAnswer {
  /** Everything the server wrote before it closed (or before the wait ended). */
  text: string;
  status: number | null;
  /** The JSON body, when the answer has one. */
  // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON bodies
  body: any;
  /** How the connection ended: closed by the server (FIN), reset, or still open when the wait ended. */
  end: 'closed' | 'reset' | 'open';
}

/**
 * Writes raw bytes on a fresh TCP connection and collects what the server answers until it closes the
 * connection (or `waitMs` passes): for requests no HTTP client would send. `halfClose` ends the client's
 * side once the bytes are written (a FIN), still reading the answer.
 */
export function rawExchange(
  port: number,
  bytes: string | Buffer,
  waitMs = 5_000,
  options: { halfClose?: boolean } = {},
): Promise<RawAnswer> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    let done = false;
    const finish = (end: RawAnswer['end']) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      const text = Buffer.concat(chunks).toString('latin1');
      const m = /^HTTP\/1\.1 (\d{3})/.exec(text);
      const sep = text.indexOf('\r\n\r\n');
      let body: unknown = null;
      try {
        body =
          sep >= 0
            ? JSON.parse(
                Buffer.concat(chunks)
                  .subarray(sep + 4)
                  .toString('utf8'),
              )
            : null;
      } catch {}
      resolve({ text, status: m ? Number(m[1]) : null, body, end });
    };
    const timer = setTimeout(() => finish('open'), waitMs);
    socket.on('data', (d) => chunks.push(d));
    socket.on('end', () => finish('closed'));
    socket.on('close', () => finish('closed'));
    socket.on('error', (e: NodeJS.ErrnoException) => finish(e.code === 'ECONNRESET' ? 'reset' : 'closed'));
    if (options.halfClose) socket.end(bytes);
    else socket.write(bytes);
  });
}
