import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Principal } from '../auth/directory.js';
import { requestError } from '../core/request-error.js';
import { HEADERS } from '../generated/routes.gen.js';
import { type Limiter, RETRY_AFTER, rateLimitHeaders, type Verdict } from '../ratelimit/limiter.js';
import { limitsFor, uncountedState } from '../ratelimit/policy.js';
import { unavailable } from './storage.js';

/** C89: the headers of an uncounted state, built once per category: a live conversion-token request sets them as they are. */
const uncountedHeaders = new Map<string, Record<string, string> | null>();
function uncountedHeadersOf(category: string | null): Record<string, string> | null {
  if (category === null) return null;
  let h = uncountedHeaders.get(category);
  if (h === undefined) {
    const s = uncountedState(category);
    h = s ? rateLimitHeaders(s) : null;
    uncountedHeaders.set(category, h);
  }
  return h;
}

/**
 * Asks the limiter; one that does not answer (Redis away) refuses the request with 503 and Retry-After
 * (C51: fail closed, a request is never admitted uncounted).
 */
async function ask(
  limiter: Limiter,
  limits: Parameters<Limiter['decide']>[0],
  consume: boolean,
): Promise<Verdict> {
  try {
    return await limiter.decide(limits, consume);
  } catch (e) {
    throw unavailable('limits_unavailable', 'ratelimit', e);
  }
}

/**
 * Row 429 of C2: counts the request against every limit that applies (C9) and sets the headers of the
 * tightest one on the reply, whatever the outcome; refused requests get Retry-After. Without a limit to
 * count it answers at once, without a promise.
 */
export function enforceRateLimit(
  limiter: Limiter,
  reply: FastifyReply,
  category: string | null,
  principal: Principal,
  adAccountId: string,
  isTest: boolean,
): Promise<void> | undefined {
  const limits = limitsFor(category, principal, adAccountId, isTest);
  if (limits.length === 0) {
    // C89: nothing to count (a conversion token's live events); the headers still name the category.
    const headers = uncountedHeadersOf(category);
    if (headers) reply.headers(headers);
    return undefined;
  }
  return count(limiter, reply, limits);
}

async function count(
  limiter: Limiter,
  reply: FastifyReply,
  limits: Parameters<Limiter['decide']>[0],
): Promise<void> {
  const verdict = await ask(limiter, limits, true);
  if (verdict.tightest) reply.headers(rateLimitHeaders(verdict.tightest));
  if (!verdict.admitted) {
    const { limit } = verdict.tightest;
    throw requestError(
      'limit_spent',
      `ratelimit.${limit.name}`,
      { name: limit.name, limit: limit.limit, window: limit.window, retryAfter: verdict.retryAfter },
      { [RETRY_AFTER]: String(verdict.retryAfter) },
    );
  }
}

/**
 * Responses answered before the rate-limit row (413, 415, 404, 403) still carry the headers of C9 when the
 * caller is known: the current state, read without counting the request. An unknown caller (401) gets
 * none; a conversion token outside test mode has no limit (seed 8 rule 2) and gets the category's uncounted
 * state (C89).
 */
export async function peekRateLimitHeaders(
  limiter: Limiter,
  req: FastifyRequest,
  reply: FastifyReply,
  category: string | null,
  isTest: boolean,
): Promise<void> {
  const auth = req.gate?.caller ?? null;
  if (!auth || typeof auth === 'string' || reply.hasHeader(HEADERS.RateLimitLimit)) return;
  const adAccountId = (req.params as { ad_account_id?: string } | undefined)?.ad_account_id ?? '';
  const limits = limitsFor(category, auth, adAccountId, isTest);
  if (limits.length === 0) {
    const headers = uncountedHeadersOf(category);
    if (headers) reply.headers(headers);
    return;
  }
  // Headers on an answer that is an error anyway: without a limiter to ask, the answer goes without them.
  const verdict = await limiter.decide(limits, false).catch(() => null);
  if (verdict?.tightest) reply.headers(rateLimitHeaders(verdict.tightest));
}
