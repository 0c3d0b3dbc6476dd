import type { DecisionIR } from '../../../ir/types.js';
import { blocks, code, table } from '../../../kit/md.js';
import type { DocsContext } from '../context.js';
import type { Page } from './page.js';

/** A link to a record on the decisions page, from any page (`[C6](decisions.md#C6)`). */
export function decisionLink(id: string, page = 'decisions.md'): string {
  return `[${id}](${page}#${id})`;
}

/** Turns each decision id in a text that has a record into a link to it; other text is left as it is. */
export function linkDecisionIds(text: string, ids: ReadonlySet<string>): string {
  return text.replace(/\bC\d{1,3}\b/g, (id) => (ids.has(id) ? decisionLink(id) : id));
}

function record(d: DecisionIR): string {
  const status =
    d.status === 'superseded' && d.supersededBy
      ? `**superseded** by ${decisionLink(d.supersededBy, '')}`
      : `**${d.status}**`;
  return blocks(
    `## <a id="${d.id}"></a>${d.id} ${d.title}`,
    [
      `Status: ${status}, ${d.date}.`,
      d.seed.length ? `Seed sections: ${d.seed.join(', ')}.` : 'Seed sections: none (the seed is silent).',
      `Source: ${d.source}.`,
      `Record: ${code(d.file)}.`,
    ].join('<br>'),
    '### Decision',
    d.decision,
    '### Reason',
    d.reason,
  ).trimEnd();
}

export const decisionsPage: Page = {
  slug: 'decisions',
  title: 'Decisions',
  summary:
    'Why the service behaves as it does where the seed is silent: every decision record (C1, C2, ...) with its statement, reason and source.',
  body(ctx: DocsContext) {
    const { decisions } = ctx.ir;
    if (decisions.length === 0) return blocks('This version of the spec has no decision records.');
    return blocks(
      `The seed describes the service; where it is silent or unclear, a decision record settles the question. Code, tests and these pages cite records by id (C1, C2, ...); each record lives in ${code('spec/decisions/')} and ${code('pnpm gen')} fails when something cites an id that has no record.`,
      table(
        ['Id', 'Decision', 'Status', 'Seed sections'],
        decisions.map((d) => [decisionLink(d.id, ''), d.title, d.status, d.seed.join(', ')]),
      ),
      ...decisions.map(record),
    );
  },
};
