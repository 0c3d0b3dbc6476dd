import { LIMITS } from '@org/events-types';
import type { FastifyRequest } from 'fastify';
import { authorizeAccountRoute, authorizeAdmin } from '../auth/authorize.js';
import { requestError } from '../core/request-error.js';
import { type OperationId, ROUTES } from '../generated/routes.gen.js';
import { bodyEncoding, requireJson } from './body.js';
import type { ServerContext } from './context.js';

const BODY_MAX = LIMITS.body_max_bytes.value;

/** Whether the request comes with a body (a declared length above 0, or chunked). */
export function hasBody(req: FastifyRequest): boolean {
  const cl = req.headers['content-length'];
  return (cl !== undefined && cl !== '0') || req.headers['transfer-encoding'] !== undefined;
}

/** Row 413 of C2 on the declared Content-Length, before reading (a chunked body is measured as it comes). */
export function checkDeclaredLength(req: FastifyRequest): void {
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > BODY_MAX)
    throw requestError('body_too_large', 'body', { max: BODY_MAX }, { connection: 'close' });
}

/**
 * The rows of C2 that need only the headers, for every route that takes a body, before a byte of it is read
 * (C40): 413 on the declared length, 415 (content type, charset, encoding), then 401/404/403. The handlers
 * run the same checks again (they are pure and cheap); the events endpoint adds its rate limit and query
 * rows (routes/events.ts).
 */
export function checkBeforeBody(ctx: ServerContext, req: FastifyRequest, op: OperationId): void {
  const route = ROUTES[op];
  // Without a body there is nothing to protect: the handler checks its rows in C2 order as before.
  if (route.method !== 'POST' || !hasBody(req)) return;
  checkDeclaredLength(req);
  requireJson(req);
  bodyEncoding(req);
  if (!route.security.length) return;
  if (route.security.some((s) => s.scheme === 'admin_token')) authorizeAdmin(req.auth);
  else
    authorizeAccountRoute(
      route,
      req.auth,
      (req.params as { ad_account_id: string }).ad_account_id,
      ctx.directory,
    );
}
