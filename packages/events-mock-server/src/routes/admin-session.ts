import type { FastifyReply, FastifyRequest } from 'fastify';
import { type AdminSession, SESSION_COOKIE, SESSION_MAX_AGE_SECONDS } from '../auth/sessions.js';
import { requestError } from '../core/request-error.js';
import type { ServerContext } from '../http/context.js';
import { sessionCookie } from '../http/csrf.js';
import type { Checked } from '../http/gate.js';

const COOKIE = { httpOnly: true, sameSite: 'strict', path: '/' } as const;

/**
 * C71: Secure when the request came over TLS, or a trusted proxy (server.trusted_proxies) says it did with
 * X-Forwarded-Proto; fastify's trustProxy ignores that header from any other peer.
 */
function cookieOptions(req: FastifyRequest) {
  return { ...COOKIE, secure: req.protocol === 'https' };
}

/**
 * Writes the session cookie's Set-Cookie header. Not `reply.setCookie`: @fastify/cookie is pinned to 11.1.0
 * (11.1.1+ needs `cookie` 2, Node >= 22), which registered with `hook: false` never writes what `setCookie`
 * queued (the writer is an onSend hook added only with a parsing hook; 11.1.5 adds it always). The plugin's
 * `serializeCookie` is the same in both versions.
 */
function writeSessionCookie(
  req: FastifyRequest,
  reply: FastifyReply,
  value: string,
  options: ReturnType<typeof cookieOptions> & { maxAge: number; expires?: Date },
): void {
  reply.header('set-cookie', req.server.serializeCookie(SESSION_COOKIE, value, options));
}

/** The answer of POST and GET /admin/session: the session's CSRF token and its end (C71). */
function sessionBody(s: AdminSession) {
  return { csrf_token: s.csrfToken, expires_at: Math.floor(s.expiresAt / 1000) };
}

/** Cookie login of the admin API (C64), its CSRF token and login throttling (C71, C115). */
export function adminSessionHandlers(ctx: ServerContext) {
  return {
    'admin/session/create': async (
      req: FastifyRequest,
      reply: FastifyReply,
      { body }: Checked<'admin/session/create'>,
    ) => {
      // C71, C115: a throttled address was answered 429 by the gate (x-login-throttle), before its body was
      // read. Asked again here, in the same step as the failure is counted: logins sent at once all passed
      // the gate before any of them was counted, and only the allowance of them may be tried.
      const client = req.ip;
      const throttled = ctx.authThrottle.refusal(client);
      if (throttled !== undefined) throw throttled;
      const who = ctx.directory.authenticate(`Bearer ${body.token}`);
      if (typeof who === 'string' || who.kind !== 'admin') {
        ctx.authThrottle.failed(client);
        throw requestError('admin_session_token_invalid', 'body.token', {});
      }
      const { id, session } = ctx.sessions.create();
      writeSessionCookie(req, reply, id, { ...cookieOptions(req), maxAge: SESSION_MAX_AGE_SECONDS });
      return sessionBody(session);
    },

    'admin/session/get': async (req: FastifyRequest) => {
      const session = ctx.sessions.get(sessionCookie(req));
      if (!session) throw requestError('admin_session_missing', `cookies.${SESSION_COOKIE}`, {});
      return sessionBody(session);
    },

    'admin/session/delete': async (
      req: FastifyRequest,
      reply: FastifyReply,
      { caller: auth }: Checked<'admin/session/delete'>,
    ) => {
      // Only a session whose call passed the checks of C71 (or the admin token) is ended.
      if (auth !== null && typeof auth === 'object' && auth.kind === 'admin')
        ctx.sessions.delete(sessionCookie(req));
      writeSessionCookie(req, reply, '', { ...cookieOptions(req), maxAge: 0, expires: new Date(0) });
      return reply.code(204).send();
    },
  };
}
