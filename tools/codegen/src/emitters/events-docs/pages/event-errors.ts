import { blocks, code, duration, link, list, num, table } from '../../../kit/md.js';
import type { DocsContext } from '../context.js';
import { ruleCodes } from '../rules.js';
import type { Page } from './page.js';

/** Field paths (and object names) whose rules can answer with each code. */
function emitters(ctx: DocsContext): Map<string, string[]> {
  const out = new Map<string, string[]>();
  const add = (c: string, where: string) => {
    const l = out.get(c) ?? [];
    if (!l.includes(where)) l.push(where);
    out.set(c, l);
  };
  const all = [...ctx.sections, { schema: ctx.requestSchema, prefix: '' }];
  for (const sec of all) {
    for (const r of sec.schema.rules)
      for (const m of ruleCodes(r, ctx))
        add(m.code, sec.prefix ? code(sec.prefix.replace(/\.$/, '')) : 'the event');
    for (const f of sec.schema.fields)
      for (const r of [...f.rules, ...f.itemRules])
        for (const m of ruleCodes(r, ctx)) add(m.code, code(`${sec.prefix}${f.name}`));
  }
  return out;
}

export const eventErrorsPage: Page = {
  slug: 'event-errors',
  title: 'Per-event errors and warnings',
  summary:
    'The stable per-event codes: severity, exact message template, what each means and which fields raise it (C3, C4).',
  body(ctx: DocsContext) {
    const { ir } = ctx;
    const where = emitters(ctx);
    const max = ir.limits.find((l) => l.key === 'messages_max_per_event');
    const cut = ir.limits.find((l) => l.key === 'received_value_max_chars');
    const dedup = ctx.requestSchema.rules.find((r) => r.kind === 'dedup');
    return blocks(
      'Each event of a well-formed request gets one result, in request order (seed 4.1 rule 2): `status` is `processed` or `failed`, `error_message` says why it failed and `warning_message` what was dropped or is missing; both are `null` when empty (seed 2.7, C3).',
      list(
        [
          '**failed**: the event is not stored and not counted in `num_events_processed`. The other events of the batch are not affected (seed 4.1 rule 1).',
          '**warning**: the event is processed; the offending value is dropped and never stored.',
          `Several problems of one severity are joined with ${code(ir.messageJoin.separator)} in one message${max ? `, at most ${num(max.value)} per event (${link(code(max.key), 'limits', max.key)}); past that, ${code(ir.messageJoin.overflow)} says how many were left out` : ''}.`,
          `Messages name the field path (such as ${code('custom_data.value')}), what was received and what to send. Received values are quoted as JSON${cut ? `, cut to ${num(cut.value)} characters` : ''}; hashed fields are never quoted back.`,
          `Templates: ${code('{name}')} is a parameter, ${code('[[ ... ]]')} is kept only when every parameter inside it is known.`,
          dedup && dedup.kind === 'dedup'
            ? `Duplicates within ${duration(dedup.window.value)} are a warning too (${link('Deduplication', 'deduplication')}).`
            : '',
        ].filter(Boolean),
      ),
      '## Codes',
      table(
        ['Code', 'Severity', 'Message template', 'Meaning', 'Raised by'],
        ir.messages.map((m) => [
          `<a id="${m.code}"></a>${code(m.code)}`,
          `**${m.severity}**`,
          code(m.template) +
            (m.reasons
              ? `<br>${m.reasons.map((x) => `${code('{reason}')} ${code(x.key)}: ${code(x.template)}`).join('<br>')}`
              : ''),
          m.description,
          (where.get(m.code) ?? []).join(', ') || 'no field of this version',
        ]),
      ),
      '## Parameters of the templates',
      table(
        ['Code', 'Parameters'],
        ir.messages.map((m) => [code(m.code), m.params.map(code).join(', ')]),
      ),
      `Request-level failures (no per-event results) are on ${link('Request errors', 'request-errors')}.`,
    );
  },
};
