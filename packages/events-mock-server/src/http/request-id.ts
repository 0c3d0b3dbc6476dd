import { randomUUID } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { CLIENT_REQUEST_ID_PATTERN, HEADERS } from '../generated/routes.gen.js';

/** A client's request id is kept when it is short and plain (it ends up in logs and headers). */
const CLIENT_REQUEST_ID = new RegExp(CLIENT_REQUEST_ID_PATTERN);

/** The service's own id of a request (C118): never the client's, so no two log entries share it. */
export function newRequestId(): string {
  return randomUUID();
}

/** The x-request-id its client sent, when plain; null otherwise (C118). */
export function clientRequestId(req: FastifyRequest): string | null {
  const given = req.headers[HEADERS.RequestId];
  return typeof given === 'string' && CLIENT_REQUEST_ID.test(given) ? given : null;
}

/**
 * The id headers of an answer (C89, C118): `x-request-id` echoes the client's own when it sent one (so its
 * traces find the answer), else the service's; `x-pinterest-rid` is always the service's, the key of its log.
 */
export function requestIdHeaders(req: FastifyRequest): Record<string, string> {
  return { [HEADERS.RequestId]: clientRequestId(req) ?? req.id, [HEADERS.PinterestRid]: req.id };
}
