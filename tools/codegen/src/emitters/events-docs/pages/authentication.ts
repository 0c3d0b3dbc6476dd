import { blocks, code, link, list, table, words } from '../../../kit/md.js';
import type { DocsContext } from '../context.js';
import type { Page } from './page.js';

export const authenticationPage: Page = {
  slug: 'authentication',
  title: 'Authentication',
  summary: 'The token kinds, the scopes, and which endpoints each token reaches (seed 5, C8).',
  body(ctx: DocsContext) {
    const { ir } = ctx;
    const schemes = ir.securitySchemes;
    const reaches = (scheme: string) =>
      ctx.operations.filter((o) => o.security.some((s) => s.scheme === scheme || s.with?.includes(scheme)));
    const scoped = schemes.filter((s) => Object.keys(s.scopes).length);
    const header = `${code('Authorization: Bearer <token>')}`;
    return blocks(
      `Every request carries a bearer token in the ${header} header (seed 5 rule 1). A missing, malformed, unknown or revoked token answers 401; a valid token that may not reach the resource answers 403 or 404 (${link('Request errors', 'request-errors')}, C2).`,
      '## Token kinds',
      table(
        ['Scheme', 'Type', 'What it is'],
        schemes.map((s) => [code(s.name), s.scheme ? `${s.type} (${s.scheme})` : s.type, s.description]),
      ),
      ...scoped.flatMap((s) => [
        `### Scopes of ${code(s.name)}`,
        table(
          ['Scope', 'Grants'],
          Object.entries(s.scopes).map(([k, v]) => [code(k), v]),
        ),
      ]),
      '## Which endpoints each token reaches',
      'From the `security` of every operation of the spec: a token reaches an endpoint when its scheme is one of the alternatives listed there, with the scopes named; an alternative of two schemes needs both together (the admin session cookie with its CSRF header, C71). See also the '.concat(
        link('Security', 'security'),
        ' page.',
      ),
      table(
        ['Endpoint', ...schemes.map((s) => code(s.name))],
        ctx.operations.map((o) => [
          `${code(`${o.method.toUpperCase()} ${o.path}`)}`,
          ...schemes.map((s) => {
            const alt = o.security.find((x) => x.scheme === s.name);
            // A scheme needed together with another one (C71: the session cookie and its CSRF header).
            const partOf = o.security.find((x) => x.with?.includes(s.name));
            if (partOf) return `with ${code(partOf.scheme)}`;
            if (!alt) return o.security.length ? 'no' : 'no token needed';
            const also = alt.with?.length ? `with ${words(alt.with.map(code))}` : '';
            const scopes = alt.scopes.length ? `with ${alt.scopes.map(code).join(', ')}` : '';
            return [scopes, also].filter(Boolean).length
              ? `yes, ${[scopes, also].filter(Boolean).join(' and ')}`
              : 'yes';
          }),
        ]),
      ),
      '## In short',
      list(
        schemes.map((s) => {
          const ops = reaches(s.name);
          return `${code(s.name)} reaches ${ops.length} endpoint${ops.length === 1 ? '' : 's'}: ${ops.map((o) => code(`${o.method.toUpperCase()} ${o.path}`)).join(', ') || 'none'}.`;
        }),
      ),
      `Rate limits depend on the token kind (seed 5 rule 4): see ${link('Rate limits', 'rate-limits')}. A conversion token is the recommended way to send events (seed 8 rule 2).`,
    );
  },
};
