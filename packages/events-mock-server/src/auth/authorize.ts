import { matches } from '../core/request-checks.js';
import { detail, RequestError, received, requestError } from '../core/request-error.js';
import type { ROUTES } from '../generated/routes.gen.js';
import type { AdAccountRecord } from '../store/interface/directory-data.js';
import type { AuthFailure, Directory, Principal } from './directory.js';

type Route = (typeof ROUTES)[keyof typeof ROUTES];

/** Security scheme names of the spec -> the principal kind that satisfies them. */
const SCHEME_KIND: Record<string, Principal['kind']> = {
  conversion_token: 'conversion',
  oauth2: 'oauth',
  admin_token: 'admin',
};

/** 401 of C2 for a failed authentication; the detail names the header, never its value. */
export function unauthorized(failure: AuthFailure): RequestError {
  return requestError(failure, 'headers.authorization', {});
}

/** Whether the principal satisfies one of the route's security alternatives (any one suffices). */
function satisfied(route: Route, p: Principal): boolean {
  return route.security.some(
    (alt) =>
      SCHEME_KIND[alt.scheme] === p.kind &&
      (p.kind !== 'oauth' || (alt.scopes as readonly string[]).every((s) => p.scopes.has(s))),
  );
}

/**
 * Rows 401, 404 and 403 of C2, in that order, for an endpoint under /v5/ad_accounts/{ad_account_id}:
 * the token must be known (401), the ad account must exist (404), and the token must be of a kind the
 * endpoint accepts, hold its scopes and reach the account (403). Returns the account; the caller is then a
 * principal of the route.
 */
export function authorizeAccountRoute(
  route: Route,
  auth: Principal | AuthFailure | null,
  adAccountId: string,
  directory: Directory,
): AdAccountRecord {
  if (auth === null) throw unauthorized('auth_missing');
  if (typeof auth === 'string') throw unauthorized(auth);
  // The admin token is the operator's (C12), not a token of the API: for the API it does not exist.
  if (auth.kind === 'admin') throw unauthorized('token_unknown');

  const pattern = (route.pathParams as Partial<Record<string, { pattern: string | null }>>).ad_account_id
    ?.pattern;
  // The query checks' compiled patterns (issue 25: not a `new RegExp` on every request).
  if (pattern && !matches(pattern, adAccountId))
    throw requestError('ad_account_id_invalid', 'path.ad_account_id', { received: received(adAccountId) });
  const account = directory.accounts.get(adAccountId);
  if (!account)
    throw requestError('ad_account_unknown', 'path.ad_account_id', { received: received(adAccountId) });

  if (!satisfied(route, auth)) {
    const kinds = route.security.map((alt) => SCHEME_KIND[alt.scheme]);
    if (!kinds.includes(auth.kind)) throw requestError('token_wrong_endpoint', 'headers.authorization', {});
    const missing = route.security
      .filter((alt) => SCHEME_KIND[alt.scheme] === auth.kind)
      .flatMap((alt) => alt.scopes as readonly string[])
      .filter((s) => auth.kind === 'oauth' && !auth.scopes.has(s));
    throw new RequestError(
      'forbidden',
      [...new Set(missing)].map((scope) => detail('scope_missing', 'headers.authorization', { scope })),
    );
  }
  if (auth.kind === 'conversion' && auth.adAccountId !== account.id)
    throw requestError('token_other_account', 'path.ad_account_id', {});
  if (auth.kind === 'oauth' && !directory.userReaches(auth.userId, account.id))
    throw requestError('no_role', 'path.ad_account_id', { received: account.id });
  return account;
}

/** The admin API of C12: only the admin token passes; anything else is 401 with an admin-specific detail. */
export function authorizeAdmin(auth: Principal | AuthFailure | null): void {
  if (auth === null || typeof auth === 'string' || auth.kind !== 'admin')
    throw requestError('admin_token_invalid', 'headers.authorization', {});
}
