import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { RequestError } from '../core/request-error.js';
import { JSON_CONTENT_TYPE } from '../generated/routes.gen.js';

/**
 * A whole HTTP/1.1 answer in the service's format (C2), for the places where there is no fastify reply: the
 * parser's errors, CONNECT, a connection over the cap (C41, C42). It always closes the connection, since the
 * parser's state (or the socket's) is not to be trusted after it.
 */
export function rawAnswer(re: RequestError): string {
  const body = JSON.stringify(re.body);
  const head = [
    `HTTP/1.1 ${re.status} ${STATUS_CODES[re.status] ?? ''}`,
    `content-type: ${JSON_CONTENT_TYPE}; charset=utf-8`,
    `content-length: ${Buffer.byteLength(body)}`,
    'connection: close',
    // The answer closes the connection whatever the error's own headers say: one Connection header.
    ...Object.entries(re.headers)
      .filter(([k]) => k.toLowerCase() !== 'connection')
      .map(([k, v]) => `${k}: ${v}`),
  ];
  return `${head.join('\r\n')}\r\n\r\n${body}`;
}

/** Writes the answer and closes the socket; a socket that can no longer be written is just destroyed. */
export function answerOnSocket(socket: Socket, re: RequestError): void {
  if (!socket.writable || socket.destroyed) {
    socket.destroy();
    return;
  }
  socket.end(rawAnswer(re));
  // A client that never reads its answer must not hold the socket.
  socket.setTimeout(5_000, () => socket.destroy());
}
