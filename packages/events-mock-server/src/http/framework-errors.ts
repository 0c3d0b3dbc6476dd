import type { Socket } from 'node:net';
import { LIMITS } from '@org/events-types';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { type RequestError, requestError } from '../core/request-error.js';
import { PATH_PARAM_MAX_LENGTH } from '../generated/routes.gen.js';
import { answerOnSocket } from './raw-answer.js';

/**
 * The Node HTTP parser's errors as answers of the service (C42). Only the kind of failure is named, from a
 * fixed list: neither the parser's message nor any byte of the request is echoed.
 */
export function parserError(code: string | undefined, headersTimeoutSeconds: number): RequestError {
  switch (code) {
    case 'HPE_HEADER_OVERFLOW':
      return requestError('headers_too_large', 'headers', { max: LIMITS.headers_max_bytes.value });
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return requestError('headers_timeout', 'headers', { seconds: headersTimeoutSeconds });
    case 'HPE_INVALID_METHOD':
      return requestError('method_unsupported', 'method', { received: 'this method' });
    default:
      return requestError('http_malformed', 'request', { reason: parserReason(code) });
  }
}

/** `HPE_INVALID_HEADER_TOKEN` -> `invalid header token`: a fixed label per error code. */
function parserReason(code: string | undefined): string {
  if (!code || !/^HPE_[A-Z_]{1,40}$/.test(code)) return 'unreadable request';
  return code.slice(4).toLowerCase().replaceAll('_', ' ');
}

interface ClientError extends Error {
  code?: string;
}

/** fastify's clientErrorHandler (C42). A socket with an answer under way is closed rather than written to. */
export function clientErrorHandler(headersTimeoutSeconds: number) {
  return (err: ClientError, socket: Socket): void => {
    if (err.code === 'ECONNRESET' || (socket as Socket & { _httpMessage?: unknown })._httpMessage) {
      socket.destroy();
      return;
    }
    answerOnSocket(socket, parserError(err.code, headersTimeoutSeconds));
  };
}

/** CONNECT (a proxy tunnel) is no method of this service: answered, then closed (C42). */
export function onConnect(_req: unknown, socket: Socket): void {
  answerOnSocket(socket, requestError('method_unsupported', 'method', { received: 'CONNECT' }));
}

/** fastify's frameworkErrors: the router's own failures, answered without echoing the URL (C42). */
export function frameworkErrors(err: ClientError, _req: FastifyRequest, reply: FastifyReply): void {
  const re =
    err.code === 'FST_ERR_MAX_PARAM_LENGTH'
      ? requestError('path_param_too_long', 'url', { max: PATH_PARAM_MAX_LENGTH })
      : requestError('http_malformed', 'url', { reason: 'malformed URL' });
  reply.code(re.status).send(re.body);
}
