import type { RateLimitWindowIR } from '../../../ir/types.js';
import { blocks, code, duration, fence, json, link, list, num, table } from '../../../kit/md.js';
import type { DocsContext } from '../context.js';
import { dig } from '../examples.js';
import type { Page } from './page.js';

export function windowText(w: RateLimitWindowIR): string {
  const per = w.window === 1 ? 'second' : duration(w.window).replace(/^1 /, '');
  return `${num(w.limit)} per ${per} per ${w.per.map((p) => p.replace(/_/g, ' ')).join(' per ')}`;
}

export function headerValue(w: RateLimitWindowIR): string {
  return `${w.limit}, ${w.limit};w=${w.window}`;
}

export const rateLimitsPage: Page = {
  slug: 'rate-limits',
  title: 'Rate limits',
  summary:
    'Every rate-limit table of seed 8, which apply to which token, the x-ratelimit headers and what a 429 looks like (C9).',
  body(ctx: DocsContext) {
    const rl = ctx.ir.rateLimits;
    const h = rl.headers;
    const err = ctx.ir.requestErrors.find((e) => e.status === 429);
    const spent = ctx.ir.requestProblems.find((p) => p.error === err?.key);
    const events = ctx.eventsOp.rateLimitCategory;
    const cat = rl.categories.find((c) => c.name === events);
    // Every header the service defines (components.headers), under its name (x-name).
    const headers = (dig(ctx.ir, 'components', 'headers') ?? {}) as Record<
      string,
      { description?: string; example?: unknown; 'x-name'?: string }
    >;
    const headerRows: string[][] = Object.values(headers).map((target) => [
      code(String(target['x-name'])),
      target.description ?? '',
      target.example !== undefined ? code(String(target.example)) : '',
    ]);
    // The 429 example: the test-request limit, the one a sender meets first (C7). Its name in messages is the
    // spec key in snake case, as the server names limits after the spec.
    const example = rl.testRequests;
    const exampleName = 'testRequests'.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
    const retry = example.window;
    return blocks(
      `Limits depend on the token kind and the app's access tier (trial or standard), seed 5 rule 4 and seed 8. No window ever admits more than its limit, not even across a window edge (C9). All limits may change without notice (seed 8 rule 4).`,
      '## Which limits apply',
      list([
        `**Conversion token**: ${rl.conversionToken.description}`,
        `**OAuth token**: the ${code(events ?? '')} category of the events endpoint (per ad account per app) and the universal limit (per app, or per user per app).`,
        `**Test requests** (${link('Test mode', 'test-mode')}): ${rl.testRequests.description}`,
        'Every endpoint belongs to one category (seed 8 rule 1); the endpoints of this service are listed with their category on '.concat(
          link('The events endpoint', 'endpoint', 'every-endpoint-of-the-service'),
          '.',
        ),
      ]),
      '## Universal limits',
      rl.universal.description,
      table(
        ['Access tier', 'Limit', 'Header value'],
        [
          ['Trial', windowText(rl.universal.trial), code(headerValue(rl.universal.trial))],
          ['Standard', windowText(rl.universal.standard), code(headerValue(rl.universal.standard))],
        ],
      ),
      '## Test requests',
      table(['Limit', 'Header value'], [[windowText(rl.testRequests), code(headerValue(rl.testRequests))]]),
      '## Categories',
      'Trial: requests per day per app unless noted; Standard: requests per minute per user per app unless noted (seed 8).',
      table(
        ['Category', 'Scope', 'Trial', 'Standard', 'Endpoints here'],
        rl.categories.map((c) => {
          const ops = ctx.operations.filter((o) => o.rateLimitCategory === c.name);
          return [
            code(c.name),
            c.scope,
            windowText(c.trial),
            windowText(c.standard),
            ops.map((o) => code(`${o.method.toUpperCase()} ${o.path}`)).join(', ') ||
              'none (other parts of the wider API)',
          ];
        }),
      ),
      '## Headers',
      `Every response carries ${code(h.limit)}, ${code(h.remaining)} and ${code(h.reset)} for the tightest limit that applies; a 429 adds ${code(h.retryAfter)} (seed 8 rule 3, C9).`,
      table(['Header', 'Meaning', 'Example'], headerRows),
      `### Reading ${code(h.limit)}`,
      `The value is ${code('N, N;w=SECONDS')}: the limit, then the limit with its window in seconds. ${code(headerValue(rl.universal.standard))} means ${windowText(rl.universal.standard)}; ${cat ? `${code(headerValue(cat.standard))} means ${windowText(cat.standard)}.` : ''} When ${code(h.remaining)} reaches 0, wait ${code(h.reset)} seconds.`,
      err ? '## What a 429 looks like' : '',
      err
        ? blocks(
            `For example, a test request over the limit of its app (${windowText(example)}, ${link('Test mode', 'test-mode')}):`,
            fence(
              'http',
              [
                `HTTP/1.1 ${err.status} Too Many Requests`,
                'content-type: application/json; charset=utf-8',
                `${h.retryAfter.toLowerCase()}: ${retry}`,
                `${h.limit}: ${headerValue(example)}`,
                `${h.remaining}: 0`,
                `${h.reset}: ${retry}`,
              ].join('\n'),
            ),
            json({
              code: err.code,
              message: err.message,
              details: spent
                ? [
                    {
                      path: `ratelimit.${exampleName}`,
                      problem: spent.template
                        .replace('{name}', exampleName)
                        .replace('{limit}', String(example.limit))
                        .replace('{window}', String(example.window))
                        .replace('{retryAfter}', String(retry)),
                    },
                  ]
                : [],
            }),
            `Fix: ${err.fix}`,
          )
        : '',
    );
  },
};
