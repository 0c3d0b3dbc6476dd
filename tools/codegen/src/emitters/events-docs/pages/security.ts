import type { OperationIR, SecuritySchemeIR } from '../../../ir/types.js';
import { blocks, code, duration, link, list, num, table, words } from '../../../kit/md.js';
import { dataAt, specAt } from '../../../kit/spec-at.js';
import type { DocsContext } from '../context.js';
import type { Page } from './page.js';

/** `POST /admin/reset`. */
function opName(o: OperationIR): string {
  return code(`${o.method.toUpperCase()} ${o.path}`);
}

/**
 * The protections of the admin API (C64, C69, C71, C115), from the spec: the admin schemes and which
 * operations take them, the CSRF header, the limits of sessions and of the throttle of failed admin
 * authentication, and the refusals' problems.
 * Sections on other subjects can be added beside these, each from spec data.
 */
export const securityPage: Page = {
  slug: 'security',
  title: 'Security',
  summary:
    'How the admin API is protected: admin token or session cookie, CSRF (Origin and token), throttling of failed admin authentication, Secure cookie behind trusted proxies, SameSite, session lifetime (C64, C71, C115).',
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
    const clientsMax = lim('admin_auth_clients_max');
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
      '## Throttling failed admin authentication',
      `Every failed admin authentication counts (C71, C115): a wrong token sent to ${code('POST /admin/session')}, and on every admin operation an ${code('Authorization')} header that is not the admin token (a token of the events API included) or a session cookie naming no live session. Calls without any credential, and the events API, are not counted. Failures are counted over ${duration(window.value)} (${code(window.key)}) per client address (an IPv6 address per /64) and for all clients together.`,
      list([
        `An address with ${num(perClient.value)} failures in the window (${code(perClient.key)}) is answered 429 with ${code('Retry-After')} on every admin operation and login, before its credentials are looked at: even the right token or a live session is refused, so the throttle cannot be used to test guesses.`,
        `Once all clients together have ${num(overall.value)} failures in the window (${code(overall.key)}), an address that failed at least once in the window is refused as well, so each new address gets one guess while the budget is spent; an address that has not failed in the window is always admitted, so no one can lock the operator out.`,
        `Throttled attempts are not counted again; a successful one neither counts nor clears earlier failures. The counters live in each server process's memory, for at most ${num(clientsMax.value)} addresses (${code(clientsMax.key)}); past that, the address that failed least recently is forgotten. The config's ${code('admin:')} section can change the window and both budgets.`,
      ]),
      table(['Problem', 'Status', 'Detail'], problemsOf('admin_auth_throttled')),
      '## Secure cookie and trusted proxies',
      list([
        `The session cookie carries ${code('Secure')} when the request came over TLS, or through a proxy listed in the config's ${code('server.trusted_proxies')} (addresses or CIDR ranges) that sends ${code('X-Forwarded-Proto: https')} (C71).`,
        `${code('X-Forwarded-Proto')}, ${code('X-Forwarded-For')} and ${code('X-Forwarded-Host')} from any other peer are ignored: a client cannot claim HTTPS or another address. The same list gives the throttle of failed admin authentication the client's real address.`,
      ]),
      '## The inspector page',
      `The inspector (${code('/inspector/')}, C69) signs in with the admin token once, keeps the CSRF token in memory only and sends it on each of its state-changing calls; its files carry a Content-Security-Policy without other hosts, ${code('X-Frame-Options: DENY')} and ${code('Referrer-Policy: no-referrer')}.`,
    );
  },
};
