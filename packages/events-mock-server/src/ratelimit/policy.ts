import { RATE_LIMITS } from '@org/events-types';
import type { Principal } from '../auth/directory.js';

/** One limit that applies to a request, with the counter key it is kept for. */
export interface AppliedLimit {
  /** Name used in details: `universal`, a category of seed 8, or `test_requests`. */
  name: string;
  /** C89: the name the limit header gives it (a category's headerName, else `name`). */
  headerName: string;
  limit: number;
  /** Window in seconds. */
  window: number;
  /** Counter key: the limit's `per` dimensions filled in (C9). */
  key: string;
}

interface WindowSpec {
  readonly limit: number;
  readonly window: number;
  readonly per: readonly string[];
}

function applied(
  name: string,
  w: WindowSpec,
  ids: Record<string, string>,
  headerName: string = name,
): AppliedLimit {
  const key = `${name}|${w.limit}/${w.window}|${w.per.map((p) => `${p}=${ids[p] ?? '?'}`).join('|')}`;
  return { name, headerName, limit: w.limit, window: w.window, key };
}

type Category = (typeof RATE_LIMITS.categories)[number];
const headerNameOf = (c: Category) => ('headerName' in c ? c.headerName : c.name);

/**
 * C89: the state a conversion token's live events report, per category. Seed 8 rule 2 gives them no limit,
 * so nothing is counted; Pinterest still sends its headers there, so the category's standard limit is named
 * with every request left and nothing to wait for. Built once per category: no work per request.
 */
const uncounted = new Map<string, { limit: AppliedLimit; remaining: number; reset: number } | null>();
export function uncountedState(category: string | null) {
  if (category === null) return null;
  let s = uncounted.get(category);
  if (s === undefined) {
    const cat = RATE_LIMITS.categories.find((c) => c.name === category);
    s = cat
      ? {
          limit: applied(cat.name, cat.standard, {}, headerNameOf(cat)),
          remaining: cat.standard.limit,
          reset: 0,
        }
      : null;
    uncounted.set(category, s);
  }
  return s;
}

/**
 * The limits of C9 that apply to one request, straight from the seed 8 tables (RATE_LIMITS):
 * - conversion token: none on events (seed 8 rule 2), except the test-request limit, for which the token
 *   counts as an app of its own (C7);
 * - OAuth token: the universal limit and the endpoint's category limit for the app's tier (trial|standard),
 *   keyed per the table's `per` (app, user, ad account), plus the test-request limit per app on test requests.
 */
export function limitsFor(
  category: string | null,
  principal: Principal,
  adAccountId: string,
  isTest: boolean,
): AppliedLimit[] {
  const out: AppliedLimit[] = [];
  if (principal.kind === 'conversion') {
    if (isTest)
      out.push(
        applied('test_requests', RATE_LIMITS.testRequests, { app: `conversion_token:${principal.tokenId}` }),
      );
    return out;
  }
  if (principal.kind !== 'oauth') return out;
  const tier = principal.app.tier;
  const ids = {
    app: principal.app.id,
    user: principal.userId,
    ad_account: adAccountId,
    token: principal.tokenId,
  };
  out.push(applied('universal', RATE_LIMITS.universal[tier], ids));
  const cat = RATE_LIMITS.categories.find((c) => c.name === category);
  if (cat && (!('appliesTo' in cat) || cat.appliesTo === 'oauth'))
    out.push(applied(cat.name, cat[tier], ids, headerNameOf(cat)));
  if (isTest) out.push(applied('test_requests', RATE_LIMITS.testRequests, ids));
  return out;
}
