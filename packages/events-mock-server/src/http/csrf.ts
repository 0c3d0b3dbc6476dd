import type { FastifyRequest } from 'fastify';
import { type AdminSession, CSRF_HEADER, SESSION_COOKIE, sameToken } from '../auth/sessions.js';
import { received, requestError } from '../core/request-error.js';
import type { ROUTES } from '../generated/routes.gen.js';
import { originOf } from './origin.js';

type Route = (typeof ROUTES)[keyof typeof ROUTES];

/** Whether the route takes the admin session cookie (C64) as one of its security alternatives. */
export function takesSession(route: Route): boolean {
  return route.security.some((alt) => alt.scheme === 'admin_session');
}

/** Whether the route's session alternative needs the CSRF header with it (C71): it changes state. */
export function needsCsrf(route: Route): boolean {
  return route.security.some(
    (alt) =>
      alt.scheme === 'admin_session' &&
      'with' in alt &&
      (alt.with as readonly string[]).includes('admin_csrf'),
  );
}

/**
 * The admin session cookie of the request (C64), parsed where a route takes a session rather than on every
 * request (@fastify/cookie runs with `hook: false`).
 */
export function sessionCookie(req: FastifyRequest): string | undefined {
  const h = req.headers.cookie;
  return h ? req.server.parseCookie(h)[SESSION_COOKIE] : undefined;
}

function header(req: FastifyRequest, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/** The origin of a URL, or `null` as browsers name an opaque one. */
function urlOrigin(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return 'null';
  }
}

/**
 * C71, first check: the call comes from this server's own origin. `Origin` must be the origin the server is
 * reached at (scheme and Host, trusted proxies included) or the configured public origin; without it,
 * `Sec-Fetch-Site` decides, then `Referer`; with none of them the call is refused.
 */
export function checkSameOrigin(req: FastifyRequest, publicOrigin: string | undefined): void {
  const own = [originOf(req), publicOrigin].filter((o): o is string => o !== undefined);
  const expected = own.length ? own.join(' or ') : 'this server';
  const foreign = (path: string, value: string) =>
    requestError('csrf_origin_foreign', path, { expected, received: received(value) });
  const origin = header(req, 'origin');
  if (origin !== undefined) {
    if (!own.includes(origin)) throw foreign('headers.origin', origin);
    return;
  }
  const site = header(req, 'sec-fetch-site');
  if (site !== undefined) {
    if (site !== 'same-origin') throw foreign('headers.sec-fetch-site', site);
    return;
  }
  const referer = header(req, 'referer');
  if (referer !== undefined) {
    const from = urlOrigin(referer);
    if (!own.includes(from)) throw foreign('headers.referer', from);
    return;
  }
  throw requestError('csrf_origin_missing', 'headers.origin', { expected });
}

/** C71, second check: the session's own CSRF token in its header. */
export function checkCsrfToken(req: FastifyRequest, session: AdminSession): void {
  const sent = header(req, CSRF_HEADER);
  if (sent === undefined || sent === '')
    throw requestError('csrf_token_missing', `headers.${CSRF_HEADER}`, {});
  if (!sameToken(session, sent)) throw requestError('csrf_token_wrong', `headers.${CSRF_HEADER}`, {});
}
