import { setTimeout as sleep } from 'node:timers/promises';
import { LIMITS, RATE_LIMITS } from '@org/events-types';
import type { FastifyReply } from 'fastify';
import type { Principal } from '../auth/directory.js';
import { type RequestError, requestError } from '../core/request-error.js';
import type { ActiveFault } from '../faults/faults.js';
import { ROUTES } from '../generated/routes.gen.js';
import { RETRY_AFTER, rateLimitHeaders } from '../ratelimit/limiter.js';
import { limitsFor, uncountedState } from '../ratelimit/policy.js';
import type { ServerContext } from './context.js';
import type { Gate } from './gate-types.js';

const DEFAULT_RETRY_AFTER = LIMITS.fault_retry_after_default_seconds.value;

/**
 * The x-ratelimit-* headers of an injected 429 (C66): the tightest limit that applies to the caller, read
 * without counting the request; for a caller without one (a conversion token's live events), the
 * endpoint's category limit of the standard tier. Remaining 0, reset when Retry-After says.
 */
async function faultLimitHeaders(
  ctx: ServerContext,
  category: string | null,
  principal: Principal,
  adAccountId: string,
  isTest: boolean,
  retryAfter: number,
): Promise<Record<string, string>> {
  const verdict = await ctx.limiter
    .decide(limitsFor(category, principal, adAccountId, isTest), false)
    .catch(() => null);
  const nominal = RATE_LIMITS.universal.standard;
  const limit = verdict?.tightest?.limit ??
    uncountedState(category)?.limit ?? {
      name: 'universal',
      headerName: 'universal',
      limit: nominal.limit,
      window: nominal.window,
      key: '',
    };
  return rateLimitHeaders({ limit, remaining: 0, reset: retryAfter });
}

/**
 * The answer of an injected fault (C65, C66) the gate took for an authorized request, before its rate limit
 * and body: a `rate_limited` or `unavailable` fault throws its 429 or 503 (the body is never read), a
 * `latency` fault waits, then the request goes on.
 */
export async function answerFault(
  ctx: ServerContext,
  reply: FastifyReply,
  fault: ActiveFault,
  g: Gate,
): Promise<void> {
  const category = ROUTES[g.op].rateLimitCategory;
  const principal = g.caller as Principal;
  const adAccountId = (g.account as { id: string }).id;
  const isTest = g.test;
  const { kind, latency_ms, retry_after_seconds } = fault.spec;
  if (kind === 'latency') {
    await sleep(latency_ms ?? 0);
    return;
  }
  const retryAfter = retry_after_seconds ?? DEFAULT_RETRY_AFTER;
  const params = { id: fault.id, retryAfter };
  let re: RequestError;
  if (kind === 'rate_limited') {
    reply.headers(await faultLimitHeaders(ctx, category, principal, adAccountId, isTest, retryAfter));
    re = requestError('fault_rate_limited', 'fault', params, { [RETRY_AFTER]: String(retryAfter) });
  } else re = requestError('fault_unavailable', 'fault', params, { [RETRY_AFTER]: String(retryAfter) });
  // The error handler logs it as an injected fault, not as a dependency that failed.
  (re as { fault?: string }).fault = fault.id;
  throw re;
}
