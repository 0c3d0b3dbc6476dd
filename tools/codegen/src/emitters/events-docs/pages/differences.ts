import { blocks, code, link, table } from '../../../kit/md.js';
import type { DocsContext } from '../context.js';
import { fieldType } from '../rules.js';
import { decisionLink } from './decisions.js';
import type { Page } from './page.js';

export const differencesPage: Page = {
  slug: 'differences',
  title: 'Differences from Pinterest',
  summary:
    "Every known divergence from Pinterest's public API, with the reason for each, and the fields taken from that API that the seed does not list.",
  body(ctx: DocsContext) {
    const { ir } = ctx;
    const rows: string[][] = [];
    for (const sec of ctx.sections)
      for (const f of sec.schema.fields)
        if (f.source === 'pinterest' || sec.schema.source === 'pinterest')
          rows.push([code(`${sec.prefix}${f.name}`), fieldType(f), f.description]);
    const objects = ir.schemas.filter((s) => s.source === 'pinterest').map((s) => code(s.name));
    return blocks(
      `This service mirrors Pinterest's Conversions API (${code('POST /v5/ad_accounts/{id}/events')}). The seed is the contract; where it is silent a decision record settles the question (${link('Decisions', 'decisions')}), and Pinterest's public API fills what is left. Where this service behaves differently from Pinterest, the table says how and why.`,
      table(
        ['Situation', 'Pinterest', 'This service', 'Why', 'Decisions'],
        ir.differences.map((d) => [
          d.topic,
          `${d.pinterest}<br>Seen in: ${d.evidence}`,
          d.service,
          d.reason,
          d.decisions.map((id) => decisionLink(id)).join(', '),
        ]),
      ),
      '## Fields not in the seed',
      `Taken from Pinterest's public API so that senders written for it keep working (${decisionLink('C17')})${objects.length ? `; whole objects: ${objects.join(', ')}` : ''}. They follow the same rules as every other field (${link('Fields', 'fields')}).`,
      table(['Field', 'Type', 'Meaning'], rows),
    );
  },
};
