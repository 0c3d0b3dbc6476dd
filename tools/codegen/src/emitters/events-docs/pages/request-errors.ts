import { blocks, code, json, link, table } from '../../../kit/md.js';
import type { DocsContext } from '../context.js';
import { dig } from '../examples.js';
import { schemaTable } from './endpoint.js';
import type { Page } from './page.js';

export const requestErrorsPage: Page = {
  slug: 'request-errors',
  title: 'Request errors',
  summary:
    'The request-level outcomes of C2, in the order they are checked: status, code, message, when, how to fix.',
  body(ctx: DocsContext) {
    const { ir } = ctx;
    const responses = (dig(ir, 'components', 'responses') ?? {}) as Record<
      string,
      { description?: string; content?: Record<string, { examples?: Record<string, { value?: unknown }> }> }
    >;
    // Named examples, each checked against the server (C33).
    const examples = Object.entries(responses).flatMap(([name, r]) =>
      Object.values(r.content?.['application/json']?.examples ?? {})
        .filter((x) => x.value !== undefined)
        .map((x) => ({ name, description: r.description ?? '', example: x.value })),
    );
    return blocks(
      `A request that cannot be taken as a batch is answered with an error status and no per-event results. The checks run in the order below and the first that applies answers (C2); a request that passes them all answers 200 with one result per event, even when every event failed (C3, ${link('Per-event errors', 'event-errors')}).`,
      '## Body',
      table(['Field', 'Type', 'Always present', 'Meaning'], schemaTable(ctx, 'ErrorBody')),
      "Unlike Pinterest's opaque bodies, `details` says exactly what is wrong and what to send.",
      '## Outcomes, in the order they are checked',
      table(
        ['#', 'Status', 'Code', 'Message', 'When', 'How to fix'],
        ir.requestErrors.map((e, i) => [
          String(i + 1),
          `<a id="${e.key}"></a>${code(String(e.status))}`,
          code(String(e.code)),
          e.message,
          e.when,
          e.fix,
        ]),
      ),
      ...certainty(ctx),
      '## Problems named in `details`',
      'Each detail is `{ "path", "problem" }`; the problem is one of these templates, with `{parameters}` filled in.',
      table(
        ['Problem', 'Status', 'Template'],
        ir.requestProblems.map((p) => {
          const e = ir.requestErrors.find((x) => x.key === p.error);
          return [code(p.key), e ? `[${e.status}](#${e.key})` : p.error, code(p.template)];
        }),
      ),
      examples.length ? '## Examples from the spec' : '',
      ...examples.flatMap((x) => [`**${x.description}**`, json(x.example)]),
    );
  },
};

/**
 * The 503 rows side by side (C74): their code and message say whether the request may have been stored, and
 * the problems under each say which failures answer it.
 */
function certainty(ctx: DocsContext): string[] {
  const rows = ctx.ir.requestErrors.filter((e) => e.status === 503);
  if (rows.length < 2) return [];
  return [
    '## Which 503 answers are certain',
    `Every 503 carries Retry-After. Its code says whether the request may have been stored (C74): retry with the same event_ids in every case, and events that were stored come back as duplicates (C6, ${link('Per-event errors', 'event-errors')}).`,
    table(
      ['Code', 'Message', 'Answered for'],
      rows.map((e) => [
        `[${code(String(e.code))}](#${e.key})`,
        e.message,
        ctx.ir.requestProblems
          .filter((p) => p.error === e.key)
          .map((p) => code(p.key))
          .join(', '),
      ]),
    ),
  ];
}
