import { dataAt, specAt } from '../../../emit/spec-at.js';
import type { OperationIR, SecuritySchemeIR } from '../../../ir/types.js';
import type { DocsContext } from '../context.js';
import { blocks, code, duration, link, list, num, table, words } from '../md.js';
import type { Page } from './page.js';

/** `POST /admin/reset`. */
function opName(o: OperationIR): string {
  return code(`${o.method.toUpperCase()} ${o.path}`);
}

/**
 * The protections of the admin API (C64, C69, C71), from the spec: the admin schemes and which operations
 * take them, the CSRF header, the limits of sessions and login throttling, and the refusals' problems.
 * Sections on other subjects can be added beside these, each from spec data.
 */
export const securityPage: Page = {
  slug: 'security',
  title: 'Security',
  summary:
    'How the admin API is protected: admin token or session cookie, CSRF (Origin and token), login throttling, Secure cookie behind trusted proxies, SameSite, session lifetime (C64, C71).',
  body(ctx: DocsContext) {
    const { ir } = ctx;
    const apiKey = (where: string) =>
      ir.securitySchemes.find((s) => s.type === 'apiKey' && s.parameter?.in === where);
    const session = apiKey('cookie');
    const csrf = apiKey('header');
    if (!session || !csrf) return specAt(ir, 'components.securitySchemes').fail('security-schemes');
    const sessionOps = ctx.operations.filter((o) => o.security.some((a) => a.scheme === session.name));
    // The bearer scheme offered beside the session on the same operations: the admin token.
    const bearer = ir.securitySchemes.find(
      (s) =>
        s.type === 'http' &&
        sessionOps.length > 0 &&
        sessionOps.every((o) => o.security.some((a) => a.scheme === s.name)),
    );
    const guarded = ctx.operations.filter((o) =>
      o.security.some((a) => a.scheme === session.name && a.with?.includes(csrf.name)),
    );
    const reading = sessionOps.filter((o) => !guarded.includes(o));
    const problem = (key: string) => {
      const p = ir.requestProblems.find((x) => x.key === key);
      const e = p && ir.requestErrors.find((x) => x.key === p.error);
      if (!p || !e)
        return dataAt(ir, 'requestErrors', 'problems').fail('needed-by-emitter', {
          emitter: 'events-docs',
          what: 'the request problem',
          name: key,
        });
      return [code(key), code(String(e.status)), code(p.template)];
    };
    const problemsOf = (prefix: string) =>
      ir.requestProblems.filter((p) => p.key.startsWith(prefix)).map((p) => problem(p.key));
    const lim = (key: string) => ctx.limit(key);
    const maxAge = lim('admin_session_max_age_seconds');
    const window = lim('admin_login_window_seconds');
    const perClient = lim('admin_login_failures_per_client_max');
    const overall = lim('admin_login_failures_max');
    const scheme = (s: SecuritySchemeIR) =>
      `${code(s.name)} (${s.parameter ? `${s.parameter.in} ${code(s.parameter.name)}` : `${s.type} ${s.scheme ?? ''}`.trim()})`;
    return blocks(
      `The events API takes bearer tokens only (${link('Authentication', 'authentication')}). The admin API (${code('/admin/*')}, C12) takes the admin token, or a session cookie obtained with it for browsers (C64); this page lists what protects it. Every refusal is in the service's error format (${link('Request errors', 'request-errors')}).`,
      '## Admin token or session cookie',
      table(
        ['Scheme', 'What it is'],
        [bearer, session, csrf]
          .filter((s): s is SecuritySchemeIR => s !== undefined)
          .map((s) => [scheme(s), s.description]),
      ),
      list([
        `${bearer ? code(bearer.name) : 'The admin token'}, sent as ${code('Authorization: Bearer <admin token>')}, is for scripts: a browser never attaches it by itself, so no other site can make a browser send it. It needs no CSRF token and no ${code('Origin')} (C71).`,
        `${code(session.name)} is set by ${code('POST /admin/session')} in exchange for the admin token (C64): an opaque random id, ${code('HttpOnly')}, ${code('SameSite=Strict')}, ${code('Path=/')}, kept in the server's memory for ${duration(maxAge.value)} (${code(maxAge.key)}); a restart ends every session, and ${code('DELETE /admin/session')} ends one. When both are sent, the ${code('Authorization')} header is what counts.`,
        `${code('SameSite=Strict')} keeps the cookie off requests from other *sites*, but a page on another port of the same host is the same site: the checks below are what stop it (C71).`,
      ]),
      '## CSRF: the origin and a token',
      `A state-changing admin call made with the session cookie needs both the server's own origin and the session's CSRF token in the ${code(csrf.parameter?.name ?? csrf.name)} header; otherwise it is answered 403 and nothing changes (C71). The token is answered by ${code('POST /admin/session')} and ${code('GET /admin/session')} (${code('csrf_token')}), bound to the session and ended with it; another origin cannot read those answers.`,
      `Operations that need it with the cookie: ${words(guarded.map(opName))}.`,
      `Operations that only read, which need the cookie alone: ${words(reading.map(opName))}.`,
      list([
        `${code('Origin')} must be the origin the server is reached at (the request's scheme and ${code('Host')}), or ${code('admin.public_origin')} of the config; ${code('Origin: null')} is foreign.`,
        `Without ${code('Origin')}, ${code('Sec-Fetch-Site: same-origin')} passes and any other value is foreign; without both, a ${code('Referer')} of the server's origin passes; with none of them the call is refused.`,
        `The token is compared in constant time with the one of the cookie's session.`,
      ]),
      table(['Problem', 'Status', 'Detail'], problemsOf('csrf_')),
      '## Login throttling',
      `Wrong tokens sent to ${code('POST /admin/session')} are counted over ${duration(window.value)} (${code(window.key)}): ${num(perClient.value)} per client address (${code(perClient.key)}) and ${num(overall.value)} from all clients together (${code(overall.key)}). Once either is spent, every login of that address (or every login) is answered 429 with ${code('Retry-After')}, even with the right token, so the throttle cannot be used to test guesses (C71). Throttled attempts are not counted again; a successful login neither counts nor clears earlier failures. The counters live in each server process's memory. The config's ${code('admin:')} section can change each limit.`,
      table(['Problem', 'Status', 'Detail'], [problem('admin_login_throttled')]),
      '## Secure cookie and trusted proxies',
      list([
        `The session cookie carries ${code('Secure')} when the request came over TLS, or through a proxy listed in the config's ${code('server.trusted_proxies')} (addresses or CIDR ranges) that sends ${code('X-Forwarded-Proto: https')} (C71).`,
        `${code('X-Forwarded-Proto')}, ${code('X-Forwarded-For')} and ${code('X-Forwarded-Host')} from any other peer are ignored: a client cannot claim HTTPS or another address. The same list gives the login throttle the client's real address.`,
      ]),
      '## The inspector page',
      `The inspector (${code('/inspector/')}, C69) signs in with the admin token once, keeps the CSRF token in memory only and sends it on each of its state-changing calls; its files carry a Content-Security-Policy without other hosts, ${code('X-Frame-Options: DENY')} and ${code('Referrer-Policy: no-referrer')}.`,
    );
  },
};
