import type { IncomingMessage, ServerResponse } from 'node:http';
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
      return requestError('method_unknown', 'method', {});
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

/** Closes the connection after an answer: the parser's state cannot be trusted past it (C42). */
const CLOSE = { connection: 'close' };

/** The parse error of a request that a route already holds (C73), kept on its IncomingMessage. */
const MALFORMED = Symbol('malformed body');
/** Set when the parser failed on what followed a whole request: its answer closes the connection. */
const UNTRUSTED_AFTER = Symbol('malformed after');

type Marked = IncomingMessage & { [MALFORMED]?: RequestError; [UNTRUSTED_AFTER]?: boolean };

/** The parse error met while this request's body was being received, if any. */
export function malformedOf(req: IncomingMessage): RequestError | undefined {
  return (req as Marked)[MALFORMED];
}

/** Whether the parser failed while this request was in flight: its answer must close the connection. */
export function parserFailedDuring(req: IncomingMessage): boolean {
  const m = req as Marked;
  return m[MALFORMED] !== undefined || m[UNTRUSTED_AFTER] === true;
}

/**
 * Calls `listener` once if the parser fails while this request's body is being read; returns the function
 * that stops listening. (An event of a symbol: nothing else emits or hears it.)
 */
export function onMalformed(req: IncomingMessage, listener: (re: RequestError) => void): () => void {
  req.once(MALFORMED, listener);
  return () => req.removeListener(MALFORMED, listener);
}

/**
 * What a parse error in the middle of a request's body means (C73): a body that ended early when the client
 * half-closed (shorter than its Content-Length, or a chunked body before its last chunk), else chunking the
 * parser could not read, with its fixed reason (a bad chunk size).
 */
function bodyError(code: string | undefined, req: IncomingMessage): RequestError {
  if (code === 'HPE_INVALID_EOF_STATE')
    return req.headers['transfer-encoding'] !== undefined
      ? requestError('body_chunks_unfinished', 'body', {}, CLOSE)
      : requestError('body_short', 'body', {}, CLOSE);
  // Only chunked framing can be malformed inside a body (a Content-Length body is counted, not parsed).
  return requestError('body_chunks_invalid', 'body', { reason: parserReason(code) }, CLOSE);
}

/**
 * fastify's clientErrorHandler (C42, C73). With no request in flight on the socket, the answer is written on
 * it. A request in flight whose answer has not started is answered by its own route, through fastify (hooks,
 * request log, headers): the error is kept on the request and its body reader is told; the answer closes
 * the connection. Only a socket whose answer is already under way is closed without another.
 */
export function clientErrorHandler(headersTimeoutSeconds: number) {
  return (err: ClientError, socket: Socket): void => {
    const res = (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage;
    if (err.code === 'ECONNRESET' || res?.headersSent) {
      socket.destroy();
      return;
    }
    if (res) {
      const req = res.req as Marked;
      // A body that was whole: the error is in what follows it, which gets no answer of its own; the
      // answer of this request closes the connection.
      if (req.complete) req[UNTRUSTED_AFTER] = true;
      else if (req[MALFORMED] === undefined) {
        req[MALFORMED] = bodyError(err.code, req);
        req.emit(MALFORMED, req[MALFORMED]);
      }
      return;
    }
    answerOnSocket(socket, parserError(err.code, headersTimeoutSeconds));
  };
}

/**
 * HTTP/1.1 requires Host (RFC 9112 section 3.2): a request without it is answered 400 in the service's format
 * (Node's own answer was an empty 400), then closed (C73). HTTP/1.0 needs none.
 */
export function hostMissing(req: FastifyRequest): RequestError | null {
  return req.raw.httpVersion === '1.1' && req.headers.host === undefined
    ? requestError('host_missing', 'headers.host', {}, CLOSE)
    : null;
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
  // The body of such a request is not read: what follows on the socket is no request (C73).
  reply.code(re.status).headers(CLOSE).send(re.body);
}
