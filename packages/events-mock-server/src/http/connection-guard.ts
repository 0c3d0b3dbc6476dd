import type { Socket } from 'node:net';
import { LIMITS } from '@org/events-types';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { type RequestError, requestError } from '../core/request-error.js';
import { HEADERS } from '../generated/routes.gen.js';
import type { ServerContext } from './context.js';
import { answerOnSocket } from './raw-answer.js';
import type { TransportOptions } from './transport.js';

const OVER_CAP = Symbol('over the connection cap');

/** The 503 of C43: the server is shutting down; come back on a new connection after Retry-After. */
export function shuttingDown(): RequestError {
  const retryAfter = LIMITS.shutdown_retry_after_seconds.value;
  return requestError(
    'shutting_down',
    'request',
    { retryAfter },
    { connection: 'close', [HEADERS.RetryAfter]: String(retryAfter) },
  );
}

type Tracked = Socket & {
  [OVER_CAP]?: boolean;
  [ANSWERED_AT]?: number;
  _httpMessage?: unknown;
};

/** `bytesRead` of a socket when its last answer was done: bytes past it are the head of another request. */
const ANSWERED_AT = Symbol('bytes read when last answered');

/**
 * The connection cap of C41 and the shutdown answer of C43, checked first thing on every request: a
 * connection opened beyond `maxConnections`, or any request once shutdown has begun, is answered 503 with
 * Retry-After and `Connection: close` (before its body is read), so the client is told to come back rather
 * than dropped. At the end of the shutdown grace (fastify.close), a connection that has sent part of a
 * request head gets the same 503 (C73): Node's close stops the header timeout, so it would otherwise hold
 * the shutdown open with no answer.
 */
export interface ConnectionGuard {
  /** The 503 of a request that must not be served (shutdown, or a connection over the cap); else null. */
  refusal(req: FastifyRequest): RequestError | null;
  /** Marks the request's socket as answered up to here (onResponse). */
  answered(req: FastifyRequest): void;
}

export function registerConnectionGuard(
  app: FastifyInstance,
  ctx: ServerContext,
  t: TransportOptions,
): ConnectionGuard {
  let open = 0;
  const sockets = new Set<Tracked>();
  app.server.on('connection', (socket: Tracked) => {
    open++;
    socket[OVER_CAP] = open > t.maxConnections;
    sockets.add(socket);
    socket.once('close', () => {
      open--;
      sockets.delete(socket);
    });
  });
  app.addHook('preClose', (done) => {
    // Idle connections (nothing sent since their last answer) are Node's to close; a request handed to a
    // route is answered by it (the body reader's preClose answers a body still coming).
    for (const socket of sockets)
      if (!socket._httpMessage && socket.bytesRead > (socket[ANSWERED_AT] ?? 0))
        answerOnSocket(socket, shuttingDown());
    done();
  });
  // Called from the app's own onRequest and onResponse hooks: one hook each per request (issue 25).
  return {
    refusal(req) {
      if (ctx.closing) return shuttingDown();
      if (!(req.raw.socket as Tracked)[OVER_CAP]) return null;
      const retryAfter = LIMITS.busy_retry_after_seconds.value;
      return requestError(
        'server_busy',
        'request',
        { what: 'the number of open connections', max: String(t.maxConnections), retryAfter },
        { connection: 'close', [HEADERS.RetryAfter]: String(retryAfter) },
      );
    },
    answered(req) {
      const socket = req.raw.socket as Tracked | null;
      if (socket) socket[ANSWERED_AT] = socket.bytesRead;
    },
  };
}
