import type { FastifyReply, FastifyRequest } from 'fastify';
import { authorizeAccountRoute } from '../auth/authorize.js';
import type { ROUTES } from '../generated/routes.gen.js';
import type { ServerContext } from '../http/context.js';
import { enforceRateLimit } from '../http/rate-limit.js';

type Route = (typeof ROUTES)[keyof typeof ROUTES];

/**
 * The rows 401, 404, 403 and 429 of C2 for the account routes besides events (C10, C91, C92): the token may
 * reach the ad account of the path with the route's scopes, and the route's rate limit admits the request.
 */
export function accountGuard(ctx: ServerContext) {
  return async (req: FastifyRequest, reply: FastifyReply, r: Route) => {
    const { principal, account } = authorizeAccountRoute(
      r,
      req.auth,
      (req.params as { ad_account_id: string }).ad_account_id,
      ctx.directory,
    );
    await enforceRateLimit(ctx.limiter, reply, r.rateLimitCategory, principal, account.id, false);
    return account;
  };
}
