import type { Socket } from 'node:net';
import { LIMITS } from '@org/events-types';
import type { FastifyInstance } from 'fastify';
import { requestError } from '../core/request-error.js';
import { HEADERS } from '../generated/routes.gen.js';
import type { ServerContext } from './context.js';
import type { TransportOptions } from './transport.js';

const OVER_CAP = Symbol('over the connection cap');

/**
 * The connection cap of C41 and the shutdown answer of C43, checked first thing on every request: a
 * connection opened beyond `maxConnections`, or any request once shutdown has begun, is answered 503 with
 * Retry-After and `Connection: close` (before its body is read), so the client is told to come back rather
 * than dropped.
 */
export function registerConnectionGuard(app: FastifyInstance, ctx: ServerContext, t: TransportOptions): void {
  let open = 0;
  app.server.on('connection', (socket: Socket & { [OVER_CAP]?: boolean }) => {
    open++;
    socket[OVER_CAP] = open > t.maxConnections;
    socket.once('close', () => {
      open--;
    });
  });
  app.addHook('onRequest', (req, _reply, done) => {
    if (ctx.closing) {
      const retryAfter = LIMITS.shutdown_retry_after_seconds.value;
      return done(
        requestError(
          'shutting_down',
          'request',
          { retryAfter },
          { connection: 'close', [HEADERS.RetryAfter]: String(retryAfter) },
        ),
      );
    }
    if ((req.raw.socket as Socket & { [OVER_CAP]?: boolean })[OVER_CAP]) {
      const retryAfter = LIMITS.busy_retry_after_seconds.value;
      return done(
        requestError(
          'server_busy',
          'request',
          { what: 'the number of open connections', max: String(t.maxConnections), retryAfter },
          { connection: 'close', [HEADERS.RetryAfter]: String(retryAfter) },
        ),
      );
    }
    done();
  });
}
