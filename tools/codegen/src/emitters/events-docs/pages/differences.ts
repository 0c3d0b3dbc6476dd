import type { DocsContext } from '../context.js';
import { blocks, code, link, table } from '../md.js';
import { fieldType } from '../rules.js';
import type { Page } from './page.js';

export const differencesPage: Page = {
  slug: 'differences',
  title: 'Where this service differs from Pinterest',
  summary:
    "The choices this service made where Pinterest's public API behaves differently, and the fields taken from it that the seed does not list.",
  body(ctx: DocsContext) {
    const { ir } = ctx;
    const unknownEvent = ctx.message('unknown_field');
    const unknownUser = ctx.message('unknown_field_dropped');
    const rows: string[][] = [];
    for (const sec of ctx.sections)
      for (const f of sec.schema.fields)
        if (f.source === 'pinterest' || sec.schema.source === 'pinterest')
          rows.push([code(`${sec.prefix}${f.name}`), fieldType(f), f.description]);
    const objects = ir.schemas.filter((s) => s.source === 'pinterest').map((s) => code(s.name));
    return blocks(
      "This service mirrors Pinterest's Conversions API (`POST /v5/ad_accounts/{id}/events`). Where the seed is silent, CONTRACT.md decides (C1-C12), then Pinterest's public API. Where the two differ, this service chose to be more precise:",
      table(
        ['Situation', 'Pinterest', 'This service', 'Decision'],
        [
          [
            'Every event of a well-formed batch failed',
            '422',
            '200 with the per-event results and `num_events_processed` 0 (seed 7.1)',
            'C3',
          ],
          [
            'Unknown key on an event, in `custom_data` or in a `contents` item',
            'the whole request is rejected',
            `only that event fails, naming the key: ${code(unknownEvent.template)} (an unknown key in ${code('user_data')}, such as ${code('fn')}, which seed 2.4 says is not a field, is only dropped with a warning: ${code(unknownUser.template)})`,
            'C4',
          ],
          [
            'Request-level error bodies',
            'opaque `code` and `message`',
            `the same codes and messages, plus ${code('details')}: [{ path, problem }] (${link('Request errors', 'request-errors')})`,
            'C2',
          ],
        ],
      ),
      '## Fields not in the seed',
      `Taken from Pinterest's public API so that senders written for it keep working${objects.length ? `; whole objects: ${objects.join(', ')}` : ''}. They follow the same rules as every other field (${link('Fields', 'fields')}).`,
      table(['Field', 'Type', 'Meaning'], rows),
    );
  },
};
