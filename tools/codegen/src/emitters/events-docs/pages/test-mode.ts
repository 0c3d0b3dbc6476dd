import { blocks, code, link, list, table } from '../../../kit/md.js';
import type { DocsContext } from '../context.js';
import { fill } from '../examples.js';
import { paramRows } from './endpoint.js';
import type { Page } from './page.js';
import { headerValue, windowText } from './rate-limits.js';

export const testModePage: Page = {
  slug: 'test-mode',
  title: 'Test mode',
  summary:
    'Validating a batch without storing it: test=true (or is_test=true), what it does and its rate limit (C7).',
  body(ctx: DocsContext) {
    const params = ctx.eventsOp.parameters.filter((p) => p.in === 'query');
    const t = ctx.ir.rateLimits.testRequests;
    const bad = ctx.ir.requestProblems.find((p) => p.key === 'invalid_query_value');
    const op = ctx.eventsOp;
    return blocks(
      'Test mode lets a sender check a batch against every rule without storing anything (seed 1, seed 4.1 rule 3).',
      table(['Name', 'In', 'Required', 'Type', 'Description'], paramRows(params)),
      list([
        `Send ${params.map((p) => code(`${p.name}=true`)).join(' or ')}: ${code(`${op.method.toUpperCase()} ${op.path}?${params[0]?.name ?? 'test'}=true`)}.`,
        'Every rule runs and the same response comes back as without test mode: the same statuses, counts and messages (C7).',
        'Nothing is stored, and no deduplication state changes: sending the same batch for real afterwards is not a duplicate (C7, '.concat(
          link('Deduplication', 'deduplication'),
          ').',
        ),
        `Only ${code('true')} and ${code('false')} are accepted; any other value answers 400${bad ? ` with the problem ${code(fill(bad.template, { allowed: (params[0]?.enum ?? []).join(' or ') }))}` : ''} (C1).`,
        `Test requests are limited to ${windowText(t)} (${code(headerValue(t))}), answered 429 beyond that; ${t.description.replace(/^[^;]*;\s*/, '').replace(/\.$/, '')} (seed 8, ${link('Rate limits', 'rate-limits')}).`,
      ]),
    );
  },
};
