import type { FastifyRequest } from 'fastify';

/** A Host header this server can name itself by: a host name or address and an optional port. */
const HOST = /^[A-Za-z0-9.-]+(:\d{1,5})?$|^\[[0-9A-Fa-f:.]+\](:\d{1,5})?$/;

/**
 * The origin a client reached this server at, or undefined when its Host header is not a plain host: the
 * served OpenAPI document's `servers` (C33) and the CSRF check (C71). Behind a trusted proxy (C71) the
 * scheme and host are the ones it forwards.
 */
export function originOf(req: FastifyRequest): string | undefined {
  return HOST.test(req.host) ? `${req.protocol}://${req.host}` : undefined;
}
