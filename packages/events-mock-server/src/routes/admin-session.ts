import type { FastifyReply, FastifyRequest } from 'fastify';
import { SESSION_COOKIE, SESSION_MAX_AGE_SECONDS } from '../auth/sessions.js';
import { RequestProblems, requestError } from '../core/request-error.js';
import { checkAdminSessionRequest } from '../generated/request-checks.gen.js';
import { parseJsonBody, requireJson } from '../http/body.js';
import type { ServerContext } from '../http/context.js';

const COOKIE = { httpOnly: true, sameSite: 'strict', path: '/' } as const;

/** Cookie login of the admin API (C64). */
export function adminSessionHandlers(ctx: ServerContext) {
  return {
    'admin/session/create': async (req: FastifyRequest, reply: FastifyReply) => {
      requireJson(req);
      const problems = new RequestProblems();
      const body = checkAdminSessionRequest(parseJsonBody(req), problems);
      problems.throwIfAny();
      const who = ctx.directory.authenticate(`Bearer ${body?.token ?? ''}`);
      if (typeof who === 'string' || who.kind !== 'admin')
        throw requestError('admin_session_token_invalid', 'body.token', {});
      reply.setCookie(SESSION_COOKIE, ctx.sessions.create(), { ...COOKIE, maxAge: SESSION_MAX_AGE_SECONDS });
      return reply.code(204).send();
    },

    'admin/session/delete': async (req: FastifyRequest, reply: FastifyReply) => {
      ctx.sessions.delete(req.cookies[SESSION_COOKIE]);
      reply.clearCookie(SESSION_COOKIE, COOKIE);
      return reply.code(204).send();
    },
  };
}
