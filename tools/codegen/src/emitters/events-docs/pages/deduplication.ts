import { blocks, code, duration, limitText, link, list, table } from '../../../kit/md.js';
import type { DocsContext } from '../context.js';
import type { Page } from './page.js';

export const deduplicationPage: Page = {
  slug: 'deduplication',
  title: 'Deduplication',
  summary: "How event_id deduplicates events against earlier ones and the service's own tracking (C6).",
  body(ctx: DocsContext) {
    const rule = ctx.requestSchema.rules.find((r) => r.kind === 'dedup');
    const m = ctx.message('duplicate_event');
    const tag = ctx.ir.operations.find((o) => o.path.includes('tag_events'));
    if (rule?.kind !== 'dedup') return blocks('This version of the spec has no deduplication rule.');
    return blocks(
      `${code('event_id')} deduplicates events sent through this interface against each other and against events collected by the service's own tracking (seed 1, C6).`,
      list([
        `Key: (ad account, ${rule.key.map(code).join(', ')}).`,
        `Window: ${duration(rule.window.value)} (${limitText(rule.window)} s).`,
        'Across API events of earlier requests, events earlier in the same batch, and tag events'.concat(
          tag
            ? ` (recorded with ${code(`${tag.method.toUpperCase()} ${tag.path}`)}, which stands in for the tag)`
            : '',
          '.',
        ),
        "A duplicate is `processed` with a warning that names the earlier event's time, and is stored once.",
        `Test requests never change deduplication state (${link('Test mode', 'test-mode')}).`,
        'Use an identifier tied to the action, such as the order or transaction ID, and send the same one from the tag and from the API.',
      ]),
      '## The warning',
      table(
        ['Code', 'Severity', 'Template'],
        [[`[${code(m.code)}](event-errors.md#${m.code})`, `**${m.severity}**`, code(m.template)]],
      ),
    );
  },
};
